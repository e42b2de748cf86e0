// GS501 host-buffer-race, fix (shared static): each graph copies from a struct of its own, so
// each replays with the scale it was captured with.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

const char* const kCase = "cuda/GS501-host-buffer-race/fix_shared_static.cu";
const char* const kRule = "GS501";
const char* const kKind = "fix";
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

constexpr int kGraphs = 4;

struct Params {
  float scale;
  int batch;
};

__global__ void apply(const Params* params, float* out) {
  out[0] = params->scale;
}

// One struct per graph.
Params g_params[kGraphs];

// The runner's helper: one graph per batch, each captured with its own scale.
void captureFor(int b, Params* device, float* out, cudaStream_t stream, cudaGraphExec_t* exec) {
  g_params[b].scale = static_cast<float>(b + 1);
  g_params[b].batch = b;
  CHECK(cudaMemcpyAsync(device, &g_params[b], sizeof(Params), cudaMemcpyHostToDevice, stream));
  apply<<<1, 1, 0, stream>>>(device, out);  // eager warm-up of the same work
  CHECK(cudaStreamSynchronize(stream));
  cudaGraph_t graph;
  CHECK_CAPTURE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CHECK_CAPTURE(
      cudaMemcpyAsync(device, &g_params[b], sizeof(Params), cudaMemcpyHostToDevice, stream));
  apply<<<1, 1, 0, stream>>>(device, out);
  CHECK_CAPTURE(cudaStreamEndCapture(stream, &graph));
  CHECK_CAPTURE(cudaGraphInstantiate(exec, graph, 0));
}

}  // namespace

int main() {
  std::vector<float> expected;
  for (int b = 0; b < kGraphs; ++b) expected.push_back(static_cast<float>(b + 1));
  g_expected = jsonList(expected);

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  Params* device;
  float* out;
  CHECK(cudaMalloc(&device, kGraphs * sizeof(Params)));
  CHECK(cudaMalloc(&out, kGraphs * sizeof(float)));
  cudaGraphExec_t execs[kGraphs];
  for (int b = 0; b < kGraphs; ++b) captureFor(b, device + b, out + b, stream, &execs[b]);

  for (int b = 0; b < kGraphs; ++b) CHECK(cudaGraphLaunch(execs[b], stream));
  std::vector<float> observed(kGraphs);
  CHECK(cudaMemcpyAsync(observed.data(), out, kGraphs * sizeof(float), cudaMemcpyDeviceToHost,
                        stream));
  CHECK(cudaStreamSynchronize(stream));
  emit(jsonList(observed), "");
}
