// GS501 host-buffer-race, bug (parameter): the pinned input is allocated by the caller and handed
// to a helper that captures the copy from it into the caller's executable; the caller rewrites it
// after each launch without waiting, before the captured copy (queued behind 50 ms of GPU work)
// has read it, so every replay sees the last write.
// probe: run-alone
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

const char* const kCase = "cuda/GS501-host-buffer-race/bug_parameter.cu";
const char* const kRule = "GS501";
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

constexpr int kReplays = 4;
constexpr unsigned long long kSpinNs = 50ull * 1000 * 1000;

__global__ void spin(unsigned long long ns) {
  unsigned long long start;
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}
__global__ void square(const float* x, float* y) {
  y[0] = x[0] * x[0];
}

// The runner's helper: warms up, then captures the copy from `host_in` and the work after it.
void captureStep(const float* host_in, float* x, float* y, cudaStream_t stream,
                 cudaGraphExec_t* exec) {
  spin<<<1, 1, 0, stream>>>(1000);
  CHECK(cudaMemcpyAsync(x, host_in, sizeof(float), cudaMemcpyHostToDevice, stream));
  square<<<1, 1, 0, stream>>>(x, y);
  CHECK(cudaStreamSynchronize(stream));
  cudaGraph_t graph;
  CHECK_CAPTURE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  spin<<<1, 1, 0, stream>>>(kSpinNs);
  CHECK_CAPTURE(cudaMemcpyAsync(x, host_in, sizeof(float), cudaMemcpyHostToDevice, stream));
  square<<<1, 1, 0, stream>>>(x, y);
  CHECK_CAPTURE(cudaStreamEndCapture(stream, &graph));
  CHECK_CAPTURE(cudaGraphInstantiate(exec, graph, 0));
}

}  // namespace

int main() {
  std::vector<float> expected;
  for (int r = 0; r < kReplays; ++r) expected.push_back(static_cast<float>(r * r));
  g_expected = jsonList(expected);

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float* host_in;
  CHECK(cudaMallocHost(&host_in, sizeof(float)));
  host_in[0] = 0.0f;
  float* x;
  float* y;
  float* results;
  CHECK(cudaMalloc(&x, sizeof(float)));
  CHECK(cudaMalloc(&y, sizeof(float)));
  CHECK(cudaMalloc(&results, kReplays * sizeof(float)));

  cudaGraphExec_t exec;
  captureStep(host_in, x, y, stream, &exec);

  for (int r = 0; r < kReplays; ++r) {
    host_in[0] = static_cast<float>(r);  // hazard: GS501
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaMemcpyAsync(results + r, y, sizeof(float), cudaMemcpyDeviceToDevice, stream));
  }
  std::vector<float> observed(kReplays);
  CHECK(cudaMemcpyAsync(observed.data(), results, kReplays * sizeof(float), cudaMemcpyDeviceToHost,
                        stream));
  CHECK(cudaStreamSynchronize(stream));
  emit(jsonList(observed), "");
}
