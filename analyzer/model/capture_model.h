#pragma once

// The capture model: what a frontend knows about one file, in terms shared by Python and
// CUDA C++. Rules are written against this model only, so one check serves both languages.

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/model/reference.h"
#include "analyzer/model/value.h"
#include "analyzer/source/source_file.h"

namespace graphsafe {

enum class Language : std::uint8_t { kPython, kCuda };

using FunctionId = std::uint32_t;
inline constexpr FunctionId kNoFunction = std::numeric_limits<FunctionId>::max();

// How a capture region came to be. Dynamo-traced kinds are recorded in CaptureRegion too.
enum class RegionKind : std::uint8_t {
  kGraphContext,     // with torch.cuda.graph(g): ...
  kCaptureBeginEnd,  // g.capture_begin() ... g.capture_end()
  kGraphedCallable,  // torch.cuda.make_graphed_callables(fn_or_module, ...)
  kCompiled,         // torch.compile(mode="reduce-overhead" | ...), Dynamo-traced
  kEntryPoint,       // declared by the user's configuration
  kStreamCapture,    // cudaStreamBeginCapture ... cudaStreamEndCapture (C++)
};

enum class EventKind : std::uint8_t {
  kCall,             // a call graphsafe may follow into a function body (reachability)
  kBranch,           // if/elif/while/ternary/assert/comprehension-if/and/or/not/bool() condition
  kLoop,             // a for loop; `subject` is its bound or iterable
  kHostSync,         // an operation that makes the host wait for the device
  kTensorOp,         // a tensor op, tensor method or kernel launch; `args` are its operands
  kShapeUse,         // a host value that sets a shape (slice bound, factory size, view)
  kAllocation,       // device memory allocation
  kStreamUse,        // work placed on a stream other than the current one (`text` names it)
  kStreamFork,       // a side stream made to wait on the capture stream
  kStreamJoin,       // the capture stream made to wait on a side stream
  kHostSideEffect,   // Python state changed (counter, append, print, global write)
  kBind,             // a name or attribute bound to a new object (`text` = the target)
  kInPlaceUpdate,    // a tensor updated in place (copy_, fill_, slice assignment)
  kFree,             // a name deleted or memory freed
  kReplay,           // graph.replay() / cudaGraphLaunch / a graphed or compiled call
  kStore,            // a value kept: append, dict/attribute store, yield, accumulate
  kHostBufferWrite,  // the CPU writes a host buffer
  kCaptureQuery,     // is_current_stream_capturing() / cudaStreamIsCapturing
  kStateChange,      // a library call whose host-side state changes when it runs (a GradScaler's
                     // unscale_, an RNG seed, an optimizer step counted on the host)
  kGradReset,        // gradients released: zero_grad() with set_to_none (its default),
                     // `p.grad = None`; `target` is the optimizer, module or parameter, and
                     // `source` the paths known to be None there, separated by spaces (the
                     // `else` of `if self.graph is not None:`)
};

// Event-kind-specific facts, as bits, so the event stays small and uniform.
enum EventFlag : std::uint32_t {
  kFlagNone = 0,
  kFlagImplicit = 1u << 0,          // an implicit sync or branch (bool(t), print(t), f-string)
  kFlagDataDependent = 1u << 1,     // a data-dependent-shape op (nonzero, masked index, unique)
  kFlagNeedsTensor = 1u << 2,       // only a hazard when `subject` is known to be a tensor
  kFlagNotKnownHost = 1u << 3,      // a hazard unless `subject` is known to be a host value
  kFlagExtensionCode = 1u << 4,     // C++ reachable from PyTorch (torch/ATen/c10 headers, op
                                    // registration): stream hazards there are GS304's
  kFlagCaptureDependent = 1u << 5,  // kBranch: the condition depends on a capture query;
                                    // kCall: made in a block that runs only under capture
  kFlagSidesDiffer = 1u << 6,       // kBranch: its two sides enqueue different device work
  kFlagFreshTensor = 1u << 7,       // kBind: the value is a tensor allocated here (a factory,
                                    // an arithmetic result), not a view of another tensor
  kFlagPageableSource = 1u << 8,    // kTensorOp: a copy from pageable (not pinned) host memory
  kFlagLogging = 1u << 9,           // kHostSideEffect: a logging call (a warning, not an error)
  kFlagBoundMethod = 1u << 10,      // kCall: the receiver fills the callee's first parameter
  kFlagRunsOnce = 1u << 11,         // kCall: under a run-once guard (`if x is None: x = f()`,
                                    // `if k not in seen: seen.add(k)`) or a capture-only block;
                                    // kHostSync, kStateChange: under a lazy initialization
                                    // (also after `if obj.ready: return` that sets obj.ready)
  kFlagRelaxedPermits = 1u << 12,   // kHostSync: permitted when the capture mode is relaxed
                                    // (allocating or freeing memory, not waiting on a stream)
  kFlagReadsWeights = 1u << 13,     // kTensorOp / kCall: an op autocast casts (matmul, linear,
                                    // conv) reading a leaf that requires grad (a weight, an
                                    // nn.Parameter), or a call of a torch.nn module with weights
  kFlagPinnedHost = 1u << 14,       // kBind: the value is a tensor in pinned host memory
  kFlagEagerOnly = 1u << 15,        // any event: runs only when no capture is under way (after
                                    // `if capturing: raise`, under `if not capturing:`); the
                                    // region walk skips it
  kFlagUntypedReceiver = 1u << 16,  // kTensorOp: lowering cannot tell that the receiver is a
                                    // tensor (a helper's result); the region walk keeps it only
                                    // where the program model types `tensor` as one
  kFlagScopeExit = 1u << 17,        // kFree (C++): a local that owns host memory goes out of
                                    // scope (the end of its block)
  kFlagStaticStorage = 1u << 18,    // kHostBufferWrite (C++): the buffer is a static or global
                                    // variable that a captured copy of this function reads
  kFlagIndirectCall = 1u << 19,     // kCall (C++): through something that holds a function (a
                                    // function pointer, a std::function, a callable parameter)
                                    // or a call that depends on a template parameter; `target`
                                    // says which, for the calls not followed
  kFlagSizeRead = 1u << 20,         // kBind: the value is a size read straight from data
                                    // (`x.shape[0]`, `x.size(1)`, `x.numel()`, `len(batch)`),
                                    // with no rounding, bucketing or lookup on the way
  kFlagHostFactory = 1u << 21,      // kTensorOp: a factory that makes its tensor in host memory
                                    // (`torch.zeros(n)` with no device, `device="cpu"`)
};

// A test the code around an event makes before the event runs, from `if`, `and`/`or`, ternary,
// early-return and assert conditions: on a parameter of the function (`mode is None`,
// `backend == "cuda"`, `flag`), or already decided without running the program (`kNever`: a
// condition false by default, such as an environment variable that is unset). The region walk
// evaluates them against the arguments of the call that reached the function and skips events
// that cannot run there. Tests chain through `parent`: an event runs only if every test on its
// chain holds. kTracing / kNotTracing: the code runs only while Dynamo traces it (under
// `if torch.compiler.is_compiling():`), or only when it does not (after `if is_compiling():
// return`); the walk decides them by the region's kind.
struct StaticTest {
  enum class Op : std::uint8_t {
    kNever,
    kIsNone,
    kIsNotNone,
    kEquals,
    kNotEquals,
    kTruthy,
    kFalsy,
    kTracing,
    kNotTracing,
    kIn,  // `literal` holds the keys, separated by NUL
    kNotIn,
  };
  Op op = Op::kNever;
  std::uint32_t param = 0;  // index in FunctionModel::params (not kNever)
  std::string literal;      // kEquals / kNotEquals: the literal's key (see literal_key.h)
  std::int32_t parent = -1;
};

struct KeywordArg {
  std::string name;
  Value value;
};

// One thing a function does, at a source range, in source order.
struct Event {
  EventKind kind = EventKind::kCall;
  SourceRange range;        // what a diagnostic points at
  std::string api;          // qualified API or callee ("torch.Tensor.item", "helper", "Model.step")
  std::string text;         // short source form for messages (".item()", "bool(x)", "x.sum() > 0")
  Value subject;            // what the event is about: condition, receiver, bound value, ...
  std::vector<Value> args;  // kCall / kTensorOp: positional argument values
  std::vector<KeywordArg> keywords;
  std::uint32_t flags = kFlagNone;
  // kCall: false when `*args` or `**kwargs` passes arguments whose positions are not known.
  bool arguments_complete = true;
  // The innermost StaticTest (in FunctionModel::tests) the event runs under, or -1.
  std::int32_t test = -1;
  // kCall: a function of the same file, when resolved. kHostSideEffect: the enclosing function
  // whose local the effect changes (a closure's state: `nonlocal n; n += 1`, `handles.pop()`
  // on the outer function's list), kNoFunction otherwise.
  FunctionId callee = kNoFunction;
  // kCall into another file: the callee's qualified name for the cross-file index.
  std::string callee_qualified;
  // Index of the region (in FileModel::regions) whose body lexically holds this event, or -1.
  std::int32_t region = -1;
  // kCall: the call as a reference (FileModel::references): its callee and arguments, for the
  // program model to resolve when lowering could not (a method of an attribute's class in
  // another file, a parameter holding a function). kNoRef for calls lowering emits on its own
  // (a hook registration, a backward).
  RefId call = kNoRef;
  // Flow between capture and replay (kBind, kStore, kFree, kInPlaceUpdate, kReplay), as paths
  // with subscripts and calls dropped ("x", "self.graphs"):
  //   target: what is bound, stored into, freed or updated in place; for kReplay, the graph or
  //           graphed/compiled callable replayed.
  //   source: kBind / kStore: the path the value comes from when it is an alias or a view of a
  //           name ("g = self.graphs[bs]", "x = x.view(n)"); "" for a new object.
  // A module hook registration (kCall, api "torch.nn.Module.register_*hook"): `target` is the
  // module it is registered on; `source` the module whose submodule the target is (a loop
  // variable over its modules()/children(), or an element `m[0]` of it), "" otherwise.
  // A backward call (kCall, api "torch.Tensor.backward"): `target` is the tensor it starts from.
  // An optimizer step (kCall, api "torch.optim.Optimizer.step"): `target` is the optimizer.
  std::string target;
  std::string source;
  // kBind / kStore: the value is an output of this region (index in FileModel::regions): bound
  // inside its body, or returned by a call of its graphed/compiled callable. -1 otherwise.
  std::int32_t output_of = -1;
  // kStore: the kept value as a reference (FileModel::references), so that the program model
  // can tell what a call returned (`outs.append(runner.run(x))`); kNoRef when not known.
  RefId value = kNoRef;
  // kLoop: how many times the body runs, when the code says so without running it
  // (`range(64)`, a list display or comprehension of known length, `for (int i = 0; i < 64;
  // ++i)`); -1 when not known. Its `target` is the loop's variables as written ("i", "i, s").
  std::int32_t trips = -1;
  // What lowering could not classify, as a reference, so that the program model can: for
  // kHostSync reading a tensor and kTensorOp copying one to the device, that tensor (where it
  // lives: `self.table`, set in __init__ from a CPU factory; a helper's result); for kStreamUse
  // with no `text`, the stream (a parameter, an attribute set in another file). kNoRef otherwise.
  RefId operand = kNoRef;
};

struct Parameter {
  std::string name;
  Value declared;  // from an annotation (`x: torch.Tensor`) or default; unknown otherwise
  // The default's literal key (see literal_key.h) when the default is a literal; "" otherwise.
  std::string default_literal;
  bool variadic = false;  // *args / **kwargs
  bool keywords = false;  // **kwargs (variadic too)
  // The annotation and the default value, as references (kNoRef when there is none).
  RefId annotation = kNoRef;
  RefId default_value = kNoRef;
};

// A name that crosses a capture region's boundary, where it first does.
struct RegionName {
  std::string name;  // a path: "x", "self.static_in" (subscripts dropped)
  SourceRange range;
  Value value;  // what the name held there
};

// Host-side state around code, other than a capture: a `with` block of autocast or of a stream,
// a stream made to wait on another stream or an event, a function handed to another thread
// (threading.Thread(target=f), executor.submit(f, ...), executor.map(f, ...)), and a join.
struct ContextBlock {
  enum class Kind : std::uint8_t { kAutocast, kStream, kStreamWait, kThread, kThreadJoin };
  Kind kind = Kind::kAutocast;
  SourceRange site;     // the with item, or the call
  SourceRange span;     // kAutocast / kStream: the whole with statement; otherwise the call
  std::string subject;  // kStream: the stream; kStreamWait: the stream made to wait; kThread:
                        // the function; kThreadJoin: what is joined
  std::string other;    // kStreamWait: the stream or event waited on
  bool caches = false;  // kAutocast: enabled with its cast cache on (the default)
  FunctionId function = kNoFunction;  // kThread: the function run in the thread (this file)
};

// C++: a stream parameter of a function whose stream receives device work: a launch or an API
// call on it in the function's body (`kernel<<<g, b, 0, stream>>>`), or a call that hands it on
// to such a parameter of another function (the engine follows those, across files).
struct StreamParameterUse {
  std::uint32_t param = 0;
  SourceRange at;   // the work, or the call that hands the stream on
  std::string api;  // the kernel or API; for a call, the callee
};

// C++: a call that hands a stream to a stream parameter of the project's own function. The
// engine turns the ones that pass a default stream to a parameter that receives work into
// kStreamUse events at the call (a binding calling `launch(args, nullptr)`).
struct StreamHandoff {
  std::uint32_t call = 0;  // index of the kCall in FunctionModel::events
  std::uint32_t param = 0;  // the callee's parameter
  std::string param_name;
  std::int32_t from_param = -1;  // the caller's own stream parameter it passes on, or -1
  std::string escape;  // the default stream it passes, in a finding's words; "" when none
};

// A lazy-initialization guard that caches by a key (`if bs not in self.graphs:`): the code it
// runs once per key, and the names of the key.
struct CacheGuard {
  SourceRange body;
  std::vector<std::string> keys;
};

struct FunctionModel {
  std::string name;               // "forward"
  std::string qualified_name;     // module-relative: "Model.forward", "outer.<locals>.inner"
  SourceRange range;              // the name in the definition (where notes point)
  SourceRange body;               // the whole definition
  std::vector<Parameter> params;  // `self` included for methods
  std::vector<Event> events;      // in source order
  bool is_method = false;
  bool is_module_level = false;  // the synthetic function for top-level statements
  // Python: memoized (functools.cache, lru_cache): its body runs once per arguments, capture or
  // not, so what it does once is by design.
  bool memoized = false;
  // Every for/while statement of the body (the whole statement), for "in the next iteration".
  std::vector<SourceRange> loops;
  // Python: code that runs once by design, not on every call: the body of a lazy-initialization
  // guard (`if self.graph is None:`), the rest of a block after `if done: return` that sets
  // `done`, and blocks that run only under capture. What they write is not written between
  // replays.
  std::vector<SourceRange> once_blocks;
  // Python: every `if` statement (with its `elif` and `else` clauses), for "on some calls or
  // iterations only".
  std::vector<SourceRange> branches;
  // Autocast and stream blocks, and waits between streams, in source order.
  std::vector<ContextBlock> contexts;
  // The tests events run under (Event::test), and the parameters whose literal matters: tested
  // here, or passed on to a call (bit i: params[i]).
  std::vector<StaticTest> tests;
  std::uint64_t literal_params = 0;
  // Python: its lazy-initialization guards that cache by a key, in source order.
  std::vector<CacheGuard> cache_guards;
  // What the program model needs to type calls across files:
  FunctionId parent = kNoFunction;  // the enclosing function (0 = module level)
  std::int32_t class_index = -1;    // the class (FileModel::classes) whose body defines it
  bool has_self = false;            // a method with an instance parameter
  bool is_classmethod = false;      // its first parameter is the class
  bool is_staticmethod = false;
  bool is_property = false;  // read as an attribute, it is called
  bool is_lambda = false;
  bool is_generator = false;  // its body yields
  RefId returns = kNoRef;     // every value it returns, joined (a lambda: its body)
  RefId yields = kNoRef;      // every value it yields, joined
  // The decorators, innermost first (as references: `dec`, `torch.compile(mode=...)`).
  std::vector<RefId> decorators;
  // A `yield` inside one of its body regions (a @contextmanager that captures): that region.
  std::int32_t yield_region = -1;
  // It returns an output of this region (index in FileModel::regions), outside the region's
  // body (`self.graph.replay(); return self.static_out`), at `returned_output_at`; -1 otherwise.
  std::int32_t returned_output = -1;
  SourceRange returned_output_at;
  // The builtins it calls that lowering handles itself (len, range, print, super, ...), by
  // name, for the call graph.
  std::vector<std::string> builtin_calls;
  // C++: streams that go through the function's parameters (see StreamParameterUse).
  std::vector<StreamParameterUse> stream_params;
  std::vector<StreamHandoff> stream_handoffs;
};

// A class: its bases, methods and the values its methods and body give attributes, for the
// program model's method resolution and attribute types.
struct ClassModel {
  std::string name;               // "Runner"
  std::string qualified_name;     // module-relative: "Runner", "Outer.Inner", "f.<locals>.C"
  SourceRange range;              // the name in the definition
  FunctionId scope = 0;           // the function whose body defines it (0 = module level)
  std::int32_t outer_class = -1;  // the class whose body defines it, or -1
  std::vector<RefId> bases;       // in order
  std::vector<std::pair<std::string, FunctionId>> methods;  // sorted by name
  // `name = value` in the class body.
  std::vector<std::pair<std::string, RefId>> members;
  std::vector<RefId> decorators;
};

// `object.name = value` anywhere (`self.model = model` in __init__, `runner.fn = step`): the
// program model joins these into the attribute types of the classes `object` may be.
struct AttributeWrite {
  RefId object = kNoRef;
  std::string name;
  RefId value = kNoRef;
  FunctionId function = kNoFunction;  // where the write happens
  SourceRange range;                  // the assignment
  bool augmented = false;             // `+=` and the like: the type does not change
};

// `container[key] = value` anywhere (`self.scaling[name] = s`, `cache[bs] = g`), and the
// augmented forms: what the replay cycle may change in a container a capture read.
struct ElementWrite {
  RefId container = kNoRef;
  std::string key;  // the literal key (see literal_key.h), "" when not a literal
  RefId key_ref = kNoRef;  // the key expression, literal or not (`id(self)`, `fn.__name__`)
  RefId value = kNoRef;
  FunctionId function = kNoFunction;
  SourceRange range;  // the target
  bool augmented = false;
};

struct CaptureRegion {
  RegionKind kind = RegionKind::kGraphContext;
  SourceRange site;    // the with item / capture_begin() / compile call / decorator
  std::string graph;   // graph object expression, "" when there is none
  std::string stream;  // capture stream expression, "" = the library's default side stream
  std::string pool;    // memory pool expression, "" when none is shared
  // Capture mode: "global", "thread_local", "relaxed"; "" when not known (the default is global).
  std::string mode;
  bool dynamo_traced = false;
  // kCompiled: compiled with `fullgraph=True`, so Dynamo raises at a graph break instead of
  // splitting the graph.
  bool full_graph = false;
  // The function that holds the region's code. For body regions (with, begin/end) the events of
  // `function` whose `region` field equals this region's index run under capture; for
  // callable regions (graphed callables, compiled functions) the whole function does.
  FunctionId function = kNoFunction;
  bool whole_function = false;
  // For callable regions whose function lives in another file: its qualified name.
  std::string target_qualified;
  // Values of the captured callable's parameters at the capture (graphed callables: tensors).
  std::vector<Value> param_values;
  // Graphed callables: the path of the callable or module handed to make_graphed_callables
  // ("model", "self.encoder"; "" when it is not a path), and its position in the tuple of
  // callables (-1 when one callable was passed on its own). Regions of one call share `site`.
  std::string callable;
  std::int32_t tuple_index = -1;
  // Graphed callables: that callable or module as a reference of the function the call is made
  // in (CaptureFlow::home), for the program model to type (a module wrapped in
  // DistributedDataParallel); kNoRef when lowering has none.
  RefId callable_ref = kNoRef;
  // Flow between capture and replay.
  // The name the program replays the region by, as a path: the graph object ("g",
  // "self.graphs"), the variable bound to the graphed/compiled callable, or the decorated
  // function's qualified name. "" when not known.
  std::string handle;
  // Body regions: from the capture's start to its end (the with statement; capture_begin() to
  // capture_end()). Callable regions: the site.
  SourceRange span;
  // Names read inside the region that were bound outside it (locals, parameters, globals,
  // self attributes; for callable regions only self attributes and globals).
  std::vector<RegionName> inputs;
  // Names bound inside the region and read after it.
  std::vector<RegionName> outputs;
  // A region lowering could not confirm from one file: the program model keeps it when the
  // reference's type says it is a capture, and drops it otherwise (its events go to `parent`).
  //   kGraphReceiver: `x.capture_begin()` on a receiver of unknown type (`pending_ref`): kept
  //                   unless the receiver is known to be something else (a module that is not
  //                   torch's, an object of a class without capture_begin);
  //   kCaptureContext: `with ctx(...):` on a function of the program (`pending_ref`, the call):
  //                   kept when the function is a @contextmanager whose yield is in a capture;
  //   kCompileMode:   `torch.compile(f, mode=mode)` with the mode a name (`pending_ref`): kept
  //                   when it can hold a mode that captures ("reduce-overhead",
  //                   "max-autotune"), a parameter's default or what a call passes.
  // `pending_ref` is a reference of `pending_scope`, the function that holds the call.
  enum class Pending : std::uint8_t { kNo, kGraphReceiver, kCaptureContext, kCompileMode };
  Pending pending = Pending::kNo;
  RefId pending_ref = kNoRef;
  FunctionId pending_scope = kNoFunction;
  // The body region this one is nested in (-1 when none).
  std::int32_t parent = -1;
  // Captured under a lazy-initialization guard (`if self.graph is None:`, `if bs not in
  // self.graphs:`): on the first call of its function, and replayed by every later call with
  // that call's arguments. `cache_keys`: the parameters the graphs are cached by (one graph per
  // value), which do not vary for the graph that was captured with them.
  // C++: captured in a nested block of the innermost loop around it (`if (exec == nullptr) {
  // capture }`), which also launches outside that block: one iteration captures, the later ones
  // launch what it captured.
  bool lazy = false;
  std::vector<std::string> cache_keys;
  // Python: the innermost conditional statement (`if`, `elif`, `else`, `except`, `case`) of the
  // region's function that holds the capture, when it lies inside the loops around it (empty
  // when none does). A loop that holds the conditional does not capture on every iteration
  // (`for step ...: if step == 0: capture`): its later iterations replay what one captured.
  SourceRange guard;
};

struct SourceComment {
  std::uint32_t line = 0;    // 0-based
  std::uint32_t column = 0;  // byte column of the comment marker
  std::string text;          // including the marker (`# ...`, `// ...`)
};

// A problem with the input itself (does not parse, not UTF-8, too large): reported as a notice,
// never as a finding.
struct Notice {
  std::string path;
  std::int32_t line = -1;  // 0-based, -1 when the notice is about the whole file
  std::string message;
  // Code was left unanalyzed (a file skipped or cut short, a region whose walk hit a budget):
  // a run with such a notice is not a pass (the CLI's exit code 2, unless --allow-incomplete).
  bool incomplete = false;
};

struct FileModel {
  Language language = Language::kPython;
  SourceFilePtr source;
  std::string module_name;  // dotted Python module name derived from the path; "" for C++
  std::vector<FunctionModel> functions;  // FunctionId indexes this
  std::vector<CaptureRegion> regions;
  std::vector<SourceComment> comments;
  std::vector<Notice> notices;
  bool parse_failed = false;  // the file was skipped; `notices` says why
  // C++: errors the compiler met in the translation unit (a header not found, a declaration it
  // needed): the model holds what Clang recovered. 0 for Python.
  std::uint32_t compiler_errors = 0;
  // C++: reachable from PyTorch (its unit includes a torch header, at any depth, or registers
  // operators; or an extension unit includes it), and the project headers its unit includes (real
  // paths, sorted). The engine marks a header's events kFlagExtensionCode when an extension unit
  // includes it.
  bool extension_code = false;
  std::vector<std::string> includes;
  // A header marked so by the engine: the path of an extension unit that includes it.
  std::string extension_includer;
  // C++: what else the model was built from, for the result cache: the compile_commands.json
  // the flags came from ("" when none), and whether `includes` lists every project header the
  // unit read (false past the frontend's bound).
  std::string compile_database;
  bool includes_complete = true;
  // C++: a header parsed with the command of a unit that includes it: that unit's file (its
  // text decided the flags and whether the header is extension code).
  std::string flags_from;
  // C++: functions called through something that holds them (a function pointer member, a
  // global or static function pointer): (the holder's qualified name, as a call's
  // callee_qualified names it, a function stored into it), from every store the unit makes
  // (`Coll c = {..., runColl}`, `c.run = &f`); the program index follows such a call to them.
  std::vector<std::pair<std::string, std::string>> cpp_aliases;
  // C++: functions registered as PyTorch operators or bound into Python (TORCH_LIBRARY's
  // `m.def`/`m.impl`, pybind11's `def`), by qualified name: extension code wherever they are
  // defined, with everything they call.
  std::vector<std::string> registered_ops;
  // Python: what the file's imports bind (local name -> dotted name it stands for), so that a
  // package's __init__ re-exports resolve across files; and the modules of `from m import *`.
  std::vector<std::pair<std::string, std::string>> import_aliases;  // sorted by name
  std::vector<std::string> star_imports;
  // False for a file only read, not lowered, because nothing the run analyzes can reach it.
  bool lowered = true;
  // For the program model (analyzer/program/): the references events, parameters and classes
  // point into, the classes, every attribute write, and what each module-level name holds.
  std::vector<Reference> references;
  std::vector<ClassModel> classes;
  std::vector<AttributeWrite> attribute_writes;
  std::vector<ElementWrite> element_writes;
  std::vector<std::pair<std::string, RefId>> globals;  // sorted by name
};

}  // namespace graphsafe
