// GS301 non-capture-stream, bug (synchronous memset form): cudaMemset is not a stream operation of
// the capture; the reset runs once, at capture time, and the accumulator is never cleared again.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

const char* const kCase = "cuda/GS301-non-capture-stream/bug_memset.cu";
const char* const kRule = "GS301";
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

// One result line, then leave at once: a failed capture can leave the context unusable.
[[noreturn]] void emit(const std::string& observed, const std::string& error) {
  std::printf(
      "{\"case\": \"%s\", \"rule\": \"%s\", \"kind\": \"%s\", \"observed\": %s, "
      "\"expected\": %s, \"capture_error\": %s}\n",
      kCase, kRule, kKind, observed.c_str(), g_expected.c_str(),
      error.empty() ? "null" : jsonString(error).c_str());
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

}  // namespace

#define CHECK(call) check((call), #call)
#define CHECK_CAPTURE(call) checkCapture((call), #call)

namespace {

constexpr int kN = 4;
constexpr int kReplays = 4;

__global__ void accumulate(const float* x, float* acc) {
  acc[threadIdx.x] += x[threadIdx.x];
}

}  // namespace

int main() {
  g_expected = jsonList(std::vector<float>(kReplays, 1.0f));

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float* x;
  float* acc;
  CHECK(cudaMalloc(&x, kN * sizeof(float)));
  CHECK(cudaMalloc(&acc, kN * sizeof(float)));
  std::vector<float> ones(kN, 1.0f);
  CHECK(cudaMemcpyAsync(x, ones.data(), kN * sizeof(float), cudaMemcpyHostToDevice, stream));

  // Eager warm-up of the same work.
  CHECK(cudaMemsetAsync(acc, 0, kN * sizeof(float), stream));
  accumulate<<<1, kN, 0, stream>>>(x, acc);
  CHECK(cudaStreamSynchronize(stream));

  cudaGraph_t graph;
  CHECK_CAPTURE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CHECK_CAPTURE(cudaMemset(acc, 0, kN * sizeof(float)));  // hazard: GS301
  accumulate<<<1, kN, 0, stream>>>(x, acc);
  CHECK_CAPTURE(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CHECK_CAPTURE(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaDeviceSynchronize());

  std::vector<float> observed;
  for (int r = 0; r < kReplays; ++r) {
    std::vector<float> out(kN);
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaMemcpyAsync(out.data(), acc, kN * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    observed.push_back(out[0]);
  }
  emit(jsonList(observed), "");
}
