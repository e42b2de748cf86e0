#include "analyzer/catalog/probe_results.h"

#include <nlohmann/json.hpp>

#include "analyzer/catalog/embedded_catalog.h"

namespace graphsafe {

namespace {

constexpr std::size_t kMaxShown = 72;

std::string shortened(std::string text) {
  if (text.size() <= kMaxShown) return text;
  // Cut at a character boundary: never inside a UTF-8 sequence.
  std::size_t cut = kMaxShown;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
  return text + "...";
}

std::string compact(const nlohmann::json& value) {
  if (value.is_null()) return "";
  return shortened(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string stringField(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// "A <- B <- C" chains causes outermost first; the last is what the capture refused.
std::string innermostError(const std::string& chain) {
  std::size_t arrow = chain.rfind(" <- ");
  return shortened(arrow == std::string::npos ? chain : chain.substr(arrow + 4));
}

double numberField(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

// "timing": {"runs": 3, "median_ms": 0.41, ...} and, for a bug, "ratio": {"fix": "...",
// "median": 2.4, "min": 2.3, "max": 2.5}. Anything malformed leaves the timing empty.
ProbeTiming timingOf(const nlohmann::json& entry) {
  ProbeTiming timing;
  auto it = entry.find("timing");
  if (it == entry.end() || !it->is_object()) return timing;
  const double runs = numberField(*it, "runs");
  const double median_ms = numberField(*it, "median_ms");
  if (runs < 1 || median_ms <= 0) return timing;
  timing.runs = static_cast<std::size_t>(runs);
  timing.median_ms = median_ms;
  if (auto ratio = entry.find("ratio"); ratio != entry.end() && ratio->is_object()) {
    timing.fix = stringField(*ratio, "fix");
    timing.ratio_median = numberField(*ratio, "median");
    timing.ratio_min = numberField(*ratio, "min");
    timing.ratio_max = numberField(*ratio, "max");
    if (timing.ratio_median <= 0) timing.fix.clear();
  }
  return timing;
}

}  // namespace

ProbeRun parseProbeRun(std::string_view name, std::string_view json_text) {
  ProbeRun run;
  nlohmann::json root = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!root.is_object()) return run;
  run.file = std::string(name);
  if (auto env = root.find("environment"); env != root.end() && env->is_object()) {
    std::string gpu = stringField(*env, "gpu");
    std::string driver = stringField(*env, "driver");
    std::string cuda = stringField(*env, "cuda_runtime");
    std::string torch = stringField(*env, "torch");
    run.environment = gpu.empty() ? "an unnamed GPU" : gpu;
    if (!driver.empty()) run.environment += ", driver " + driver;
    if (!cuda.empty()) run.environment += ", CUDA " + cuda;
    if (!torch.empty()) run.environment += ", PyTorch " + torch;
  }
  auto cases = root.find("cases");
  if (cases == root.end() || !cases->is_array()) return run;
  for (const nlohmann::json& entry : *cases) {
    if (!entry.is_object()) continue;
    std::string path = stringField(entry, "path");
    if (path.empty()) continue;
    ProbeMeasurement& measured = run.cases[path];
    measured.verdict = stringField(entry, "verdict");
    if (auto it = entry.find("observed"); it != entry.end()) measured.observed = compact(*it);
    if (auto it = entry.find("expected"); it != entry.end()) measured.expected = compact(*it);
    measured.capture_error = innermostError(stringField(entry, "capture_error"));
    measured.timing = timingOf(entry);
  }
  return run;
}

const ProbeRun& probeRun() {
  static const ProbeRun run = [] {
    EmbeddedFile file = embeddedProbeResults();
    return file.content.empty() ? ProbeRun{} : parseProbeRun(file.name, file.content);
  }();
  return run;
}

}  // namespace graphsafe
