// GS103 frozen-scalar, bug (helper): the training loop captures through a helper on its first
// step only (`if (exec == nullptr)`) and launches on every step; the learning rate it passes is
// copied into the kernel node at the capture, so every later step uses the first rate.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

const char* const kCase = "cuda/GS103-frozen-scalar/bug_helper.cu";
const char* const kRule = "GS103";
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
constexpr float kLrs[] = {1.0f, 0.5f, 0.25f, 0.125f};
constexpr int kSteps = 4;

__global__ void sgdStep(float* w, const float* grad, float lr) {
  w[threadIdx.x] -= lr * grad[threadIdx.x];
}

// The trainer's helper: captures one step into the caller's executable.
void captureStep(float* w, const float* grad, float lr, cudaStream_t stream,
                 cudaGraphExec_t* exec) {
  sgdStep<<<1, kN, 0, stream>>>(w, grad, lr);  // eager warm-up of the same work
  CHECK(cudaStreamSynchronize(stream));
  cudaGraph_t graph;
  CHECK_CAPTURE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  sgdStep<<<1, kN, 0, stream>>>(w, grad, lr);  // hazard: GS103
  CHECK_CAPTURE(cudaStreamEndCapture(stream, &graph));
  CHECK_CAPTURE(cudaGraphInstantiate(exec, graph, 0));
}

}  // namespace

int main() {
  std::vector<float> expected;
  float reference = 10.0f;
  for (int s = 0; s < kSteps; ++s) expected.push_back(reference -= kLrs[s]);
  g_expected = jsonList(expected);

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float* w;
  float* grad;
  CHECK(cudaMalloc(&w, kN * sizeof(float)));
  CHECK(cudaMalloc(&grad, kN * sizeof(float)));
  std::vector<float> tens(kN, 10.0f);
  std::vector<float> ones(kN, 1.0f);
  CHECK(cudaMemcpyAsync(grad, ones.data(), kN * sizeof(float), cudaMemcpyHostToDevice, stream));
  std::vector<float> observed;
  cudaGraphExec_t exec = nullptr;
  for (int s = 0; s < kSteps; ++s) {
    float lr = kLrs[s];  // a new rate every step
    if (exec == nullptr) {
      captureStep(w, grad, lr, stream, &exec);
      // The warm-up ran one step: start the weights over.
      CHECK(cudaMemcpyAsync(w, tens.data(), kN * sizeof(float), cudaMemcpyHostToDevice, stream));
    }
    std::vector<float> out(kN);
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaMemcpyAsync(out.data(), w, kN * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    observed.push_back(out[0]);
  }
  emit(jsonList(observed), "");
}
