// GS602 input-copies-outweigh-graph, bug: a graph of one kernel, launched once per input after a
// host-to-device copy of that input into the graph's static buffer: two launches for every one the
// graph saves. Timing case: the sums are right, the time per 16 inputs is the measurement.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

const char* const kCase = "cuda/GS602-input-copies-outweigh-graph/bug.cu";
const char* const kRule = "GS602";
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
constexpr int kIterations = 100;

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

constexpr int kN = 256;     // floats per input
constexpr int kSteps = 16;  // inputs per iteration
constexpr size_t kBytes = kN * sizeof(float);

__global__ void accumulate(const float* x, float* acc) {
  acc[threadIdx.x] += 2.0f * x[threadIdx.x];
}

}  // namespace

int main() {
  // Input s, element i: (s + 1) / 2 + i % 4. Sixteen inputs accumulated twice over give
  // 136 + 32 * (i % 4).
  g_expected = jsonList({136.0f, 168.0f, 200.0f, 232.0f});

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float* h_x;
  CHECK(cudaMallocHost(&h_x, kSteps * kBytes));
  for (int s = 0; s < kSteps; ++s) {
    for (int i = 0; i < kN; ++i) h_x[s * kN + i] = 0.5f * static_cast<float>(s + 1) + (i % 4);
  }
  float* d_x;
  float* d_acc;
  CHECK(cudaMalloc(&d_x, kBytes));
  CHECK(cudaMalloc(&d_acc, kBytes));
  CHECK(cudaMemsetAsync(d_x, 0, kBytes, stream));
  CHECK(cudaMemsetAsync(d_acc, 0, kBytes, stream));

  // Eager warm-up of the captured work.
  accumulate<<<1, kN, 0, stream>>>(d_x, d_acc);
  CHECK(cudaStreamSynchronize(stream));

  cudaGraph_t graph;
  CHECK_CAPTURE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  accumulate<<<1, kN, 0, stream>>>(d_x, d_acc);
  CHECK_CAPTURE(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CHECK_CAPTURE(cudaGraphInstantiate(&exec, graph, 0));

  // Sample -1 is the warm-up; each sample times kIterations iterations of kSteps inputs.
  std::vector<double> times;
  for (int sample = -1; sample < kSamples; ++sample) {
    const int iterations = sample < 0 ? kWarmup : kIterations;
    const auto start = std::chrono::steady_clock::now();
    for (int it = 0; it < iterations; ++it) {
      for (int step = 0; step < kSteps; ++step) {
        CHECK(cudaMemcpyAsync(d_x, h_x + step * kN, kBytes,  // hazard: GS602
                              cudaMemcpyHostToDevice, stream));
        CHECK(cudaGraphLaunch(exec, stream));
      }
    }
    CHECK(cudaStreamSynchronize(stream));
    const std::chrono::duration<double, std::milli> spent =
        std::chrono::steady_clock::now() - start;
    if (sample >= 0) times.push_back(spent.count() / iterations);
  }

  // One more iteration from zero: the sums it leaves.
  CHECK(cudaMemsetAsync(d_acc, 0, kBytes, stream));
  for (int step = 0; step < kSteps; ++step) {
    CHECK(cudaMemcpyAsync(d_x, h_x + step * kN, kBytes,  // hazard: GS602
                          cudaMemcpyHostToDevice, stream));
    CHECK(cudaGraphLaunch(exec, stream));
  }
  std::vector<float> out(kN);
  CHECK(cudaMemcpyAsync(out.data(), d_acc, kBytes, cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  emit(jsonList({out[0], out[1], out[2], out[3]}), "", median(times));
}
