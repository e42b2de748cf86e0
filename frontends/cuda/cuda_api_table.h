#pragma once

// What graphsafe knows about the CUDA runtime and driver APIs, cuBLAS/cuDNN and the PyTorch C++
// stream API: which calls make the host wait, which place work on a stream (and which argument
// is the stream), which begin or end a capture. Data, so that adding an API is one line.

#include <cstdint>
#include <string_view>

namespace graphsafe::cuda {

enum class ApiRole : std::uint8_t {
  kHostSync,      // the host waits for the device (or the call is refused during capture)
  kAlloc,         // synchronous allocation: host sync, allocation, binds `out_arg`
  kPinnedAlloc,   // pinned host allocation: as kAlloc, and `out_arg` is a pinned buffer
  kFree,          // synchronous free of argument 0: host sync and free
  kAsyncAlloc,    // stream-ordered allocation: binds `out_arg`, work on the stream
  kAsyncFree,     // stream-ordered free of argument 0: work on the stream
  kSyncCopy,      // synchronous copy or memset: runs on the legacy default stream
  kAsyncWork,     // copy, memset or launch on the stream at `stream_arg`
  kCaptureBegin,  // stream at argument 0; capture mode at `mode_arg`
  kCaptureEnd,    // stream at argument 0; the graph out at argument 1
  kCaptureQuery,  // asks whether a stream is capturing; the status out at `out_arg`
  kEventRecord,   // event at argument 0, stream at `stream_arg`
  kStreamWait,    // stream at argument 0 waits for the event at argument 1
  kGraphLaunch,   // launches an executable graph (argument 0) on `stream_arg`
  kStreamCreate,  // creates a stream into `out_arg`
  kHandleCreate,  // creates a cuBLAS/cuDNN handle into `out_arg`
  kHandleStream,  // binds the handle at argument 0 to the stream at `stream_arg`
  kInstantiate,   // makes the executable graph `out_arg` from the graph at argument 1
  kExecUpdate,    // sets node parameters of (or a new graph into) the executable at argument 0
};

struct ApiInfo {
  std::string_view name;
  ApiRole role;
  std::int8_t stream_arg = -1;  // -1: none
  std::int8_t out_arg = -1;     // -1: none
  std::int8_t mode_arg = -1;    // kCaptureBegin only
};

// Looks a callee up by its unqualified name. Version and per-thread suffixes of the C APIs
// (`_v2`, `_v3`, `_ptsz`, `_ptds`) are ignored: cublas_v2.h and cuda.h rename calls by macro.
const ApiInfo* findCudaApi(std::string_view name);

// `cudaMemcpyAsync_ptsz` and friends: the per-thread default stream variants, where stream 0
// means the calling thread's default stream.
bool isPerThreadVariant(std::string_view name);

// The name without `_v2`/`_v3`/`_ptsz`/`_ptds`.
std::string_view baseApiName(std::string_view name);

// A cuBLAS, cuBLASLt or cuDNN call that enqueues device work through the handle at argument 0
// (not creation, destruction, configuration or queries).
bool isLibraryWork(std::string_view name);

// The torch stream API, by unqualified name (namespaces at::cuda / c10::cuda).
bool isTorchCurrentStream(std::string_view name);  // getCurrentCUDAStream
bool isTorchDefaultStream(std::string_view name);  // getDefaultCUDAStream
bool isTorchNewStream(std::string_view name);      // getStreamFromPool
bool isTorchCaptureQuery(std::string_view name);   // currentStreamCaptureStatus...
bool isTorchBlasHandle(std::string_view name);     // getCurrentCUDABlasHandle: already on the
                                                   // current stream

// Calls whose only purpose is reporting (error strings, printing): not device work when two
// sides of a capture-dependent branch are compared.
bool isReportingCall(std::string_view name);

}  // namespace graphsafe::cuda
