// GS304 extension-default-stream, bug. A stand-in for a PyTorch extension op: a host function the
// framework calls while its current stream may be capturing. This op launches on the legacy
// default stream instead of the caller's stream, so its work escapes the capture: it runs once, at
// capture time, and no replay contains it.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

const char* const kCase = "cuda/GS304-extension-default-stream/bug.cu";
const char* const kRule = "GS304";
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

__global__ void addOneKernel(const float* in, float* x) {
  x[threadIdx.x] = in[threadIdx.x] + 1.0f;
}
__global__ void scaleKernel(const float* x, float* y) {
  y[threadIdx.x] = 2.0f * x[threadIdx.x];
}

// The "extension op".
void scaleOp(const float* x, float* y, int n) {
  scaleKernel<<<1, n>>>(x, y);  // hazard: GS304
}

}  // namespace

int main() {
  std::vector<float> expected;
  for (int r = 0; r < kReplays; ++r) expected.push_back(2.0f * (r + 1.0f));
  g_expected = jsonList(expected);

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float* in;
  float* x;
  float* y;
  CHECK(cudaMalloc(&in, kN * sizeof(float)));
  CHECK(cudaMalloc(&x, kN * sizeof(float)));
  CHECK(cudaMalloc(&y, kN * sizeof(float)));

  // Eager warm-up of the same work.
  addOneKernel<<<1, kN, 0, stream>>>(in, x);
  CHECK(cudaStreamSynchronize(stream));
  scaleOp(x, y, kN);
  CHECK(cudaDeviceSynchronize());

  cudaGraph_t graph;
  CHECK_CAPTURE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  addOneKernel<<<1, kN, 0, stream>>>(in, x);
  scaleOp(x, y, kN);
  CHECK_CAPTURE(cudaGetLastError());
  CHECK_CAPTURE(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CHECK_CAPTURE(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaDeviceSynchronize());

  std::vector<float> observed;
  for (int r = 0; r < kReplays; ++r) {
    std::vector<float> input(kN, static_cast<float>(r));
    std::vector<float> out(kN);
    CHECK(cudaMemcpyAsync(in, input.data(), kN * sizeof(float), cudaMemcpyHostToDevice, stream));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaMemcpyAsync(out.data(), y, kN * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    observed.push_back(out[0]);
  }
  emit(jsonList(observed), "");
}
