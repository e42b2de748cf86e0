// GS201 rebound-static-input, bug: the input pointer is pointed at each new batch, but the graph
// keeps the address it captured and reads the first batch forever.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

const char* const kCase = "cuda/GS201-rebound-static-input/bug.cu";
const char* const kRule = "GS201";
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
constexpr int kBatches = 4;

__global__ void scale(const float* x, float* y) {
  y[threadIdx.x] = 2.0f * x[threadIdx.x];
}

}  // namespace

int main() {
  std::vector<float> expected;
  for (int b = 0; b < kBatches; ++b) expected.push_back(2.0f * (b + 1));
  g_expected = jsonList(expected);

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float* batches[kBatches];
  for (int b = 0; b < kBatches; ++b) {
    std::vector<float> values(kN, static_cast<float>(b + 1));
    CHECK(cudaMalloc(&batches[b], kN * sizeof(float)));
    CHECK(cudaMemcpy(batches[b], values.data(), kN * sizeof(float), cudaMemcpyHostToDevice));
  }
  float* y;
  CHECK(cudaMalloc(&y, kN * sizeof(float)));

  const float* input = batches[0];
  scale<<<1, kN, 0, stream>>>(input, y);  // eager warm-up
  CHECK(cudaStreamSynchronize(stream));

  cudaGraph_t graph;
  CHECK_CAPTURE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  scale<<<1, kN, 0, stream>>>(input, y);
  CHECK_CAPTURE(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CHECK_CAPTURE(cudaGraphInstantiate(&exec, graph, 0));

  std::vector<float> observed;
  for (int b = 0; b < kBatches; ++b) {
    input = batches[b];  // hazard: GS201
    std::vector<float> out(kN);
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaMemcpyAsync(out.data(), y, kN * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    observed.push_back(out[0]);
  }
  emit(jsonList(observed), "");
}
