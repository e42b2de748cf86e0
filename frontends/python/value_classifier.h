#pragma once

// What the frontend knows about an expression: its Value in the model's lattice, plus the facts
// that only the frontend needs (what kind of object it is, which function it names). The rules
// for combining values live here so that every construct joins them the same way.

#include <cstdint>
#include <string>

#include "analyzer/model/capture_model.h"
#include "frontends/python/syntax.h"

namespace graphsafe::python {

enum class ObjectKind : std::uint8_t {
  kNone,
  kCudaGraph,       // torch.cuda.CUDAGraph()
  kStream,          // torch.cuda.Stream() / current_stream()
  kEvent,           // torch.cuda.Event()
  kGradScaler,      // torch.amp.GradScaler()
  kNnModule,        // an instance of a torch.nn class
  kInstance,        // an instance of a class of this file (`class_index`)
  kClass,           // a class of this file (`class_index`)
  kImported,        // a module or object from an import (`imported` holds its dotted name)
  kTensorTuple,     // several tensors (torch.sort(x), x.max(dim=1))
  kCompileFactory,  // torch.compile(mode=...) called without the function: a decorator
  kSuper,           // super()
  kLogger,          // logging.getLogger(...), loguru's logger
  kGraphContext,    // torch.cuda.graph(g, ...) not (yet) entered by a with (`node`: the call)
};

// What a stream expression is known to be.
enum class StreamRole : std::uint8_t {
  kUnknown,
  kCurrent,  // torch.cuda.current_stream(): the capture stream while capturing
  kDefault,  // torch.cuda.default_stream(): never the capture stream
  kCreated,  // torch.cuda.Stream(): a new side stream, outside any capture until forked
};

// Where a device expression ("cuda:0", torch.device("cpu"), x.device) points.
enum class DeviceKind : std::uint8_t { kUnknown, kCpu, kCuda };

struct ExprInfo {
  Value value;
  ObjectKind object = ObjectKind::kNone;
  std::int32_t class_index = -1;      // kInstance / kClass
  FunctionId function = kNoFunction;  // names a function of this file (def, compiled wrapper)
  TSNode node{};                      // a lambda (for kNone) or the compile call (kCompileFactory)
  bool mask = false;                  // a boolean tensor, usable as a mask
  bool graphs = false;                // kCompileFactory: the compile mode uses CUDA graphs
  std::string imported;               // kImported: the dotted name
  // The value is an output of this capture region (bound inside its body, or returned by a call
  // of its graphed/compiled callable): kept references see every later replay's values.
  std::int32_t output_of = -1;
  // Host-side facts: the role of a stream, the kind of a device expression, and a tensor known
  // to live in pageable (not pinned) host memory.
  StreamRole stream = StreamRole::kUnknown;
  DeviceKind device = DeviceKind::kUnknown;
  bool pageable = false;
  // A tensor in pinned host memory (pin_memory=True, .pin_memory()).
  bool pinned = false;
  // A tensor known to live in host memory, pinned or not (`if not t.is_cuda:`).
  bool host_memory = false;
  // A leaf that requires grad (requires_grad=True, nn.Parameter, a module's weight), or a
  // torch.nn module holding such weights: what autocast caches the cast of.
  bool leaf = false;
  // kNnModule: an nn.Sequential, whose call runs its members (modules the program model types).
  bool runs_members = false;
  // A pool of worker threads (concurrent.futures.ThreadPoolExecutor, multiprocessing ThreadPool).
  bool thread_pool = false;
  // The expression as a reference the program model can type across files (kNoRef: none).
  RefId ref = kNoRef;
};

inline Value hostConstant(ValueOrigin origin = ValueOrigin::kLiteral) {
  Value value;
  value.kind = ValueKind::kHostConstant;
  value.origin = origin;
  return value;
}

inline Value hostVarying(ValueOrigin origin) {
  Value value;
  value.kind = ValueKind::kHostVarying;
  value.origin = origin;
  return value;
}

inline Value tensorValue(ValueOrigin origin = ValueOrigin::kTensorExpr) {
  Value value;
  value.kind = ValueKind::kTensor;
  value.origin = origin;
  return value;
}

inline Value unknownValue(std::uint64_t deps = 0) {
  Value value;
  value.param_deps = deps;
  if (deps != 0) value.origin = ValueOrigin::kParameter;
  return value;
}

// May this value be a tensor at run time: known to be one, or derived from parameters.
inline bool mayBeTensor(const Value& value) {
  return value.kind == ValueKind::kTensor ||
         (value.kind == ValueKind::kUnknown && value.param_deps != 0);
}

// A name bound to two values (in branches, loops): the same kind stays, anything else is unknown.
Value joinValues(const Value& a, const Value& b);

// An operator over two operands (x + y, x > y): a tensor operand makes a tensor; two host
// values make a host value (varying if either varies); otherwise unknown, remembering the
// parameters either side came from.
Value combineOperands(const Value& a, const Value& b);

// A host value computed from `source` that can never be a tensor (int(x), len(x), not x):
// host when the source is known, unknown (and not parameter-derived) otherwise.
Value hostResultOf(const Value& source);

// The result of an op that returns a tensor when its input is one (x.sum(), model(x)).
Value tensorResultOf(const Value& source);

// Two values a name may hold. The reference is kept only when both sides share it: the caller
// that can build references joins them (FunctionLowering::joinedInfo).
ExprInfo joinInfos(const ExprInfo& a, const ExprInfo& b);

}  // namespace graphsafe::python
