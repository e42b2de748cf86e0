// GS104 capture-aware-logic, bug: the host asks whether the stream is capturing and launches an
// extra kernel only then; every replay runs that capture-only path.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

const char* const kCase = "cuda/GS104-capture-aware-logic/bug.cu";
const char* const kRule = "GS104";
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

__global__ void add(const float* x, const float* y, float* z) {
  z[threadIdx.x] = x[threadIdx.x] + y[threadIdx.x];
}
__global__ void negate(float* z) {
  z[threadIdx.x] = -z[threadIdx.x];
}

void combine(const float* x, const float* y, float* z, cudaStream_t stream) {
  add<<<1, kN, 0, stream>>>(x, y, z);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  CHECK(cudaStreamIsCapturing(stream, &status));
  if (status == cudaStreamCaptureStatusActive) {  // hazard: GS104
    negate<<<1, kN, 0, stream>>>(z);
  }
}

}  // namespace

int main() {
  std::vector<float> expected;
  for (int r = 0; r < kReplays; ++r) expected.push_back(1.0f + r);
  g_expected = jsonList(expected);

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float* x;
  float* y;
  float* z;
  CHECK(cudaMalloc(&x, kN * sizeof(float)));
  CHECK(cudaMalloc(&y, kN * sizeof(float)));
  CHECK(cudaMalloc(&z, kN * sizeof(float)));
  std::vector<float> ones(kN, 1.0f);
  CHECK(cudaMemcpyAsync(x, ones.data(), kN * sizeof(float), cudaMemcpyHostToDevice, stream));

  combine(x, y, z, stream);  // eager warm-up
  CHECK(cudaStreamSynchronize(stream));

  cudaGraph_t graph;
  CHECK_CAPTURE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  combine(x, y, z, stream);
  CHECK_CAPTURE(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CHECK_CAPTURE(cudaGraphInstantiate(&exec, graph, 0));

  std::vector<float> observed;
  for (int r = 0; r < kReplays; ++r) {
    std::vector<float> input(kN, static_cast<float>(r));
    std::vector<float> out(kN);
    CHECK(cudaMemcpyAsync(y, input.data(), kN * sizeof(float), cudaMemcpyHostToDevice, stream));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaMemcpyAsync(out.data(), z, kN * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    observed.push_back(out[0]);
  }
  emit(jsonList(observed), "");
}
