#pragma once

// What the runtime probe measured on a GPU, for the rule pages: the newest results file under
// runtime-probe/results/, embedded at build time, read once.

#include <map>
#include <string>
#include <string_view>

namespace graphsafe {

// A timing case's measurement (the performance rules: bug and fix both correct, each timed).
struct ProbeTiming {
  std::size_t runs = 0;  // repeated runs of the case
  double median_ms = 0;  // its time per iteration, median over the runs
  // A bug: its time over its fix's, run by run; the fix it was measured against.
  std::string fix;  // path under runtime-probe/cases/, "" for a fix
  double ratio_median = 0;
  double ratio_min = 0;
  double ratio_max = 0;
};

struct ProbeMeasurement {
  std::string verdict;        // reproduced, correct, not-reproduced, fix-wrong, slower,
                              // not-slower, timeout, crash
  std::string observed;       // compact JSON, shortened
  std::string expected;       // compact JSON, shortened
  std::string capture_error;  // the innermost error the capture raised, shortened; "" if none
  ProbeTiming timing;         // runs == 0 when the case is not a timing case
};

struct ProbeRun {
  std::string file;         // results file name, e.g. 2026-11-29-nvidia-h200.json
  std::string environment;  // "NVIDIA H200, driver ..., CUDA 13.0, PyTorch 2.11.0+cu130"
  std::map<std::string, ProbeMeasurement> cases;  // by path under runtime-probe/cases/
  bool empty() const { return cases.empty(); }
};

// The embedded run; empty when the build embedded none or the file does not parse.
const ProbeRun& probeRun();

// Parses a results file's text (exposed for tests).
ProbeRun parseProbeRun(std::string_view name, std::string_view json_text);

}  // namespace graphsafe
