// The address rules (GS201 rebound-static-input, GS202 freed-static-input, GS203
// output-kept-without-clone): what their findings say, where they point, and GS203's fix.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/engine/engine.h"

namespace graphsafe {
namespace {

RunResult check(const std::string& text, const std::string& rule) {
  auto source = std::make_shared<SourceFile>("sample.py", text);
  EngineOptions options;
  options.jobs = 1;
  options.selection.select = {rule};
  return analyzeSources({source}, options);
}

// Applies a fix's edits to `text` (from the last to the first, so offsets stay valid).
std::string applyFix(std::string text, const Fix& fix) {
  std::vector<TextEdit> edits = fix.edits;
  std::sort(edits.begin(), edits.end(),
            [](const TextEdit& a, const TextEdit& b) { return a.range.begin > b.range.begin; });
  for (const TextEdit& edit : edits) {
    text.replace(edit.range.begin, edit.range.end - edit.range.begin, edit.replacement);
  }
  return text;
}

constexpr const char* kKeptOutput = R"(import torch
x = torch.zeros(1, device="cuda")
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = x ** 2 + 1
ys = []
for i in range(3):
    x.fill_(i)
    g.replay()
    ys.append(y)
)";

TEST(OutputKeptWithoutClone, OffersTheCloneFix) {
  RunResult result = check(kKeptOutput, "GS203");
  ASSERT_EQ(result.diagnostics.size(), 1u);
  const Diagnostic& d = result.diagnostics[0];
  EXPECT_EQ(d.range.start.line, 9u);
  EXPECT_EQ(d.range.start.column, 14u);
  EXPECT_NE(d.message.find("`y`, an output of the CUDA graph captured at line 4"),
            std::string::npos)
      << d.message;
  EXPECT_NE(d.message.find("appended to `ys`"), std::string::npos) << d.message;
  ASSERT_TRUE(d.fix.has_value());
  std::string fixed = applyFix(kKeptOutput, *d.fix);
  EXPECT_NE(fixed.find("    ys.append(y.clone())\n"), std::string::npos) << fixed;
  ASSERT_EQ(d.related.size(), 2u);
  EXPECT_EQ(d.related[1].range.start.line, 8u);  // the replay that overwrites it
}

TEST(OutputKeptWithoutClone, ParenthesizesAnExpression) {
  const std::string text = R"(import torch
x = torch.zeros(1, device="cuda")
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = x + 1
    z = x + 2
history = {}
for i in range(3):
    g.replay()
    history[i] = y if i else z
)";
  RunResult result = check(text, "GS203");
  ASSERT_EQ(result.diagnostics.size(), 1u);
  ASSERT_TRUE(result.diagnostics[0].fix.has_value());
  std::string fixed = applyFix(text, *result.diagnostics[0].fix);
  EXPECT_NE(fixed.find("history[i] = (y if i else z).clone()\n"), std::string::npos) << fixed;
  EXPECT_NE(result.diagnostics[0].message.find("stored in `history`"), std::string::npos);
}

TEST(ReboundStaticInput, SaysWhichReplayReadsTheOldAddress) {
  RunResult result = check(R"(import torch
x = torch.zeros(4, device="cuda")
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = x * 2
for b in range(3):
    x = torch.full((4,), float(b), device="cuda")
    g.replay()
)",
                           "GS201");
  ASSERT_EQ(result.diagnostics.size(), 1u);
  const Diagnostic& d = result.diagnostics[0];
  EXPECT_EQ(d.range.start.line, 6u);
  EXPECT_EQ(d.range.start.column, 4u);
  EXPECT_NE(d.message.find("`x` is read by the CUDA graph captured at line 4"), std::string::npos)
      << d.message;
  EXPECT_NE(d.message.find("`g.replay()` (line 8)"), std::string::npos) << d.message;
  ASSERT_EQ(d.related.size(), 3u);
  EXPECT_EQ(d.related[1].range.start.line, 4u);  // read under capture
  EXPECT_FALSE(d.fix.has_value());
}

TEST(FreedStaticInput, PointsAtTheReturnThatKeepsOnlyTheGraph) {
  RunResult result = check(R"(import torch
def capture_graph():
    static_input = torch.ones(4, device="cuda")
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        output = static_input * 2
    return g, output
)",
                           "GS202");
  ASSERT_EQ(result.diagnostics.size(), 1u);
  const Diagnostic& d = result.diagnostics[0];
  EXPECT_EQ(d.range.start.line, 6u);
  EXPECT_EQ(d.range.start.column, 11u);  // `g` in the return
  EXPECT_NE(d.message.find("local to `capture_graph`"), std::string::npos) << d.message;
}

}  // namespace
}  // namespace graphsafe
