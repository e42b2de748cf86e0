// The CUDA C++ frontend, called directly: what it lowers into the capture model. Every test runs
// twice, with the CUDA toolkit (when this machine has one) and with the built-in declarations
// that stand in for it on machines without CUDA.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/engine/analysis_settings.h"
#include "analyzer/engine/cuda_frontend_loader.h"
#include "analyzer/engine/cuda_prefilter.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/file_walker.h"
#include "tests/fixture_expectations.h"

namespace graphsafe::testing {
namespace {

namespace fs = std::filesystem;

const Frontend& cudaFrontend() {
  static std::unique_ptr<Frontend> frontend = [] {
    std::string error;
    auto loaded = loadCudaFrontend(error);
    if (!loaded) ADD_FAILURE() << error;
    return loaded;
  }();
  return *frontend;
}

// A directory of its own per test, with no compile_commands.json above it.
fs::path scratchDirectory() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "_" + info->name();
  std::replace(name.begin(), name.end(), '/', '_');
  fs::path dir = fs::temp_directory_path() / "graphsafe-cuda-frontend-test" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

constexpr const char* kKernels = R"(
__global__ void k(float* x) {}
__global__ void k2(float* x, int a, float b) {}
)";

class CudaFrontendTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    directory_ = scratchDirectory();
    settings_.cuda_path = GetParam();
    settings_.compile_commands_dir = directory_.string();  // empty: no database
  }

  FileModel analyze(const std::string& text, const std::string& name = "test.cu") {
    auto source = std::make_shared<SourceFile>((directory_ / name).string(), text);
    FileModel model = cudaFrontend().analyze(source, settings_);
    EXPECT_FALSE(model.parse_failed);
    return model;
  }

  fs::path directory_;
  AnalysisSettings settings_;
};

const FunctionModel* function(const FileModel& model, const std::string& name) {
  for (const FunctionModel& candidate : model.functions) {
    if (candidate.name == name) return &candidate;
  }
  ADD_FAILURE() << "no function " << name;
  return nullptr;
}

FunctionId functionId(const FileModel& model, const std::string& name) {
  for (std::size_t i = 0; i < model.functions.size(); ++i) {
    if (model.functions[i].name == name) return static_cast<FunctionId>(i);
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

// 1-based source lines of events, for readable expectations.
std::vector<std::uint32_t> lines(const std::vector<const Event*>& found) {
  std::vector<std::uint32_t> result;
  for (const Event* event : found) result.push_back(event->range.start.line + 1);
  return result;
}

using Lines = std::vector<std::uint32_t>;

TEST_P(CudaFrontendTest, StreamCaptureRegionAndWorkOffTheCaptureStream) {
  FileModel model = analyze(std::string(kKernels) + R"(
void run(float* x) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
  k<<<1, 32, 0, s>>>(x);
  k<<<1, 32>>>(x);
  k<<<1, 32, 0, 0>>>(x);
  k<<<1, 32, 0, cudaStreamLegacy>>>(x);
  cudaMemcpy(x, x, 4, cudaMemcpyDeviceToDevice);
  cudaMemcpyAsync(x, x, 4, cudaMemcpyDeviceToDevice);
  cudaMemcpyAsync(x, x, 4, cudaMemcpyDeviceToDevice, s);
  cudaDeviceSynchronize();
  cudaStreamEndCapture(s, &graph);
  cudaDeviceSynchronize();
}
)");
  ASSERT_EQ(model.regions.size(), 1u);
  const CaptureRegion& region = model.regions[0];
  EXPECT_EQ(region.kind, RegionKind::kStreamCapture);
  EXPECT_EQ(region.stream, "s");
  EXPECT_EQ(region.mode, "relaxed");
  EXPECT_EQ(region.graph, "graph");
  EXPECT_EQ(region.site.start.line + 1, 9u);
  const FunctionModel* run = function(model, "run");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(region.function, functionId(model, "run"));
  auto uses = events(run, EventKind::kStreamUse);
  EXPECT_EQ(lines(uses), (Lines{11, 12, 13, 14, 15}));
  for (const Event* use : uses) EXPECT_EQ(use->region, 0);
  EXPECT_NE(uses[0]->text.find("legacy default stream"), std::string::npos) << uses[0]->text;
  EXPECT_EQ(uses[3]->api, "cudaMemcpy");
  auto syncs = events(run, EventKind::kHostSync);
  ASSERT_EQ(lines(syncs), (Lines{17, 19}));
  EXPECT_EQ(syncs[0]->region, 0);
  EXPECT_EQ(syncs[1]->region, -1);
  EXPECT_EQ(syncs[0]->api, "cudaDeviceSynchronize");
  EXPECT_EQ(events(run, EventKind::kTensorOp).size(), 6u);
}

TEST_P(CudaFrontendTest, ForkedAndJoinedStreamsAndOneNeverForked) {
  FileModel model = analyze(std::string(kKernels) + R"(
void run(float* x, cudaStream_t s, cudaStream_t side, cudaStream_t other, cudaEvent_t fork,
         cudaEvent_t join) {
  cudaGraph_t graph;
  cudaEventRecord(fork, s);
  cudaStreamWaitEvent(other, fork, 0);
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaEventRecord(fork, s);
  cudaStreamWaitEvent(side, fork, 0);
  k<<<1, 1, 0, side>>>(x);
  k<<<1, 1, 0, other>>>(x);
  cudaEventRecord(join, side);
  cudaStreamWaitEvent(s, join, 0);
  cudaStreamEndCapture(s, &graph);
}
)");
  const FunctionModel* run = function(model, "run");
  auto forks = events(run, EventKind::kStreamFork);
  auto joins = events(run, EventKind::kStreamJoin);
  ASSERT_EQ(lines(forks), (Lines{12}));
  ASSERT_EQ(lines(joins), (Lines{16}));
  EXPECT_EQ(forks[0]->subject.text, "side");
  EXPECT_EQ(joins[0]->subject.text, "side");
  auto uses = events(run, EventKind::kStreamUse);
  ASSERT_EQ(lines(uses), (Lines{14}));
  EXPECT_NE(uses[0]->text.find("`other`"), std::string::npos) << uses[0]->text;
}

TEST_P(CudaFrontendTest, AnEndInAnErrorBranchClosesOnlyThatBranch) {
  FileModel model = analyze(std::string(kKernels) + R"(
int run(float* x, cudaStream_t s, bool bad) {
  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  k<<<1, 1, 0, s>>>(x);
  if (bad) {
    cudaStreamEndCapture(s, &graph);
    cudaDeviceSynchronize();
    return 1;
  }
  cudaStreamSynchronize(s);
  cudaStreamEndCapture(s, &graph);
  cudaFree(x);
  return 0;
}
)");
  ASSERT_EQ(model.regions.size(), 1u);
  auto syncs = events(function(model, "run"), EventKind::kHostSync);
  ASSERT_EQ(lines(syncs), (Lines{11, 14, 16}));
  EXPECT_EQ(syncs[0]->region, -1);  // the error branch ended the capture first
  EXPECT_EQ(syncs[1]->region, 0);
  EXPECT_EQ(syncs[2]->region, -1);
}

TEST_P(CudaFrontendTest, CaptureThroughErrorCheckingMacros) {
  FileModel model = analyze(std::string(kKernels) + R"(
#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { return; } } while (0)
void run(float* x, cudaStream_t s) {
  cudaGraph_t graph;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaMalloc(&x, 16));
  CHECK(cudaStreamEndCapture(s, &graph));
}
)");
  ASSERT_EQ(model.regions.size(), 1u);
  auto syncs = events(function(model, "run"), EventKind::kHostSync);
  ASSERT_EQ(lines(syncs), (Lines{9}));
  EXPECT_EQ(syncs[0]->region, 0);
  EXPECT_EQ(syncs[0]->range.start.column, 8u);  // at the call, inside the macro argument
}

TEST_P(CudaFrontendTest, TemplatesAreLoweredOnceAtTheTemplate) {
  FileModel model = analyze(R"(
template <typename T> __global__ void kt(T* x) {}
template <typename T> void launch(T* x) { kt<<<1, 1>>>(x); }
void use(float* f, int* i) {
  launch(f);
  launch(i);
}
)");
  int launches = 0;
  for (const FunctionModel& candidate : model.functions) {
    if (candidate.name == "launch") ++launches;
  }
  EXPECT_EQ(launches, 1);
  const FunctionModel* launch = function(model, "launch");
  EXPECT_EQ(lines(events(launch, EventKind::kTensorOp)), (Lines{3}));
  EXPECT_EQ(lines(events(launch, EventKind::kStreamUse)), (Lines{3}));
  auto calls = events(function(model, "use"), EventKind::kCall);
  ASSERT_EQ(calls.size(), 2u);
  for (const Event* call : calls) EXPECT_EQ(call->callee, functionId(model, "launch"));
}

TEST_P(CudaFrontendTest, KernelArgumentsThatChangeAfterTheCapture) {
  FileModel model = analyze(std::string(kKernels) + R"(
constexpr int kSize = 4;
void run(float* x, cudaStream_t s, int steps) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  const int fixed = 8;
  int scale = 1;
  for (int step = 0; step < steps; ++step) {
    if (step == 0) {
      cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
      k2<<<1, 1, 0, s>>>(x, step, 2.0f);
      k2<<<1, 1, 0, s>>>(x, kSize, fixed);
      k2<<<1, 1, 0, s>>>(x, scale, 1.0f);
      for (int layer = 0; layer < 4; ++layer) k2<<<1, 1, 0, s>>>(x, layer, 1.0f);
      cudaStreamEndCapture(s, &graph);
      cudaGraphInstantiate(&exec, graph, 0);
    }
    scale = step * 2;
    cudaGraphLaunch(exec, s);
  }
}
void every_iteration(float* x, cudaStream_t s, int steps) {
  cudaGraph_t graph;
  for (int step = 0; step < steps; ++step) {
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    k2<<<1, 1, 0, s>>>(x, step, 2.0f);
    cudaStreamEndCapture(s, &graph);
  }
}
)");
  auto ops = events(function(model, "run"), EventKind::kTensorOp);
  ASSERT_EQ(ops.size(), 4u);
  for (const Event* op : ops) ASSERT_EQ(op->args.size(), 3u);
  EXPECT_EQ(ops[0]->args[0].kind, ValueKind::kTensor);
  EXPECT_EQ(ops[0]->args[1].kind, ValueKind::kHostVarying);
  EXPECT_EQ(ops[0]->args[1].origin, ValueOrigin::kLoopVariable);
  EXPECT_EQ(ops[0]->args[1].text, "step");
  EXPECT_EQ(ops[0]->args[2].kind, ValueKind::kHostConstant);
  EXPECT_EQ(ops[1]->args[1].kind, ValueKind::kHostConstant);
  EXPECT_EQ(ops[1]->args[2].kind, ValueKind::kHostConstant);
  EXPECT_EQ(ops[2]->args[1].kind, ValueKind::kHostVarying);
  EXPECT_EQ(ops[2]->args[1].origin, ValueOrigin::kReassigned);
  EXPECT_EQ(ops[3]->args[1].kind, ValueKind::kUnknown);  // one node per layer: fine
  EXPECT_EQ(function(model, "run")->loops.size(), 2u);
  auto again = events(function(model, "every_iteration"), EventKind::kTensorOp);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0]->args[1].kind, ValueKind::kUnknown);  // captured anew each time
}

// A loop that captures on its first iteration only: what a local computed in the body reads
// decides whether the launch argument varies between the launches that skip the capture.
TEST_P(CudaFrontendTest, LazyCaptureValuesComputedPerIteration) {
  FileModel model = analyze(std::string(kKernels) + R"(
int next(int);
void run(float* x, cudaStream_t s, int steps, int base) {
  cudaGraph_t graph;
  cudaGraphExec_t exec = nullptr;
  int carried = 0;
  for (int step = 0; step < steps; ++step) {
    int derived = next(step) + 1;
    int same = base * 2;
    carried += 3;
    if (exec == nullptr) {
      cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
      k2<<<1, 1, 0, s>>>(x, derived, 1.0f);
      k2<<<1, 1, 0, s>>>(x, same, 1.0f);
      k2<<<1, 1, 0, s>>>(x, carried, 1.0f);
      cudaStreamEndCapture(s, &graph);
      cudaGraphInstantiate(&exec, graph, 0);
    }
    cudaGraphLaunch(exec, s);
  }
}
void refreshed(float* x, cudaStream_t s, int steps, cudaGraphNode_t node,
               const cudaKernelNodeParams* params) {
  cudaGraph_t graph;
  cudaGraphExec_t exec = nullptr;
  for (int step = 0; step < steps; ++step) {
    int derived = step + 1;
    if (!exec) {
      cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
      k2<<<1, 1, 0, s>>>(x, derived, 1.0f);
      cudaStreamEndCapture(s, &graph);
      cudaGraphInstantiate(&exec, graph, 0);
    }
    cudaGraphExecKernelNodeSetParams(exec, node, params);
    cudaGraphLaunch(exec, s);
  }
}
)");
  auto ops = events(function(model, "run"), EventKind::kTensorOp);
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0]->args[1].kind, ValueKind::kHostVarying);
  EXPECT_EQ(ops[0]->args[1].origin, ValueOrigin::kReassigned);
  EXPECT_EQ(ops[1]->args[1].kind, ValueKind::kUnknown);  // the same every iteration
  EXPECT_EQ(ops[2]->args[1].kind, ValueKind::kHostVarying);
  auto updated = events(function(model, "refreshed"), EventKind::kTensorOp);
  ASSERT_EQ(updated.size(), 1u);
  EXPECT_EQ(updated[0]->args[1].kind, ValueKind::kUnknown);  // node parameters set anew
}

// A local vector's block, followed from constants: only an edit known to move it frees it.
TEST_P(CudaFrontendTest, VectorEditsThatMoveTheCapturedBlock) {
  FileModel model = analyze(std::string(kKernels) + R"(
#include <vector>
void run(float* d, cudaStream_t s, bool more) {
  std::vector<float> grown(16);
  std::vector<float> roomy;
  roomy.reserve(64);
  roomy.resize(16);
  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaMemcpyAsync(d, grown.data(), 64, cudaMemcpyHostToDevice, s);
  cudaMemcpyAsync(d, roomy.data(), 64, cudaMemcpyHostToDevice, s);
  cudaStreamEndCapture(s, &graph);
  roomy.resize(64);
  roomy.push_back(1.0f);
  if (more) grown.resize(8);
  grown.resize(1024);
}
)");
  const FunctionModel* run = function(model, "run");
  ASSERT_NE(run, nullptr);
  auto frees = events(run, EventKind::kFree);
  // roomy.push_back past 64, then the end of the body for both; grown.resize(1024) follows an
  // edit in a branch, after which grown's capacity is not known.
  ASSERT_EQ(frees.size(), 3u);
  EXPECT_EQ(frees[0]->target, "roomy");
  EXPECT_EQ(frees[0]->api, "std::vector::push_back");
  EXPECT_EQ(frees[0]->flags & kFlagScopeExit, 0u);
  EXPECT_EQ(frees[1]->flags & kFlagScopeExit, kFlagScopeExit);
  EXPECT_EQ(frees[2]->flags & kFlagScopeExit, kFlagScopeExit);
  const CaptureRegion& region = model.regions.at(0);
  ASSERT_EQ(region.inputs.size(), 3u);  // the device pointer, then what data() points into
  EXPECT_EQ(region.inputs[1].name, "grown");
  EXPECT_EQ(region.inputs[2].name, "roomy");
}

TEST_P(CudaFrontendTest, RelaxedCapturePermitsAllocation) {
  FileModel model = analyze(std::string(kKernels) + R"(
void run(cudaStream_t s, cudaGraph_t* graph) {
  float* x;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
  cudaMalloc(&x, 16);
  cudaStreamSynchronize(s);
  cudaStreamEndCapture(s, graph);
}
)");
  const FunctionModel* run = function(model, "run");
  EXPECT_EQ(lines(events(run, EventKind::kHostSync)), (Lines{9}));
  EXPECT_EQ(lines(events(run, EventKind::kAllocation)), (Lines{8}));
  EXPECT_EQ(run->loops.size(), 0u);
}

TEST_P(CudaFrontendTest, ParametersFlowThroughCalls) {
  FileModel model = analyze(std::string(kKernels) + R"(
void helper(float* x, int n, cudaStream_t s) { k2<<<1, 1, 0, s>>>(x, n, 1.0f); }
void run(float* x, cudaStream_t s, int steps) {
  cudaGraph_t graph;
  for (int step = 0; step < steps; ++step) {
    if (step == 0) {
      cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
      helper(x, step, s);
      cudaStreamEndCapture(s, &graph);
    }
  }
}
)");
  auto ops = events(function(model, "helper"), EventKind::kTensorOp);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0]->args[1].kind, ValueKind::kUnknown);
  EXPECT_EQ(ops[0]->args[1].param_deps, paramBit(1));
  auto calls = events(function(model, "run"), EventKind::kCall);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->region, 0);
  EXPECT_EQ(calls[0]->callee, functionId(model, "helper"));
  EXPECT_EQ(calls[0]->args[1].kind, ValueKind::kHostVarying);
}

TEST_P(CudaFrontendTest, BindsFreesReplaysAndPinnedBufferWrites) {
  FileModel model = analyze(std::string(kKernels) + R"(
void run(cudaStream_t s) {
  float* d;
  float* other;
  float* pinned;
  float* pageable = new float[4];
  cudaMalloc(&d, 16);
  cudaMalloc(&other, 16);
  cudaMallocHost(&pinned, 16);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaMemcpyAsync(d, pinned, 16, cudaMemcpyHostToDevice, s);
  k<<<1, 1, 0, s>>>(d);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  pinned[0] = 1.0f;
  pageable[0] = 1.0f;
  d = other;
  cudaGraphLaunch(exec, s);
  cudaFree(d);
}
)");
  const FunctionModel* run = function(model, "run");
  auto binds = events(run, EventKind::kBind);
  ASSERT_EQ(lines(binds), (Lines{10, 11, 12, 22}));
  EXPECT_EQ(binds[0]->subject.text, "d");
  EXPECT_EQ(binds[3]->subject.text, "d");
  auto writes = events(run, EventKind::kHostBufferWrite);
  ASSERT_EQ(lines(writes), (Lines{20}));
  EXPECT_EQ(writes[0]->subject.text, "pinned");
  auto replays = events(run, EventKind::kReplay);
  ASSERT_EQ(lines(replays), (Lines{23}));
  EXPECT_EQ(replays[0]->subject.text, "exec");
  auto frees = events(run, EventKind::kFree);
  ASSERT_EQ(lines(frees), (Lines{24}));
  EXPECT_EQ(frees[0]->subject.text, "d");
  // The flow facts shared with Python: what is bound, freed or replayed, and by which name.
  EXPECT_EQ(binds[0]->target, "d");
  EXPECT_EQ(binds[0]->source, "");
  EXPECT_EQ(binds[3]->target, "d");
  EXPECT_EQ(binds[3]->source, "other");
  EXPECT_EQ(frees[0]->target, "d");
  EXPECT_EQ(replays[0]->target, "exec");
  EXPECT_EQ(writes[0]->target, "pinned");
  ASSERT_EQ(model.regions.size(), 1u);
  EXPECT_EQ(model.regions[0].graph, "graph");
  EXPECT_EQ(model.regions[0].handle, "exec");
  EXPECT_EQ(model.regions[0].span.start.line + 1, 15u);
  EXPECT_EQ(model.regions[0].span.stop.line + 1, 18u);
  std::string names;
  for (const RegionName& input : model.regions[0].inputs) names += input.name + ";";
  ASSERT_EQ(model.regions[0].inputs.size(), 2u) << names;
  EXPECT_EQ(model.regions[0].inputs[0].name, "d");
  EXPECT_EQ(model.regions[0].inputs[1].name, "pinned");
  EXPECT_EQ(lines(events(run, EventKind::kAllocation)), (Lines{10, 11, 12}));
  auto copies = events(run, EventKind::kTensorOp);
  ASSERT_FALSE(copies.empty());
  EXPECT_EQ(copies[0]->api, "cudaMemcpyAsync");
  EXPECT_EQ(copies[0]->args[1].text, "pinned");
}

TEST_P(CudaFrontendTest, BranchesOnTheCaptureState) {
  FileModel model = analyze(std::string(kKernels) + R"(
void differs(float* x, cudaStream_t s) {
  cudaStreamCaptureStatus status;
  cudaStreamIsCapturing(s, &status);
  if (status == cudaStreamCaptureStatusActive) {
    k<<<1, 1, 0, s>>>(x);
  }
}
void waits_only(float* x, cudaStream_t s) {
  k<<<1, 1, 0, s>>>(x);
  cudaStreamCaptureStatus status;
  cudaStreamIsCapturing(s, &status);
  if (status == cudaStreamCaptureStatusNone) cudaStreamSynchronize(s);
}
void skips(float* x, cudaStream_t s) {
  cudaStreamCaptureStatus status;
  cudaStreamIsCapturing(s, &status);
  bool capturing = status != cudaStreamCaptureStatusNone;
  if (capturing) return;
  k<<<1, 1, 0, s>>>(x);
}
void error_check(cudaStream_t s) {
  cudaStreamCaptureStatus status;
  if (cudaStreamIsCapturing(s, &status) != cudaSuccess) return;
}
)");
  auto differs = events(function(model, "differs"), EventKind::kBranch);
  ASSERT_EQ(differs.size(), 1u);
  EXPECT_EQ(differs[0]->flags & (kFlagCaptureDependent | kFlagSidesDiffer),
            kFlagCaptureDependent | kFlagSidesDiffer);
  EXPECT_EQ(differs[0]->text, "status == cudaStreamCaptureStatusActive");
  auto waits = events(function(model, "waits_only"), EventKind::kBranch);
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0]->flags & (kFlagCaptureDependent | kFlagSidesDiffer), kFlagCaptureDependent);
  auto skips = events(function(model, "skips"), EventKind::kBranch);
  ASSERT_EQ(skips.size(), 1u);
  EXPECT_NE(skips[0]->flags & kFlagSidesDiffer, 0);
  EXPECT_TRUE(events(function(model, "error_check"), EventKind::kBranch).empty());
  EXPECT_EQ(events(function(model, "differs"), EventKind::kCaptureQuery).size(), 1u);
}

TEST_P(CudaFrontendTest, CodeThatRunsOnlyWhenNotCapturingIsNotCapturedCode) {
  FileModel model = analyze(std::string(kKernels) + R"(
void waitWhenEager(cudaStream_t s) {
  cudaStreamCaptureStatus status;
  cudaStreamIsCapturing(s, &status);
  if (status == cudaStreamCaptureStatusNone) cudaStreamSynchronize(s);
  if (status != cudaStreamCaptureStatusNone) {
  } else {
    cudaDeviceSynchronize();
  }
}
void leaveWhenCapturing(cudaStream_t s) {
  cudaStreamCaptureStatus status;
  cudaStreamGetCaptureInfo(s, &status);
  const bool capturing = status == cudaStreamCaptureStatusActive;
  if (capturing) return;
  cudaStreamSynchronize(s);
}
void stillCaptured(cudaStream_t s) {
  cudaStreamCaptureStatus status;
  cudaStreamIsCapturing(s, &status);
  if (status == cudaStreamCaptureStatusActive) cudaStreamSynchronize(s);
}
)");
  EXPECT_TRUE(events(function(model, "waitWhenEager"), EventKind::kHostSync).empty());
  EXPECT_TRUE(events(function(model, "leaveWhenCapturing"), EventKind::kHostSync).empty());
  EXPECT_EQ(lines(events(function(model, "stillCaptured"), EventKind::kHostSync)), (Lines{24}));
}

TEST_P(CudaFrontendTest, ConfiguredSyncApis) {
  settings_.extra_sync_apis = {"mylib::flush", "wait_all", ".drain"};
  FileModel model = analyze(R"(
namespace mylib { void flush(); }
void wait_all();
struct Queue { void drain(); void push(); };
void run(Queue& queue) {
  mylib::flush();
  wait_all();
  queue.drain();
  queue.push();
}
)");
  auto syncs = events(function(model, "run"), EventKind::kHostSync);
  EXPECT_EQ(lines(syncs), (Lines{6, 7, 8}));
}

constexpr const char* kExtension = R"(#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void scale_kernel(const float* x, float* y, int n) {}

torch::Tensor scale(torch::Tensor x) {
  auto y = torch::empty_like(x);
  const int n = x.numel();
  scale_kernel<<<1, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  auto stream = at::cuda::getCurrentCUDAStream();
  scale_kernel<<<1, 256, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  cudaStream_t raw = at::cuda::getCurrentCUDAStream().stream();
  scale_kernel<<<1, 256, 0, raw>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  scale_kernel<<<1, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(),
                                                                 y.data_ptr<float>(), n);
  scale_kernel<<<1, 256, 0, at::cuda::getDefaultCUDAStream()>>>(x.data_ptr<float>(),
                                                                 y.data_ptr<float>(), n);
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "scale", [&] {
    scale_kernel<<<1, 256, 0, 0>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  });
  return y;
}

TORCH_LIBRARY(myops, m) { m.def("scale", &scale); }
)";

TEST_P(CudaFrontendTest, ExtensionCodeAnalyzesWithoutTorchInstalled) {
  FileModel model = analyze(kExtension);
  EXPECT_TRUE(model.notices.empty());
  const FunctionModel* scale = function(model, "scale");
  auto uses = events(scale, EventKind::kStreamUse);
  EXPECT_EQ(lines(uses), (Lines{9, 16}));
  for (const Event* use : uses) EXPECT_NE(use->flags & kFlagExtensionCode, 0);
  EXPECT_EQ(events(scale, EventKind::kTensorOp).size(), 5u);
  // The dispatch macro's lambdas are functions of their own that `scale` calls; the launch in
  // the innermost one is extension code too.
  EXPECT_EQ(lines(events(scale, EventKind::kCall)), (Lines{18}));
  std::vector<std::string> lambdas;
  for (const FunctionModel& fn : model.functions) {
    for (const Event* use : events(&fn, EventKind::kStreamUse)) {
      if (use->range.start.line + 1 != 19) continue;
      EXPECT_NE(use->flags & kFlagExtensionCode, 0);
      lambdas.push_back(fn.qualified_name);
    }
  }
  EXPECT_EQ(lambdas, (std::vector<std::string>{"scale::(lambda at line 18)::(lambda at line 18)"}));
  EXPECT_TRUE(model.regions.empty());
}

TEST_P(CudaFrontendTest, LibraryHandlesWithoutAStream) {
  FileModel model = analyze(R"(#include <torch/extension.h>
#include <cublas_v2.h>
cublasHandle_t handle;
cublasHandle_t bound;
void init(cudaStream_t s) {
  cublasCreate(&handle);
  cublasCreate(&bound);
  cublasSetStream(bound, s);
}
void gemm(const float* a, float* c) {
  const float one = 1.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, a, 1, a, 1, &one, c, 1);
  cublasSgemm(bound, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, a, 1, a, 1, &one, c, 1);
  cublasHandle_t current = at::cuda::getCurrentCUDABlasHandle();
  cublasSgemm(current, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, a, 1, a, 1, &one, c, 1);
}
)",
                            "gemm.cpp");
  auto uses = events(function(model, "gemm"), EventKind::kStreamUse);
  ASSERT_EQ(lines(uses), (Lines{12}));
  EXPECT_NE(uses[0]->text.find("`handle`"), std::string::npos) << uses[0]->text;
}

TEST_P(CudaFrontendTest, TorchCudaGraphCaptureRegion) {
  FileModel model = analyze(std::string(kKernels) + R"(#include <ATen/cuda/CUDAGraph.h>
#include <ATen/cuda/CUDAContext.h>
void capture(at::cuda::CUDAGraph& graph, float* x) {
  graph.capture_begin();
  k<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>(x);
  k<<<1, 1>>>(x);
  graph.capture_end();
  graph.replay();
}
)");
  ASSERT_EQ(model.regions.size(), 1u);
  EXPECT_EQ(model.regions[0].kind, RegionKind::kCaptureBeginEnd);
  EXPECT_EQ(model.regions[0].graph, "graph");
  const FunctionModel* capture = function(model, "capture");
  auto uses = events(capture, EventKind::kStreamUse);
  ASSERT_EQ(lines(uses), (Lines{9}));
  EXPECT_EQ(uses[0]->region, 0);
  EXPECT_EQ(lines(events(capture, EventKind::kReplay)), (Lines{11}));
}

TEST_P(CudaFrontendTest, ConfiguredEntryPointsAreWholeFunctionRegions) {
  settings_.capture_entry_points = {"ops::Runner::step", "helper", "python.module.helper"};
  FileModel model = analyze(std::string(kKernels) + R"(
namespace ops {
struct Runner {
  void step(float* x);
};
void Runner::step(float* x) { cudaMemset(x, 0, 4); }
}  // namespace ops
void helper(float* x) { k<<<1, 1>>>(x); }
void unrelated(float* x) { k<<<1, 1>>>(x); }
)");
  ASSERT_EQ(model.regions.size(), 2u);
  for (const CaptureRegion& region : model.regions) {
    EXPECT_EQ(region.kind, RegionKind::kEntryPoint);
    EXPECT_TRUE(region.whole_function);
  }
  EXPECT_EQ(model.regions[0].function, functionId(model, "step"));
  EXPECT_EQ(model.functions[model.regions[0].function].qualified_name, "ops::Runner::step");
  EXPECT_EQ(model.regions[1].function, functionId(model, "helper"));
}

TEST_P(CudaFrontendTest, CallsIntoOtherTranslationUnitsCarryQualifiedNames) {
  FileModel model = analyze(std::string(kKernels) + R"(
namespace lib {
void external(float* x, int n);
}
static void local(float* x) {}
void run(float* x, cudaStream_t s) {
  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  lib::external(x, 3);
  local(x);
  cudaStreamEndCapture(s, &graph);
}
)");
  auto calls = events(function(model, "run"), EventKind::kCall);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]->callee, kNoFunction);
  EXPECT_EQ(calls[0]->callee_qualified, "lib::external");
  EXPECT_EQ(calls[0]->args[1].kind, ValueKind::kHostConstant);
  EXPECT_EQ(calls[1]->callee, functionId(model, "local"));
  EXPECT_EQ(calls[0]->region, 0);
}

TEST_P(CudaFrontendTest, MissingHeadersDegradeInsteadOfStopping) {
  const std::string text = R"(#include "does_not_exist.h"
#include <torch/not_a_real_header.h>
void run(float* x, cudaStream_t s) {
  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  undefined_function(x);
  cudaDeviceSynchronize();
  cudaStreamEndCapture(s, &graph);
}
)";
  FileModel quiet = analyze(text);
  EXPECT_TRUE(quiet.notices.empty());
  auto syncs = events(function(quiet, "run"), EventKind::kHostSync);
  ASSERT_EQ(lines(syncs), (Lines{7}));
  EXPECT_EQ(syncs[0]->region, 0);

  settings_.show_compiler_errors = true;
  FileModel shown = analyze(text);
  bool header = false;
  bool error = false;
  for (const Notice& notice : shown.notices) {
    header = header || notice.message.find("does_not_exist.h") != std::string::npos;
    error = error ||
            (notice.line == 5 && notice.message.find("undefined_function") != std::string::npos);
  }
  EXPECT_TRUE(header);
  EXPECT_TRUE(error);
}

TEST_P(CudaFrontendTest, CountsCompilerErrorsAndTakesExtraArguments) {
  const std::string text = R"(#include "does_not_exist.h"
#ifdef GS_WITH_GRAPHS
void run(cudaStream_t s) {
  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaDeviceSynchronize();
  cudaStreamEndCapture(s, &graph);
}
#endif
int broken = undefined_name;
)";
  FileModel plain = analyze(text);
  EXPECT_EQ(plain.compiler_errors, 2u);  // the header and the undeclared name
  EXPECT_TRUE(plain.regions.empty());
  settings_.extra_args = {"-DGS_WITH_GRAPHS"};
  FileModel with_flag = analyze(text);
  ASSERT_EQ(with_flag.regions.size(), 1u);
  EXPECT_EQ(lines(events(function(with_flag, "run"), EventKind::kHostSync)), (Lines{6}));
  settings_.extra_args.clear();
  settings_.extra_args_before = {"-DGS_WITH_GRAPHS"};
  EXPECT_EQ(analyze(text).regions.size(), 1u);

  FileModel clean = analyze("void f() {}\n");
  EXPECT_EQ(clean.compiler_errors, 0u);
}

// The bodies of functions in system headers are not parsed (nothing lowers them): Clang reports
// no error from inside one, while it does from the same header included as the project's.
// A C++ file that includes the CUDA runtime before the standard library parses cleanly: the
// declarations do not define `__noinline__` outside CUDA compilation, where libstdc++ spells
// its own attribute so.
TEST_P(CudaFrontendTest, TheRuntimeBeforeTheStandardLibraryParsesCleanly) {
  settings_.show_compiler_errors = true;
  const std::string text =
      "#include <cuda_runtime.h>\n#include <memory>\n"
      "std::shared_ptr<int> p = std::make_shared<int>(1);\n"
      "void f(cudaStream_t s) { cudaStreamSynchronize(s); }\n";
  for (const std::string name : {"host.cc", "host.cu"}) {
    FileModel model = analyze(text, name);
    for (const Notice& notice : model.notices) ADD_FAILURE() << name << ": " << notice.message;
  }
}

TEST_P(CudaFrontendTest, SkipsTheFunctionBodiesOfSystemHeaders) {
  fs::create_directories(directory_ / "sys");
  std::ofstream(directory_ / "sys" / "lib.h")
      << "#pragma once\ninline int helper() { return undefined_in_body; }\n";
  const std::string text = "#include \"lib.h\"\nint f() { return helper(); }\n";
  settings_.show_compiler_errors = true;
  auto reported = [&](const FileModel& model) {
    for (const Notice& notice : model.notices) {
      if (notice.message.find("undefined_in_body") != std::string::npos) return true;
    }
    return false;
  };
  settings_.extra_args = {"-isystem", (directory_ / "sys").string()};
  EXPECT_FALSE(reported(analyze(text)));
  settings_.extra_args = {"-I", (directory_ / "sys").string()};
  FileModel project = analyze(text);
  EXPECT_TRUE(reported(project));
  EXPECT_EQ(project.compiler_errors, 1u);
}

TEST_P(CudaFrontendTest, RecordsTheProjectHeadersAUnitIncludesAndTorchBehindThem) {
  fs::create_directories(directory_ / "include");
  std::ofstream(directory_ / "include" / "common.h") << "#pragma once\n#include <torch/extension.h>\n";
  std::ofstream(directory_ / "include" / "kernels.cuh") << "#pragma once\n#include \"common.h\"\n";
  FileModel unit = analyze("#include \"include/kernels.cuh\"\nvoid f() {}\n");
  EXPECT_TRUE(unit.extension_code);
  std::vector<std::string> expected = {
      fs::weakly_canonical(directory_ / "include" / "common.h").string(),
      fs::weakly_canonical(directory_ / "include" / "kernels.cuh").string()};
  EXPECT_EQ(unit.includes, expected);
  FileModel alone = analyze("#include <cuda_runtime.h>\nvoid f() {}\n");
  EXPECT_FALSE(alone.extension_code);
  EXPECT_TRUE(alone.includes.empty());
}

// A unit-test program that builds its inputs with torch runs on its own, not inside PyTorch's
// calls: its launches are not extension code (GS304), directly or through a project header.
TEST_P(CudaFrontendTest, ATestProgramIsNotExtensionCode) {
  fs::create_directories(directory_ / "include");
  std::ofstream(directory_ / "include" / "common.h") << "#pragma once\n#include <torch/extension.h>\n";
  fs::create_directories(directory_ / "gtest");
  std::ofstream(directory_ / "gtest" / "gtest.h") << "#pragma once\n";
  settings_.extra_args = {"-I", directory_.string()};
  EXPECT_TRUE(analyze("#include <torch/extension.h>\nvoid f() {}\n").extension_code);
  EXPECT_FALSE(
      analyze("#include <torch/extension.h>\n#include <gtest/gtest.h>\nvoid f() {}\n")
          .extension_code);
  EXPECT_FALSE(
      analyze("#include \"include/common.h\"\n#include \"gtest/gtest.h\"\nvoid f() {}\n")
          .extension_code);
}

TEST_P(CudaFrontendTest, StreamParametersAndTheStreamsCallsHandThem) {
  FileModel model = analyze(std::string(kKernels) + R"(
void launch(float* x, cudaStream_t stream = nullptr) {
  k<<<1, 1, 0, stream>>>(x);
}
void forward(float* x, int n, cudaStream_t s) {
  cudaStream_t local = s;
  launch(x, local);
}
void callers(float* x) {
  launch(x, nullptr);
  launch(x);
  launch(x, cudaStreamPerThread);
}
)");
  const FunctionModel* launch = function(model, "launch");
  ASSERT_NE(launch, nullptr);
  ASSERT_EQ(launch->stream_params.size(), 1u);
  EXPECT_EQ(launch->stream_params[0].param, 1u);
  EXPECT_EQ(launch->stream_params[0].api, "k");
  // The parameter's default is not its value: the launch itself is no stream use.
  EXPECT_TRUE(events(launch, EventKind::kStreamUse).empty());

  const FunctionModel* forward = function(model, "forward");
  ASSERT_EQ(forward->stream_handoffs.size(), 1u);
  EXPECT_EQ(forward->stream_handoffs[0].from_param, 2);
  EXPECT_EQ(forward->stream_handoffs[0].param, 1u);
  EXPECT_TRUE(forward->stream_handoffs[0].escape.empty());

  const FunctionModel* callers = function(model, "callers");
  ASSERT_EQ(callers->stream_handoffs.size(), 3u);
  EXPECT_NE(callers->stream_handoffs[0].escape.find("`nullptr`"), std::string::npos);
  EXPECT_NE(callers->stream_handoffs[1].escape.find("`stream` left out"), std::string::npos);
  EXPECT_NE(callers->stream_handoffs[2].escape.find("per-thread"), std::string::npos);
  for (const StreamHandoff& handoff : callers->stream_handoffs) {
    EXPECT_EQ(handoff.param_name, "stream");
    ASSERT_LT(handoff.call, callers->events.size());
    EXPECT_EQ(callers->events[handoff.call].kind, EventKind::kCall);
  }
}

TEST_P(CudaFrontendTest, ConfiguredCaptureFlagsDecideBranchesOnTheProgramsOwnState) {
  const std::string text = R"(
namespace rt {
struct Runner {
  bool capturing_ = false;
  bool is_capturing() const { return capturing_; }
  void release(void* p);
};
bool g_capturing = false;
void Runner::release(void* p) {
  if (!capturing_) cudaFree(p);
  if (g_capturing) return;
  cudaDeviceSynchronize();
}
void other(Runner& runner) {
  if (!runner.is_capturing()) cudaDeviceSynchronize();
}
}  // namespace rt
)";
  FileModel plain = analyze(text);
  EXPECT_EQ(lines(events(function(plain, "release"), EventKind::kHostSync)), (Lines{10, 12}));
  EXPECT_EQ(lines(events(function(plain, "other"), EventKind::kHostSync)), (Lines{15}));

  settings_.capture_flags = {".capturing_", "rt::g_capturing", "Runner::is_capturing"};
  FileModel flagged = analyze(text);
  EXPECT_TRUE(events(function(flagged, "release"), EventKind::kHostSync).empty());
  EXPECT_TRUE(events(function(flagged, "other"), EventKind::kHostSync).empty());

  settings_.capture_flags = {".other_name", "g_capturing_not"};
  FileModel unrelated = analyze(text);
  EXPECT_EQ(lines(events(function(unrelated, "release"), EventKind::kHostSync)), (Lines{10, 12}));
}

TEST_P(CudaFrontendTest, LaunchersInTheUnitsHeadersAreFollowedWithoutTheirFiles) {
  fs::create_directories(directory_ / "include");
  std::ofstream(directory_ / "include" / "launch.cuh") << R"(#pragma once
__global__ void k(float* x);
inline void launch(float* x, cudaStream_t stream = nullptr) { k<<<1, 1, 0, stream>>>(x); }
inline void twice(float* x, cudaStream_t s) { launch(x, s); launch(x, s); }
inline void ignores(float* x, cudaStream_t s) { k<<<1, 1>>>(x); }
)";
  FileModel model = analyze(R"(#include "include/launch.cuh"
void bind(float* x, cudaStream_t current) {
  launch(x, nullptr);
  launch(x);
  twice(x, 0);
  ignores(x, nullptr);
  launch(x, current);
}
)");
  auto uses = events(function(model, "bind"), EventKind::kStreamUse);
  ASSERT_EQ(lines(uses), (Lines{3, 4, 5}));
  EXPECT_NE(uses[0]->text.find("`k` at "), std::string::npos) << uses[0]->text;
  EXPECT_NE(uses[0]->text.find("launch.cuh:3 runs on it"), std::string::npos) << uses[0]->text;
  EXPECT_NE(uses[2]->text.find("which it hands on to `launch`"), std::string::npos)
      << uses[2]->text;
  // Decided here: left for the engine to follow is only the call whose launcher does not use
  // the stream (it cannot tell that a header's model, if analyzed, says the same).
  std::size_t left = 0;
  for (const StreamHandoff& handoff : function(model, "bind")->stream_handoffs) {
    left += handoff.escape.empty() ? 0 : 1;
  }
  EXPECT_EQ(left, 1u);
}

// A library's namespace (cutlass, cute, ...) declared in the analyzed file's repository is that
// repository's code, followed like any function; a copy of the library in a submodule (a
// directory holding a .git of its own) is library code.
TEST_P(CudaFrontendTest, ALibraryNamespaceInTheAnalyzedRepositoryIsItsCode) {
  fs::create_directories(directory_ / ".git");
  fs::create_directories(directory_ / "include");
  fs::create_directories(directory_ / "third_party" / "cutlass" / "include");
  std::ofstream(directory_ / "third_party" / "cutlass" / ".git") << "gitdir: ../../.git/modules\n";
  std::ofstream(directory_ / "include" / "own.h")
      << "namespace cutlass { inline void own(cudaStream_t s) { cudaStreamSynchronize(s); } }\n";
  std::ofstream(directory_ / "third_party" / "cutlass" / "include" / "vendored.h")
      << "namespace cutlass { inline void vendored(cudaStream_t s) { cudaStreamSynchronize(s); } }\n";
  FileModel model = analyze(R"(#include "include/own.h"
#include "third_party/cutlass/include/vendored.h"
void run(cudaStream_t s) {
  cutlass::own(s);
  cutlass::vendored(s);
}
)");
  std::vector<std::string> called;
  for (const Event* call : events(function(model, "run"), EventKind::kCall)) {
    called.push_back(call->callee_qualified);
  }
  EXPECT_EQ(called, (std::vector<std::string>{"cutlass::own"}));
}

TEST_P(CudaFrontendTest, FlagsComeFromCompileCommandsWithNvccFlagsFiltered) {
  fs::create_directories(directory_ / "include");
  std::ofstream(directory_ / "include" / "gs_config.h") << "#define GS_STREAM 0\n";
  const std::string source = (directory_ / "op.cu").string();
  std::ofstream(directory_ / "compile_commands.json")
      << R"([{"directory": ")" << directory_.string()
      << R"(", "command": "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DGS_USE_LEGACY=1 -Iinclude --expt-relaxed-constexpr -gencode arch=compute_90,code=sm_90 -Xcompiler -fPIC --use_fast_math -std=c++17 -c )"
      << source << R"( -o op.o", "file": ")" << source << R"("}])";
  const std::string text = std::string(kKernels) + R"(#include "gs_config.h"
void run(float* x, cudaStream_t s) {
  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
#if GS_USE_LEGACY
  k<<<1, 1, 0, GS_STREAM>>>(x);
#endif
  cudaStreamEndCapture(s, &graph);
}
)";
  settings_.compile_commands_dir.clear();  // found by walking up from the file
  FileModel model = analyze(text, "op.cu");
  EXPECT_EQ(lines(events(function(model, "run"), EventKind::kStreamUse)), (Lines{9}));

  // -p names the directory explicitly; a directory without a database means defaults.
  settings_.compile_commands_dir = directory_.string();
  EXPECT_EQ(events(function(analyze(text, "op.cu"), "run"), EventKind::kStreamUse).size(), 1u);
  fs::path elsewhere = directory_ / "elsewhere";
  fs::create_directories(elsewhere);
  settings_.compile_commands_dir = elsewhere.string();
  EXPECT_TRUE(events(function(analyze(text, "op.cu"), "run"), EventKind::kStreamUse).empty());
}

TEST_P(CudaFrontendTest, ADatabaseAboveTheRepositoryRootIsNotUsed) {
  const fs::path repo = directory_ / "repo";
  fs::create_directories(repo / "src");
  const std::string source = (repo / "src" / "op.cu").string();
  std::ofstream(directory_ / "compile_commands.json")
      << R"([{"directory": ")" << directory_.string() << R"(", "command": "nvcc -DGS_ON=1 -c )"
      << source << R"(", "file": ")" << source << R"("}])";
  const std::string text = std::string(kKernels) + R"(void run(float* x, cudaStream_t s) {
  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
#if GS_ON
  k<<<1, 1, 0, 0>>>(x);
#endif
  cudaStreamEndCapture(s, &graph);
}
)";
  settings_.compile_commands_dir.clear();
  // Without a repository the search goes on up and finds it.
  FileModel found = analyze(text, "repo/src/op.cu");
  EXPECT_EQ(found.compile_database, (directory_ / "compile_commands.json").string());
  EXPECT_EQ(events(function(found, "run"), EventKind::kStreamUse).size(), 1u);
  fs::create_directories(repo / ".git");
  FileModel inside = analyze(text, "repo/src/op.cu");
  EXPECT_EQ(inside.compile_database, "");
  EXPECT_TRUE(events(function(inside, "run"), EventKind::kStreamUse).empty());
}

TEST_P(CudaFrontendTest, CommentsAreKeptForSuppressions) {
  FileModel model = analyze(R"(void f() {}
  // graphsafe: ignore[GS301]
int x; /* block */
)");
  ASSERT_EQ(model.comments.size(), 2u);
  EXPECT_EQ(model.comments[0].line, 1u);
  EXPECT_EQ(model.comments[0].column, 2u);
  EXPECT_EQ(model.comments[0].text, "// graphsafe: ignore[GS301]");
  EXPECT_EQ(model.comments[1].text, "/* block */");
}

TEST_P(CudaFrontendTest, PlainCppFilesParseAsCppAndStillSeeTheRuntimeApi) {
  FileModel model = analyze(R"(#include <cuda_runtime.h>
void run(cudaStream_t s, float* x) {
  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaMemset(x, 0, 4);
  cudaStreamEndCapture(s, &graph);
}
)",
                            "host.cpp");
  EXPECT_EQ(lines(events(function(model, "run"), EventKind::kStreamUse)), (Lines{5}));
}

TEST_P(CudaFrontendTest, ConcurrentAnalysesAgree) {
  auto source = std::make_shared<SourceFile>((directory_ / "ext.cu").string(), kExtension);
  std::vector<std::future<std::size_t>> runs;
  for (int i = 0; i < 4; ++i) {
    runs.push_back(std::async(std::launch::async, [&] {
      FileModel model = cudaFrontend().analyze(source, settings_);
      std::size_t count = 0;
      for (const FunctionModel& fn : model.functions) count += fn.events.size();
      return count;
    }));
  }
  std::vector<std::size_t> counts;
  for (auto& run : runs) counts.push_back(run.get());
  EXPECT_GT(counts[0], 0u);
  for (std::size_t count : counts) EXPECT_EQ(count, counts[0]);
}

TEST_P(CudaFrontendTest, HostileInputNeverStopsTheRun) {
  std::string deep = "void f(int a, cudaStream_t s) {\n";
  for (int i = 0; i < 300; ++i) deep += "if (a) {\n";
  deep += "cudaStreamSynchronize(s);\n";
  for (int i = 0; i < 300; ++i) deep += "}\n";
  deep += "int b = a";
  for (int i = 0; i < 5000; ++i) deep += " + a";
  deep += ";\n}\n";
  FileModel model = cudaFrontend().analyze(
      std::make_shared<SourceFile>((directory_ / "deep.cu").string(), deep), settings_);
  EXPECT_FALSE(model.functions.empty() && !model.parse_failed);

  FileModel garbage = cudaFrontend().analyze(
      std::make_shared<SourceFile>((directory_ / "garbage.cu").string(),
                                   std::string("}}}{{{ <<< >>> \x01\x02 cudaStreamBeginCapture(")),
      settings_);
  (void)garbage;  // must simply return
}

// Writes a compile_commands.json into `directory` with one entry per (file, arguments).
void writeDatabase(const fs::path& directory,
                   const std::vector<std::pair<std::string, std::vector<std::string>>>& entries) {
  std::ofstream out(directory / "compile_commands.json");
  out << "[";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    out << (i == 0 ? "" : ",") << R"({"directory": ")" << directory.string() << R"(", "file": ")"
        << entries[i].first << R"(", "arguments": [)";
    for (std::size_t j = 0; j < entries[i].second.size(); ++j) {
      std::string escaped;
      for (char c : entries[i].second[j]) {
        if (c == '\n') {
          escaped += "\\n";
        } else if (c == '"' || c == '\\') {
          escaped += std::string("\\") + c;
        } else {
          escaped.push_back(c);
        }
      }
      out << (j == 0 ? "" : ",") << '"' << escaped << '"';
    }
    out << "]}";
  }
  out << "]";
}

bool hasFunction(const FileModel& model, const std::string& name) {
  return std::any_of(model.functions.begin(), model.functions.end(),
                     [&](const FunctionModel& f) { return f.name == name; });
}

// nvcc's view of a .cu file: its compiler macros for the toolkit (or the version the built-in
// declarations stand for), and the architectures the build's command compiles for.
TEST_P(CudaFrontendTest, DefinesWhatNvccDefinesForTheToolkitAndTheBuildsArchitectures) {
  const std::string text = R"(#define FIRST(a, ...) a
#if defined(__CUDACC__) && defined(__NVCC__) && __CUDACC_VER_MAJOR__ >= 12
void versioned() {}
#endif
#if defined(__CUDACC_VER_MINOR__) && defined(__CUDACC_VER_BUILD__)
void minor_and_build() {}
#endif
#if defined(__CUDA_ARCH_LIST__) && FIRST(__CUDA_ARCH_LIST__) == 800
void lowest_arch_first() {}
#endif
#ifdef __CUDA_ARCH__
void device_pass_only() {}
#endif
)";
  const std::string source = (directory_ / "arch.cu").string();
  writeDatabase(directory_,
                {{source,
                  {"/usr/local/cuda/bin/nvcc", "-gencode",
                   "arch=compute_90a,code=[sm_90a,compute_90a]", "-arch=sm_80", "-c", source}}});
  FileModel model = analyze(text, "arch.cu");
  EXPECT_TRUE(hasFunction(model, "versioned"));
  EXPECT_TRUE(hasFunction(model, "minor_and_build"));
  EXPECT_TRUE(hasFunction(model, "lowest_arch_first"));
  EXPECT_FALSE(hasFunction(model, "device_pass_only"));
  // Plain C++ is the host compiler's: none of nvcc's macros.
  FileModel host = analyze(text, "host.cpp");
  EXPECT_FALSE(hasFunction(host, "versioned"));
}

// The built-in declarations are a subset: a file that includes a toolkit header they leave out
// (Thrust, libcu++, the type headers) says so once per run; one that needs only the runtime does
// not.
TEST_P(CudaFrontendTest, ToolkitHeadersTheBuiltinsLeaveOutAreNamed) {
  auto saysSo = [](const FileModel& model) {
    return std::any_of(model.notices.begin(), model.notices.end(), [](const Notice& notice) {
      return notice.message.find("toolkit headers the built-in declarations do not provide") !=
             std::string::npos;
    });
  };
  // (The toolkit mode is the built-ins too on a machine without a toolkit.)
  if (GetParam() == "none") {
    EXPECT_TRUE(saysSo(analyze("#include <cuda_runtime.h>\n#include <cuda/std/utility>\n")));
  }
  EXPECT_FALSE(saysSo(analyze("#include <cuda_runtime.h>\n#include <missing_project.h>\n")));
}

// A header that tests nvcc's macros is read in nvcc's view when no unit's command says how it is
// compiled; a source file is its own compiler's, and a header a .cpp unit includes is that
// unit's.
TEST_P(CudaFrontendTest, HeadersWrittenForNvccAreReadInItsView) {
  const std::string text = R"(#if defined(__CUDACC__) && __CUDACC_VER_MAJOR__ >= 12
void kept_for_nvcc() {}
#endif
)";
  EXPECT_TRUE(hasFunction(analyze(text, "graph_runner.hpp"), "kept_for_nvcc"));
  EXPECT_TRUE(hasFunction(analyze(text, "graph_runner.h"), "kept_for_nvcc"));
  EXPECT_FALSE(hasFunction(analyze(text, "host_only.cpp"), "kept_for_nvcc"));
  // No test of nvcc's macros: plain C++, as before.
  EXPECT_FALSE(
      hasFunction(analyze("#ifdef __CUDA__\nvoid clang_only() {}\n#endif\n", "plain.hpp"),
                  "clang_only"));

  fs::create_directories(directory_ / "src");
  std::ofstream(directory_ / "src" / "shared.hpp") << text;
  const std::string unit = (directory_ / "src" / "host.cpp").string();
  std::ofstream(unit) << "#include \"shared.hpp\"\n";
  // In src/: the database cache already knows that the directory above holds none.
  writeDatabase(directory_ / "src", {{unit, {"g++", "-c", unit}}});
  settings_.compile_commands_dir.clear();
  FileModel header = analyze(text, "src/shared.hpp");
  EXPECT_EQ(header.flags_from, unit);
  EXPECT_FALSE(hasFunction(header, "kept_for_nvcc"));
}

// A header absent from the database is parsed with the command of a unit that includes it (as
// clangd infers a header's flags) and is that unit's code: extension code when the unit is.
// A source file absent from it takes the flags of the most similar entry.
TEST_P(CudaFrontendTest, HeadersTakeTheCommandOfAUnitThatIncludesThem) {
  fs::create_directories(directory_ / "src");
  fs::create_directories(directory_ / "include" / "launchers");
  fs::create_directories(directory_ / "other");
  std::ofstream(directory_ / "include" / "launchers" / "fill.h") << R"(#pragma once
#ifdef FROM_EXTENSION_UNIT
__global__ void fill_kernel(float* x) {}
inline void fill(float* x) { fill_kernel<<<1, 32>>>(x); }
#endif
)";
  std::ofstream(directory_ / "include" / "launchers" / "all.h") << "#include \"fill.h\"\n";
  const std::string unit = (directory_ / "src" / "ops.cu").string();
  std::ofstream(unit) << "#include <torch/extension.h>\n#include \"launchers/all.h\"\n";
  const std::string other = (directory_ / "other" / "fill.cu").string();
  std::ofstream(other) << "int x;\n";
  writeDatabase(directory_, {{unit, {"nvcc", "-Iinclude", "-DFROM_EXTENSION_UNIT", "-c", unit}},
                             {other, {"nvcc", "-DFROM_OTHER", "-c", other}}});
  settings_.compile_commands_dir.clear();
  std::ifstream in(directory_ / "include" / "launchers" / "fill.h");
  std::stringstream text;
  text << in.rdbuf();
  FileModel header = analyze(text.str(), "include/launchers/fill.h");
  EXPECT_TRUE(hasFunction(header, "fill"));
  EXPECT_TRUE(header.extension_code);
  EXPECT_EQ(header.extension_includer, unit);
  EXPECT_EQ(header.flags_from, unit);
  std::size_t escapes = events(function(header, "fill"), EventKind::kStreamUse).size();
  EXPECT_EQ(escapes, 1u);

  // Absent from the database and not a header: the nearest entry's flags.
  FileModel interpolated =
      analyze("#ifdef FROM_EXTENSION_UNIT\nvoid near() {}\n#endif\n", "src/new_op.cu");
  EXPECT_TRUE(hasFunction(interpolated, "near"));
  EXPECT_TRUE(interpolated.flags_from.empty());
}

// A compile database entry whose -D value holds a line break would write directives of its
// own into every parse: the flag is left out, with a notice naming the entry.
TEST_P(CudaFrontendTest, DefinitionsThatWouldInjectDirectivesAreLeftOut) {
  const std::string source = (directory_ / "inject.cu").string();
  writeDatabase(
      directory_,
      {{source, {"nvcc", "-DINJECTED=1\n#include \"/etc/passwd\"", "-DKEPT", "-c", source}}});
  settings_.show_compiler_errors = true;
  FileModel model =
      analyze("#ifdef KEPT\nvoid kept() {}\n#endif\n#ifdef INJECTED\nvoid injected() {}\n#endif\n",
              "inject.cu");
  EXPECT_TRUE(hasFunction(model, "kept"));
  EXPECT_FALSE(hasFunction(model, "injected"));
  EXPECT_EQ(model.compiler_errors, 0u);
  bool named = false;
  for (const Notice& notice : model.notices) {
    named = named || (notice.message.find("`-DINJECTED`") != std::string::npos &&
                      notice.message.find(source) != std::string::npos);
    EXPECT_EQ(notice.message.find("root:"), std::string::npos) << notice.message;
  }
  EXPECT_TRUE(named);
}

// --show-compiler-errors lists the errors it counts, the first 20 quoted and the rest counted;
// errors inside a file outside the project's tree are counted and named, never quoted.
TEST_P(CudaFrontendTest, CompilerErrorsAreShownAsCountedAndOutsideFilesAreNotQuoted) {
  fs::path outside = directory_.parent_path() / (directory_.filename().string() + "-outside");
  fs::create_directories(outside);
  std::ofstream(outside / "secret.h") << "int leaked = secret_token_value;\n";
  std::string text = "#include \"" + (outside / "secret.h").string() + "\"\n";
  for (int i = 0; i < 25; ++i)
    text += "int v" + std::to_string(i) + " = undeclared_" + std::to_string(i) + ";\n";
  settings_.show_compiler_errors = true;
  FileModel model = analyze(text);
  EXPECT_EQ(model.compiler_errors, 26u);
  std::size_t quoted = 0;
  bool summarized = false;
  bool rest = false;
  for (const Notice& notice : model.notices) {
    EXPECT_EQ(notice.message.find("secret_token_value"), std::string::npos) << notice.message;
    quoted += notice.message.find("undeclared_") != std::string::npos ? 1 : 0;
    summarized = summarized || notice.message.find("1 error in " + (outside / "secret.h").string() +
                                                   ", outside the project's tree (not quoted)") !=
                                   std::string::npos;
    rest = rest || notice.message.find("5 more of the 26 errors not shown (the first 20 are)") !=
                       std::string::npos;
  }
  EXPECT_EQ(quoted, 20u);
  EXPECT_TRUE(summarized);
  EXPECT_TRUE(rest);
}

// A capture call that leaves no region says why: in code the preprocessor skipped (which
// directive), or in code Clang could not parse. A mention in a comment or a macro definition
// is not a call.
TEST_P(CudaFrontendTest, ACaptureTheAnalysisCouldNotSeeIsNamed) {
  FileModel model = analyze(R"(// cudaStreamBeginCapture(s) in a comment
#define BEGIN(s) cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal)
#if defined(GS_NOT_DEFINED) && GS_VERSION > 3
void skipped(cudaStream_t s) { cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal); }
#endif
void found(cudaStream_t s, cudaGraph_t* g) {
  BEGIN(s);
  cudaStreamEndCapture(s, g);
}
#ifdef __CUDA_ARCH__
__host__ __device__ void gpuOnly(cudaStream_t s) { cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal); }
#endif
)");
  ASSERT_EQ(model.regions.size(), 1u);
  ASSERT_EQ(model.notices.size(), 2u);
  EXPECT_EQ(model.notices[0].line, 3);
  EXPECT_NE(model.notices[0].message.find(
                "is in code the preprocessor skipped: `#if defined(GS_NOT_DEFINED) && "
                "GS_VERSION > 3` (line 3) is not taken"),
            std::string::npos)
      << model.notices[0].message;
  EXPECT_EQ(model.notices[1].line, 10);
  EXPECT_NE(model.notices[1].message.find("is in code only the device pass compiles: `#ifdef "
                                          "__CUDA_ARCH__` (line 10) holds for GPU code only"),
            std::string::npos)
      << model.notices[1].message;
}

INSTANTIATE_TEST_SUITE_P(Modes, CudaFrontendTest, ::testing::Values("", "none"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return param_info.param.empty() ? std::string("CudaToolkit")
                                                           : std::string("BuiltinDeclarations");
                         });

// The fixture runner analyzes fixtures/cuda with the toolkit when there is one; the same
// fixtures must hold with the built-in declarations, as on a machine without CUDA.
TEST(CudaFixtures, HoldWithTheBuiltinDeclarations) {
  fs::path root = fs::path(GRAPHSAFE_SOURCE_DIR) / "fixtures" / "cuda";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (entry.is_regular_file() && isCudaPath(entry.path().string())) files.push_back(entry);
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    auto source = std::make_shared<SourceFile>(file.string(), text.str());
    EngineOptions options;
    options.jobs = 1;
    options.settings.cuda_path = "none";
    options.selection.select = parseFixtureSelect(source->text());
    RunResult result = analyzeSources({source}, options);
    std::map<std::pair<std::uint32_t, std::string>, int> expected;
    for (const Expectation& expectation : parseExpectations(source->text())) {
      if (!expectation.known_miss) ++expected[{expectation.line, expectation.rule_id}];
    }
    std::map<std::pair<std::uint32_t, std::string>, int> reported;
    for (const Diagnostic& d : result.diagnostics) ++reported[{d.range.start.line, d.rule_id}];
    for (const auto& [key, count] : expected) {
      EXPECT_EQ(reported[key], count)
          << file.filename() << ":" << key.first + 1 << " " << key.second;
    }
    for (const auto& [key, count] : reported) {
      EXPECT_EQ(expected[key], count)
          << file.filename() << ":" << key.first + 1 << " unexpected " << key.second;
    }
    EXPECT_TRUE(result.notices.empty()) << file.filename();
  }
}

// --show-regions for C++: what each region reaches, the calls under it it could not follow
// and why, and for a region that reaches nothing, why nothing is listed.
std::vector<RegionSummary> cppRegions(
    const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<SourceFilePtr> sources;
  for (const auto& [name, text] : files) {
    sources.push_back(std::make_shared<SourceFile>(
        (fs::temp_directory_path() / "graphsafe-cpp-regions" / name).string(), text));
  }
  EngineOptions options;
  options.jobs = 1;
  options.settings.cuda_path = "none";
  options.report_regions = true;
  return analyzeSources(sources, options).regions;
}

std::string reasons(const RegionSummary& region) {
  std::string out;
  for (const UnresolvedCall& call : region.unresolved) out += call.reason + "\n";
  return out;
}

TEST(CppRegionReport, ListsWhatItFollowsAndWhatItCannot) {
  std::vector<RegionSummary> regions = cppRegions({{"harness.cu", R"(
#include <cuda_runtime.h>
#include <functional>
__global__ void k(float* x) {}
struct Coll { void (*run)(float*, cudaStream_t); void (*unset)(float*); };
void runColl(float* x, cudaStream_t s) { k<<<1, 1, 0, s>>>(x); }
Coll coll = {runColl, nullptr};
template <class G> void templ(G& g, cudaStream_t s) {
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  g.run(s);
  cudaStreamEndCapture(s, nullptr);
}
void through(Coll* c, float* x, cudaStream_t s, const std::function<void()>& done) {
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  c->run(x, s);
  c->unset(x);
  done();
  cudaStreamEndCapture(s, nullptr);
}
void own(float* x, cudaStream_t s) {
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  k<<<1, 1, 0, s>>>(x);
  cudaStreamEndCapture(s, nullptr);
}
void beginOnly(cudaStream_t s) { cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal); }
)"}});
  ASSERT_EQ(regions.size(), 4u);
  // templ: never instantiated in the unit.
  EXPECT_TRUE(regions[0].reaches.empty());
  EXPECT_NE(reasons(regions[0])
                .find("`g.run`, which depends on a template parameter: this unit "
                      "does not instantiate the template"),
            std::string::npos)
      << reasons(regions[0]);
  // through: the member Coll::run holds runColl; nothing is ever stored into Coll::unset or
  // passed to `done`.
  EXPECT_EQ(regions[1].reaches, (std::vector<std::string>{"runColl"}));
  EXPECT_NE(reasons(regions[1])
                .find("the member `Coll::unset`: nothing in the analyzed files "
                      "stores a function into it"),
            std::string::npos)
      << reasons(regions[1]);
  EXPECT_NE(reasons(regions[1])
                .find("parameter `done` of `through`: no call in the analyzed "
                      "files passes it a function"),
            std::string::npos)
      << reasons(regions[1]);
  EXPECT_EQ(regions[1].unresolved.size(), 2u);
  // own: nothing to follow, and it says so.
  ASSERT_EQ(regions[2].unresolved.size(), 1u);
  EXPECT_NE(regions[2].unresolved[0].reason.find("the captured work is the 1 kernel launch"),
            std::string::npos);
  ASSERT_EQ(regions[3].unresolved.size(), 1u);
  EXPECT_NE(regions[3].unresolved[0].reason.find("nothing under this capture launches work"),
            std::string::npos);
}

// Arguments handed on with std::forward or std::move are not calls: a wrapper that captures the
// std::function it is given lists nothing it cannot follow.
TEST(CppRegionReport, ArgumentsHandedOnAreNotCalls) {
  std::vector<RegionSummary> regions = cppRegions({{"ffi.cu", R"(
#include <cuda_runtime.h>
#include <algorithm>
#include <functional>
#include <utility>
template <typename... Args>
int wrap(std::function<int(cudaStream_t, Args...)> func, cudaStream_t s, Args... args) {
  cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
  int error = func(s, std::forward<Args>(args)...);
  auto again = std::move(func);
  cudaStreamEndCapture(s, nullptr);
  return error;
}
__global__ void normKernel(float* x) {}
int norm(cudaStream_t s, float* x) {
  normKernel<<<1, 1, 0, s>>>(x);
  return 0;
}
int normFFI(cudaStream_t s, float* x) { return wrap(std::function(norm), s, x); }
// A template's pointer parameter holds data, not a function: handed to a library call or to a
// kernel launch, it is not called.
template <typename T, typename I>
void fill(T* data, I count, cudaStream_t s) {
  cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
  std::fill_n(data, 4, T{});
  void* args[] = {&data, &count};
  cudaLaunchKernel((const void*)normKernel, 1, 1, args, 0, s);
  cudaStreamEndCapture(s, nullptr);
}
)"}});
  ASSERT_EQ(regions.size(), 2u);
  EXPECT_EQ(regions[0].reaches, (std::vector<std::string>{"norm"}));
  EXPECT_TRUE(regions[0].unresolved.empty()) << reasons(regions[0]);
  EXPECT_EQ(reasons(regions[1]).find("parameter `"), std::string::npos) << reasons(regions[1]);
}

TEST(CudaFrontendModule, LoadsOnceAndReportsItsLanguage) {
  std::string error;
  auto first = loadCudaFrontend(error);
  auto second = loadCudaFrontend(error);
  ASSERT_TRUE(first && second) << error;
  EXPECT_EQ(first->language(), Language::kCuda);
  EXPECT_EQ(first->name(), "cuda");
}

TEST(CudaPrefilter, LooksForLaunchesStreamsAndCaptureApis) {
  EXPECT_TRUE(cudaSourceMayMatter("k<<<1, 2>>>(x);"));
  EXPECT_TRUE(cudaSourceMayMatter("cudaStreamSynchronize(s);"));
  EXPECT_TRUE(cudaSourceMayMatter("CHECK(cuCtxSynchronize());"));
  EXPECT_TRUE(cudaSourceMayMatter("cublasSgemm(h, ...)"));
  EXPECT_TRUE(cudaSourceMayMatter("graph.capture_begin();"));
  EXPECT_TRUE(cudaSourceMayMatter("#include <torch/extension.h>\n"));
  EXPECT_TRUE(cudaSourceMayMatter("TORCH_LIBRARY(ops, m) {}"));
  EXPECT_FALSE(cudaSourceMayMatter("#include <cuda_runtime.h>\nint add(int a, int b);\n"));
  EXPECT_FALSE(cudaSourceMayMatter("int cuda_count = 0; // accumulate\n"));
  EXPECT_FALSE(cudaSourceMayMatter(""));
  EXPECT_TRUE(cudaFrontend().mayMatter("cudaMemcpy(a, b, n, kind);"));
}

}  // namespace
}  // namespace graphsafe::testing
