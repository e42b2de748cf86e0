// GS401 host-sync, bug (the query form): nccl-tests' testStreamSynchronize polls its streams with
// cudaStreamQuery, and reaches it under a capture (-z 1 with -G); querying a stream that is being
// captured is refused and the capture is invalidated, as a synchronize is.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

const char* const kCase = "cuda/GS401-host-sync/bug_stream_query.cu";
const char* const kRule = "GS401";
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

__global__ void scale(const float* x, float* y) {
  y[threadIdx.x] = 2.0f * x[threadIdx.x];
}
__global__ void addOne(float* y) {
  y[threadIdx.x] += 1.0f;
}

}  // namespace

int main() {
  g_expected = jsonList(std::vector<float>(kN, 3.0f));  // x = 1

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float* x;
  float* y;
  CHECK(cudaMalloc(&x, kN * sizeof(float)));
  CHECK(cudaMalloc(&y, kN * sizeof(float)));
  std::vector<float> ones(kN, 1.0f);
  CHECK(cudaMemcpyAsync(x, ones.data(), kN * sizeof(float), cudaMemcpyHostToDevice, stream));

  // Eager warm-up of the same work.
  scale<<<1, kN, 0, stream>>>(x, y);
  addOne<<<1, kN, 0, stream>>>(y);
  CHECK(cudaStreamSynchronize(stream));

  cudaGraph_t graph;
  CHECK_CAPTURE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  scale<<<1, kN, 0, stream>>>(x, y);
  cudaError_t sync_err = cudaStreamQuery(stream);  // hazard: GS401
  addOne<<<1, kN, 0, stream>>>(y);
  cudaError_t end_err = cudaStreamEndCapture(stream, &graph);
  if (sync_err != cudaSuccess || end_err != cudaSuccess) {
    emit("null", std::string("cudaStreamQuery: ") + cudaGetErrorString(sync_err) +
                     "; cudaStreamEndCapture: " + cudaGetErrorString(end_err));
  }
  cudaGraphExec_t exec;
  CHECK_CAPTURE(cudaGraphInstantiate(&exec, graph, 0));

  std::vector<float> out(kN);
  CHECK(cudaGraphLaunch(exec, stream));
  CHECK(cudaMemcpyAsync(out.data(), y, kN * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  emit(jsonList(out), "");
}
