#include "frontends/python/python_apis.h"

#include <algorithm>
#include <initializer_list>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace graphsafe::python {

namespace {

using NameSet = std::unordered_set<std::string_view>;

template <typename Kind>
using NameMap = std::unordered_map<std::string_view, Kind>;

template <typename Kind>
void addAll(NameMap<Kind>& map, Kind kind, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) map.emplace(name, kind);
}

const NameMap<std::string_view>& aliases() {
  static const NameMap<std::string_view> map = {
      {"torch.cuda.graphs.graph", "torch.cuda.graph"},
      {"torch.cuda.graphs.CUDAGraph", "torch.cuda.CUDAGraph"},
      {"torch.cuda.graphs.make_graphed_callables", "torch.cuda.make_graphed_callables"},
      {"torch.cuda.graphs.graph_pool_handle", "torch.cuda.graph_pool_handle"},
      {"torch.cuda.amp.GradScaler", "torch.amp.GradScaler"},
      {"torch.cuda.amp.grad_scaler.GradScaler", "torch.amp.GradScaler"},
      {"torch.amp.grad_scaler.GradScaler", "torch.amp.GradScaler"},
      {"torch.GradScaler", "torch.amp.GradScaler"},
      {"torch.cuda.streams.Stream", "torch.cuda.Stream"},
      {"torch.cuda.streams.Event", "torch.cuda.Event"},
      {"torch.cuda.streams.ExternalStream", "torch.cuda.ExternalStream"},
      {"torch.nn.parameter.Parameter", "torch.nn.Parameter"},
      {"torch.nn.parameter.Buffer", "torch.nn.Buffer"},
      {"torch.nn.modules.module.Module", "torch.nn.Module"},
      {"torch.functional.einsum", "torch.einsum"},
      {"torch.functional.unique", "torch.unique"},
      {"torch.functional.norm", "torch.norm"},
      {"torch.functional.split", "torch.split"},
  };
  return map;
}

// torch.<name> functions by what they return.
const NameMap<ApiKind>& torchFunctions() {
  static const NameMap<ApiKind> map = [] {
    NameMap<ApiKind> m;
    addAll(m, ApiKind::kFactory,
           {"zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange",
            "range", "linspace", "logspace", "eye", "tensor", "as_tensor", "asarray", "zeros_like",
            "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "randint_like",
            "empty_strided", "scalar_tensor", "normal", "bernoulli", "multinomial", "poisson",
            "tril_indices", "triu_indices", "complex", "polar", "sparse_coo_tensor"});
    addAll(m, ApiKind::kTensorFunction,
           {"matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "addmm",
            "addbmm", "baddbmm", "addmv", "addr", "einsum", "tensordot", "kron", "cdist",
            "chain_matmul", "cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack",
            "column_stack", "row_stack", "softmax", "log_softmax", "relu", "relu_", "sigmoid",
            "tanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
            "square", "abs", "absolute", "neg", "negative", "reciprocal", "sin", "cos", "tan",
            "asin", "acos", "atan", "atan2", "arctan2", "sinh", "cosh", "asinh", "acosh",
            "atanh", "erf", "erfc", "erfinv", "lgamma", "digamma", "pow", "float_power",
            "clamp", "clip", "clamp_min", "clamp_max", "maximum", "minimum", "fmax", "fmin",
            "sum", "nansum", "mean", "nanmean", "prod", "std", "var", "norm", "amax", "amin",
            "aminmax", "argmax", "argmin", "argsort", "all", "any", "cumsum", "cumprod",
            "logcumsumexp", "logsumexp", "cross", "flatten", "unflatten", "reshape", "view_as_real",
            "view_as_complex", "squeeze", "unsqueeze", "transpose", "swapaxes", "swapdims",
            "permute", "movedim", "moveaxis", "t", "gather", "scatter", "scatter_add",
            "scatter_reduce", "index_select", "index_add", "index_copy", "index_fill",
            "index_put", "masked_fill", "masked_scatter", "take", "take_along_dim", "narrow",
            "select", "clone", "detach", "lerp", "addcmul", "addcdiv", "mul", "multiply", "add",
            "sub", "subtract", "div", "divide", "true_divide", "floor_divide", "remainder",
            "fmod", "sign", "sgn", "signbit", "floor", "ceil", "round", "trunc", "frac", "flip",
            "fliplr", "flipud", "roll", "rot90", "tril", "triu", "diag", "diagonal", "diag_embed",
            "diagflat", "trace", "broadcast_to", "tile", "searchsorted", "bucketize", "histc",
            "cov", "corrcoef", "dist", "hypot", "nan_to_num", "conj", "real", "imag", "angle",
            "heaviside", "logit", "xlogy", "sinc", "deg2rad", "rad2deg", "bitwise_and",
            "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift",
            "bitwise_right_shift", "cummax", "cummin", "dropout", "layer_norm", "group_norm",
            "batch_norm", "instance_norm", "embedding", "conv1d", "conv2d", "conv3d",
            "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "gelu", "silu",
            "hardtanh", "threshold", "prelu", "rrelu", "selu", "celu", "softplus", "pdist",
            "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "cosine_similarity",
            "pairwise_distance", "block_diag", "cartesian_prod", "combinations", "trapezoid",
            "trapz", "diff", "gcd", "lcm", "count_nonzero", "vander", "rsub", "renorm",
            "index_reduce", "as_strided", "expand_copy", "view_copy", "narrow_copy", "resolve_conj",
            "resolve_neg", "clamp_", "sigmoid_", "tanh_", "exp_", "zero_", "fill_"});
    addAll(m, ApiKind::kBoolTensorFunction,
           {"isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal", "isclose", "isin",
            "logical_and", "logical_or", "logical_not", "logical_xor", "eq", "ne", "not_equal",
            "gt", "greater", "lt", "less", "ge", "greater_equal", "le", "less_equal"});
    addAll(m, ApiKind::kTupleFunction,
           {"sort", "topk", "kthvalue", "median", "nanmedian", "mode", "max", "min", "split",
            "tensor_split", "chunk", "unbind", "meshgrid", "broadcast_tensors", "std_mean",
            "var_mean", "hsplit", "vsplit", "dsplit", "atleast_1d", "atleast_2d", "atleast_3d",
            "frexp", "histogram", "lu", "svd", "qr", "eig", "symeig", "lstsq", "slogdet",
            "triangular_solve", "geqrf", "pca_lowrank", "svd_lowrank"});
    addAll(m, ApiKind::kDataDependent,
           {"nonzero", "unique", "unique_consecutive", "masked_select", "argwhere"});
    m.emplace("where", ApiKind::kWhere);
    m.emplace("repeat_interleave", ApiKind::kRepeatInterleave);
    addAll(m, ApiKind::kHostConstantCall,
           {"device", "finfo", "iinfo", "Size", "get_default_dtype", "is_tensor",
            "is_floating_point", "is_complex", "numel", "result_type", "promote_types",
            "can_cast", "is_grad_enabled", "is_inference_mode_enabled"});
    m.emplace("compile", ApiKind::kCompile);
    return m;
  }();
  return map;
}

// Fully qualified names outside the torch.<name> namespace.
const NameMap<ApiKind>& qualifiedFunctions() {
  static const NameMap<ApiKind> map = {
      {"torch.cuda.synchronize", ApiKind::kDeviceSync},
      {"torch.cuda.is_current_stream_capturing", ApiKind::kCaptureQuery},
      {"torch.cuda.graph", ApiKind::kGraphContext},
      {"torch.cuda.CUDAGraph", ApiKind::kCudaGraph},
      {"torch.cuda.make_graphed_callables", ApiKind::kMakeGraphedCallables},
      {"torch.cuda.Stream", ApiKind::kStream},
      {"torch.cuda.ExternalStream", ApiKind::kStream},
      {"torch.Stream", ApiKind::kStream},
      {"torch.cuda.Event", ApiKind::kEvent},
      {"torch.Event", ApiKind::kEvent},
      {"torch.cuda.current_stream", ApiKind::kCurrentStream},
      {"torch.cuda.default_stream", ApiKind::kCurrentStream},
      {"torch.cuda.stream", ApiKind::kStreamContext},
      {"torch.amp.GradScaler", ApiKind::kGradScaler},
      {"torch.nn.Parameter", ApiKind::kParameter},
      {"torch.nn.Buffer", ApiKind::kParameter},
      {"torch.nn.Module", ApiKind::kNone},
      {"torch.nn.parameter.UninitializedParameter", ApiKind::kParameter},
      {"torch.from_numpy", ApiKind::kNone},  // a host tensor
      // Legacy constructors: from a list they copy host data, into device memory for torch.cuda.*.
      {"torch.Tensor", ApiKind::kLegacyTensor},
      {"torch.FloatTensor", ApiKind::kLegacyTensor},
      {"torch.DoubleTensor", ApiKind::kLegacyTensor},
      {"torch.HalfTensor", ApiKind::kLegacyTensor},
      {"torch.BFloat16Tensor", ApiKind::kLegacyTensor},
      {"torch.LongTensor", ApiKind::kLegacyTensor},
      {"torch.IntTensor", ApiKind::kLegacyTensor},
      {"torch.ShortTensor", ApiKind::kLegacyTensor},
      {"torch.ByteTensor", ApiKind::kLegacyTensor},
      {"torch.CharTensor", ApiKind::kLegacyTensor},
      {"torch.BoolTensor", ApiKind::kLegacyTensor},
      {"torch.cuda.FloatTensor", ApiKind::kLegacyTensor},
      {"torch.cuda.DoubleTensor", ApiKind::kLegacyTensor},
      {"torch.cuda.HalfTensor", ApiKind::kLegacyTensor},
      {"torch.cuda.BFloat16Tensor", ApiKind::kLegacyTensor},
      {"torch.cuda.LongTensor", ApiKind::kLegacyTensor},
      {"torch.cuda.IntTensor", ApiKind::kLegacyTensor},
      {"torch.cuda.ShortTensor", ApiKind::kLegacyTensor},
      {"torch.cuda.ByteTensor", ApiKind::kLegacyTensor},
      {"torch.cuda.CharTensor", ApiKind::kLegacyTensor},
      {"torch.cuda.BoolTensor", ApiKind::kLegacyTensor},
      // Device work on the gradients of the parameters handed in.
      {"torch.nn.utils.clip_grad_norm_", ApiKind::kTensorFunction},
      {"torch.nn.utils.clip_grad_value_", ApiKind::kTensorFunction},
      {"torch.nn.utils.clip_grad.clip_grad_norm_", ApiKind::kTensorFunction},
      // Random number generators seeded or restored: set once when captured (GS107).
      {"torch.manual_seed", ApiKind::kStateChange},
      {"torch.seed", ApiKind::kStateChange},
      {"torch.set_rng_state", ApiKind::kStateChange},
      {"torch.random.manual_seed", ApiKind::kStateChange},
      {"torch.random.seed", ApiKind::kStateChange},
      {"torch.random.set_rng_state", ApiKind::kStateChange},
      {"torch.cuda.manual_seed", ApiKind::kStateChange},
      {"torch.cuda.manual_seed_all", ApiKind::kStateChange},
      {"torch.cuda.seed", ApiKind::kStateChange},
      {"torch.cuda.seed_all", ApiKind::kStateChange},
      {"torch.cuda.set_rng_state", ApiKind::kStateChange},
      {"torch.cuda.set_rng_state_all", ApiKind::kStateChange},
      {"random.seed", ApiKind::kStateChange},
      {"random.setstate", ApiKind::kStateChange},
      {"numpy.random.seed", ApiKind::kStateChange},
      {"numpy.random.set_state", ApiKind::kStateChange},
  };
  return map;
}

// torch.linalg / torch.fft / torch.special functions that return several tensors.
const NameSet& tupleSubmoduleFunctions() {
  static const NameSet set = {"svd", "qr", "eig", "eigh", "slogdet", "lstsq", "lu", "lu_factor",
                              "lu_factor_ex", "ldl_factor", "ldl_factor_ex", "inv_ex",
                              "cholesky_ex", "solve_ex", "eigvals"};
  return set;
}

const NameMap<MethodKind>& tensorMethods() {
  static const NameMap<MethodKind> map = [] {
    NameMap<MethodKind> m;
    addAll(m, MethodKind::kTensor,
           {"abs", "abs_", "add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_",
            "true_divide", "floor_divide", "remainder", "fmod", "pow", "pow_", "neg", "neg_",
            "reciprocal", "square", "sqrt", "sqrt_", "rsqrt", "exp", "exp_", "expm1", "log",
            "log_", "log2", "log10", "log1p", "sin", "cos", "tan", "tanh", "tanh_", "sigmoid",
            "sigmoid_", "relu", "relu_", "softmax", "log_softmax", "clamp", "clamp_", "clip",
            "clip_", "clamp_min", "clamp_max", "sum", "nansum", "mean", "nanmean", "prod", "std",
            "var", "norm", "amax", "amin", "argmax", "argmin", "argsort", "all", "any", "cumsum",
            "cumprod", "logsumexp", "matmul", "mm", "bmm", "mv", "dot", "outer", "addmm",
            "addmm_", "baddbmm", "addcmul", "addcmul_", "addcdiv", "addcdiv_", "lerp", "lerp_",
            "view", "view_as", "reshape", "reshape_as", "flatten", "unflatten", "squeeze",
            "squeeze_", "unsqueeze", "unsqueeze_", "transpose", "transpose_", "permute", "t",
            "t_", "mT", "expand", "expand_as", "repeat", "tile", "narrow", "select", "index_select",
            "gather", "scatter", "scatter_", "scatter_add", "scatter_add_", "scatter_reduce",
            "index_add", "index_add_", "index_copy", "index_copy_", "index_fill", "index_fill_",
            "index_put", "index_put_", "masked_fill", "masked_fill_", "masked_scatter",
            "masked_scatter_", "take", "contiguous", "clone", "detach", "detach_", "float",
            "half", "double", "int", "long", "short", "char", "byte", "bfloat16", "cuda",
            "type_as", "fill_", "zero_", "copy_", "normal_", "uniform_", "random_",
            "bernoulli_", "exponential_", "floor", "floor_", "ceil", "ceil_", "round", "round_",
            "trunc", "trunc_", "frac", "sign", "sign_", "flip", "roll", "tril", "tril_", "triu",
            "triu_", "diag", "diagonal", "trace", "new_zeros", "new_ones", "new_empty",
            "new_full", "new_tensor", "requires_grad_", "softplus", "gelu", "silu", "exp2",
            "erf", "erfinv", "maximum", "minimum", "fmax", "fmin", "hypot", "atan2", "nan_to_num",
            "nan_to_num_", "unfold", "as_strided", "view_as_real", "conj", "real", "imag",
            "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "movedim", "swapaxes",
            "cross", "logit", "cummax", "cummin", "renorm", "addmv", "addbmm", "addr", "cumsum_",
            "sub_", "rsub", "pin_memory", "to_dense", "coalesce",
            "broadcast_to", "align_as", "float_power", "count_nonzero",
            "histc", "index_reduce", "index_reduce_", "put_", "map_",
            "apply_", "resize_", "resize_as_", "set_", "share_memory_"});
    addAll(m, MethodKind::kBoolTensor,
           {"bool", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "isclose", "isin",
            "logical_and", "logical_or", "logical_not", "logical_xor", "eq", "ne", "gt", "lt",
            "ge", "le", "greater", "less", "greater_equal", "less_equal", "not_equal",
            "signbit"});
    addAll(m, MethodKind::kTuple,
           {"sort", "topk", "kthvalue", "median", "nanmedian", "mode", "max", "min", "split",
            "tensor_split", "chunk", "unbind", "aminmax", "std_mean", "var_mean", "frexp",
            "hsplit", "vsplit", "dsplit", "svd", "qr", "slogdet", "lu", "eig"});
    addAll(m, MethodKind::kHost,
           {"size", "dim", "ndimension", "numel", "nelement", "element_size", "stride",
            "storage_offset", "is_contiguous", "is_floating_point", "is_complex", "data_ptr",
            "get_device", "is_pinned", "is_shared", "is_set_to", "has_names", "untyped_storage",
            "is_signed", "is_inference"});
    addAll(m, MethodKind::kSyncToHost, {"item", "tolist"});
    addAll(m, MethodKind::kSyncToCpu, {"cpu", "numpy"});
    addAll(m, MethodKind::kDataDependent,
           {"nonzero", "unique", "unique_consecutive", "masked_select", "argwhere"});
    m.emplace("repeat_interleave", MethodKind::kRepeatInterleave);
    m.emplace("to", MethodKind::kTo);
    addAll(m, MethodKind::kHostVarying, {"get_last_lr", "get_lr", "get_scale"});
    return m;
  }();
  return map;
}

const NameMap<BuiltinKind>& builtins() {
  static const NameMap<BuiltinKind> map = [] {
    NameMap<BuiltinKind> m;
    addAll(m, BuiltinKind::kScalarConversion, {"int", "float", "bool", "complex"});
    m.emplace("print", BuiltinKind::kPrint);
    addAll(m, BuiltinKind::kStringConversion, {"str", "repr", "format", "ascii"});
    m.emplace("len", BuiltinKind::kLen);
    addAll(m, BuiltinKind::kStructural,
           {"isinstance", "issubclass", "hasattr", "callable", "type", "id"});
    m.emplace("range", BuiltinKind::kRange);
    m.emplace("enumerate", BuiltinKind::kEnumerate);
    m.emplace("super", BuiltinKind::kSuper);
    return m;
  }();
  return map;
}

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && text.substr(0, prefix.size()) == prefix;
}

bool isUpper(char c) { return c >= 'A' && c <= 'Z'; }

}  // namespace

std::string_view canonicalApiName(std::string_view qualified) {
  const auto& map = aliases();
  auto it = map.find(qualified);
  return it == map.end() ? qualified : it->second;
}

ApiKind classifyFunction(std::string_view canonical) {
  {
    const auto& map = qualifiedFunctions();
    auto it = map.find(canonical);
    if (it != map.end()) return it->second;
  }
  if (startsWith(canonical, "torch.nn.functional.")) {
    std::string_view name = canonical.substr(20);
    return name.find('.') == std::string_view::npos ? ApiKind::kTensorFunction : ApiKind::kNone;
  }
  for (std::string_view prefix : {"torch.linalg.", "torch.fft.", "torch.special."}) {
    if (!startsWith(canonical, prefix)) continue;
    std::string_view name = canonical.substr(prefix.size());
    if (name.find('.') != std::string_view::npos) return ApiKind::kNone;
    return tupleSubmoduleFunctions().contains(name) ? ApiKind::kTupleFunction
                                                    : ApiKind::kTensorFunction;
  }
  if (startsWith(canonical, "torch.nn.")) {
    std::string_view name = canonical.substr(9);
    std::size_t dot = name.rfind('.');
    std::string_view last = dot == std::string_view::npos ? name : name.substr(dot + 1);
    // torch.nn.Linear, torch.nn.modules.linear.Linear: classes; torch.nn.utils.*: functions.
    if (!last.empty() && isUpper(last.front()) && !startsWith(name, "utils.") &&
        !startsWith(name, "init.")) {
      return ApiKind::kNnModule;
    }
    return ApiKind::kNone;
  }
  if (startsWith(canonical, "torch.ops.") &&
      std::count(canonical.begin(), canonical.end(), '.') >= 3) {
    return ApiKind::kTensorFunction;  // torch.ops.<namespace>.<op>: a custom operator
  }
  if (startsWith(canonical, "torch.")) {
    std::string_view name = canonical.substr(6);
    if (name.find('.') != std::string_view::npos) return ApiKind::kNone;
    const auto& map = torchFunctions();
    auto it = map.find(name);
    return it == map.end() ? ApiKind::kNone : it->second;
  }
  if (startsWith(canonical, "time.") || startsWith(canonical, "random.") ||
      startsWith(canonical, "numpy.random.")) {
    return ApiKind::kHostVaryingCall;
  }
  return ApiKind::kNone;
}

MethodKind classifyTensorMethod(std::string_view name) {
  const auto& map = tensorMethods();
  auto it = map.find(name);
  return it == map.end() ? MethodKind::kNone : it->second;
}

bool isTensorAttribute(std::string_view name) {
  static const NameSet set = {"T", "mT", "H", "mH", "data", "grad", "real", "imag"};
  return set.contains(name);
}

bool isHostAttribute(std::string_view name) {
  static const NameSet set = {"shape", "dtype", "device", "ndim", "is_cuda", "requires_grad",
                              "layout", "is_sparse", "is_leaf", "is_quantized", "is_meta",
                              "itemsize", "nbytes"};
  return set.contains(name);
}

bool isModuleChainingMethod(std::string_view name) {
  static const NameSet set = {"cuda",  "to",     "eval",     "train",          "half",
                              "float", "double", "bfloat16", "requires_grad_", "cpu",
                              "share_memory", "to_empty", "type", "apply"};
  return set.contains(name);
}

BuiltinKind classifyBuiltin(std::string_view name) {
  const auto& map = builtins();
  auto it = map.find(name);
  return it == map.end() ? BuiltinKind::kNone : it->second;
}

bool isBuiltinName(std::string_view name) {
  static const NameSet set = {
      "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool", "breakpoint", "bytearray",
      "bytes", "callable", "chr", "classmethod", "compile", "complex", "delattr", "dict", "dir",
      "divmod", "enumerate", "eval", "exec", "filter", "float", "format", "frozenset", "getattr",
      "globals", "hasattr", "hash", "help", "hex", "id", "input", "int", "isinstance",
      "issubclass", "iter", "len", "list", "locals", "map", "max", "memoryview", "min", "next",
      "object", "oct", "open", "ord", "pow", "print", "property", "range", "repr", "reversed",
      "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super",
      "tuple", "type", "vars", "zip", "__import__", "BaseException", "Exception",
      "ArithmeticError", "AssertionError", "AttributeError", "BufferError", "EOFError",
      "FloatingPointError", "GeneratorExit", "ImportError", "IndexError", "KeyError",
      "KeyboardInterrupt", "LookupError", "MemoryError", "ModuleNotFoundError", "NameError",
      "NotImplementedError", "OSError", "OverflowError", "RecursionError", "ReferenceError",
      "RuntimeError", "StopAsyncIteration", "StopIteration", "SyntaxError", "SystemError",
      "SystemExit", "TimeoutError", "TypeError", "UnboundLocalError", "UnicodeError",
      "ValueError", "ZeroDivisionError", "NotImplemented", "Ellipsis"};
  return set.contains(name);
}

bool isLibraryRoot(std::string_view root) {
  static const NameSet set = {
      "torch",    "numpy",     "math",       "os",      "sys",       "time",     "random",
      "typing",   "functools", "itertools",  "collections", "logging", "warnings", "dataclasses",
      "contextlib", "abc",     "enum",       "re",      "json",      "copy",     "inspect",
      "threading", "subprocess", "pathlib",  "argparse", "triton",   "builtins", "types",
      "operator", "pickle",    "io",         "gc",      "queue",     "multiprocessing",
      "concurrent", "asyncio", "string",     "textwrap", "traceback", "unittest", "pytest",
      "statistics", "datetime", "socket",    "shutil",  "tempfile",  "glob",     "weakref",
      "heapq",    "bisect",    "struct",     "hashlib", "uuid",      "csv",      "signal",
      "platform", "atexit",    "importlib",  "ctypes",  "typing_extensions"};
  return set.contains(root);
}

}  // namespace graphsafe::python
