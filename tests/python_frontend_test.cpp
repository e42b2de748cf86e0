// The Python frontend: regions, call resolution, value classes, syncs, branches, robustness.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/engine/analysis_settings.h"
#include "analyzer/engine/frontend.h"
#include "analyzer/model/capture_model.h"

namespace graphsafe {
namespace {

FileModel analyze(std::string text, const AnalysisSettings& settings = {},
                  std::string path = "sample.py") {
  auto source = std::make_shared<SourceFile>(std::move(path), std::move(text));
  return makePythonFrontend()->analyze(source, settings);
}

const FunctionModel* function(const FileModel& model, std::string_view qualified) {
  for (const FunctionModel& candidate : model.functions) {
    if (candidate.qualified_name == qualified) return &candidate;
  }
  return nullptr;
}

FunctionId functionId(const FileModel& model, std::string_view qualified) {
  for (std::size_t i = 0; i < model.functions.size(); ++i) {
    if (model.functions[i].qualified_name == qualified) return static_cast<FunctionId>(i);
  }
  return kNoFunction;
}

std::vector<const Event*> events(const FunctionModel* function, EventKind kind) {
  std::vector<const Event*> found;
  if (function == nullptr) return found;
  for (const Event& event : function->events) {
    if (event.kind == kind) found.push_back(&event);
  }
  return found;
}

// The first event of `kind` whose text is `text`.
const Event* event(const FunctionModel* function, EventKind kind, std::string_view text) {
  for (const Event* candidate : events(function, kind)) {
    if (candidate->text == text) return candidate;
  }
  return nullptr;
}

std::size_t countRegions(const FileModel& model, RegionKind kind) {
  std::size_t count = 0;
  for (const CaptureRegion& region : model.regions) count += region.kind == kind ? 1 : 0;
  return count;
}

// The value the branch on `condition` tests in `function_name`.
Value branchValue(const FileModel& model, std::string_view function_name,
                  std::string_view condition) {
  const Event* branch = event(function(model, function_name), EventKind::kBranch, condition);
  EXPECT_NE(branch, nullptr) << "no branch on " << condition;
  return branch ? branch->subject : Value{};
}

// ---- capture regions ---------------------------------------------------------------------------

TEST(PythonRegions, GraphContextUnderEveryImportAlias) {
  FileModel model = analyze(R"(
import torch
import torch as t
import torch.cuda as tc
from torch.cuda import graph as cg
from torch import cuda

def run(g, x):
    with torch.cuda.graph(g):
        a = x.item()
    with t.cuda.graph(g):
        a = x.item()
    with tc.graph(g):
        a = x.item()
    with cg(g):
        a = x.item()
    with cuda.graph(g):
        a = x.item()
    with torch.cuda.graphs.graph(g):
        a = x.item()
    after = x.item()
)");
  ASSERT_EQ(countRegions(model, RegionKind::kGraphContext), 6u);
  const FunctionModel* run = function(model, "run");
  auto syncs = events(run, EventKind::kHostSync);
  ASSERT_EQ(syncs.size(), 7u);
  for (std::size_t i = 0; i < 6; ++i) {
    ASSERT_GE(syncs[i]->region, 0);
    const CaptureRegion& region = model.regions[static_cast<std::size_t>(syncs[i]->region)];
    EXPECT_EQ(region.kind, RegionKind::kGraphContext);
    EXPECT_EQ(region.graph, "g");
    EXPECT_EQ(region.function, functionId(model, "run"));
    EXPECT_FALSE(region.dynamo_traced);
  }
  EXPECT_EQ(syncs[6]->region, -1);
}

TEST(PythonRegions, ParenthesizedAndMultiItemWith) {
  FileModel model = analyze(R"(
import torch
def run(g, x, a, b):
    with (torch.cuda.graph(g)):
        y = x.item()
    with a, torch.cuda.graph(g), b:
        y = x.item()
    with (a, torch.cuda.graph(g)):
        y = x.item()
    with a:
        y = x.item()
)");
  EXPECT_EQ(countRegions(model, RegionKind::kGraphContext), 3u);
  auto syncs = events(function(model, "run"), EventKind::kHostSync);
  ASSERT_EQ(syncs.size(), 4u);
  EXPECT_GE(syncs[0]->region, 0);
  EXPECT_GE(syncs[1]->region, 0);
  EXPECT_GE(syncs[2]->region, 0);
  EXPECT_EQ(syncs[3]->region, -1);
}

TEST(PythonRegions, GraphContextRecordsPoolAndStream) {
  FileModel model = analyze(R"(
import torch
def run(g1, g2, s, x):
    with torch.cuda.graph(g1, pool=g2.pool(), stream=s):
        y = x * 2
    with torch.cuda.graph(cuda_graph=g2):
        y = x * 2
)");
  ASSERT_EQ(model.regions.size(), 2u);
  EXPECT_EQ(model.regions[0].graph, "g1");
  EXPECT_EQ(model.regions[0].pool, "g2.pool()");
  EXPECT_EQ(model.regions[0].stream, "s");
  EXPECT_EQ(model.regions[1].graph, "g2");
  EXPECT_EQ(model.regions[1].pool, "");
  // The with item is the site.
  EXPECT_EQ(model.regions[0].site.start.line, 3u);
  EXPECT_EQ(model.regions[0].site.start.column, 9u);
}

TEST(PythonRegions, NestedRegionsGiveTheInnermost) {
  FileModel model = analyze(R"(
import torch
def run(g, h, x):
    with torch.cuda.graph(g):
        a = x.item()
        with torch.cuda.graph(h):
            b = x.item()
        c = x.item()
)");
  auto syncs = events(function(model, "run"), EventKind::kHostSync);
  ASSERT_EQ(syncs.size(), 3u);
  EXPECT_EQ(syncs[0]->region, 0);
  EXPECT_EQ(syncs[1]->region, 1);
  EXPECT_EQ(syncs[2]->region, 0);
}

TEST(PythonRegions, CaptureBeginEndOnAKnownGraph) {
  FileModel model = analyze(R"(
import torch as T
def run(x):
    g = T.cuda.CUDAGraph()
    before = x.item()
    g.capture_begin()
    inside = x.item()
    g.capture_end()
    after = x.item()
)");
  ASSERT_EQ(countRegions(model, RegionKind::kCaptureBeginEnd), 1u);
  EXPECT_EQ(model.regions[0].graph, "g");
  auto syncs = events(function(model, "run"), EventKind::kHostSync);
  ASSERT_EQ(syncs.size(), 3u);
  EXPECT_EQ(syncs[0]->region, -1);
  EXPECT_EQ(syncs[1]->region, 0);
  EXPECT_EQ(syncs[2]->region, -1);
}

TEST(PythonRegions, CaptureBeginEndNeedsAGraphOrBothCalls) {
  FileModel model = analyze(R"(
import torch
def both(h, x):
    h.capture_begin()
    y = x.item()
    h.capture_end()

def begin_only(h, x):
    h.capture_begin()
    y = x.item()

def annotated(g: torch.cuda.CUDAGraph, x):
    g.capture_begin(pool=shared)
    y = x.item()

class Runner:
    def __init__(self):
        self.graph = torch.cuda.CUDAGraph()
    def capture(self, x):
        self.graph.capture_begin()
        y = x.item()
)");
  ASSERT_EQ(countRegions(model, RegionKind::kCaptureBeginEnd), 3u);
  EXPECT_GE(events(function(model, "both"), EventKind::kHostSync)[0]->region, 0);
  EXPECT_EQ(events(function(model, "begin_only"), EventKind::kHostSync)[0]->region, -1);
  const Event* annotated = events(function(model, "annotated"), EventKind::kHostSync)[0];
  ASSERT_GE(annotated->region, 0);
  EXPECT_EQ(model.regions[static_cast<std::size_t>(annotated->region)].pool, "shared");
  const Event* member = events(function(model, "Runner.capture"), EventKind::kHostSync)[0];
  ASSERT_GE(member->region, 0);
  EXPECT_EQ(model.regions[static_cast<std::size_t>(member->region)].graph, "self.graph");
}

TEST(PythonRegions, CaptureBeginUnderAStreamRecordsIt) {
  FileModel model = analyze(R"(
import torch
def run(g: torch.cuda.CUDAGraph, side, x):
    with torch.cuda.stream(side):
        g.capture_begin()
        y = x * 2
        g.capture_end()
)");
  ASSERT_EQ(model.regions.size(), 1u);
  EXPECT_EQ(model.regions[0].stream, "side");
}

TEST(PythonRegions, GraphedCallablesOfEveryShape) {
  FileModel model = analyze(R"(
import torch
import torch.nn as nn

def step(x, y):
    return x + y

class Net(nn.Module):
    def forward(self, x):
        return x

net = Net()
a = torch.cuda.make_graphed_callables(step, (x, y))
b = torch.cuda.make_graphed_callables(lambda u: u * 2, (x,))
c = torch.cuda.make_graphed_callables(net, (x,))
d = torch.cuda.make_graphed_callables(net.forward, (x,))
e = torch.cuda.make_graphed_callables((step, net), ((x, y), (x,)))
f = torch.cuda.make_graphed_callables(unknown_thing, (x,))
)");
  FunctionId step = functionId(model, "step");
  FunctionId forward = functionId(model, "Net.forward");
  FunctionId lambda = functionId(model, "<lambda>");
  ASSERT_NE(lambda, kNoFunction);
  std::vector<FunctionId> targets;
  for (const CaptureRegion& region : model.regions) {
    EXPECT_EQ(region.kind, RegionKind::kGraphedCallable);
    EXPECT_TRUE(region.whole_function);
    // An opaque callable keeps a region (for the rules about replays) but reaches no code.
    if (region.function != kNoFunction) targets.push_back(region.function);
  }
  EXPECT_EQ(targets, (std::vector<FunctionId>{step, lambda, forward, forward, step, forward}));
  // Graphed callables receive tensors; a method's self does not count.
  const CaptureRegion& first = model.regions[0];
  ASSERT_EQ(first.param_values.size(), 2u);
  EXPECT_TRUE(first.param_values[0].isTensor());
  EXPECT_TRUE(first.param_values[1].isTensor());
  const CaptureRegion& module = model.regions[2];
  ASSERT_EQ(module.param_values.size(), 2u);
  EXPECT_EQ(module.param_values[0].kind, ValueKind::kUnknown);
  EXPECT_TRUE(module.param_values[1].isTensor());
  // In the function itself, parameters stay unknown and parameter-derived.
  auto adds = events(function(model, "step"), EventKind::kTensorOp);
  ASSERT_EQ(adds.size(), 1u);
  EXPECT_EQ(adds[0]->subject.kind, ValueKind::kUnknown);
  EXPECT_EQ(adds[0]->subject.param_deps, 0b11u);
}

TEST(PythonRegions, GraphedCallableFromAnotherModule) {
  FileModel model = analyze(R"(
import torch
from .models import decoder_step
g = torch.cuda.make_graphed_callables(decoder_step, (x,))
)",
                            {}, "/nonexistent/pkg/run.py");
  ASSERT_EQ(model.regions.size(), 1u);
  EXPECT_EQ(model.regions[0].function, kNoFunction);
  EXPECT_EQ(model.regions[0].target_qualified, "models.decoder_step");
}

TEST(PythonRegions, CompileDecoratorModes) {
  FileModel model = analyze(R"(
import torch
@torch.compile(mode="reduce-overhead")
def a(x): return x
@torch.compile(mode="max-autotune")
def b(x): return x
@torch.compile(backend="cudagraphs")
def c(x): return x
@torch.compile(options={"triton.cudagraphs": True})
def d(x): return x
@torch.compile(mode="default")
def e(x): return x
@torch.compile
def f(x): return x
@torch.compile()
def g(x): return x
@torch.compile(mode="max-autotune-no-cudagraphs")
def h(x): return x
@torch.compile(options={"triton.cudagraphs": False})
def i(x): return x
)");
  ASSERT_EQ(countRegions(model, RegionKind::kCompiled), 4u);
  std::vector<std::string> names;
  for (const CaptureRegion& region : model.regions) {
    EXPECT_TRUE(region.dynamo_traced);
    EXPECT_TRUE(region.whole_function);
    names.push_back(model.functions[region.function].name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "d"}));
  // The decorator is the site.
  EXPECT_EQ(model.regions[0].site.start.line, 2u);
}

TEST(PythonRegions, CompileCallForms) {
  FileModel model = analyze(R"(
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return x

def fn(x):
    return x

def other(x):
    return x

f2 = torch.compile(fn, mode="reduce-overhead")
model = Model()
model = torch.compile(model, mode="max-autotune")
f3 = torch.compile(mode="reduce-overhead")(other)
f4 = torch.compile(fn)
f5 = torch.compile(fn, mode="default")
)");
  ASSERT_EQ(countRegions(model, RegionKind::kCompiled), 3u);
  EXPECT_EQ(model.regions[0].function, functionId(model, "fn"));
  EXPECT_EQ(model.regions[1].function, functionId(model, "Model.forward"));
  EXPECT_EQ(model.regions[2].function, functionId(model, "other"));
  for (const CaptureRegion& region : model.regions) EXPECT_TRUE(region.dynamo_traced);
}

TEST(PythonRegions, CompiledWrapperCallsReachTheFunction) {
  FileModel model = analyze(R"(
import torch
def fn(x):
    return x
def main(x):
    compiled = torch.compile(fn, mode="reduce-overhead")
    compiled(x)
)");
  auto calls = events(function(model, "main"), EventKind::kCall);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->callee, functionId(model, "fn"));
}

TEST(PythonRegions, ConfiguredEntryPoints) {
  AnalysisSettings settings;
  // `pkg.serve:decode` names this file's decode although the file is named `serve` alone: the
  // leading package may be spelled from a directory above the one modules are named from.
  settings.capture_entry_points = {"Runner.run", "pkg.serve:decode", "serve.encode"};
  FileModel model = analyze(R"(
class Runner:
    def run(self, x):
        return x
    def other(self, x):
        return x
def decode(x):
    return x
)",
                            settings, "/nonexistent/serve.py");
  ASSERT_EQ(countRegions(model, RegionKind::kEntryPoint), 2u);
  EXPECT_EQ(model.regions[0].function, functionId(model, "Runner.run"));
  EXPECT_EQ(model.regions[1].function, functionId(model, "decode"));
  EXPECT_TRUE(model.regions[0].whole_function);
}

// ---- calls -------------------------------------------------------------------------------------

TEST(PythonCalls, NestedClosureAndModuleFunctions) {
  FileModel model = analyze(R"(
def helper(x):
    return x

def outer(x):
    def inner(y):
        return helper(y)
    scale = 2
    def closure(z):
        return z * scale
    inner(x)
    closure(x)
    helper(x)
)");
  const FunctionModel* outer = function(model, "outer");
  ASSERT_NE(outer, nullptr);
  auto calls = events(outer, EventKind::kCall);
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0]->callee, functionId(model, "outer.<locals>.inner"));
  EXPECT_EQ(calls[1]->callee, functionId(model, "outer.<locals>.closure"));
  EXPECT_EQ(calls[2]->callee, functionId(model, "helper"));
  EXPECT_EQ(calls[0]->text, "inner(x)");
  ASSERT_EQ(calls[0]->args.size(), 1u);
  EXPECT_EQ(calls[0]->args[0].param_deps, 1u << 0);
  auto inner_calls = events(function(model, "outer.<locals>.inner"), EventKind::kCall);
  ASSERT_EQ(inner_calls.size(), 1u);
  EXPECT_EQ(inner_calls[0]->callee, functionId(model, "helper"));
}

TEST(PythonCalls, MethodsSelfInheritedAndUnbound) {
  FileModel model = analyze(R"(
class Base:
    def shared(self, x):
        return x

class Child(Base):
    def own(self, x):
        return x
    def run(self, x):
        self.own(x)
        self.shared(x)
        Base.shared(self, x)
        super().shared(x)
        other = Child()
        other.own(x)
)");
  auto calls = events(function(model, "Child.run"), EventKind::kCall);
  ASSERT_EQ(calls.size(), 6u);
  FunctionId own = functionId(model, "Child.own");
  FunctionId shared = functionId(model, "Base.shared");
  EXPECT_EQ(calls[0]->callee, own);
  EXPECT_EQ(calls[1]->callee, shared);
  EXPECT_EQ(calls[2]->callee, shared);
  EXPECT_EQ(calls[2]->args.size(), 2u);  // unbound: self is passed explicitly
  EXPECT_EQ(calls[3]->callee, shared);
  // Child() with no __init__ in the file: a call for the program model (a base elsewhere).
  EXPECT_EQ(calls[4]->callee, kNoFunction);
  EXPECT_NE(calls[4]->call, kNoRef);
  EXPECT_EQ(calls[5]->callee, own);
  EXPECT_TRUE(function(model, "Child.run")->is_method);
  EXPECT_EQ(function(model, "Child.run")->params.front().name, "self");
}

TEST(PythonCalls, ModuleInstancesCallForward) {
  FileModel model = analyze(R"(
import torch.nn as nn
class Block(nn.Module):
    def forward(self, x):
        return x
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.proj = nn.Linear(4, 4)
    def forward(self, x):
        h = self.block(x)
        return self.proj(h)
def main(x):
    net = Net().cuda().eval()
    net(x)
)");
  auto net_calls = events(function(model, "Net.forward"), EventKind::kCall);
  ASSERT_EQ(net_calls.size(), 2u);
  EXPECT_EQ(net_calls[0]->callee, functionId(model, "Block.forward"));
  // A torch.nn module's call: no function of the program to follow.
  EXPECT_EQ(net_calls[1]->api, "torch.nn.Module.__call__");
  EXPECT_EQ(net_calls[1]->callee, kNoFunction);
  auto main_calls = events(function(model, "main"), EventKind::kCall);
  ASSERT_EQ(main_calls.size(), 2u);  // Net.__init__, then Net.forward
  EXPECT_EQ(main_calls[0]->callee, functionId(model, "Net.__init__"));
  EXPECT_EQ(main_calls[1]->callee, functionId(model, "Net.forward"));
}

TEST(PythonCalls, ImportedCalleesGetQualifiedNames) {
  std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("graphsafe_pyfe_" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "a" / "b");
  std::ofstream(root / "a" / "__init__.py").put('\n');
  std::ofstream(root / "a" / "b" / "__init__.py").put('\n');
  std::string path = (root / "a" / "b" / "mod.py").string();
  FileModel model = analyze(R"(
import torch
import pkg.mod as m
import pkg.deep.mod
from .utils import f
from ..common import g as gg
from . import helpers
def run(x):
    f(x)
    gg(x)
    helpers.h(x)
    m.k(x)
    pkg.deep.mod.q(x)
    torch.zeros(3)
)",
                            {}, path);
  EXPECT_EQ(model.module_name, "a.b.mod");
  auto calls = events(function(model, "run"), EventKind::kCall);
  std::vector<std::string> names;
  for (const Event* call : calls) {
    EXPECT_EQ(call->callee, kNoFunction);
    names.push_back(call->callee_qualified);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"a.b.utils.f", "a.common.g", "a.b.helpers.h",
                                             "pkg.mod.k", "pkg.deep.mod.q"}));

  // In a package's __init__.py, one dot is the package itself.
  std::string init = (root / "a" / "b" / "__init__.py").string();
  FileModel package = analyze("from .utils import f\ndef run(x):\n    f(x)\n", {}, init);
  EXPECT_EQ(package.module_name, "a.b");
  auto package_calls = events(function(package, "run"), EventKind::kCall);
  ASSERT_EQ(package_calls.size(), 1u);
  EXPECT_EQ(package_calls[0]->callee_qualified, "a.b.utils.f");
  std::filesystem::remove_all(root);
}

TEST(PythonCalls, ModuleNameWithoutAPackage) {
  EXPECT_EQ(analyze("x = 1\n", {}, "/nonexistent/dir/tool.py").module_name, "tool");
  EXPECT_EQ(analyze("x = 1\n", {}, "stubs.pyi").module_name, "stubs");
}

// ---- values ------------------------------------------------------------------------------------

TEST(PythonValues, FactoriesMethodsAndArithmetic) {
  FileModel model = analyze(R"(
import torch
import torch.nn.functional as F
def run(n):
    a = torch.zeros(4, device="cuda")
    b = torch.randn_like(a)
    if a: pass
    if a.sum() > 0: pass
    if F.relu(a).mean(): pass
    if a * 2: pass
    if a @ b: pass
    if a[0]: pass
    if a[1:3].view(-1).float(): pass
    if torch.matmul(a, b): pass
)");
  for (std::string_view condition : {"a", "a.sum() > 0", "F.relu(a).mean()", "a * 2", "a @ b",
                                     "a[0]", "a[1:3].view(-1).float()", "torch.matmul(a, b)"}) {
    EXPECT_TRUE(branchValue(model, "run", condition).isTensor()) << condition;
  }
}

TEST(PythonValues, ShapesAndStructuralTestsAreHostValues) {
  FileModel model = analyze(R"(
import torch
def run(x: torch.Tensor, y):
    if x.shape[0] > 4: pass
    if x.size(1) == 3: pass
    if x.dim() > 2: pass
    if x.numel(): pass
    if len(x) > 1: pass
    if x is None: pass
    if y is not None: pass
    if isinstance(y, torch.Tensor): pass
    if hasattr(y, "shape"): pass
    if x.dtype == torch.float16: pass
)");
  for (std::string_view condition :
       {"x.shape[0] > 4", "x.size(1) == 3", "x.dim() > 2", "x.numel()", "len(x) > 1", "x is None",
        "y is not None", "isinstance(y, torch.Tensor)", "hasattr(y, \"shape\")"}) {
    Value value = branchValue(model, "run", condition);
    EXPECT_EQ(value.kind, ValueKind::kHostConstant) << condition;
    EXPECT_EQ(value.param_deps, 0u) << condition;
  }
}

TEST(PythonValues, AnnotationsAndParameterDependencies) {
  FileModel model = analyze(R"(
import torch
from torch import Tensor
def run(a: torch.Tensor, b: Tensor, c, d: "torch.Tensor", e: int):
    if a.sum() > 0: pass
    if b: pass
    if c.sum() > 0: pass
    if c > d: pass
    if e % 2 == 0: pass
    f = c * 2
    if f: pass
)");
  const FunctionModel* run = function(model, "run");
  ASSERT_EQ(run->params.size(), 5u);
  EXPECT_TRUE(run->params[0].declared.isTensor());
  EXPECT_TRUE(run->params[1].declared.isTensor());
  EXPECT_EQ(run->params[2].declared.kind, ValueKind::kUnknown);
  EXPECT_TRUE(run->params[3].declared.isTensor());
  EXPECT_EQ(run->params[4].declared.kind, ValueKind::kUnknown);
  EXPECT_TRUE(branchValue(model, "run", "a.sum() > 0").isTensor());
  EXPECT_TRUE(branchValue(model, "run", "b").isTensor());
  Value c = branchValue(model, "run", "c.sum() > 0");
  EXPECT_EQ(c.kind, ValueKind::kUnknown);
  EXPECT_EQ(c.param_deps, 1u << 2);
  EXPECT_EQ(c.origin, ValueOrigin::kParameter);
  EXPECT_TRUE(branchValue(model, "run", "c > d").isTensor());
  Value e = branchValue(model, "run", "e % 2 == 0");
  EXPECT_EQ(e.kind, ValueKind::kUnknown);
  EXPECT_EQ(e.param_deps, 1u << 4);
  EXPECT_EQ(branchValue(model, "run", "f").param_deps, 1u << 2);
}

TEST(PythonValues, ModuleRebindingAroundACapture) {
  FileModel model = analyze(R"(
import torch
SCALE = 2
def scaled(x):
    if SCALE: pass
    return x * SCALE
x = torch.ones(4, device="cuda")
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = scaled(x)
SCALE = 3
g.replay()
)");
  // The lowering knows SCALE is a host value; that the module's own code rebinds it between
  // the capture and the replay is the program model's finding (FrozenBranch.
  // ModuleRebindingBetweenCaptureAndReplay).
  Value scale = branchValue(model, "scaled", "SCALE");
  EXPECT_TRUE(scale.isKnownHost());
  EXPECT_NE(scale.ref, kNoRef);
}

TEST(PythonValues, HostValuesThatVary) {
  FileModel model = analyze(R"(
import time
import random
import torch
LR = 0.1
STEP = 0
SCALE = 2
SCALE = 3
def bump():
    global STEP
    STEP += 1
def run(x: torch.Tensor, n):
    t = time.time()
    r = random.random()
    v = x.item()
    l = x.tolist()
    if t: pass
    if r: pass
    if v: pass
    if l: pass
    if LR: pass
    if STEP: pass
    if SCALE: pass
    for i in range(n):
        if i: pass
    for k, w in enumerate([1, 2]):
        if k: pass
    for q in (0.1, 0.01):
        if q: pass
)");
  for (std::string_view condition : {"t", "r"}) {
    Value value = branchValue(model, "run", condition);
    EXPECT_EQ(value.kind, ValueKind::kHostVarying) << condition;
    EXPECT_EQ(value.origin, ValueOrigin::kHostCall) << condition;
  }
  EXPECT_EQ(branchValue(model, "run", "v").kind, ValueKind::kHostVarying);
  EXPECT_EQ(branchValue(model, "run", "l").kind, ValueKind::kHostVarying);
  Value lr = branchValue(model, "run", "LR");
  EXPECT_EQ(lr.kind, ValueKind::kHostConstant);
  EXPECT_EQ(lr.origin, ValueOrigin::kModuleConstant);
  // A global that a function rebinds is a host value here; whether it changes between
  // replays is the program model's question (fixtures/python/fields_between_replays/).
  Value step = branchValue(model, "run", "STEP");
  EXPECT_TRUE(step.isKnownHost());
  EXPECT_NE(step.ref, kNoRef);
  // Bound twice by module-level code, which is over at import: it does not change between
  // replays unless the module's own code captures (PythonValues.ModuleRebindingAroundACapture).
  Value scale = branchValue(model, "run", "SCALE");
  EXPECT_EQ(scale.kind, ValueKind::kHostConstant);
  EXPECT_EQ(scale.origin, ValueOrigin::kModuleConstant);
  // A loop variable varies between replays only around a capture (PythonValues.
  // LoopVariablesAroundACapture); in a function run under capture every iteration is recorded.
  for (std::string_view condition : {"i", "k", "q"}) {
    Value value = branchValue(model, "run", condition);
    EXPECT_EQ(value.kind, ValueKind::kHostConstant) << condition;
    EXPECT_EQ(value.origin, ValueOrigin::kLoopVariable) << condition;
  }
}

TEST(PythonValues, RebindingToDifferentKindsJoinsToUnknown) {
  FileModel model = analyze(R"(
import torch
def run(flag):
    a = torch.zeros(3)
    a = 5
    if a: pass
    b = torch.zeros(3)
    if flag:
        b = 5
    if b: pass
    c = torch.zeros(3)
    if flag:
        c = torch.ones(3)
    if c: pass
)");
  EXPECT_EQ(branchValue(model, "run", "a").kind, ValueKind::kHostConstant);  // straight line
  EXPECT_EQ(branchValue(model, "run", "b").kind, ValueKind::kUnknown);
  EXPECT_TRUE(branchValue(model, "run", "c").isTensor());
}

TEST(PythonValues, ClassAttributes) {
  FileModel model = analyze(R"(
import torch
import torch.nn as nn
class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(4))
        self.register_buffer("running", torch.zeros(4))
        self.eps = 1e-5
        self.step = 0
        self.size = n
        self.cache = None
        self.lin = nn.Linear(4, 4)
    def forward(self, x):
        self.step += 1
        if self.weight.sum() > 0: pass
        if self.running: pass
        if self.eps: pass
        if self.step: pass
        if self.size: pass
        if self.cache is None: pass
        h = self.lin(x)
        if h: pass
        if self.lin(self.weight): pass
    def update(self):
        self.cache = torch.ones(2)
)");
  EXPECT_TRUE(branchValue(model, "Model.forward", "self.weight.sum() > 0").isTensor());
  EXPECT_TRUE(branchValue(model, "Model.forward", "self.running").isTensor());
  EXPECT_EQ(branchValue(model, "Model.forward", "self.eps").kind, ValueKind::kHostConstant);
  // `self.step += 1` makes no value vary here: which writes run between replays is the
  // program model's (its replay cycle), so the lowering gives the attribute its binding.
  Value step = branchValue(model, "Model.forward", "self.step");
  EXPECT_TRUE(step.isKnownHost());
  EXPECT_NE(step.ref, kNoRef);
  Value size = branchValue(model, "Model.forward", "self.size");
  EXPECT_EQ(size.kind, ValueKind::kUnknown);
  EXPECT_EQ(size.param_deps, 0u);  // __init__'s parameters are not forward's
  EXPECT_EQ(branchValue(model, "Model.forward", "self.cache is None").kind,
            ValueKind::kHostConstant);
  Value h = branchValue(model, "Model.forward", "h");
  EXPECT_EQ(h.kind, ValueKind::kUnknown);
  EXPECT_EQ(h.param_deps, 1u << 1);  // a submodule applied to parameter x
  EXPECT_TRUE(branchValue(model, "Model.forward", "self.lin(self.weight)").isTensor());
}

// ---- synchronizations --------------------------------------------------------------------------

TEST(PythonSyncs, TensorMethods) {
  FileModel model = analyze(R"(
import torch
def run(x: torch.Tensor, y):
    x.item()
    x.tolist()
    x.cpu()
    x.numpy()
    y.item()
    x.to("cpu")
    x.to(device="cpu")
    x.to("cuda")
    x.to(torch.device("cpu"))
)");
  auto syncs = events(function(model, "run"), EventKind::kHostSync);
  ASSERT_EQ(syncs.size(), 8u);
  std::vector<std::string> texts;
  for (const Event* sync : syncs) {
    texts.push_back(sync->text);
    EXPECT_EQ(sync->flags, kFlagNotKnownHost);
  }
  EXPECT_EQ(texts, (std::vector<std::string>{".item()", ".tolist()", ".cpu()", ".numpy()",
                                             ".item()", ".to(\"cpu\")", ".to(device=\"cpu\")",
                                             ".to(torch.device(\"cpu\"))"}));
  EXPECT_EQ(syncs[0]->api, "torch.Tensor.item");
  EXPECT_TRUE(syncs[0]->subject.isTensor());
  EXPECT_EQ(syncs[0]->subject.text, "x");
  EXPECT_EQ(syncs[4]->subject.param_deps, 1u << 1);
  // The range covers the call.
  EXPECT_EQ(syncs[0]->range.start.line, 3u);
  EXPECT_EQ(syncs[0]->range.start.column, 4u);
  EXPECT_EQ(syncs[0]->range.stop.column, 12u);
}

TEST(PythonSyncs, ImplicitConversionsNeedATensor) {
  FileModel model = analyze(R"(
import torch
def run(x: torch.Tensor, n):
    int(x)
    float(x)
    bool(x)
    int(n)
    int(3)
    print(x, "label")
    print("no tensor")
    s = f"{x} {3}"
    str(x)
    repr(x)
    "%s" % x
    "%s %s" % (x, 3)
    "{}".format(x)
)");
  auto syncs = events(function(model, "run"), EventKind::kHostSync);
  std::vector<std::string> texts;
  for (const Event* sync : syncs) {
    texts.push_back(sync->text);
    EXPECT_EQ(sync->flags, kFlagImplicit | kFlagNeedsTensor) << sync->text;
  }
  EXPECT_EQ(texts,
            (std::vector<std::string>{"int(x)", "float(x)", "bool(x)", "int(n)",
                                      "print(x, \"label\")", "f\"{x}\"", "str(x)", "repr(x)",
                                      "\"%s\" % x", "\"%s %s\" % (x, 3)", "\"{}\".format(x)"}));
  EXPECT_EQ(syncs[0]->api, "builtins.int");
  EXPECT_TRUE(syncs[0]->subject.isTensor());
  EXPECT_EQ(syncs[3]->subject.param_deps, 1u << 1);
}

TEST(PythonSyncs, StreamsEventsAndDevice) {
  FileModel model = analyze(R"(
import torch
def run(s: torch.cuda.Stream, other, copy_stream):
    torch.cuda.synchronize()
    torch.cuda.current_stream().synchronize()
    torch.cuda.current_stream().query()
    s.synchronize()
    s.query()
    e = torch.cuda.Event()
    e.synchronize()
    e.query()
    other.synchronize()
    other.query()
    copy_stream.synchronize()
)");
  auto syncs = events(function(model, "run"), EventKind::kHostSync);
  std::vector<std::string> apis;
  for (const Event* sync : syncs) apis.push_back(sync->api);
  EXPECT_EQ(apis,
            (std::vector<std::string>{"torch.cuda.synchronize", "torch.cuda.Stream.synchronize",
                                      "torch.cuda.Stream.query", "torch.cuda.Stream.synchronize",
                                      "torch.cuda.Stream.query", "torch.cuda.Event.synchronize",
                                      "torch.cuda.Event.query", "torch.cuda.Stream.synchronize"}));
  EXPECT_EQ(syncs[0]->text, "torch.cuda.synchronize()");
  EXPECT_EQ(syncs[0]->flags, kFlagNone);
}

TEST(PythonSyncs, DataDependentShapes) {
  FileModel model = analyze(R"(
import torch
def run(x: torch.Tensor, y, r: torch.Tensor):
    torch.nonzero(x)
    x.nonzero()
    torch.unique(x)
    x.unique()
    torch.masked_select(x, x > 0)
    torch.argwhere(x)
    torch.where(x > 0)
    torch.where(x > 0, x, 0)
    x[x > 0]
    mask = x.isnan()
    x[mask]
    x[0]
    x[y > 0]
    x.repeat_interleave(r)
    x.repeat_interleave(2)
    torch.repeat_interleave(x, r)
    torch.repeat_interleave(x, r, output_size=8)
    x.repeat_interleave(r, dim=0, output_size=n)
)");
  auto syncs = events(function(model, "run"), EventKind::kHostSync);
  std::vector<std::string> texts;
  for (const Event* sync : syncs) {
    texts.push_back(sync->text);
    EXPECT_NE(sync->flags & kFlagDataDependent, 0) << sync->text;
  }
  EXPECT_EQ(texts, (std::vector<std::string>{"torch.nonzero(x)", ".nonzero()", "torch.unique(x)",
                                             ".unique()", "torch.masked_select(x, x > 0)",
                                             "torch.argwhere(x)", "torch.where(x > 0)", "x[x > 0]",
                                             "x[mask]", "x[y > 0]", ".repeat_interleave(r)",
                                             "torch.repeat_interleave(x, r)"}));
  // A mask derived from a parameter may be a tensor: the engine decides on each path.
  const Event* by_parameter = syncs[9];
  EXPECT_EQ(by_parameter->subject.param_deps, 1u << 1);
  EXPECT_EQ(by_parameter->flags, kFlagDataDependent | kFlagNeedsTensor);
}

TEST(PythonSyncs, GradScaler) {
  FileModel model = analyze(R"(
import torch
from torch.cuda.amp import GradScaler
def run(opt, loss):
    scaler = GradScaler()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    s2 = torch.amp.GradScaler("cuda")
    s2.step(opt)
    other.step(opt)
)");
  auto syncs = events(function(model, "run"), EventKind::kHostSync);
  ASSERT_EQ(syncs.size(), 3u);
  EXPECT_EQ(syncs[0]->api, "torch.amp.GradScaler.step");
  EXPECT_EQ(syncs[1]->api, "torch.amp.GradScaler.update");
  EXPECT_EQ(syncs[2]->api, "torch.amp.GradScaler.step");
}

TEST(PythonSyncs, ConfiguredSyncApis) {
  AnalysisSettings settings;
  settings.extra_sync_apis = {"mylib.barrier", ".wait_all"};
  FileModel model = analyze(R"(
from mylib import barrier
import mylib
def run(x, pool):
    barrier()
    mylib.barrier()
    pool.wait_all()
    pool.wait_some()
)",
                            settings);
  auto syncs = events(function(model, "run"), EventKind::kHostSync);
  ASSERT_EQ(syncs.size(), 3u);
  EXPECT_EQ(syncs[0]->api, "mylib.barrier");
  EXPECT_EQ(syncs[1]->api, "mylib.barrier");
  EXPECT_EQ(syncs[2]->api, ".wait_all");
  EXPECT_EQ(syncs[2]->flags, kFlagNotKnownHost);
}

TEST(PythonStateChanges, ConfiguredAndBuiltInStateApis) {
  AnalysisSettings settings;
  settings.extra_state_apis = {"mylib.reset_counters", ".advance"};
  FileModel model = analyze(R"(
import random
import torch
import mylib
def run(x, sampler, opt):
    mylib.reset_counters()
    sampler.advance()
    sampler.advance_by(2)
    torch.cuda.manual_seed_all(0)
    random.seed(1)
    scaler = torch.amp.GradScaler("cuda")
    scaler.unscale_(opt)
    adam = torch.optim.Adam([x], lr=1.0)
    adam.step()
    graphable = torch.optim.Adam([x], lr=1.0, capturable=True)
    graphable.step()
)",
                            settings);
  auto changes = events(function(model, "run"), EventKind::kStateChange);
  ASSERT_EQ(changes.size(), 6u);
  EXPECT_EQ(changes[0]->api, "mylib.reset_counters");
  EXPECT_EQ(changes[1]->api, ".advance");
  EXPECT_EQ(changes[2]->api, "torch.cuda.manual_seed_all");
  EXPECT_EQ(changes[3]->api, "random.seed");
  EXPECT_EQ(changes[4]->api, "torch.amp.GradScaler.unscale_");
  EXPECT_EQ(changes[5]->api, "torch.optim.Adam.step");
}

TEST(PythonGradResets, ZeroGradUnlessInPlaceAndGradSetToNone) {
  FileModel model = analyze(R"(
def run(model, opt, p):
    opt.zero_grad()
    opt.zero_grad(set_to_none=True)
    opt.zero_grad(set_to_none=False)
    model.zero_grad(False)
    p.grad = None
    p.grad.zero_()
)");
  auto resets = events(function(model, "run"), EventKind::kGradReset);
  ASSERT_EQ(resets.size(), 3u);
  EXPECT_EQ(resets[0]->target, "opt");
  EXPECT_EQ(resets[1]->text, "opt.zero_grad(set_to_none=True)");
  EXPECT_EQ(resets[2]->text, "p.grad = None");
  EXPECT_EQ(resets[2]->target, "p");
}

// ---- branches ----------------------------------------------------------------------------------

TEST(PythonBranches, EveryConditionForm) {
  FileModel model = analyze(R"(
import torch
def run(x: torch.Tensor, n, items):
    if x.any():
        pass
    elif x.all():
        pass
    while x.sum() > 0:
        pass
    y = 1 if x.max() > 0 else 2
    assert x.min() >= 0, "negative"
    z = [v for v in items if v > n]
    if x.any() and n is not None:
        pass
    if not x.all():
        pass
    if bool(x.any()):
        pass
    w = x.any() or n
)");
  const FunctionModel* run = function(model, "run");
  std::vector<std::string> conditions;
  for (const Event* branch : events(run, EventKind::kBranch)) conditions.push_back(branch->text);
  EXPECT_EQ(conditions,
            (std::vector<std::string>{"x.any()", "x.all()", "x.sum() > 0", "x.max() > 0",
                                      "x.min() >= 0", "v > n", "x.any()", "n is not None",
                                      "x.all()", "bool(x.any())", "x.any()"}));
  // bool() used as a condition is the branch itself, not an extra synchronization.
  EXPECT_TRUE(events(run, EventKind::kHostSync).empty());
  const Event* as_bool = event(run, EventKind::kBranch, "bool(x.any())");
  ASSERT_NE(as_bool, nullptr);
  EXPECT_TRUE(as_bool->subject.isTensor());
  EXPECT_EQ(as_bool->range.start.line, 16u);
}

TEST(PythonBranches, OneHazardOneEvent) {
  FileModel model = analyze(R"(
import torch
def run(x: torch.Tensor):
    if x.sum() > 0:
        pass
    if x.item() > 0:
        pass
)");
  const FunctionModel* run = function(model, "run");
  auto branches = events(run, EventKind::kBranch);
  auto syncs = events(run, EventKind::kHostSync);
  ASSERT_EQ(branches.size(), 2u);
  ASSERT_EQ(syncs.size(), 1u);  // only .item(): the tensor condition is one branch event
  EXPECT_TRUE(branches[0]->subject.isTensor());
  EXPECT_EQ(syncs[0]->text, ".item()");
  EXPECT_EQ(branches[1]->subject.kind, ValueKind::kHostVarying);
}

TEST(PythonBranches, LoopsRecordTheirIterable) {
  FileModel model = analyze(R"(
import torch
def run(x: torch.Tensor, n):
    for i in range(n):
        pass
    for row in x:
        if row.sum(): pass
)");
  auto loops = events(function(model, "run"), EventKind::kLoop);
  ASSERT_EQ(loops.size(), 2u);
  EXPECT_EQ(loops[0]->text, "range(n)");
  EXPECT_EQ(loops[0]->subject.param_deps, 1u << 1);
  EXPECT_TRUE(loops[1]->subject.isTensor());
  EXPECT_TRUE(branchValue(model, "run", "row.sum()").isTensor());
}

// ---- tensor ops --------------------------------------------------------------------------------

TEST(PythonTensorOps, CallsAndScalarOperands) {
  FileModel model = analyze(R"(
import torch
def run(w: torch.Tensor, grad: torch.Tensor, lr):
    w.sub_(grad * lr)
    torch.float_power(w, lr)
)");
  auto ops = events(function(model, "run"), EventKind::kTensorOp);
  std::vector<std::string> apis;
  for (const Event* op : ops) apis.push_back(op->api);
  EXPECT_EQ(apis,
            (std::vector<std::string>{"operator.mul", "torch.Tensor.sub_", "torch.float_power"}));
  ASSERT_EQ(ops[0]->args.size(), 2u);
  EXPECT_EQ(ops[0]->args[1].text, "lr");
  EXPECT_EQ(ops[0]->args[1].param_deps, 1u << 2);
  EXPECT_TRUE(ops[1]->subject.isTensor());
  ASSERT_EQ(ops[2]->args.size(), 2u);
  EXPECT_EQ(ops[2]->args[1].param_deps, 1u << 2);
}

// ---- file facts and robustness -----------------------------------------------------------------

TEST(PythonFile, FunctionsAndModuleLevel) {
  FileModel model = analyze(R"(
import torch
x = torch.zeros(3, device="cuda")
y = x.item()
class A:
    def m(self, v):
        return lambda q: q
)");
  ASSERT_GE(model.functions.size(), 2u);
  EXPECT_TRUE(model.functions[0].is_module_level);
  EXPECT_EQ(events(&model.functions[0], EventKind::kHostSync).size(), 1u);
  const FunctionModel* method = function(model, "A.m");
  ASSERT_NE(method, nullptr);
  EXPECT_EQ(method->name, "m");
  EXPECT_EQ(method->range.start.line, 5u);
  EXPECT_EQ(method->range.start.column, 8u);
  EXPECT_EQ(method->params.size(), 2u);
  // Every lambda is a function of its own: the program model calls it where it is passed.
  const FunctionModel* lambda = function(model, "A.m.<locals>.<lambda>");
  ASSERT_NE(lambda, nullptr);
  EXPECT_TRUE(lambda->is_lambda);
  EXPECT_NE(lambda->returns, kNoRef);
}

TEST(PythonFile, CommentsAreCollected) {
  FileModel model = analyze(
      "import torch  # graphsafe: ignore[GS401]\n"
      "s = \"# not a comment\"\n"
      "    # indented\n"
      "def f(x):  # noqa: GS101\n"
      "    return x\n");
  ASSERT_EQ(model.comments.size(), 3u);
  EXPECT_EQ(model.comments[0].line, 0u);
  EXPECT_EQ(model.comments[0].column, 14u);
  EXPECT_EQ(model.comments[0].text, "# graphsafe: ignore[GS401]");
  EXPECT_EQ(model.comments[1].line, 2u);
  EXPECT_EQ(model.comments[2].text, "# noqa: GS101");
}

TEST(PythonFile, SyntaxErrorGivesOneNoticeAndKeepsRegions) {
  FileModel model = analyze(R"(
import torch
def capture(g, x):
    with torch.cuda.graph(g):
        y = x.item()

def broken(:
    pass

def also_broken(]:
    pass
)",
                            {}, "bad.py");
  EXPECT_FALSE(model.parse_failed);
  ASSERT_EQ(model.notices.size(), 1u);
  EXPECT_EQ(model.notices[0].path, "bad.py");
  EXPECT_EQ(model.notices[0].line, 6);
  EXPECT_EQ(model.notices[0].message,
            "syntax error; results for this file may be incomplete");
  ASSERT_EQ(countRegions(model, RegionKind::kGraphContext), 1u);
  EXPECT_EQ(events(function(model, "capture"), EventKind::kHostSync).size(), 1u);
}

TEST(PythonFile, EmptyAndNulInputDoNotCrash) {
  FileModel empty = analyze("");
  EXPECT_FALSE(empty.parse_failed);
  ASSERT_EQ(empty.functions.size(), 1u);
  EXPECT_TRUE(empty.notices.empty());

  std::string nul("import torch\0\0\ndef f(x):\n    return x.item()\n\0", 47);
  FileModel with_nul = analyze(nul);
  EXPECT_LE(with_nul.notices.size(), 1u);

  FileModel only_nul = analyze(std::string(1000, '\0'));
  EXPECT_LE(only_nul.notices.size(), 1u);

  FileModel garbage = analyze("\xff\xfe\x80 def ( [ { \"\"\" '''");
  EXPECT_LE(garbage.notices.size(), 1u);
}

TEST(PythonFile, DeepNestingDoesNotOverflowTheStack) {
  constexpr int kDepth = 5000;
  std::string brackets =
      "import torch\nx = " + std::string(kDepth, '(') + "1" + std::string(kDepth, ')') + "\n";
  std::string lists = "y = " + std::string(kDepth, '[') + std::string(kDepth, ']') + "\n";
  std::string calls = "z = ";
  for (int i = 0; i < kDepth; ++i) calls += "f(";
  calls += "t.item()" + std::string(kDepth, ')') + "\n";
  std::string chains = "w = 1";
  for (int i = 0; i < kDepth; ++i) chains += " + x.item()";
  chains += "\nv = " + std::string(static_cast<std::size_t>(kDepth) * 2, 'a') + "\n";
  std::string attributes = "u = a";
  for (int i = 0; i < kDepth; ++i) attributes += ".b";
  attributes += "\nq = " + std::string(kDepth, '-') + "1\nr = ";
  for (int i = 0; i < kDepth; ++i) attributes += "not ";
  attributes += "x\n";
  for (const std::string& text : {brackets, lists, calls, chains, attributes}) {
    FileModel model = analyze(text);
    EXPECT_FALSE(model.parse_failed);
    EXPECT_EQ(model.functions.size(), 1u);
  }

  // 5,000 nested blocks: tree-sitter gives up on the indentation (the root is an error), so the
  // file is reported and skipped; it must not crash on the way.
  std::string blocks;
  for (int i = 0; i < kDepth; ++i)
    blocks += std::string(static_cast<std::size_t>(i), ' ') + "if x:\n";
  blocks += std::string(kDepth, ' ') + "pass\n";
  AnalysisSettings large;
  large.max_file_bytes = 64u << 20;
  FileModel nested = analyze(blocks, large);
  EXPECT_LE(nested.notices.size(), 1u);

  // Nesting past the frontend's own cap (256) in code that parses: events below the cap are
  // kept, deeper ones dropped.
  std::string deep = "import torch\ndef f(g, x):\n    with torch.cuda.graph(g):\n";
  for (int i = 0; i < 300; ++i) {
    deep += std::string(static_cast<std::size_t>(8 + i), ' ') + "if x.item():\n";
  }
  deep += std::string(8 + 300, ' ') + "pass\n";
  FileModel capped = analyze(deep);
  ASSERT_EQ(capped.notices.size(), 1u);  // the cap is named, at the first line past it
  EXPECT_NE(capped.notices[0].message.find("nested deeper than the analysis follows"),
            std::string::npos);
  EXPECT_GT(capped.notices[0].line, 100);
  const FunctionModel* f = function(capped, "f");
  ASSERT_NE(f, nullptr);
  auto syncs = events(f, EventKind::kHostSync);
  EXPECT_GT(syncs.size(), 10u);
  EXPECT_LT(syncs.size(), 300u);
  for (const Event* sync : syncs) EXPECT_EQ(sync->region, 0);
}

// ---- capture queries, graphed modules ---------------------------------------------------------

TEST(PythonCaptureQueries, BranchesOnTheAnswerAreMarked) {
  FileModel model = analyze(R"(
import time
import torch

def capturing():
    return torch.cuda.is_current_stream_capturing()

def differ(x):
    if torch.cuda.is_current_stream_capturing():
        x = x * -1
    return x

def waits(x):
    if capturing():
        torch.cuda._sleep(100)
    else:
        time.sleep(0.1)
    return x

def other(x, flag):
    if flag:
        x = x * 2
    return x
)");
  const Event* differ = event(function(model, "differ"), EventKind::kBranch,
                              "torch.cuda.is_current_stream_capturing()");
  ASSERT_NE(differ, nullptr);
  EXPECT_EQ(differ->flags & (kFlagCaptureDependent | kFlagSidesDiffer),
            kFlagCaptureDependent | kFlagSidesDiffer);
  const Event* waits = event(function(model, "waits"), EventKind::kBranch, "capturing()");
  ASSERT_NE(waits, nullptr);
  EXPECT_NE(waits->flags & kFlagCaptureDependent, 0);
  EXPECT_EQ(waits->flags & kFlagSidesDiffer, 0);
  const Event* other = event(function(model, "other"), EventKind::kBranch, "flag");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(other->flags & (kFlagCaptureDependent | kFlagSidesDiffer), 0);
}

TEST(PythonCaptureQueries, ConfiguredFlagsAnswerTheQuestion) {
  AnalysisSettings settings;
  settings.capture_flags = {"mylib.graphs.CAPTURING", "mylib.graphs.capturing_now",
                            ".is_capturing", "sample.LOCAL_FLAG"};
  FileModel model = analyze(R"(
from mylib import graphs
from mylib.graphs import CAPTURING
LOCAL_FLAG = False

def by_global(x):
    if CAPTURING:
        x = x.half()
    return x

def by_function(x):
    if graphs.capturing_now():
        x = x.half()
    return x

def by_attribute(self, x):
    if self.is_capturing:
        x = x.half()
    return x

def by_local_name(x):
    now = graphs.CAPTURING
    if now:
        x = x.half()
    return x

def by_this_module(x):
    if LOCAL_FLAG:
        x = x.half()
    return x

def not_declared(x):
    if graphs.OTHER:
        x = x.half()
    return x
)",
                            settings);
  for (const auto& [name, condition] :
       std::vector<std::pair<std::string, std::string>>{{"by_global", "CAPTURING"},
                                                        {"by_function", "graphs.capturing_now()"},
                                                        {"by_attribute", "self.is_capturing"},
                                                        {"by_local_name", "now"},
                                                        {"by_this_module", "LOCAL_FLAG"}}) {
    const Event* branch = event(function(model, name), EventKind::kBranch, condition);
    ASSERT_NE(branch, nullptr) << name;
    EXPECT_NE(branch->flags & kFlagSidesDiffer, 0) << name;
  }
  const Event* other = event(function(model, "not_declared"), EventKind::kBranch, "graphs.OTHER");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(other->flags & kFlagCaptureDependent, 0);
}

TEST(PythonGraphedModules, HooksOptimizerStepsAndBackwardsAreEvents) {
  FileModel model = analyze(R"(
import torch

def f(net, x):
    graphed = torch.cuda.make_graphed_callables((net, net.head), ((x,), (x,)))
    for name, sub in net.named_modules():
        sub.register_forward_hook(print)
    net.layers[0].register_forward_pre_hook(print)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    opt.step()
    y = graphed[1](x)
    y.sum().backward()
)");
  ASSERT_EQ(countRegions(model, RegionKind::kGraphedCallable), 2u);
  EXPECT_EQ(model.regions[0].callable, "net");
  EXPECT_EQ(model.regions[0].tuple_index, 0);
  EXPECT_EQ(model.regions[1].callable, "net.head");
  EXPECT_EQ(model.regions[1].tuple_index, 1);
  const FunctionModel* f = function(model, "f");
  std::vector<const Event*> calls = events(f, EventKind::kCall);
  auto find = [&](std::string_view api) -> const Event* {
    for (const Event* call : calls) {
      if (call->api == api) return call;
    }
    return nullptr;
  };
  const Event* hook = find("torch.nn.Module.register_forward_hook");
  ASSERT_NE(hook, nullptr);
  EXPECT_EQ(hook->target, "sub");
  EXPECT_EQ(hook->source, "net");
  const Event* pre_hook = find("torch.nn.Module.register_forward_pre_hook");
  ASSERT_NE(pre_hook, nullptr);
  EXPECT_EQ(pre_hook->target, "net.layers");
  const Event* step = find("torch.optim.Optimizer.step");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->target, "opt");
  const Event* backward = find("torch.Tensor.backward");
  ASSERT_NE(backward, nullptr);
  EXPECT_EQ(backward->target, "y.sum");
  const Event* bind = event(f, EventKind::kBind, "y = graphed[1](x)");
  ASSERT_NE(bind, nullptr);
  EXPECT_EQ(bind->output_of, 1);  // the region of the callable at position 1
}

TEST(PythonFile, MayMatterIsALexicalPrescan) {
  auto frontend = makePythonFrontend();
  EXPECT_TRUE(frontend->mayMatter("import torch\n"));
  EXPECT_TRUE(frontend->mayMatter("def f(g):\n    g.capture_begin()\n"));
  EXPECT_TRUE(frontend->mayMatter("f = compile(g, mode='reduce-overhead')\n"));
  // Only a file that can hold a capture region: tensor code it calls comes in by the imports.
  EXPECT_FALSE(frontend->mayMatter("def f(x):\n    return x.item()\n"));
  EXPECT_FALSE(frontend->mayMatter("def f(x):\n    return x + 1\n"));
  EXPECT_EQ(frontend->language(), Language::kPython);
}

TEST(PythonFile, ImportedModulesAreReadLexically) {
  auto frontend = makePythonFrontend();
  SourceFile file("/nonexistent/pkg/run.py",
                  "import torch.cuda as tc, os\n"
                  "from .models import (\n    Llama as L,\n    mistral,\n)\n"
                  "  from ..util.x import y  # a comment\n"
                  "s = 'import not_real'\n"
                  "from . import helpers\n");
  std::vector<std::string> modules = frontend->importedModules(file);
  for (const char* expected : {"torch", "torch.cuda", "os", "models", "models.Llama",
                               "models.mistral", "helpers"}) {
    EXPECT_NE(std::find(modules.begin(), modules.end(), expected), modules.end()) << expected;
  }
  // An alias is no module; an import inside a string is not a statement.
  EXPECT_EQ(std::find(modules.begin(), modules.end(), "models.L"), modules.end());
  EXPECT_EQ(std::find(modules.begin(), modules.end(), "not_real"), modules.end());
}

TEST(PythonFile, OversizedFileIsSkippedWithANotice) {
  AnalysisSettings small;
  small.max_file_bytes = 16;
  FileModel model = analyze("import torch\nx = torch.zeros(3)\n", small, "big.py");
  EXPECT_TRUE(model.parse_failed);
  ASSERT_EQ(model.notices.size(), 1u);
  EXPECT_EQ(model.notices[0].path, "big.py");
}

}  // namespace
}  // namespace graphsafe
