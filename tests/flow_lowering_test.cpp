// The Python frontend's flow between capture and replay: bind, in-place update, free, replay and
// store events in every function, and each region's handle, span, inputs and outputs.
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
  return testing::lowerPython(std::move(text), "flow.py");
}

const FunctionModel& function(const FileModel& model, std::string_view qualified) {
  return testing::functionNamed(model, qualified);
}

std::vector<const Event*> events(const FunctionModel& function, EventKind kind) {
  std::vector<const Event*> found;
  for (const Event& event : function.events) {
    if (event.kind == kind) found.push_back(&event);
  }
  return found;
}

std::vector<std::string> targets(const std::vector<const Event*>& found) {
  std::vector<std::string> out;
  for (const Event* event : found) out.push_back(event->target);
  return out;
}

std::vector<std::string> names(const std::vector<RegionName>& list) {
  std::vector<std::string> out;
  for (const RegionName& name : list) out.push_back(name.name);
  return out;
}

using Strings = std::vector<std::string>;

TEST(FlowLowering, BindsUpdatesFreesAndReplaysInEveryFunction) {
  FileModel model = analyze(R"(
import torch

def run(loader):
    x = torch.zeros(4, device="cuda")
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = x * 2
    for batch in loader:
        x.copy_(batch)
        x[:2] = 0
        torch.add(y, 1, out=x)
        x += 1
        g.replay()
        x = x.view(2, 2)
        x = torch.ones(4, device="cuda")
    del x
    return g, y
)");
  const FunctionModel& run = function(model, "run");
  EXPECT_EQ(targets(events(run, EventKind::kBind)), (Strings{"x", "g", "y", "batch", "x", "x"}));
  auto binds = events(run, EventKind::kBind);
  EXPECT_NE(binds[0]->flags & kFlagFreshTensor, 0);  // torch.zeros
  EXPECT_EQ(binds[4]->source, "x");                  // a view of itself
  EXPECT_EQ(binds[4]->flags & kFlagFreshTensor, 0);
  EXPECT_TRUE(binds[2]->subject.isTensor());
  EXPECT_EQ(binds[2]->output_of, 0);  // bound under the capture
  EXPECT_EQ(targets(events(run, EventKind::kInPlaceUpdate)), (Strings{"x", "x", "x", "x"}));
  EXPECT_EQ(targets(events(run, EventKind::kReplay)), (Strings{"g"}));
  EXPECT_EQ(targets(events(run, EventKind::kFree)), (Strings{"x"}));
  auto stores = events(run, EventKind::kStore);
  ASSERT_EQ(stores.size(), 2u);
  EXPECT_EQ(stores[0]->api, "return");
  EXPECT_EQ(stores[0]->source, "g");
  EXPECT_EQ(stores[1]->source, "y");
  EXPECT_EQ(run.loops.size(), 1u);

  ASSERT_EQ(model.regions.size(), 1u);
  const CaptureRegion& region = model.regions[0];
  EXPECT_EQ(region.handle, "g");
  EXPECT_EQ(names(region.inputs), (Strings{"x"}));
  EXPECT_TRUE(region.inputs[0].value.isTensor());
  EXPECT_EQ(names(region.outputs), (Strings{"y"}));
  EXPECT_EQ(region.span.start.line, 6u);
  EXPECT_EQ(region.span.stop.line, 7u);
}

TEST(FlowLowering, StoresKeepOutputsOfTheRegion) {
  FileModel model = analyze(R"(
import torch

x = torch.zeros(1, device="cuda")
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = x + 1
ys, table = [], {}
for i in range(3):
    g.replay()
    ys.append(y)
    ys.append(y.clone())
    ys.extend([y, i])
    table[i] = y.detach()
    ys.append((y, i))
)");
  const FunctionModel& module = model.functions[0];
  std::vector<const Event*> kept;
  for (const Event* store : events(module, EventKind::kStore)) {
    if (store->output_of == 0) kept.push_back(store);
  }
  ASSERT_EQ(kept.size(), 4u);
  EXPECT_EQ(kept[0]->api, "append");
  EXPECT_EQ(kept[0]->target, "ys");
  EXPECT_EQ(kept[1]->api, "extend");
  EXPECT_EQ(kept[2]->api, "__setitem__");
  EXPECT_EQ(kept[2]->target, "table");
  EXPECT_EQ(kept[3]->text, "y");
}

TEST(FlowLowering, HandlesOfEveryRegionKind) {
  FileModel model = analyze(R"(
import torch

class Runner:
    def __init__(self, model):
        self.graphs = {}
        self.step = torch.compile(model, mode="reduce-overhead")
        self.fwd, self.bwd = torch.cuda.make_graphed_callables((model.a, model.b), ((), ()))

    def capture(self, bs, x):
        self.graphs[bs] = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graphs[bs]):
            out = self.step(x)
        self.graphs[bs].capture_begin()
        self.graphs[bs].capture_end()

    def run(self, bs, x):
        y = self.step(x)
        self.graphs[bs].replay()
        return y

@torch.compile(mode="reduce-overhead")
def decode(x):
    return x * 2

def loop(x):
    z = decode(x)
    return z
)");
  std::vector<std::string> handles;
  for (const CaptureRegion& region : model.regions) handles.push_back(region.handle);
  EXPECT_EQ(handles,
            (Strings{"decode", "self.step", "self.fwd", "self.bwd", "self.graphs", "self.graphs"}));
  const FunctionModel& run = function(model, "Runner.run");
  EXPECT_EQ(targets(events(run, EventKind::kReplay)), (Strings{"self.step", "self.graphs"}));
  const FunctionModel& loop = function(model, "loop");
  auto replays = events(loop, EventKind::kReplay);
  ASSERT_EQ(replays.size(), 1u);
  EXPECT_EQ(replays[0]->target, "decode");
  auto binds = events(loop, EventKind::kBind);
  ASSERT_EQ(binds.size(), 1u);
  EXPECT_EQ(binds[0]->output_of, 0);  // the compiled function's result
}

TEST(FlowLowering, CallableRegionInputsAreAttributesAndGlobals) {
  FileModel model = analyze(R"(
import torch

scale = torch.ones(1, device="cuda")

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = torch.zeros(1, device="cuda")

    def forward(self, x):
        h = x * scale
        return h + self.bias

net = Net()
compiled = torch.compile(net, mode="reduce-overhead")
)");
  ASSERT_EQ(model.regions.size(), 1u);
  EXPECT_EQ(model.regions[0].handle, "compiled");
  EXPECT_EQ(names(model.regions[0].inputs), (Strings{"scale", "self.bias"}));
}

TEST(FlowLowering, ComprehensionVariablesAreNotBindings) {
  FileModel model = analyze(R"(
import torch

def f(xs):
    x = torch.zeros(1, device="cuda")
    ys = [x * 2 for x in xs]
    return ys
)");
  EXPECT_EQ(targets(events(function(model, "f"), EventKind::kBind)), (Strings{"x", "ys"}));
}

TEST(FlowLowering, ImportAliasesAndStarImportsForReExports) {
  auto source = std::make_shared<SourceFile>("pkg_init.py", R"(
from .impl import run as go
from .impl import *
import torch.cuda as tc
)");
  FileModel model = makePythonFrontend()->analyze(source, AnalysisSettings{});
  ASSERT_EQ(model.import_aliases.size(), 2u);
  EXPECT_EQ(model.import_aliases[0].first, "go");
  EXPECT_EQ(model.import_aliases[1].first, "tc");
  EXPECT_EQ(model.import_aliases[1].second, "torch.cuda");
  EXPECT_EQ(model.star_imports.size(), 1u);
}

}  // namespace
}  // namespace graphsafe
