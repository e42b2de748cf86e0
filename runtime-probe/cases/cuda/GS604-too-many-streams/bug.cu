// GS604 too-many-streams, bug: a graph that forks 64 created streams, one per expert, each running
// a one-block kernel of a fixed length. The device runs streams over a bounded number of hardware
// queues, so a replay cannot run the 64 branches side by side. Timing case: the values are right,
// the time per replay is the measurement.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

const char* const kCase = "cuda/GS604-too-many-streams/bug.cu";
const char* const kRule = "GS604";
const char* const kKind = "bug";
std::string g_expected = "null";  // reported with any error

std::string jsonList(const std::vector<float>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%s%.9g", i ? ", " : "", static_cast<double>(values[i]));
    out += buf;
  }
  return out + "]";
}

std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

constexpr int kWarmup = 20;
constexpr int kSamples = 15;
constexpr int kIterations = 50;

// One result line, then leave at once: a failed capture can leave the context unusable.
[[noreturn]] void emit(const std::string& observed, const std::string& error, double ms = -1) {
  std::string timing = "null";
  if (ms > 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "{\"ms_per_iteration\": %.6g, \"samples\": %d, \"iterations\": %d, "
                  "\"warmup\": %d}",
                  ms, kSamples, kIterations, kWarmup);
    timing = buf;
  }
  std::printf(
      "{\"case\": \"%s\", \"rule\": \"%s\", \"kind\": \"%s\", \"observed\": %s, "
      "\"expected\": %s, \"capture_error\": %s, \"timing\": %s}\n",
      kCase, kRule, kKind, observed.c_str(), g_expected.c_str(),
      error.empty() ? "null" : jsonString(error).c_str(), timing.c_str());
  std::fflush(stdout);
  std::_Exit(0);
}

// A failure of what the case measures (capture, instantiation): reported as the result.
void checkCapture(cudaError_t err, const char* what) {
  if (err != cudaSuccess) emit("null", std::string(what) + ": " + cudaGetErrorString(err));
}

// A failure of the setup around it: no result line, so the runner records a crash.
void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
    std::_Exit(1);
  }
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

}  // namespace

#define CHECK(call) check((call), #call)
#define CHECK_CAPTURE(call) checkCapture((call), #call)

namespace {

constexpr int kExperts = 64;
constexpr int kStreams = 64;  // one per expert
constexpr int kBlocks = 1;
constexpr long long kSpinCycles = 20000;  // about 10 us at 2 GHz

// Expert `first + blockIdx.x`: a fixed stretch of work, then its result.
__global__ void experts(float* out, int first) {
  const long long start = clock64();
  while (clock64() - start < kSpinCycles) {
  }
  if (threadIdx.x == 0) out[first + blockIdx.x] = static_cast<float>(first + blockIdx.x + 1);
}

}  // namespace

int main() {
  g_expected = jsonList({2080.0f});  // 1 + 2 + ... + 64

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaStream_t side[kStreams];
  cudaEvent_t done[kStreams];
  for (int i = 0; i < kStreams; ++i) {
    CHECK(cudaStreamCreateWithFlags(&side[i], cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming));
  }
  cudaEvent_t fork;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  float* d_out;
  CHECK(cudaMalloc(&d_out, kExperts * sizeof(float)));

  // Eager warm-up of the captured work.
  CHECK(cudaEventRecord(fork, stream));
  for (int i = 0; i < kStreams; ++i) {
    CHECK(cudaStreamWaitEvent(side[i], fork, 0));
    experts<<<kBlocks, 32, 0, side[i]>>>(d_out, i * kBlocks);
    CHECK(cudaEventRecord(done[i], side[i]));
    CHECK(cudaStreamWaitEvent(stream, done[i], 0));
  }
  CHECK(cudaStreamSynchronize(stream));

  cudaGraph_t graph;
  CHECK_CAPTURE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CHECK_CAPTURE(cudaEventRecord(fork, stream));
  for (int i = 0; i < kStreams; ++i) {
    CHECK_CAPTURE(cudaStreamWaitEvent(side[i], fork, 0));  // hazard: GS604
    experts<<<kBlocks, 32, 0, side[i]>>>(d_out, i * kBlocks);
    CHECK_CAPTURE(cudaEventRecord(done[i], side[i]));
    CHECK_CAPTURE(cudaStreamWaitEvent(stream, done[i], 0));
  }
  CHECK_CAPTURE(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CHECK_CAPTURE(cudaGraphInstantiate(&exec, graph, 0));

  CHECK(cudaMemsetAsync(d_out, 0, kExperts * sizeof(float), stream));
  CHECK(cudaGraphLaunch(exec, stream));
  std::vector<float> out(kExperts);
  CHECK(
      cudaMemcpyAsync(out.data(), d_out, kExperts * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  float sum = 0;
  for (float value : out) sum += value;

  // Sample -1 is the warm-up; each sample times kIterations replays.
  std::vector<double> times;
  for (int sample = -1; sample < kSamples; ++sample) {
    const int iterations = sample < 0 ? kWarmup : kIterations;
    const auto start = std::chrono::steady_clock::now();
    for (int it = 0; it < iterations; ++it) CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    const std::chrono::duration<double, std::milli> spent =
        std::chrono::steady_clock::now() - start;
    if (sample >= 0) times.push_back(spent.count() / iterations);
  }
  emit(jsonList({sum}), "", median(times));
}
