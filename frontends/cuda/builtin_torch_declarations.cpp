#include "frontends/cuda/builtin_torch_declarations.h"

namespace graphsafe::cuda {

namespace {

// Only what extension code commonly touches on the host side. Names and signatures follow the
// PyTorch C++ API documentation; bodies are never needed.
constexpr std::string_view kDeclarations = R"gs(#pragma once
#ifndef GRAPHSAFE_BUILTIN_TORCH_DECLARATIONS
#define GRAPHSAFE_BUILTIN_TORCH_DECLARATIONS
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>
#include <cuda_runtime.h>
#include <cublas_v2.h>

namespace c10 {
enum class ScalarType : std::int8_t {
  Byte, Char, Short, Int, Long, Half, Float, Double, ComplexHalf, ComplexFloat, ComplexDouble,
  Bool, QInt8, QUInt8, QInt32, BFloat16
};
enum class DeviceType : std::int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
using DeviceIndex = std::int8_t;
struct Device {
  Device(DeviceType type, DeviceIndex index = -1);
  Device(const std::string& spec);
  DeviceIndex index() const;
  bool is_cuda() const;
};
struct Half {
  unsigned short x;
  Half() = default;
  Half(float value);
  operator float() const;
};
struct BFloat16 {
  unsigned short x;
  BFloat16() = default;
  BFloat16(float value);
  operator float() const;
};
class IntArrayRef {
 public:
  IntArrayRef();
  IntArrayRef(std::int64_t single);
  IntArrayRef(std::initializer_list<std::int64_t> list);
  IntArrayRef(const std::vector<std::int64_t>& vector);
  const std::int64_t* begin() const;
  const std::int64_t* end() const;
  std::size_t size() const;
  std::int64_t operator[](std::size_t index) const;
  std::vector<std::int64_t> vec() const;
};
class Scalar {
 public:
  Scalar(double value);
  Scalar(float value);
  Scalar(int value);
  Scalar(std::int64_t value);
  Scalar(bool value);
  template <class T> T to() const;
};
class TensorOptions {
 public:
  TensorOptions();
  TensorOptions(ScalarType dtype);
  TensorOptions(DeviceType device);
  TensorOptions(Device device);
  TensorOptions dtype(ScalarType dtype) const;
  TensorOptions device(Device device) const;
  TensorOptions device(DeviceType type, DeviceIndex index = -1) const;
  TensorOptions requires_grad(bool value) const;
  ScalarType dtype() const;
};
template <class T>
class optional {
 public:
  optional();
  optional(const T& value);
  bool has_value() const;
  const T& value() const;
  const T& operator*() const;
  explicit operator bool() const;
};
template <class T> using ArrayRef = const std::vector<T>&;

namespace cuda {
class CUDAStream {
 public:
  cudaStream_t stream() const;
  operator cudaStream_t() const;
  DeviceIndex device_index() const;
  Device device() const;
  std::int64_t id() const;
  void synchronize() const;
  bool query() const;
};
CUDAStream getCurrentCUDAStream(DeviceIndex device_index = -1);
CUDAStream getDefaultCUDAStream(DeviceIndex device_index = -1);
CUDAStream getStreamFromPool(bool isHighPriority = false, DeviceIndex device = -1);
CUDAStream getStreamFromPool(int priority, DeviceIndex device = -1);
CUDAStream getStreamFromExternal(cudaStream_t ext_stream, DeviceIndex device_index);
void setCurrentCUDAStream(CUDAStream stream);
void device_synchronize();
DeviceIndex current_device();
void set_device(DeviceIndex device);
enum class CaptureStatus : int { None = 0, Active = 1, Invalidated = 2 };
CaptureStatus currentStreamCaptureStatusMayInitCtx();
struct CUDAStreamGuard {
  explicit CUDAStreamGuard(CUDAStream stream);
  void reset_stream(CUDAStream stream);
  CUDAStream current_stream() const;
  CUDAStream original_stream() const;
};
struct OptionalCUDAStreamGuard {
  OptionalCUDAStreamGuard();
  explicit OptionalCUDAStreamGuard(CUDAStream stream);
};
struct CUDAGuard {
  explicit CUDAGuard(DeviceIndex device);
  explicit CUDAGuard(Device device);
};
struct OptionalCUDAGuard {
  OptionalCUDAGuard();
  template <class T> explicit OptionalCUDAGuard(const T& device);
};
}  // namespace cuda
}  // namespace c10

namespace at {
using c10::BFloat16;
using c10::Device;
using c10::DeviceType;
using c10::Half;
using c10::IntArrayRef;
using c10::Scalar;
using c10::ScalarType;
using c10::TensorOptions;
using c10::kCPU;
using c10::kCUDA;
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;

template <class T> struct DefaultPtrTraits { typedef T* PtrType; };
template <class T> struct RestrictPtrTraits { typedef T* __restrict__ PtrType; };
template <class T, std::size_t N, template <class U> class PtrTraits = DefaultPtrTraits,
          class index_t = std::int64_t>
class GenericPackedTensorAccessor {
 public:
  __host__ __device__ GenericPackedTensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) const;
  __host__ __device__ index_t size(index_t i) const;
  __host__ __device__ T* data() const;
};
template <class T, template <class U> class PtrTraits, class index_t>
class GenericPackedTensorAccessor<T, 1, PtrTraits, index_t> {
 public:
  __host__ __device__ T& operator[](index_t i) const;
  __host__ __device__ index_t size(index_t i) const;
  __host__ __device__ T* data() const;
};
template <class T, std::size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, std::int32_t>;
template <class T, std::size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, std::int64_t>;
template <class T, std::size_t N>
class TensorAccessor {
 public:
  auto operator[](std::int64_t i) const;
  std::int64_t size(std::int64_t i) const;
};

class Tensor {
 public:
  Tensor();
  template <class T> T* data_ptr() const;
  void* data_ptr() const;
  template <class T> const T* const_data_ptr() const;
  template <class T> T* mutable_data_ptr() const;
  template <class T, std::size_t N> TensorAccessor<T, N> accessor() const;
  template <class T, std::size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() const;
  template <class T, std::size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() const;
  std::int64_t size(std::int64_t dim) const;
  IntArrayRef sizes() const;
  std::int64_t stride(std::int64_t dim) const;
  IntArrayRef strides() const;
  std::int64_t numel() const;
  std::int64_t dim() const;
  std::int64_t element_size() const;
  std::size_t nbytes() const;
  ScalarType scalar_type() const;
  TensorOptions options() const;
  Device device() const;
  bool is_cuda() const;
  bool is_contiguous() const;
  bool defined() const;
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor view(IntArrayRef size) const;
  Tensor reshape(IntArrayRef size) const;
  Tensor transpose(std::int64_t a, std::int64_t b) const;
  Tensor t() const;
  Tensor narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const;
  Tensor slice(std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step = 1) const;
  Tensor select(std::int64_t dim, std::int64_t index) const;
  Tensor to(ScalarType dtype) const;
  Tensor to(Device device) const;
  Tensor to(TensorOptions options) const;
  Tensor cpu() const;
  Tensor cuda() const;
  Tensor& copy_(const Tensor& src, bool non_blocking = false);
  Tensor& zero_();
  Tensor& fill_(Scalar value);
  Tensor& add_(const Tensor& other, Scalar alpha = 1);
  Tensor& mul_(const Tensor& other);
  Tensor add(const Tensor& other, Scalar alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor sum() const;
  Scalar item() const;
  template <class T> T item() const;
  Tensor operator[](std::int64_t index) const;
};
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor empty(IntArrayRef size, TensorOptions options = {});
Tensor zeros(IntArrayRef size, TensorOptions options = {});
Tensor ones(IntArrayRef size, TensorOptions options = {});
Tensor full(IntArrayRef size, Scalar value, TensorOptions options = {});
Tensor empty_like(const Tensor& other, TensorOptions options = {});
Tensor zeros_like(const Tensor& other, TensorOptions options = {});
Tensor ones_like(const Tensor& other, TensorOptions options = {});
Tensor matmul(const Tensor& a, const Tensor& b);
template <class T> c10::optional<Device> device_of(const T& tensor);

namespace cuda {
using namespace c10::cuda;
using MempoolId_t = std::pair<unsigned long long, unsigned long long>;
cublasHandle_t getCurrentCUDABlasHandle();
cudaDeviceProp* getCurrentDeviceProperties();
cudaDeviceProp* getDeviceProperties(c10::DeviceIndex device);
CaptureStatus currentStreamCaptureStatus();
MempoolId_t graph_pool_handle();
class CUDAGraph {
 public:
  CUDAGraph();
  void capture_begin(MempoolId_t pool = {0, 0},
                     cudaStreamCaptureMode capture_mode = cudaStreamCaptureModeGlobal);
  void capture_end();
  void instantiate();
  void replay();
  void reset();
  MempoolId_t pool();
  void enable_debug_mode();
};
class CUDAEvent {
 public:
  CUDAEvent();
  explicit CUDAEvent(unsigned int flags);
  void record();
  void record(const CUDAStream& stream);
  void recordOnce(const CUDAStream& stream);
  void block(const CUDAStream& stream);
  void synchronize() const;
  bool query() const;
  float elapsed_time(const CUDAEvent& other) const;
};
}  // namespace cuda
}  // namespace at

namespace torch {
using namespace at;
using at::Tensor;
using at::DefaultPtrTraits;
using at::RestrictPtrTraits;
class Library {
 public:
  template <class... A> Library& def(A&&... args);
  template <class... A> Library& impl(A&&... args);
};
struct Dtype;
}  // namespace torch

namespace pybind11 {
class module_ {
 public:
  template <class... A> module_& def(const char* name, A&&... args);
  module_ def_submodule(const char* name, const char* doc = nullptr);
};
using module = module_;
struct arg {
  explicit arg(const char* name);
  template <class T> arg& operator=(T&& value);
};
}  // namespace pybind11

#define TORCH_EXTENSION_NAME graphsafe_torch_extension
#define PYBIND11_MODULE(name, variable) \
  void graphsafe_pybind11_module_##name(pybind11::module_& variable)
#define TORCH_LIBRARY(ns, m) void graphsafe_torch_library_##ns(torch::Library& m)
#define TORCH_LIBRARY_FRAGMENT(ns, m) void graphsafe_torch_library_fragment_##ns(torch::Library& m)
#define TORCH_LIBRARY_IMPL(ns, k, m) \
  void graphsafe_torch_library_impl_##ns##_##k(torch::Library& m)
#define TORCH_FN(f) (&(f))
#define TORCH_CHECK(cond, ...) ((void)(cond))
#define TORCH_CHECK_EQ(a, b, ...) ((void)((a) == (b)))
#define TORCH_INTERNAL_ASSERT(cond, ...) ((void)(cond))
#define TORCH_WARN(...) ((void)0)
#define AT_ASSERTM(cond, ...) ((void)(cond))
#define AT_ERROR(...) ((void)0)
#define C10_CUDA_CHECK(expr) ((void)(expr))
#define C10_CUDA_KERNEL_LAUNCH_CHECK() ((void)cudaGetLastError())
#define AT_CUDA_CHECK(expr) ((void)(expr))
#define TORCH_CUDABLAS_CHECK(expr) ((void)(expr))
#define AT_CUDNN_CHECK(expr) ((void)(expr))
#define C10_WARP_SIZE 32
#define GRAPHSAFE_TORCH_DISPATCH(...) [&] { using scalar_t = float; return __VA_ARGS__(); }()
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) GRAPHSAFE_TORCH_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) GRAPHSAFE_TORCH_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND(A, TYPE, NAME, ...) GRAPHSAFE_TORCH_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND2(A, B, TYPE, NAME, ...) GRAPHSAFE_TORCH_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_REDUCED_FLOATING_TYPES(TYPE, NAME, ...) GRAPHSAFE_TORCH_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) GRAPHSAFE_TORCH_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND_HALF(TYPE, NAME, ...) GRAPHSAFE_TORCH_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) GRAPHSAFE_TORCH_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES(TYPE, NAME, ...) GRAPHSAFE_TORCH_DISPATCH(__VA_ARGS__)
#endif  // GRAPHSAFE_BUILTIN_TORCH_DECLARATIONS
)gs";

constexpr std::string_view kForward = "#pragma once\n#include <graphsafe_torch_declarations.h>\n";

}  // namespace

const std::vector<VirtualHeader>& builtinTorchHeaders() {
  static const std::vector<VirtualHeader> headers = {
      {"graphsafe_torch_declarations.h", kDeclarations},
      {"torch/extension.h", kForward},
      {"torch/torch.h", kForward},
      {"torch/all.h", kForward},
      {"torch/library.h", kForward},
      {"torch/python.h", kForward},
      {"torch/script.h", kForward},
      {"torch/types.h", kForward},
      {"ATen/ATen.h", kForward},
      {"ATen/Tensor.h", kForward},
      {"ATen/Dispatch.h", kForward},
      {"ATen/Functions.h", kForward},
      {"ATen/TensorAccessor.h", kForward},
      {"ATen/core/Tensor.h", kForward},
      {"ATen/cuda/CUDAContext.h", kForward},
      {"ATen/cuda/CUDAGraph.h", kForward},
      {"ATen/cuda/CUDAGraphsUtils.cuh", kForward},
      {"ATen/cuda/CUDAEvent.h", kForward},
      {"ATen/cuda/CUDAUtils.h", kForward},
      {"ATen/cuda/Exceptions.h", kForward},
      {"ATen/cuda/CUDABlas.h", kForward},
      {"c10/cuda/CUDAStream.h", kForward},
      {"c10/cuda/CUDAGuard.h", kForward},
      {"c10/cuda/CUDAException.h", kForward},
      {"c10/cuda/CUDAFunctions.h", kForward},
      {"c10/cuda/CUDAGraphsC10Utils.h", kForward},
      {"c10/core/ScalarType.h", kForward},
      {"c10/core/DeviceGuard.h", kForward},
      {"c10/util/Half.h", kForward},
      {"c10/util/BFloat16.h", kForward},
      {"c10/util/Optional.h", kForward},
      {"c10/macros/Macros.h", kForward},
      {"pybind11/pybind11.h", kForward},
      {"pybind11/stl.h", kForward},
      {"pybind11/numpy.h", kForward},
  };
  return headers;
}

}  // namespace graphsafe::cuda
