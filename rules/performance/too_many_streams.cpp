// GS604 too-many-streams: a capture that forks more than 32 streams, one per iteration of a loop
// whose length the code states (`for s in streams` over `[torch.cuda.Stream() for _ in
// range(64)]`, `for (int i = 0; i < 64; ++i) cudaStreamWaitEvent(side[i], fork, 0)`). PyTorch's
// pool hands out 32 streams per priority, so from the 33rd on `torch.cuda.Stream()` returns the
// first ones again; and the device runs streams over a bounded number of hardware queues
// (CUDA_DEVICE_MAX_CONNECTIONS, 32 at most before Blackwell): a replay serializes branches that
// were meant to run side by side. The fork must change with the loop (the loop's variable, or an
// element indexed by it); a fork of one stream in a loop is one stream.
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/engine/check.h"
#include "analyzer/program/program_model.h"

namespace graphsafe {

namespace {

constexpr std::int32_t kStreamLimit = 32;
constexpr std::string_view kConnections = "CUDA_DEVICE_MAX_CONNECTIONS";

bool isIdentifierChar(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// The names a loop binds, from its target as written ("i", "i, s", "(i, (s, e))").
std::vector<std::string> loopNames(std::string_view target) {
  std::vector<std::string> names;
  std::string current;
  for (char c : target) {
    if (isIdentifierChar(c)) {
      current += c;
    } else if (!current.empty()) {
      names.push_back(std::move(current));
      current.clear();
    }
  }
  if (!current.empty()) names.push_back(std::move(current));
  return names;
}

// Does the forked stream change with the loop: the loop variable itself, or an element it
// indexes (`streams[i]`, `self.side[i]`)? The C++ frontend names an array element by its array
// (`side[]`, whatever the index); the fork's text then says which index it is.
bool variesWith(const Event& fork, const std::vector<std::string>& names) {
  const std::string& stream = fork.subject.text;
  for (const std::string& name : names) {
    if (stream == name) return true;
    const std::string index = "[" + name + "]";
    if (stream.size() > index.size() && stream.ends_with(index)) return true;
    if (stream.size() > 2 && stream.ends_with("[]") &&
        fork.text.find(stream.substr(0, stream.size() - 2) + index) != std::string::npos) {
      return true;
    }
  }
  return false;
}

// The kLoop event of the innermost loop of `function` around `position`: the first one that
// loop's statement holds (its header comes before the body and any inner loop).
const Event* loopAround(const FunctionModel& function, std::uint32_t position) {
  const SourceRange* innermost = nullptr;
  for (const SourceRange& loop : function.loops) {
    if (loop.begin > position || position >= loop.end) continue;
    if (innermost == nullptr || loop.end - loop.begin < innermost->end - innermost->begin) {
      innermost = &loop;
    }
  }
  if (innermost == nullptr) return nullptr;
  for (const Event& event : function.events) {
    if (event.kind != EventKind::kLoop) continue;
    if (event.range.begin >= innermost->begin && event.range.begin < innermost->end) {
      return event.range.begin < position ? &event : nullptr;
    }
  }
  return nullptr;
}

// Where a file of the program names CUDA_DEVICE_MAX_CONNECTIONS (an environment setting, in
// any form): "path:line", or "" when none does.
std::string connectionSetting(const ProgramModel& program) {
  for (const FileModel& file : program.files()) {
    if (file.source == nullptr) continue;
    const std::string& text = file.source->text();
    const std::size_t at = text.find(kConnections);
    if (at == std::string::npos) continue;
    const auto begin = static_cast<std::uint32_t>(at);
    return file.source->path() + ":" + lineOf(file.source->rangeOf(begin, begin));
  }
  return "";
}

class TooManyStreamsCheck final : public Check {
 public:
  std::string_view id() const override { return "GS604"; }

  void checkRegionEvent(const RegionContext& context, const Event& event,
                        DiagnosticSink& sink) const override {
    if (event.kind != EventKind::kStreamFork || event.subject.text.empty()) return;
    const Event* loop = loopAround(*context.function, event.range.begin);
    if (loop == nullptr || loop->trips <= kStreamLimit) return;
    if (!variesWith(event, loopNames(loop->target))) return;
    const bool cuda = context.file->language == Language::kCuda;
    std::string message =
        "this capture forks " + std::to_string(loop->trips) + " streams, one per iteration of " +
        "the loop at line " + lineOf(loop->range) + ": " +
        (cuda ? std::string()
              : "PyTorch's pool holds 32 streams per priority, so from the 33rd on "
                "torch.cuda.Stream() returns the first ones again, and ") +
        "the device runs streams over at most 32 hardware queues, so a replay serializes "
        "branches meant to run side by side";
    if (context.program != nullptr) {
      if (std::string set = connectionSetting(*context.program); !set.empty()) {
        message += " (" + std::string(kConnections) + ", named at " + set +
                   ", sets how many queues the streams share, not how many streams a graph "
                   "may use)";
      }
    }
    sink.report(context, event.range, std::move(message));
  }
};

}  // namespace

std::unique_ptr<Check> makeTooManyStreamsCheck() {
  return std::make_unique<TooManyStreamsCheck>();
}

}  // namespace graphsafe
