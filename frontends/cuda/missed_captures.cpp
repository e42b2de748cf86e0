#include "frontends/cuda/missed_captures.h"

#include <algorithm>
#include <array>

namespace graphsafe::cuda {

namespace {

// Notices per file at most: a generated file with hundreds of skipped captures says so once.
constexpr std::size_t kMaxNotices = 20;
constexpr std::size_t kMaxQuoted = 100;

constexpr std::array<std::string_view, 5> kCaptureCalls = {
    "cudaStreamBeginCapture", "cudaStreamBeginCaptureToGraph", "cuStreamBeginCapture",
    "cuStreamBeginCapture_v2", "capture_begin"};

bool isIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The end of a preprocessor directive that starts at `at`: its line, with continuations.
std::size_t directiveEnd(std::string_view text, std::size_t at) {
  while (at < text.size()) {
    std::size_t newline = text.find('\n', at);
    if (newline == std::string_view::npos) return text.size();
    std::size_t last = newline;
    while (last > at && (text[last - 1] == '\r' || text[last - 1] == ' ')) --last;
    if (last == at || text[last - 1] != '\\') return newline;
    at = newline + 1;
  }
  return text.size();
}

// The identifier at `at` names a capture-begin call: a known name, then `(`.
bool captureCallAt(std::string_view text, std::size_t at, std::size_t& length) {
  for (std::string_view name : kCaptureCalls) {
    if (text.substr(at, name.size()) != name) continue;
    std::size_t after = at + name.size();
    if (after < text.size() && isIdentifierChar(text[after])) continue;
    while (after < text.size() && (text[after] == ' ' || text[after] == '\t')) ++after;
    if (after >= text.size() || text[after] != '(') continue;
    if (name == "capture_begin" && (at == 0 || (text[at - 1] != '.' && text[at - 1] != '>'))) {
      continue;  // torch's is a method: `graph.capture_begin(`, `graph->capture_begin(`
    }
    length = name.size();
    return true;
  }
  return false;
}

std::string quoted(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (out.size() >= kMaxQuoted) {
      out += "...";
      break;
    }
    if (c == '\t') c = ' ';
    if (c == '\r' || c == '\n' || c == '\\') continue;
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out.push_back(c);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// The nearest main-file error before `line`, else the first one: what broke the code around it.
const MainFileError* nearestError(const std::vector<MainFileError>& errors, std::int32_t line) {
  const MainFileError* nearest = nullptr;
  for (const MainFileError& error : errors) {
    if (error.line <= line && (nearest == nullptr || error.line >= nearest->line)) nearest = &error;
  }
  return nearest != nullptr ? nearest : (errors.empty() ? nullptr : &errors.front());
}

// `#if defined(__CUDA_ARCH__)`, `#ifdef __CUDA_ARCH__`, `#if __CUDA_ARCH__ >= 900`: a branch
// taken only when compiling for a GPU (not its negations).
bool forDevicePass(std::string_view directive) {
  if (directive.find("__CUDA_ARCH__") == std::string_view::npos) return false;
  if (directive.find("ifndef") != std::string_view::npos) return false;
  if (directive.find("else") != std::string_view::npos) return false;
  return directive.find("!defined") == std::string_view::npos &&
         directive.find("! defined") == std::string_view::npos;
}

}  // namespace

std::vector<std::uint32_t> writtenCaptureCalls(std::string_view text) {
  std::vector<std::uint32_t> calls;
  bool line_start = true;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '\n') {
      line_start = true;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (line_start && c == '#') {
      i = directiveEnd(text, i);
      continue;
    }
    line_start = false;
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == std::string_view::npos) break;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      std::size_t close = text.find("*/", i + 2);
      if (close == std::string_view::npos) break;
      i = close + 2;
      continue;
    }
    if (c == '"' || c == '\'') {
      std::size_t j = i + 1;
      while (j < text.size() && text[j] != c && text[j] != '\n') j += text[j] == '\\' ? 2 : 1;
      i = j + 1;
      continue;
    }
    if (isIdentifierChar(c)) {
      std::size_t length = 0;
      if ((i == 0 || !isIdentifierChar(text[i - 1])) && captureCallAt(text, i, length)) {
        calls.push_back(static_cast<std::uint32_t>(i));
        i += length;
        continue;
      }
      while (i < text.size() && isIdentifierChar(text[i])) ++i;
      continue;
    }
    ++i;
  }
  return calls;
}

std::vector<Notice> missedCaptureNotices(const SourceFile& source, const LoweredCode& lowered,
                                         const std::vector<SkippedBlock>& skipped,
                                         const std::vector<MainFileError>& errors) {
  std::vector<Notice> notices;
  const std::string_view text = source.text();
  for (std::uint32_t offset : writtenCaptureCalls(text)) {
    const bool found = std::any_of(
        lowered.regions.begin(), lowered.regions.end(),
        [&](const SourceRange& site) { return site.begin <= offset && offset < site.end; });
    if (found) continue;
    if (notices.size() >= kMaxNotices) break;
    const auto line = static_cast<std::int32_t>(source.pointAt(offset).line);
    std::size_t length = 0;
    captureCallAt(text, offset, length);
    const std::string call = "`" + std::string(text.substr(offset, length)) + "`";
    std::string message;
    for (const SkippedBlock& block : skipped) {
      if (!(block.begin <= offset && offset < block.end)) continue;
      std::size_t end = directiveEnd(text, block.begin);
      const std::string directive = quoted(text.substr(block.begin, end - block.begin));
      const std::string where =
          "`" + directive + "` (line " + std::to_string(source.pointAt(block.begin).line + 1) + ")";
      if (forDevicePass(directive)) {
        // Host code is parsed as nvcc's host pass sees it; what only the device pass compiles
        // runs on the GPU, where the capture API (host code) does not exist.
        message = "the capture begun here (" + call +
                  ") is in code only the device pass compiles: " + where +
                  " holds for GPU code only, and a capture is host code, so it never "
                  "runs";
      } else {
        message = "the capture begun here (" + call +
                  ") is in code the preprocessor skipped: " + where +
                  " is not taken with this file's flags, so it was not analyzed (-p names "
                  "the build's compile_commands.json, --extra-arg=-D... adds a definition)";
      }
      break;
    }
    if (message.empty()) {
      const bool in_function = std::any_of(
          lowered.functions.begin(), lowered.functions.end(),
          [&](const SourceRange& body) { return body.begin <= offset && offset < body.end; });
      message = "the capture begun here (" + call + ") was not analyzed: " +
                (in_function ? std::string("Clang could not resolve the call")
                             : std::string("the function or class around it did not parse"));
      if (const MainFileError* error = nearestError(errors, line)) {
        message +=
            " (line " + std::to_string(error->line + 1) + ": " + quoted(error->message) + ")";
      }
    }
    notices.push_back({source.path(), line, std::move(message)});
  }
  return notices;
}

}  // namespace graphsafe::cuda
