#pragma once

// API facts as data: which torch functions build tensors, which tensor methods synchronize,
// which names start a capture. Lookups take canonical qualified names (after import aliases).

#include <cstdint>
#include <string_view>

namespace graphsafe::python {

// What calling a qualified (import-resolved) function means.
enum class ApiKind : std::uint8_t {
  kNone,
  kFactory,               // torch.zeros, torch.randn_like, ...: a new tensor
  kTensorFunction,        // torch.matmul, torch.nn.functional.*, ...: a tensor
  kBoolTensorFunction,    // torch.isnan, torch.logical_and, ...: a boolean tensor (a mask)
  kTupleFunction,         // torch.sort, torch.linalg.svd, ...: several tensors (value unknown)
  kDataDependent,         // torch.nonzero, torch.unique, ...: output size read back to the host
  kWhere,                 // torch.where: data-dependent with one argument, a tensor with three
  kRepeatInterleave,      // data-dependent when the repeats are a tensor
  kDeviceSync,            // torch.cuda.synchronize
  kCaptureQuery,          // torch.cuda.is_current_stream_capturing
  kGraphContext,          // torch.cuda.graph
  kCudaGraph,             // torch.cuda.CUDAGraph()
  kMakeGraphedCallables,  // torch.cuda.make_graphed_callables
  kCompile,               // torch.compile
  kStream,                // torch.cuda.Stream()
  kEvent,                 // torch.cuda.Event()
  kCurrentStream,         // torch.cuda.current_stream() / default_stream(): a stream object
  kStreamContext,         // torch.cuda.stream(s)
  kGradScaler,            // torch.amp.GradScaler()
  kNnModule,              // torch.nn.Linear(...) and other torch.nn classes: a module instance
  kParameter,             // torch.nn.Parameter(...) / torch.nn.Buffer(...): a tensor
  kHostConstantCall,      // torch.device, torch.finfo, ...: a fixed host value
  kHostVaryingCall,       // time.*, random.*, numpy.random.*: a host value that changes
  kStateChange,           // torch.manual_seed, random.seed, ...: library state set on the host
  kLegacyTensor,          // torch.Tensor([...]), torch.cuda.FloatTensor([...]): a tensor from
                          // host data (or of the sizes given), on the device the name says
};

// Maps spellings that name the same API to one ("torch.cuda.graphs.graph" -> "torch.cuda.graph").
// Returns the input when it has no alias.
std::string_view canonicalApiName(std::string_view qualified);

ApiKind classifyFunction(std::string_view canonical);

// What calling a method on a tensor (or a value that may be one) means.
enum class MethodKind : std::uint8_t {
  kNone,
  kTensor,         // x.sum(), x.view(...), x.float(): a tensor
  kBoolTensor,     // x.isnan(), x.eq(y), x.bool(): a boolean tensor
  kTuple,          // x.sort(), x.max(dim=...): several tensors
  kHost,           // x.size(), x.dim(), x.numel(): a host value fixed by the shape
  kSyncToHost,     // x.item(), x.tolist(): synchronizes; the result is a varying host value
  kSyncToCpu,      // x.cpu(), x.numpy(): synchronizes; the result lives on the host
  kDataDependent,  // x.nonzero(), x.unique(), x.masked_select(m): data-dependent output size
  kRepeatInterleave,
  kTo,           // x.to(...): a tensor, or a copy to the host when the target is "cpu"
  kHostVarying,  // scheduler.get_last_lr(): a host value that changes between steps
};

MethodKind classifyTensorMethod(std::string_view name);

// Tensor attributes that are tensors themselves (x.T, x.grad) and ones that are host values
// fixed by the tensor's layout (x.shape, x.dtype).
bool isTensorAttribute(std::string_view name);
bool isHostAttribute(std::string_view name);

// nn.Module methods that return the module itself (model.cuda(), model.eval()).
bool isModuleChainingMethod(std::string_view name);

enum class BuiltinKind : std::uint8_t {
  kNone,
  kScalarConversion,  // int(t), float(t), bool(t): reads a tensor's value on the host
  kPrint,             // print(t)
  kStringConversion,  // str(t), repr(t), format(t)
  kLen,
  kStructural,  // isinstance, hasattr, callable, type, id: fixed host facts
  kRange,
  kEnumerate,
  kSuper,
};

BuiltinKind classifyBuiltin(std::string_view name);

// Is this one of Python's builtin names (functions, types, exceptions)?
bool isBuiltinName(std::string_view name);

// Top-level packages whose functions are never analyzed code (no call events for them).
bool isLibraryRoot(std::string_view root);

}  // namespace graphsafe::python
