// The host-value rules (GS102 frozen-branch, GS103 frozen-scalar, GS105 frozen-shape, GS106
// host-side-effect, GS402 pageable-copy) and what they rest on: why a value varies, the severity
// of GS106's logging form, values resolved along a call path, and bounded work on large bodies.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/engine/check.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/frontend.h"

namespace graphsafe {
namespace {

RunResult check(const std::string& text, const std::string& rule) {
  auto source = std::make_shared<SourceFile>("sample.py", text);
  EngineOptions options;
  options.jobs = 1;
  options.selection.select = {rule};
  return analyzeSources({source}, options);
}

const Diagnostic* onLine(const RunResult& result, std::uint32_t line) {
  for (const Diagnostic& d : result.diagnostics) {
    if (d.range.start.line == line) return &d;
  }
  return nullptr;
}

TEST(FrozenScalar, SaysWhyTheValueVaries) {
  RunResult result = check(R"(import torch
LRS = [1.0, 0.5]
w = torch.zeros(1, device="cuda")
grad = torch.ones(1, device="cuda")
lr = LRS[0]
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    w.sub_(grad * lr)
for step in range(2):
    lr = LRS[step]
    g.replay()
)",
                           "GS103");
  ASSERT_EQ(result.diagnostics.size(), 1u);
  const Diagnostic& d = result.diagnostics[0];
  EXPECT_EQ(d.range.start.line, 7u);
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_NE(d.message.find("`lr`"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("assigned again at line 10"), std::string::npos) << d.message;
  EXPECT_FALSE(d.help.empty());
}

TEST(FrozenScalar, KeepsTheLoopVariableOriginThroughACall) {
  RunResult result = check(R"(import torch
def scaled(t, factor):
    return t * factor
x = torch.ones(1, device="cuda")
g = torch.cuda.CUDAGraph()
for i in range(4):
    if i == 1:
        with torch.cuda.graph(g):
            y = scaled(x, i)
    g.replay()
)",
                           "GS103");
  ASSERT_EQ(result.diagnostics.size(), 1u);
  const Diagnostic& d = result.diagnostics[0];
  EXPECT_EQ(d.range.start.line, 2u);
  EXPECT_NE(d.message.find("around a capture made on one of its iterations"), std::string::npos)
      << d.message;
  // The capture site, the call that reached the helper, then where the value changes.
  ASSERT_EQ(d.related.size(), 3u);
  EXPECT_EQ(d.related[1].range.start.line, 8u);
  EXPECT_EQ(d.related[2].range.start.line, 5u);
}

TEST(FrozenScalar, ACaptureOnEveryIterationIsOneGraphPerValue) {
  RunResult result = check(R"(import torch
x = torch.ones(64, device="cuda")
graphs = {}
for bs in (1, 2, 4):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = x[:bs] * bs
    graphs[bs] = g
)",
                           "GS1");
  EXPECT_TRUE(result.diagnostics.empty());
}

TEST(FrozenShape, PointsAtTheBoundThatVaries) {
  RunResult result = check(R"(import torch
x = torch.ones(64, device="cuda")
n = 4
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = x[:n].view(n, 1)
n = 8
g.replay()
)",
                           "GS105");
  ASSERT_EQ(result.diagnostics.size(), 2u);
  for (const Diagnostic& d : result.diagnostics) {
    EXPECT_EQ(d.range.start.line, 5u);
    EXPECT_NE(d.message.find("`n` sets a shape"), std::string::npos) << d.message;
  }
  // A shape argument is GS105's alone: GS103 stays quiet about `view(n, 1)`.
  EXPECT_TRUE(check(R"(import torch
x = torch.ones(64, device="cuda")
n = 4
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = x.view(n, -1)
n = 8
g.replay()
)",
                    "GS103")
                  .diagnostics.empty());
}

TEST(FrozenBranch, SkipsAssertsAndBranchesOnTensors) {
  RunResult result = check(R"(import torch
x = torch.ones(4, device="cuda")
n = 4
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    assert n < 8
    if x.sum() > 0:
        y = x * 2
    if n > 2:
        y = x * 3
n = 8
g.replay()
)",
                           "GS102");
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].range.start.line, 8u);
  EXPECT_NE(result.diagnostics[0].message.find("decided once, at capture"), std::string::npos);
}

TEST(FrozenBranch, ModuleRebindingBetweenCaptureAndReplay) {
  const char* source = R"(import torch
SCALE = 2
def scaled(x):
    if SCALE > 2:
        return x * 3
    return x * 2
x = torch.ones(4, device="cuda")
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = scaled(x)
SCALE = 3
%s
)";
  // Rebound between the capture and a replay: the replay runs the capture's side.
  char replayed[512];
  std::snprintf(replayed, sizeof replayed, source, "g.replay()");
  RunResult result = check(replayed, "GS102");
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].range.start.line, 3u);
  // Rebound after the capture, but no replay follows: nothing the graph runs sees it.
  char never_replayed[512];
  std::snprintf(never_replayed, sizeof never_replayed, source, "");
  EXPECT_TRUE(check(never_replayed, "GS102").diagnostics.empty());
}

TEST(FrozenBranch, AttributeAdvancedByTheReplayingMethod) {
  RunResult result = check(R"(import torch
class Runner:
    def __init__(self):
        self.step = 0
        self.x = torch.ones(4, device="cuda")
        self.g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.g):
            self.y = self.body()
    def body(self):
        if self.step % 2 == 0:
            return self.x * 2
        return self.x * 3
    def __call__(self):
        self.step += 1
        self.g.replay()
        return self.y
)",
                           "GS102");
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].range.start.line, 9u);
}

TEST(HostSideEffect, LoggingIsAWarningAndPrintingAnError) {
  RunResult result = check(R"(import logging
import torch
logger = logging.getLogger(__name__)
x = torch.ones(1, device="cuda")
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = x * 2
    logger.info("captured")
    print("captured")
)",
                           "GS106");
  ASSERT_EQ(result.diagnostics.size(), 2u);
  const Diagnostic* logged = onLine(result, 7);
  const Diagnostic* printed = onLine(result, 8);
  ASSERT_NE(logged, nullptr);
  ASSERT_NE(printed, nullptr);
  EXPECT_EQ(logged->severity, Severity::kWarning);
  EXPECT_EQ(printed->severity, Severity::kError);
  EXPECT_NE(logged->message.find("logs once"), std::string::npos) << logged->message;
}

TEST(HostSideEffect, ConfiguredSeverityStillWins) {
  auto source = std::make_shared<SourceFile>("sample.py", R"(import logging
import torch
x = torch.ones(1, device="cuda")
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    logging.warning("captured")
)");
  EngineOptions options;
  options.jobs = 1;
  options.selection.select = {"GS106"};
  options.severity_overrides["GS106"] = Severity::kError;
  RunResult result = analyzeSources({source}, options);
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].severity, Severity::kError);
}

TEST(PageableCopy, NamesTheHostTensor) {
  RunResult result = check(R"(import torch
bias_cpu = torch.tensor([1.0, 2.0])
x = torch.zeros(2, device="cuda")
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = x + bias_cpu.to("cuda")
)",
                           "GS402");
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_NE(result.diagnostics[0].message.find("`bias_cpu`"), std::string::npos)
      << result.diagnostics[0].message;
}

TEST(DiagnosticSink, SeverityOverrideIsPerFinding) {
  RuleInfo rule;
  rule.id = "GS106";
  rule.name = "host-side-effect";
  rule.severity = Severity::kError;
  rule.fix = "move it out";
  std::vector<Diagnostic> out;
  DiagnosticSink sink(rule, out);
  auto file = std::make_shared<SourceFile>("a.py", "x = 1\n");
  sink.reportAt(file, file->rangeOf(0, 1), "default");
  sink.reportAt(file, file->rangeOf(0, 1), "milder", {}, std::nullopt, Severity::kWarning);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].severity, Severity::kError);
  EXPECT_EQ(out[1].severity, Severity::kWarning);
  EXPECT_EQ(out[1].help, "move it out");
}

TEST(RegionContextResolve, TakesWhatTheArgumentsHold) {
  CaptureRegion region;
  RegionContext context;
  context.region = &region;
  Value constant;
  constant.kind = ValueKind::kHostConstant;
  Value varying;
  varying.kind = ValueKind::kHostVarying;
  varying.origin = ValueOrigin::kLoopVariable;
  std::vector<Value> params = {constant, varying, Value{}};
  context.param_values = params;

  Value only_constant;
  only_constant.param_deps = paramBit(0);
  EXPECT_EQ(context.resolve(only_constant).kind, ValueKind::kHostConstant);

  Value with_varying;
  with_varying.param_deps = paramBit(0) | paramBit(1);
  Value resolved = context.resolve(with_varying);
  EXPECT_EQ(resolved.kind, ValueKind::kHostVarying);
  EXPECT_EQ(resolved.origin, ValueOrigin::kLoopVariable);

  // One unknown argument: nothing is known.
  Value with_unknown;
  with_unknown.param_deps = paramBit(0) | paramBit(2);
  EXPECT_EQ(context.resolve(with_unknown).kind, ValueKind::kUnknown);
}

TEST(HostValueOrigins, LargeBodiesStayBounded) {
  // Thousands of bindings and loops around a capture: indexing them is linear, and every read
  // under capture looks only at its own name.
  std::string text = "import torch\nx = torch.ones(4, device='cuda')\ng = torch.cuda.CUDAGraph()\n";
  for (int i = 0; i < 4000; ++i) {
    text += "v" + std::to_string(i % 50) + " = " + std::to_string(i) + "\n";
  }
  text += "for i in range(3):\n    if i == 1:\n        with torch.cuda.graph(g):\n";
  for (int i = 0; i < 2000; ++i) text += "            y = x * v" + std::to_string(i % 50) + "\n";
  auto start = std::chrono::steady_clock::now();
  RunResult result = check(text, "GS103");
  auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(result.diagnostics.empty());
  EXPECT_LT(seconds, 20.0);
}

}  // namespace
}  // namespace graphsafe
