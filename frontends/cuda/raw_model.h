#pragma once

// What the AST visitor collects from one translation unit, as plain data: the facts that need
// Clang (names, types, source ranges, which variable an expression is) are settled during the
// traversal, and everything that needs the whole function or file (capture regions, forks and
// joins, values that change after the capture) is decided afterwards by the region builder,
// which is ordinary C++ and can be tested without parsing anything.

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe::cuda {

// A stream argument, as the visitor classified it.
enum class StreamKind : std::uint8_t {
  kNone,              // the item puts no work on a stream
  kMissing,           // omitted: the legacy default stream
  kLegacyDefault,     // 0, NULL, nullptr, cudaStreamLegacy, CU_STREAM_LEGACY
  kPerThreadDefault,  // cudaStreamPerThread, or 0 when compiled for per-thread default streams
  kTorchDefault,      // at::cuda::getDefaultCUDAStream()
  kTorchCurrent,      // at::cuda::getCurrentCUDAStream(), or a variable initialized from it
  kCreated,           // a stream this code creates (cudaStreamCreate, getStreamFromPool)
  kNamed,             // a variable, parameter or member whose value is not known
  kOther,             // anything else: nothing is known
};

struct StreamRef {
  StreamKind kind = StreamKind::kNone;
  std::string key;   // identity of a variable-like stream (kCreated, kNamed), after aliases
  std::string name;  // how to name it in a message: "s", "this->stream_"
  // kNamed: the parameter of the enclosing function the stream is (directly or through a local
  // initialized from it), or -1. A caller decides what such a stream is.
  std::int32_t param = -1;
  // Omitted at a call of the project's own function: the parameter's default was used.
  bool defaulted = false;
};

// A stream a call of the project's own function passes, and the callee's parameter it fills.
struct StreamArgument {
  std::uint32_t param = 0;
  std::string param_name;
  StreamRef stream;
  // When the callee's body is in a header of this unit (not lowered here) and the parameter's
  // stream reaches device work in it: that work, as a finding names it ("`k` at include/a.cuh:12
  // runs on it"). "" otherwise: the engine follows the call across files.
  std::string reaches;
};

enum class ItemRole : std::uint8_t {
  kEvent,         // `event` is final (host sync, call, bind, free, replay, query, branch)
  kWork,          // device work on `stream`; `event` is its kTensorOp
  kCaptureBegin,  // a capture begins: `stream`, `key` = what the end must match, `text` = mode
  kCaptureEnd,    // a capture ends: `key` as for the begin, `text` = the graph it yields
  kEventRecord,   // event `key` recorded on `stream`
  kStreamWait,    // `stream` waits for event `key`
  kStreamCreate,  // stream `key` created here (a member or global: locals are kCreated already)
  kAssign,        // host variable `var` assigned
  kPinnedAlloc,   // host buffer `key` allocated pinned (cudaMallocHost, cudaHostAlloc)
  kHostWrite,     // the CPU writes through host pointer `key`; `event` is ready but for kind
  kHandleCreate,  // library handle `key` created (cublasCreate, cudnnCreate)
  kHandleStream,  // library handle `key` bound to `stream` (cublasSetStream, cudnnSetStream)
  kHandleUse,     // library call through handle `key`; `event` is its kTensorOp
  kInstantiate,   // the graph `key` instantiated into the executable graph `text`
  kExecUpdate,    // the executable graph `key` given new node parameters (or a new graph)
  kStaticSource,  // a host-to-device copy reads memory with static storage: variable `key`
};

// A host variable an argument reads, and the for loop (index into RawFunction::loops) whose
// loop variable it is, or -1.
struct VarUse {
  std::uint64_t var = 0;
  std::int32_t loop = -1;
};

struct RawItem {
  ItemRole role = ItemRole::kEvent;
  Event event;  // range and api always set; the rest as the role says
  StreamRef stream;
  std::string key;
  std::string text;
  std::uint64_t var = 0;
  // kAssign: the host variables the new value reads (the variable itself for `+=` and `++`),
  // each with the loop whose variable it is, as for arg_vars.
  std::vector<VarUse> sources;
  // kAssign: the variable's declaration, with its initializer.
  bool declaration = false;
  // kCall: the callee's identity when it is defined in this translation unit.
  std::string callee_key;
  // kCall of an object (`functor(args)`): the first argument is the object, not a parameter.
  bool functor = false;
  // kCall of the project's own function: the streams it passes to stream-typed parameters.
  std::vector<StreamArgument> stream_args;
  // kCall of the project's own function defined in this unit: the host buffers it passes to
  // pointer parameters, as (the callee's parameter key, the buffer's key). A pinned buffer makes
  // the parameter pinned in the callee.
  std::vector<std::pair<std::string, std::string>> buffer_args;
  // Per event.args: the host variables each argument reads (for frozen-scalar facts).
  std::vector<std::vector<VarUse>> arg_vars;
  // Per event.args: the variable or member the argument is, as written ("x", "this->buf_"), or
  // "" for any other expression.
  std::vector<std::string> arg_paths;
  // The innermost block (braces, or the body of an if/loop) around the item, by byte offset.
  std::uint32_t block_begin = 0;
  std::uint32_t block_end = 0;
  // kCaptureBegin: the torch CUDAGraph API (capture_begin), which captures the current stream.
  bool torch_graph = false;
  // In the side of a branch on the capture state taken only when the stream is not capturing
  // (`if (status == cudaStreamCaptureStatusNone) cudaStreamSynchronize(s);`).
  bool not_capturing = false;
};

// A loop statement (for, range-for, while, do), and its body.
struct RawLoop {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  std::uint32_t body_begin = 0;
  std::uint32_t body_end = 0;
};

struct RawFunction {
  FunctionModel model;  // name, qualified name, ranges, parameters; events are built later
  std::string key;      // identity, for calls within the translation unit
  std::vector<RawItem> items;
  std::vector<RawLoop> loops;
  // Host variables that key a map of executable graphs (`graphs_[n]`, `cache.find(n)`): each
  // value has a graph of its own, captured with that value, so none of them is frozen.
  std::vector<std::uint64_t> cache_keys;
};

struct RawTranslationUnit {
  std::vector<RawFunction> functions;
  std::vector<SourceComment> comments;
  std::vector<Notice> notices;
  // Includes torch/ATen/c10 headers or registers operators: launches must use the current
  // stream even with no capture in sight (GS304).
  bool extension_code = false;
  // FileModel::cpp_aliases and FileModel::registered_ops, as the traversal finds them.
  std::set<std::pair<std::string, std::string>> cpp_aliases;
  std::set<std::string> registered_ops;
};

}  // namespace graphsafe::cuda
