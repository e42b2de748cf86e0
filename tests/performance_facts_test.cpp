// The syntax facts the performance rules (GS6xx) read from the Python lowering: how many times a
// loop runs when the code states it, a key bound straight from a size, a factory that makes a
// host tensor, the callable handed to make_graphed_callables as a reference, and arithmetic
// between two tensors as device work.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/model/capture_model.h"
#include "tests/python_lowering.h"

namespace graphsafe {
namespace {

FileModel analyze(std::string text) {
  return testing::lowerPython(std::move(text));
}

const FunctionModel& function(const FileModel& model, std::string_view qualified) {
  return testing::functionNamed(model, qualified);
}

// The trip counts of the function's for loops, in source order.
std::vector<std::int32_t> trips(const FunctionModel& function) {
  std::vector<std::int32_t> out;
  for (const Event& event : function.events) {
    if (event.kind == EventKind::kLoop) out.push_back(event.trips);
  }
  return out;
}

TEST(LoopTrips, CountsWhatTheCodeStates) {
  const FileModel model = analyze(
      "N = 48\n"
      "STREAMS = [object() for _ in range(N)]\n"
      "def f(xs, config):\n"
      "    for i in range(64): pass\n"
      "    for i in range(N): pass\n"
      "    for i in range(2, 10, 3): pass\n"
      "    for i in range(10, 0, -2): pass\n"
      "    for x in [1, 2, 3]: pass\n"
      "    for i, x in enumerate((4, 5)): pass\n"
      "    local = [x * 2 for x in range(40)]\n"
      "    for x in local: pass\n"
      "    for a, b in zip(local, range(7)): pass\n"
      "    for s in STREAMS: pass\n"
      "    for x in xs: pass\n"
      "    for i in range(config.n): pass\n"
      "    for x in [y for y in range(8) if y]: pass\n"
      "    for x in [*xs, 1]: pass\n");
  EXPECT_EQ(trips(function(model, "f")),
            (std::vector<std::int32_t>{64, 48, 3, 5, 3, 2, 40, 7, 48, -1, -1, -1, -1}));
}

TEST(LoopTrips, ForgetsANameBoundAgainAndKnowsSelfAttributes) {
  const FileModel model = analyze(
      "class Layers:\n"
      "    def __init__(self):\n"
      "        self.streams = [None for _ in range(36)]\n"
      "        self.mixed = [1, 2]\n"
      "    def reset(self):\n"
      "        self.mixed = [1, 2, 3]\n"
      "    def forward(self, xs):\n"
      "        for s in self.streams: pass\n"
      "        for s in self.mixed: pass\n"
      "        local = [1, 2]\n"
      "        local = xs\n"
      "        for s in local: pass\n");
  const FunctionModel& forward = function(model, "Layers.forward");
  EXPECT_EQ(trips(forward), (std::vector<std::int32_t>{36, -1, -1}));
  for (const Event& event : forward.events) {
    if (event.kind == EventKind::kLoop) {
      EXPECT_EQ(event.target, "s");
    }
  }
}

TEST(SizeRead, MarksABindingStraightFromASize) {
  const FileModel model = analyze(
      "def f(x, tokens, sizes):\n"
      "    a = x.shape[0]\n"
      "    b = x.size(1)\n"
      "    c = len(tokens)\n"
      "    d = x.numel()\n"
      "    e = x.shape\n"
      "    f = next_power_of_2(x.shape[0])\n"
      "    g = (x.shape[0] + 63) // 64 * 64\n"
      "    h = sizes[0]\n");
  for (const Event& event : function(model, "f").events) {
    if (event.kind != EventKind::kBind) continue;
    const bool size = (event.flags & kFlagSizeRead) != 0;
    EXPECT_EQ(size, event.target < "f") << event.target;
  }
}

TEST(HostFactory, MarksFactoriesThatMakeHostTensors) {
  const FileModel model = analyze(
      "import torch\n"
      "def f(x):\n"
      "    torch.arange(8)\n"
      "    torch.zeros(4, device='cpu')\n"
      "    torch.empty(4, pin_memory=True)\n"
      "    torch.zeros(4, device='cuda')\n"
      "    torch.ones(4, device=x.device)\n"
      "    torch.tensor([1.0, 2.0])\n");
  std::vector<bool> host;
  for (const Event& event : function(model, "f").events) {
    if (event.kind == EventKind::kTensorOp) host.push_back((event.flags & kFlagHostFactory) != 0);
  }
  EXPECT_EQ(host, (std::vector<bool>{true, true, true, false, false, false}));
}

TEST(GraphedCallable, KeepsTheCallableAsAReference) {
  const FileModel model = analyze(
      "import torch\n"
      "def f(model, x):\n"
      "    return torch.cuda.make_graphed_callables(model, (x,))\n");
  ASSERT_EQ(model.regions.size(), 1u);
  const CaptureRegion& region = model.regions[0];
  EXPECT_EQ(region.kind, RegionKind::kGraphedCallable);
  ASSERT_NE(region.callable_ref, kNoRef);
  ASSERT_LT(region.callable_ref, model.references.size());
  EXPECT_EQ(model.references[region.callable_ref].kind, Reference::Kind::kParameter);
}

TEST(TensorArithmetic, IsDeviceWorkBetweenTwoTensors) {
  const FileModel model = analyze(
      "import torch\n"
      "def f(a: torch.Tensor, b: torch.Tensor):\n"
      "    n = 3\n"
      "    c = a + b\n"
      "    d = a * 2\n"
      "    e = n + 1\n");
  std::vector<std::string> ops;
  for (const Event& event : function(model, "f").events) {
    if (event.kind == EventKind::kTensorOp) ops.push_back(event.text);
  }
  EXPECT_EQ(ops, (std::vector<std::string>{"a + b", "a * 2"}));
}

}  // namespace
}  // namespace graphsafe
