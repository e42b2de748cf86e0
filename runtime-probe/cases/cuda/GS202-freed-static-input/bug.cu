// GS202 freed-static-input, bug: the captured input is freed while the graph lives; the next
// allocation of that size can take its address, and the graph reads whatever is there.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

const char* const kCase = "cuda/GS202-freed-static-input/bug.cu";
const char* const kRule = "GS202";
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

constexpr int kN = 256;

__global__ void scale(const float* x, float* y) {
  y[threadIdx.x] = 2.0f * x[threadIdx.x];
}

}  // namespace

int main() {
  g_expected = jsonList(std::vector<float>(4, 2.0f));  // input = 1

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float* input;
  float* y;
  CHECK(cudaMalloc(&input, kN * sizeof(float)));
  CHECK(cudaMalloc(&y, kN * sizeof(float)));
  std::vector<float> ones(kN, 1.0f);
  CHECK(cudaMemcpy(input, ones.data(), kN * sizeof(float), cudaMemcpyHostToDevice));

  scale<<<1, kN, 0, stream>>>(input, y);  // eager warm-up
  CHECK(cudaStreamSynchronize(stream));

  cudaGraph_t graph;
  CHECK_CAPTURE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  scale<<<1, kN, 0, stream>>>(input, y);
  CHECK_CAPTURE(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CHECK_CAPTURE(cudaGraphInstantiate(&exec, graph, 0));

  CHECK(cudaFree(input));  // hazard: GS202
  float* other;
  CHECK(cudaMalloc(&other, kN * sizeof(float)));
  std::vector<float> sevens(kN, 7.0f);
  CHECK(cudaMemcpy(other, sevens.data(), kN * sizeof(float), cudaMemcpyHostToDevice));

  // The replay reads the freed block: an error here is the hazard's doing, so it is the result.
  std::vector<float> out(kN);
  CHECK_CAPTURE(cudaGraphLaunch(exec, stream));
  CHECK_CAPTURE(cudaMemcpyAsync(out.data(), y, kN * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CHECK_CAPTURE(cudaStreamSynchronize(stream));
  out.resize(4);
  emit(jsonList(out), "");
}
