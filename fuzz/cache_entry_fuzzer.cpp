// The cache directory's entries as data from an untrusted place: bytes sealed with this user's
// key (as a corrupt entry of one's own, or one a leaked key would let through, would be) through
// the run entry's and the unit entry's decoders. The first byte picks the form:
//   0: the whole run entry payload is the rest of the input;
//   1: a run entry written by a real run, with the rest of the input spliced in (the next four
//      bytes say where, the two after them how much of the real entry it replaces), which
//      reaches past the key check into the files, dependencies and results;
//   2: a unit entry: the rest is its header line and model bytes.
// Checks: no crash, no exception out of the loads, and a result that loads points only at
// ranges of its own files (what every output then prints).

#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "analyzer/engine/cache_seal.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/file_walker.h"
#include "analyzer/engine/result_cache.h"
#include "analyzer/engine/unit_cache.h"
#include "analyzer/output/output_format.h"

namespace {

namespace fs = std::filesystem;
using namespace graphsafe;

constexpr const char* kMain =
    "import torch\n"
    "from helper import scale\n"
    "x = torch.ones(4, device=\"cuda\")\n"
    "g = torch.cuda.CUDAGraph()\n"
    "with torch.cuda.graph(g):\n"
    "    y = scale(x)\n"
    "    if x.sum() > 0:\n"
    "        y = y * 2\n";
constexpr const char* kHelper = "def scale(v):\n    return v * float(v)\n";

void writeFile(const fs::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A scratch project with a real run entry and a real unit entry, made once.
struct Project {
  fs::path root;
  EngineOptions options;
  std::vector<std::string> paths;
  std::string run_entry;    // its file
  std::string run_payload;  // what the real run wrote
  std::string unit_entry;   // its file
  SourceFilePtr unit;

  Project() {
    char name[] = "/tmp/graphsafe-fuzz-cache-XXXXXX";
    root = ::mkdtemp(name);
    ::setenv("XDG_CACHE_HOME", (root / "key").c_str(), 1);
    writeFile(root / "main.py", kMain);
    writeFile(root / "helper.py", kHelper);
    options.paths = {root.string()};
    options.jobs = 1;
    options.exclude = {"cache", "key"};
    options.cache_dir = (root / "cache").string();
    runAnalysis(options);
    std::vector<Notice> ignored;
    paths = collectFiles(options.paths, options.exclude, ignored);
    run_entry = ResultCache(options.cache_dir, runCacheKey(options)).entryPath();
    const std::string text = readFile(run_entry);
    run_payload = text.substr(text.find('\n', text.find('\n') + 1) + 1);

    const std::string unit_text = "void run() {}\n";
    writeFile(root / "k.cu", unit_text);
    unit = std::make_shared<const SourceFile>((root / "k.cu").string(), unit_text);
    FileModel model;
    model.language = Language::kCuda;
    model.includes_complete = true;
    model.source = unit;
    UnitCache(options.cache_dir, "fuzz\n").store(model);
    for (const auto& entry : fs::directory_iterator(options.cache_dir)) {
      if (entry.path().filename().string().starts_with("unit-")) unit_entry = entry.path().string();
    }
  }
};

void writeSealed(const std::string& path, const char* magic, const std::string& payload) {
  writeFile(path, std::string(magic) + "\n" + machineCacheSeal()->seal(payload) + "\n" + payload);
}

std::uint32_t littleEndian(std::string_view bytes) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    value |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  }
  return value;
}

void checkResult(const RunResult& result) {
  for (const Diagnostic& d : result.diagnostics) {
    if (!d.file || d.range.begin > d.range.end || d.range.end > d.file->text().size()) {
      __builtin_trap();
    }
    for (const RelatedLocation& related : d.related) {
      if (!related.file || related.range.end > related.file->text().size()) __builtin_trap();
    }
  }
  std::ostringstream out;
  std::ostringstream status;
  writeResult(OutputFormat::kText, result, out, status, {});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Project project;
  if (size == 0 || machineCacheSeal() == nullptr) return 0;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const int form = static_cast<unsigned char>(input[0]) % 3;
  input.remove_prefix(1);
  auto never = [](const SourceFile&) { return false; };
  if (form == 2) {
    writeSealed(project.unit_entry, UnitCache::kEntryMagic, std::string(input));
    (void)UnitCache(project.options.cache_dir, "fuzz\n").load(project.unit);
    return 0;
  }
  std::string payload(input);
  if (form == 1) {
    const std::string& real = project.run_payload;
    const std::size_t at =
        input.size() >= 4 ? littleEndian(input.substr(0, 4)) % (real.size() + 1) : real.size() / 2;
    const std::size_t cut = input.size() >= 6 ? littleEndian(input.substr(4, 2)) % 64 : 0;
    payload = real.substr(0, at) +
              std::string(input.substr(std::min<std::size_t>(6, input.size()))) +
              real.substr(std::min(real.size(), at + cut));
  }
  writeSealed(project.run_entry, ResultCache::kEntryMagic, payload);
  ResultCache cache(project.options.cache_dir, runCacheKey(project.options));
  if (std::optional<RunResult> loaded =
          cache.load(project.paths, project.options.settings, never)) {
    checkResult(*loaded);
  }
  return 0;
}
