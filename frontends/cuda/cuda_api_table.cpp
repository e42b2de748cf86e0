#include "frontends/cuda/cuda_api_table.h"

#include <algorithm>
#include <array>

namespace graphsafe::cuda {

namespace {

using R = ApiRole;

// Sorted by name (checked once at first use).
constexpr ApiInfo kApis[] = {
    {"cuCtxSynchronize", R::kHostSync},
    {"cuEventQuery", R::kHostSync},
    {"cuEventRecord", R::kEventRecord, 1},
    {"cuEventRecordWithFlags", R::kEventRecord, 1},
    {"cuEventSynchronize", R::kHostSync},
    {"cuGraphExecKernelNodeSetParams", R::kExecUpdate},
    {"cuGraphExecMemcpyNodeSetParams", R::kExecUpdate},
    {"cuGraphExecMemsetNodeSetParams", R::kExecUpdate},
    {"cuGraphExecNodeSetParams", R::kExecUpdate},
    {"cuGraphExecUpdate", R::kExecUpdate},
    {"cuGraphInstantiate", R::kInstantiate, -1, 0},
    {"cuGraphInstantiateWithFlags", R::kInstantiate, -1, 0},
    {"cuGraphLaunch", R::kGraphLaunch, 1},
    {"cuLaunchCooperativeKernel", R::kAsyncWork, 8},
    {"cuLaunchKernel", R::kAsyncWork, 8},
    {"cuMemAlloc", R::kAlloc, -1, 0},
    {"cuMemAllocAsync", R::kAsyncAlloc, 2, 0},
    {"cuMemAllocHost", R::kPinnedAlloc, -1, 0},
    {"cuMemAllocManaged", R::kAlloc, -1, 0},
    {"cuMemAllocPitch", R::kAlloc, -1, 0},
    {"cuMemFree", R::kFree},
    {"cuMemFreeAsync", R::kAsyncFree, 1},
    {"cuMemFreeHost", R::kFree},
    {"cuMemHostAlloc", R::kPinnedAlloc, -1, 0},
    {"cuMemcpy", R::kSyncCopy},
    {"cuMemcpyAsync", R::kAsyncWork, 3},
    {"cuMemcpyDtoD", R::kSyncCopy},
    {"cuMemcpyDtoDAsync", R::kAsyncWork, 3},
    {"cuMemcpyDtoH", R::kSyncCopy},
    {"cuMemcpyDtoHAsync", R::kAsyncWork, 3},
    {"cuMemcpyHtoD", R::kSyncCopy},
    {"cuMemcpyHtoDAsync", R::kAsyncWork, 3},
    {"cuMemsetD16", R::kSyncCopy},
    {"cuMemsetD16Async", R::kAsyncWork, 3},
    {"cuMemsetD32", R::kSyncCopy},
    {"cuMemsetD32Async", R::kAsyncWork, 3},
    {"cuMemsetD8", R::kSyncCopy},
    {"cuMemsetD8Async", R::kAsyncWork, 3},
    {"cuStreamBeginCapture", R::kCaptureBegin, -1, -1, 1},
    {"cuStreamBeginCaptureToGraph", R::kCaptureBegin, -1, -1, 5},
    {"cuStreamCreate", R::kStreamCreate, -1, 0},
    {"cuStreamCreateWithPriority", R::kStreamCreate, -1, 0},
    {"cuStreamEndCapture", R::kCaptureEnd},
    {"cuStreamGetCaptureInfo", R::kCaptureQuery, -1, 1},
    {"cuStreamIsCapturing", R::kCaptureQuery, -1, 1},
    {"cuStreamQuery", R::kHostSync},
    {"cuStreamSynchronize", R::kHostSync},
    {"cuStreamWaitEvent", R::kStreamWait},
    {"cublasCreate", R::kHandleCreate, -1, 0},
    {"cublasLtCreate", R::kHandleCreate, -1, 0},
    {"cublasSetStream", R::kHandleStream, 1},
    {"cudaDeviceReset", R::kHostSync},
    {"cudaDeviceSynchronize", R::kHostSync},
    {"cudaEventQuery", R::kHostSync},
    {"cudaEventRecord", R::kEventRecord, 1},
    {"cudaEventRecordWithFlags", R::kEventRecord, 1},
    {"cudaEventSynchronize", R::kHostSync},
    {"cudaFree", R::kFree},
    {"cudaFreeArray", R::kFree},
    {"cudaFreeAsync", R::kAsyncFree, 1},
    {"cudaFreeHost", R::kFree},
    {"cudaGraphExecKernelNodeSetParams", R::kExecUpdate},
    {"cudaGraphExecMemcpyNodeSetParams", R::kExecUpdate},
    {"cudaGraphExecMemcpyNodeSetParams1D", R::kExecUpdate},
    {"cudaGraphExecMemsetNodeSetParams", R::kExecUpdate},
    {"cudaGraphExecNodeSetParams", R::kExecUpdate},
    {"cudaGraphExecUpdate", R::kExecUpdate},
    {"cudaGraphInstantiate", R::kInstantiate, -1, 0},
    {"cudaGraphInstantiateWithFlags", R::kInstantiate, -1, 0},
    {"cudaGraphInstantiateWithParams", R::kInstantiate, -1, 0},
    {"cudaGraphLaunch", R::kGraphLaunch, 1},
    {"cudaHostAlloc", R::kPinnedAlloc, -1, 0},
    {"cudaLaunchCooperativeKernel", R::kAsyncWork, 5},
    {"cudaLaunchKernel", R::kAsyncWork, 5},
    {"cudaMalloc", R::kAlloc, -1, 0},
    {"cudaMalloc3D", R::kAlloc, -1, 0},
    {"cudaMalloc3DArray", R::kAlloc, -1, 0},
    {"cudaMallocArray", R::kAlloc, -1, 0},
    {"cudaMallocAsync", R::kAsyncAlloc, 2, 0},
    {"cudaMallocFromPoolAsync", R::kAsyncAlloc, 3, 0},
    {"cudaMallocHost", R::kPinnedAlloc, -1, 0},
    {"cudaMallocManaged", R::kAlloc, -1, 0},
    {"cudaMallocPitch", R::kAlloc, -1, 0},
    {"cudaMemcpy", R::kSyncCopy},
    {"cudaMemcpy2D", R::kSyncCopy},
    {"cudaMemcpy2DAsync", R::kAsyncWork, 7},
    {"cudaMemcpy3D", R::kSyncCopy},
    {"cudaMemcpy3DAsync", R::kAsyncWork, 1},
    {"cudaMemcpyAsync", R::kAsyncWork, 4},
    {"cudaMemcpyFromSymbol", R::kSyncCopy},
    {"cudaMemcpyFromSymbolAsync", R::kAsyncWork, 5},
    {"cudaMemcpyPeer", R::kSyncCopy},
    {"cudaMemcpyPeerAsync", R::kAsyncWork, 5},
    {"cudaMemcpyToSymbol", R::kSyncCopy},
    {"cudaMemcpyToSymbolAsync", R::kAsyncWork, 5},
    {"cudaMemset", R::kSyncCopy},
    {"cudaMemset2D", R::kSyncCopy},
    {"cudaMemset2DAsync", R::kAsyncWork, 5},
    {"cudaMemset3D", R::kSyncCopy},
    {"cudaMemset3DAsync", R::kAsyncWork, 3},
    {"cudaMemsetAsync", R::kAsyncWork, 3},
    {"cudaStreamBeginCapture", R::kCaptureBegin, -1, -1, 1},
    {"cudaStreamBeginCaptureToGraph", R::kCaptureBegin, -1, -1, 5},
    {"cudaStreamCreate", R::kStreamCreate, -1, 0},
    {"cudaStreamCreateWithFlags", R::kStreamCreate, -1, 0},
    {"cudaStreamCreateWithPriority", R::kStreamCreate, -1, 0},
    {"cudaStreamEndCapture", R::kCaptureEnd},
    {"cudaStreamGetCaptureInfo", R::kCaptureQuery, -1, 1},
    {"cudaStreamIsCapturing", R::kCaptureQuery, -1, 1},
    {"cudaStreamQuery", R::kHostSync},
    {"cudaStreamSynchronize", R::kHostSync},
    {"cudaStreamWaitEvent", R::kStreamWait},
    {"cudaThreadSynchronize", R::kHostSync},
    {"cudnnCreate", R::kHandleCreate, -1, 0},
    {"cudnnSetStream", R::kHandleStream, 1},
};

bool sortedOnce() {
  static const bool sorted =
      std::is_sorted(std::begin(kApis), std::end(kApis),
                     [](const ApiInfo& a, const ApiInfo& b) { return a.name < b.name; });
  return sorted;
}

std::string_view lastComponent(std::string_view name) {
  std::size_t cut = name.rfind("::");
  return cut == std::string_view::npos ? name : name.substr(cut + 2);
}

bool startsWithAny(std::string_view name, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](std::string_view prefix) { return name.starts_with(prefix); });
}

}  // namespace

std::string_view baseApiName(std::string_view name) {
  for (std::string_view suffix : {"_ptsz", "_ptds", "_v2", "_v3"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) {
      name.remove_suffix(suffix.size());
    }
  }
  // cudaMemcpyAsync_v2_ptsz style combinations: strip a version left behind.
  for (std::string_view suffix : {"_v2", "_v3"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) name.remove_suffix(suffix.size());
  }
  return name;
}

bool isPerThreadVariant(std::string_view name) {
  return name.ends_with("_ptsz") || name.ends_with("_ptds");
}

const ApiInfo* findCudaApi(std::string_view name) {
  if (!sortedOnce()) return nullptr;
  std::string_view base = baseApiName(lastComponent(name));
  const ApiInfo* it =
      std::lower_bound(std::begin(kApis), std::end(kApis), base,
                       [](const ApiInfo& api, std::string_view key) { return api.name < key; });
  return it != std::end(kApis) && it->name == base ? it : nullptr;
}

bool isLibraryWork(std::string_view name) {
  std::string_view base = baseApiName(lastComponent(name));
  std::string_view rest;
  // cuBLASLt works through cublasLtMatmul, which takes its stream explicitly.
  if (base.starts_with("cublasLt")) return false;
  if (base.starts_with("cublas")) {
    rest = base.substr(6);
  } else if (base.starts_with("cudnn")) {
    rest = base.substr(5);
  } else {
    return false;
  }
  if (rest.empty()) return false;
  return !startsWithAny(
      rest, {"Create", "Destroy", "Set", "Get", "Init", "Xt", "Logger", "Backend", "Query", "Find",
             "DeriveBNTensorDescriptor", "RestoreDropoutDescriptor", "DropoutGetStatesSize",
             "DropoutGetReserveSpaceSize"});
}

bool isTorchCurrentStream(std::string_view name) {
  return lastComponent(name) == "getCurrentCUDAStream";
}

bool isTorchDefaultStream(std::string_view name) {
  return lastComponent(name) == "getDefaultCUDAStream";
}

bool isTorchNewStream(std::string_view name) {
  return lastComponent(name) == "getStreamFromPool";
}

bool isTorchCaptureQuery(std::string_view name) {
  std::string_view last = lastComponent(name);
  return last == "currentStreamCaptureStatus" || last == "currentStreamCaptureStatusMayInitCtx" ||
         last == "is_capturing" || last == "isCurrentStreamCapturing";
}

bool isTorchBlasHandle(std::string_view name) {
  std::string_view last = lastComponent(name);
  return last == "getCurrentCUDABlasHandle" || last == "getCurrentCUDABlasLtHandle" ||
         last == "getCudnnHandle";
}

bool isReportingCall(std::string_view name) {
  std::string_view last = lastComponent(name);
  return startsWithAny(last, {"cudaGetErrorString", "cudaGetErrorName", "cudaGetLastError",
                              "cudaPeekAtLastError", "cuGetError", "cublasGetStatus",
                              "cudnnGetErrorString"}) ||
         last == "printf" || last == "fprintf" || last == "puts" || last == "perror" ||
         last == "abort" || last == "exit" || last == "operator<<" || last == "what";
}

}  // namespace graphsafe::cuda
