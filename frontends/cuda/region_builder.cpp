#include "frontends/cuda/region_builder.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyzer/model/entry_points.h"
#include "analyzer/model/stream_wording.h"
#include "frontends/cuda/split_captures.h"

namespace graphsafe::cuda {

namespace {

std::uint32_t offsetOf(const RawItem& item) {
  return item.event.range.begin;
}

bool contains(std::uint32_t begin, std::uint32_t end, std::uint32_t offset) {
  return begin <= offset && offset < end;
}

// Facts about the whole translation unit, gathered before any function is lowered: a handle
// may be created in one function and used in another.
struct UnitFacts {
  std::set<std::string> pinned;                   // host buffers allocated pinned
  std::set<std::string> created_streams;          // members and globals given a new stream
  std::set<std::string> created_handles;          // cublasCreate / cudnnCreate
  std::map<std::string, bool> handle_on_default;  // handle -> its only streams are defaults
  std::unordered_map<std::string, FunctionId> functions;
  // Function key -> the parameters (bit i: parameter i) whose values its captures copy into
  // device work (kernel arguments, copy sizes, memset values).
  std::unordered_map<std::string, std::uint64_t> captured_params;
};

// A parameter of a capturing function that a caller passes a value which changes while the
// graph captured through the call is launched.
struct VaryingArgument {
  FunctionId callee = kNoFunction;
  std::size_t param = 0;
  Value value;
};

// The parameters whose values the function's captures copy into device work: work between a
// capture's begin and the next end of the same capture, in source order.
std::uint64_t capturedParameters(const RawFunction& function) {
  std::vector<const RawItem*> items;
  for (const RawItem& item : function.items) items.push_back(&item);
  std::stable_sort(items.begin(), items.end(),
                   [](const RawItem* a, const RawItem* b) { return offsetOf(*a) < offsetOf(*b); });
  std::uint64_t captured = 0;
  const RawItem* open = nullptr;
  for (const RawItem* pointer : items) {
    const RawItem& item = *pointer;
    if (item.role == ItemRole::kCaptureBegin) open = &item;
    if (item.role == ItemRole::kCaptureEnd && open != nullptr && item.key == open->key) {
      open = nullptr;
    }
    if (open == nullptr || item.role != ItemRole::kWork) continue;
    for (const Value& argument : item.event.args) captured |= argument.param_deps;
  }
  return captured;
}

bool isDefaultStream(StreamKind kind) {
  return kind == StreamKind::kMissing || kind == StreamKind::kLegacyDefault ||
         kind == StreamKind::kPerThreadDefault || kind == StreamKind::kTorchDefault;
}

// A pointer parameter is pinned when a call in this unit passes it a pinned buffer, directly or
// through the parameters of the functions in between (`run` allocates, `feed(staging)` hands it
// on, `step(host)` writes it): repeated until nothing new is found. A library handle passed so
// keeps its facts the same way: created by the caller (cublasCreate), and the streams it was
// given (cublasSetStream), or none.
void noteParameterFacts(const RawTranslationUnit& unit, UnitFacts& facts) {
  for (bool grew = true; grew;) {
    grew = false;
    for (const RawFunction& function : unit.functions) {
      for (const RawItem& item : function.items) {
        for (const auto& [param, buffer] : item.buffer_args) {
          if (facts.pinned.count(buffer) != 0 && facts.pinned.insert(param).second) grew = true;
          if (facts.created_handles.count(buffer) != 0 &&
              facts.created_handles.insert(param).second) {
            grew = true;
          }
          auto set = facts.handle_on_default.find(buffer);
          if (set == facts.handle_on_default.end()) continue;
          auto [it, inserted] = facts.handle_on_default.emplace(param, set->second);
          if (inserted) {
            grew = true;
          } else if (it->second && !set->second) {
            it->second = false;
            grew = true;
          }
        }
      }
    }
  }
}

UnitFacts gatherFacts(const RawTranslationUnit& unit) {
  UnitFacts facts;
  for (std::size_t f = 0; f < unit.functions.size(); ++f) {
    const RawFunction& function = unit.functions[f];
    if (!function.key.empty()) {
      facts.functions.emplace(function.key, static_cast<FunctionId>(f));
      if (std::uint64_t captured = capturedParameters(function); captured != 0) {
        facts.captured_params.emplace(function.key, captured);
      }
    }
    for (const RawItem& item : function.items) {
      switch (item.role) {
        case ItemRole::kPinnedAlloc:
          facts.pinned.insert(item.key);
          break;
        case ItemRole::kStreamCreate:
          facts.created_streams.insert(item.key);
          break;
        case ItemRole::kHandleCreate:
          facts.created_handles.insert(item.key);
          break;
        case ItemRole::kHandleStream: {
          bool on_default = isDefaultStream(item.stream.kind);
          auto [it, inserted] = facts.handle_on_default.emplace(item.key, on_default);
          if (!inserted) it->second = it->second && on_default;
          break;
        }
        default:
          break;
      }
    }
  }
  noteParameterFacts(unit, facts);
  return facts;
}

std::string describeDefault(const StreamRef& stream) {
  switch (stream.kind) {
    case StreamKind::kMissing:
      return "the legacy default stream (no stream given: stream 0)";
    case StreamKind::kLegacyDefault:
      return stream.name.empty() || stream.name == "0"
                 ? "the legacy default stream (stream 0)"
                 : "the legacy default stream (`" + stream.name + "`)";
    case StreamKind::kPerThreadDefault:
      return "the per-thread default stream (`" +
             (stream.name.empty() ? std::string("cudaStreamPerThread") : stream.name) + "`)";
    case StreamKind::kTorchDefault:
      return "the default CUDA stream (`" + stream.name + "`), not the current stream";
    default:
      return "";
  }
}

// A stream parameter left out at a call, when its default is a default stream.
std::string describeLeftOut(const StreamRef& stream, const std::string& param) {
  const std::string left_out = "`" + param + "` left out, so its default";
  switch (stream.kind) {
    case StreamKind::kMissing:
    case StreamKind::kLegacyDefault:
      return "the legacy default stream (" + left_out + ", stream 0)";
    case StreamKind::kPerThreadDefault:
      return "the per-thread default stream (" + left_out + ")";
    case StreamKind::kTorchDefault:
      return "the default CUDA stream (" + left_out + "), not the current stream";
    default:
      return "";
  }
}

// One stream-capture region of a function while it is being lowered.
struct Span {
  std::int32_t index = -1;  // in FileModel::regions
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  bool closed = false;  // an end call was found
  std::vector<std::pair<std::uint32_t, std::uint32_t>> excluded;
  std::uint32_t block_begin = 0;
  std::uint32_t block_end = 0;
  StreamRef capture;
  // Fork and join state, in source order.
  std::set<std::string> forked;
  std::map<std::string, std::string> recorded;  // event -> stream key it was recorded on
  std::map<std::string, std::string> names;     // stream key -> name

  bool holds(std::uint32_t offset) const {
    if (!(begin < offset && offset < end)) return false;
    for (const auto& [from, to] : excluded) {
      if (from < offset && offset < to) return false;
    }
    return true;
  }
};

// The key the capture stream has inside its region (no variable key can start with "@").
const std::string kCaptureKey = "@capture";

// How many variables deep variesPerIteration follows what a value is computed from.
constexpr int kMaxSourceDepth = 4;

class FunctionLowering {
 public:
  FunctionLowering(RawFunction& raw, FileModel& model, const UnitFacts& facts, bool extension_code,
                   std::vector<VaryingArgument>& varying_arguments)
      : raw_(raw),
        model_(model),
        source_(*model.source),
        facts_(facts),
        extension_code_(extension_code),
        varying_arguments_(varying_arguments) {}

  // Whether the function leaves a capture open or ends one it did not begin: known after
  // lower().
  const CaptureSplit& split() const { return split_; }

  FunctionModel lower(FunctionId id) {
    std::stable_sort(raw_.items.begin(), raw_.items.end(),
                     [](const RawItem& a, const RawItem& b) { return offsetOf(a) < offsetOf(b); });
    findRegions(id);
    for (RawItem& item : raw_.items) lowerItem(item);
    for (const Span& span : spans_) {
      model_.regions[static_cast<std::size_t>(span.index)].lazy = capturedLazily(span);
    }
    FunctionModel function = std::move(raw_.model);
    function.events = std::move(events_);
    function.stream_params = std::move(stream_params_);
    function.stream_handoffs = std::move(stream_handoffs_);
    for (const RawLoop& loop : raw_.loops) {
      function.loops.push_back(source_.rangeOf(loop.begin, loop.end));
    }
    return function;
  }

 private:
  // Pairs each begin with its end; see region_builder.h for the rule.
  void findRegions(FunctionId id) {
    const auto& items = raw_.items;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const RawItem& begin = items[i];
      if (begin.role != ItemRole::kCaptureBegin) continue;
      Span span;
      span.begin = offsetOf(begin);
      span.end = raw_.model.body.end;
      span.block_begin = begin.block_begin;
      span.block_end = begin.block_end;
      span.capture = begin.stream;
      const RawItem* closing = nullptr;
      std::vector<const RawItem*> nested;
      for (std::size_t j = i + 1; j < items.size(); ++j) {
        const RawItem& end = items[j];
        if (end.role != ItemRole::kCaptureEnd || end.key != begin.key) continue;
        matched_ends_.insert(&end);
        if (contains(end.block_begin, end.block_end, span.begin)) {
          closing = &end;
          break;
        }
        nested.push_back(&end);
      }
      if (closing == nullptr && !nested.empty()) {
        closing = nested.front();
        nested.clear();
      }
      if (closing == nullptr) split_.opens = true;
      if (closing != nullptr) {
        span.end = offsetOf(*closing);
        span.closed = true;
      }
      for (const RawItem* end : nested) span.excluded.emplace_back(offsetOf(*end), end->block_end);

      CaptureRegion region;
      region.kind = begin.torch_graph ? RegionKind::kCaptureBeginEnd : RegionKind::kStreamCapture;
      region.site = begin.event.range;
      region.stream = begin.stream.name;
      region.mode = begin.text;
      region.graph = begin.torch_graph ? begin.key.substr(begin.key.find(':') + 1)
                                       : (closing != nullptr ? closing->text : "");
      region.handle = begin.torch_graph ? region.graph : executableOf(region.graph, span.end);
      region.span =
          source_.rangeOf(span.begin, closing != nullptr ? closing->event.range.end : span.end);
      region.function = id;
      span.index = static_cast<std::int32_t>(model_.regions.size());
      model_.regions.push_back(std::move(region));
      spans_.push_back(std::move(span));
    }
    for (const RawItem& item : items) {
      if (item.role == ItemRole::kCaptureEnd && matched_ends_.count(&item) == 0) {
        split_.closes = true;
      }
    }
  }

  // What a captured graph is launched by: the executable graph instantiated from it later in
  // the function, else the graph itself.
  std::string executableOf(const std::string& graph, std::uint32_t after) const {
    if (graph.empty()) return "";
    for (const RawItem& item : raw_.items) {
      if (item.role == ItemRole::kInstantiate && item.key == graph && offsetOf(item) > after &&
          !item.text.empty()) {
        return item.text;
      }
    }
    return graph;
  }

  // The innermost region holding an offset: the one that began last.
  Span* spanAt(std::uint32_t offset) {
    Span* found = nullptr;
    for (Span& span : spans_) {
      if (span.holds(offset) && (found == nullptr || span.begin > found->begin)) found = &span;
    }
    return found;
  }

  // The key a stream has inside a region: the capture stream's own key is kCaptureKey.
  static std::string keyIn(const Span& span, const StreamRef& stream) {
    const StreamRef& capture = span.capture;
    if (stream.kind == StreamKind::kTorchCurrent && capture.kind == StreamKind::kTorchCurrent) {
      return kCaptureKey;
    }
    if (stream.kind == StreamKind::kPerThreadDefault &&
        capture.kind == StreamKind::kPerThreadDefault) {
      return kCaptureKey;
    }
    if ((stream.kind == StreamKind::kNamed || stream.kind == StreamKind::kCreated) &&
        !stream.key.empty() && stream.key == capture.key) {
      return kCaptureKey;
    }
    if (stream.kind == StreamKind::kNamed || stream.kind == StreamKind::kCreated) {
      return stream.key;
    }
    return "";
  }

  static bool captureKnown(const Span& span) {
    StreamKind kind = span.capture.kind;
    return kind == StreamKind::kNamed || kind == StreamKind::kCreated ||
           kind == StreamKind::kTorchCurrent || kind == StreamKind::kPerThreadDefault;
  }

  // Why work on `stream` at `offset` escapes the capture, or "" when it does not (or when
  // too little is known to say).
  std::string escapeReason(const StreamRef& stream, Span* span) {
    std::string reason = describeDefault(stream);
    if (!reason.empty()) {
      if (span != nullptr && keyIn(*span, stream) == kCaptureKey) return "";
      return reason;
    }
    if (stream.kind != StreamKind::kNamed && stream.kind != StreamKind::kCreated) return "";
    if (span != nullptr) {
      std::string key = keyIn(*span, stream);
      if (key.empty() || key == kCaptureKey || span->forked.count(key) != 0) return "";
      if (!captureKnown(*span)) return "";
      bool created =
          stream.kind == StreamKind::kCreated || facts_.created_streams.count(stream.key) != 0;
      if (span->capture.kind == StreamKind::kTorchCurrent && !created) return "";
      std::string capture_name = span->capture.kind == StreamKind::kTorchCurrent
                                     ? std::string("the current stream")
                                     : "`" + span->capture.name + "`";
      return "stream `" + stream.name + "`, which is neither the capture stream (" + capture_name +
             ") nor forked from it";
    }
    // Outside any visible region, only a stream this function creates is known not to be the
    // capture stream of a caller, unless this function makes it wait on something first.
    if (stream.kind != StreamKind::kCreated || waited_.count(stream.key) != 0) return "";
    return "stream `" + stream.name +
           "`, created here and never made to wait on the current "
           "stream";
  }

  void pushStreamUse(const RawItem& item, std::string reason, Span* span) {
    Event use;
    use.kind = EventKind::kStreamUse;
    use.range = item.event.range;
    use.api = item.event.api;
    use.text = std::move(reason);
    use.region = span != nullptr ? span->index : -1;
    push(std::move(use));
  }

  // Device pointers the region's work reads that were bound before it: the names a graph keeps
  // the address of (CaptureRegion::inputs).
  void noteInputs(const RawItem& item, const Span* span) {
    if (span == nullptr) return;
    CaptureRegion& region = model_.regions[static_cast<std::size_t>(span->index)];
    for (std::size_t i = 0; i < item.event.args.size() && i < item.arg_paths.size(); ++i) {
      const std::string& name = item.arg_paths[i];
      if (name.empty() || item.event.args[i].kind != ValueKind::kTensor) continue;
      bool known = false;
      for (const RegionName& input : region.inputs) known = known || input.name == name;
      if (!known) region.inputs.push_back({name, item.event.range, item.event.args[i]});
    }
  }

  // The streams a call of the project's own function hands to its stream parameters: a default
  // stream (outside a capture on that very stream), or this function's own stream parameter.
  void noteHandoffs(const RawItem& item, Span* span) {
    for (const StreamArgument& argument : item.stream_args) {
      StreamHandoff handoff;
      handoff.call = static_cast<std::uint32_t>(events_.size());
      handoff.param = argument.param;
      handoff.param_name = argument.param_name;
      const StreamRef& stream = argument.stream;
      if (stream.kind == StreamKind::kNamed && stream.param >= 0) {
        handoff.from_param = stream.param;
      } else if (!argument.reaches.empty()) {
        // Decided in this unit (the launcher is in one of its headers): see pushHandedOff.
      } else if (span == nullptr || keyIn(*span, stream) != kCaptureKey) {
        handoff.escape = stream.defaulted ? describeLeftOut(stream, argument.param_name)
                                          : describeDefault(stream);
      }
      if (handoff.from_param >= 0 || !handoff.escape.empty()) {
        stream_handoffs_.push_back(std::move(handoff));
      }
    }
  }

  // Code outside a visible capture that has already called something a capture refuses
  // (cudaMalloc, a device synchronization) on every path to `item`, in this function: it cannot
  // run under a caller's capture without failing there first (GS401's error when a capture
  // reaches it, not a silent escape), so GS304 and GS301 have nothing to add for the work that
  // follows (a constructor's warmup: cudaMalloc, then cudaMemset).
  bool refusedBefore(const RawItem& item) const {
    const std::uint32_t at = offsetOf(item);
    for (const RawItem& earlier : raw_.items) {
      if (offsetOf(earlier) >= at) break;
      if (earlier.role != ItemRole::kEvent || earlier.event.kind != EventKind::kHostSync ||
          earlier.not_capturing) {
        continue;
      }
      if (contains(earlier.block_begin, earlier.block_end, at)) return true;
    }
    return false;
  }

  // A default stream handed to a launcher of this unit's headers whose parameter reaches work:
  // a stream use at the call, right after it.
  void pushHandedOff(const RawItem& call, const std::vector<StreamArgument>& arguments,
                     Span* span) {
    for (const StreamArgument& argument : arguments) {
      if (argument.reaches.empty()) continue;
      const StreamRef& stream = argument.stream;
      if (span != nullptr && keyIn(*span, stream) == kCaptureKey) continue;
      std::string escape =
          stream.defaulted ? describeLeftOut(stream, argument.param_name) : describeDefault(stream);
      if (escape.empty()) continue;
      pushStreamUse(call, streamThroughParameter(escape, argument.param_name, argument.reaches),
                    span);
    }
  }

  void push(Event event) {
    if (extension_code_) event.flags |= kFlagExtensionCode;
    events_.push_back(std::move(event));
  }

  // Host scalars an argument reads that change after the capture while the graph is launched.
  void classifyArguments(RawItem& item, const Span* span) {
    if (span == nullptr) return;
    const CaptureRegion& region = model_.regions[static_cast<std::size_t>(span->index)];
    if (region.kind != RegionKind::kStreamCapture && region.kind != RegionKind::kCaptureBeginEnd) {
      return;
    }
    if (refreshedAfter(*span)) return;
    for (std::size_t i = 0; i < item.event.args.size() && i < item.arg_vars.size(); ++i) {
      Value& value = item.event.args[i];
      if (value.kind != ValueKind::kUnknown) continue;
      for (const VarUse& use : item.arg_vars[i]) {
        if (isCacheKey(use.var)) continue;
        if (use.loop >= 0 && static_cast<std::size_t>(use.loop) < raw_.loops.size() &&
            capturedOnceIn(raw_.loops[static_cast<std::size_t>(use.loop)], *span) &&
            !launchedOnlyWhereCaptured(raw_.loops[static_cast<std::size_t>(use.loop)], *span)) {
          value.kind = ValueKind::kHostVarying;
          value.origin = ValueOrigin::kLoopVariable;
          break;
        }
        if (reassignedAfter(use.var, *span) || variesPerIteration(use.var, *span, 0)) {
          value.kind = ValueKind::kHostVarying;
          value.origin = ValueOrigin::kReassigned;
          break;
        }
      }
    }
  }

  // A call of a function of this unit that captures, taken as a capture made at the call: an
  // argument the callee copies into captured work, which varies while the caller launches the
  // graph afterwards (`if (exec == nullptr) capture(x, scale, &exec);` in a loop, or `scale`
  // assigned after the call and before a launch), is frozen at its value at the call.
  void noteCaptureThroughCall(const RawItem& call) {
    if (call.event.callee == kNoFunction || call.callee_key.empty() || call.functor) return;
    auto captured = facts_.captured_params.find(call.callee_key);
    if (captured == facts_.captured_params.end()) return;
    Span at;
    at.index = -2 - static_cast<std::int32_t>(spans_through_calls_++);
    at.begin = offsetOf(call);
    at.end = call.event.range.end;
    at.closed = true;
    at.block_begin = call.block_begin;
    at.block_end = call.block_end;
    for (std::size_t i = 0; i < call.arg_vars.size() && i < 64; ++i) {
      if ((captured->second & paramBit(i)) == 0) continue;
      const Value& passed = call.event.args[i];
      if (passed.kind != ValueKind::kUnknown && !passed.isHostVarying()) continue;
      for (const VarUse& use : call.arg_vars[i]) {
        if (isCacheKey(use.var)) continue;
        bool loop_variable =
            use.loop >= 0 && static_cast<std::size_t>(use.loop) < raw_.loops.size() &&
            capturedOnceIn(raw_.loops[static_cast<std::size_t>(use.loop)], at) &&
            launchedWithoutCapture(raw_.loops[static_cast<std::size_t>(use.loop)], at);
        if (loop_variable || reassignedAfter(use.var, at) || variesPerIteration(use.var, at, 0)) {
          Value value;
          value.kind = ValueKind::kHostVarying;
          value.origin = ValueOrigin::kLazyCaller;
          value.text = passed.text;
          varying_arguments_.push_back({call.event.callee, i, std::move(value)});
          break;
        }
      }
    }
  }

  // The variables with static storage that this function's captured copies read.
  const std::set<std::string>& staticSources() {
    if (!static_sources_) {
      static_sources_.emplace();
      for (const RawItem& item : raw_.items) {
        if (item.role == ItemRole::kStaticSource && spanAt(offsetOf(item)) != nullptr) {
          static_sources_->insert(item.key);
        }
      }
    }
    return *static_sources_;
  }

  // Is the capture made on one iteration of the innermost loop around it, and launched on the
  // others (CaptureRegion::lazy)?
  bool capturedLazily(const Span& span) const {
    const RawLoop* innermost = nullptr;
    for (const RawLoop& loop : raw_.loops) {
      if (!contains(loop.begin, loop.end, span.begin)) continue;
      if (innermost == nullptr || loop.end - loop.begin < innermost->end - innermost->begin) {
        innermost = &loop;
      }
    }
    return innermost != nullptr && capturedOnceIn(*innermost, span) &&
           launchedWithoutCapture(*innermost, span);
  }

  // A loop that holds the capture but does not run it on every iteration (it sits in a nested
  // block: `if (!captured) { ... }`): later iterations launch what the first one captured.
  static bool capturedOnceIn(const RawLoop& loop, const Span& span) {
    if (!contains(loop.begin, loop.end, span.begin)) return false;
    return !(span.block_begin == loop.body_begin && span.block_end == loop.body_end);
  }

  // The program gives the executable graph new node parameters (cudaGraphExecUpdate,
  // cudaGraphExecKernelNodeSetParams...) after the capture, or in a loop around it: which values
  // that refreshes is not known, so none is called frozen.
  bool refreshedAfter(const Span& span) const {
    const std::string& handle = model_.regions[static_cast<std::size_t>(span.index)].handle;
    for (const RawItem& update : raw_.items) {
      if (update.role != ItemRole::kExecUpdate) continue;
      if (!update.key.empty() && !handle.empty() && update.key != handle) continue;
      std::uint32_t at = offsetOf(update);
      if (at > span.end) return true;
      for (const RawLoop& loop : raw_.loops) {
        if (capturedOnceIn(loop, span) && contains(loop.begin, loop.end, at) &&
            !contains(span.block_begin, span.block_end, at)) {
          return true;
        }
      }
    }
    return false;
  }

  // A launch in the loop outside the block that captures: iterations that skip the capture
  // launch what an earlier one captured.
  bool launchedWithoutCapture(const RawLoop& loop, const Span& span) const {
    for (const RawItem& launch : raw_.items) {
      if (launch.role != ItemRole::kEvent || launch.event.kind != EventKind::kReplay) continue;
      std::uint32_t at = offsetOf(launch);
      if (contains(loop.begin, loop.end, at) && !contains(span.block_begin, span.block_end, at)) {
        return true;
      }
    }
    return false;
  }

  // The loop launches the graph, but only in the block that captures it: each launch runs what
  // its own iteration captured (`if (graphed) { capture; instantiate; launch; }`).
  bool launchedOnlyWhereCaptured(const RawLoop& loop, const Span& span) const {
    if (launchedWithoutCapture(loop, span)) return false;
    for (const RawItem& launch : raw_.items) {
      if (launch.role == ItemRole::kEvent && launch.event.kind == EventKind::kReplay &&
          contains(span.block_begin, span.block_end, offsetOf(launch)) &&
          contains(loop.begin, loop.end, offsetOf(launch))) {
        return true;
      }
    }
    return false;
  }

  // An assignment in the loop body that runs on iterations that skip the capture: not in the
  // block that captures, nor in a block around it other than the loop body (`if (!exec) { f =
  // ...; if (ready) { capture } }` assigns only when it captures).
  static bool runsEveryIteration(const RawItem& assign, const RawLoop& loop, const Span& span) {
    std::uint32_t at = offsetOf(assign);
    if (!contains(loop.body_begin, loop.body_end, at)) return false;
    if (contains(span.block_begin, span.block_end, at)) return false;
    bool is_body = assign.block_begin == loop.body_begin && assign.block_end == loop.body_end;
    return is_body || !contains(assign.block_begin, assign.block_end, span.begin);
  }

  // Is `var` given a new value on the iterations of a loop that captures once and launches on
  // every iteration (a lazily instantiated graph: `if (exec == nullptr) { capture }`), from
  // something that changes between iterations: a loop variable, its own previous value (a
  // variable declared outside the loop body), or another variable that varies so? A value that
  // is the same on every iteration (`float f = 0.5f;` in the body) does not vary.
  // A variable that keys a map of executable graphs: each of its values has a graph of its own,
  // captured with it (a per-key cache), so it is the same on every launch of that graph.
  bool isCacheKey(std::uint64_t var) const {
    return std::find(raw_.cache_keys.begin(), raw_.cache_keys.end(), var) != raw_.cache_keys.end();
  }

  bool variesPerIteration(std::uint64_t var, const Span& span, int depth) const {
    if (var == 0 || !span.closed || depth > kMaxSourceDepth || isCacheKey(var)) return false;
    const auto key = std::make_pair(var, span.index);
    if (auto known = varies_.find(key); known != varies_.end()) return known->second;
    varies_[key] = false;  // while it is being decided: a cycle of assignments adds nothing
    const bool varies = assignedFromVaryingValue(var, span, depth);
    varies_[key] = varies;
    return varies;
  }

  bool assignedFromVaryingValue(std::uint64_t var, const Span& span, int depth) const {
    for (const RawLoop& loop : raw_.loops) {
      if (!capturedOnceIn(loop, span) || !launchedWithoutCapture(loop, span)) continue;
      bool fresh = false;  // declared in the body: a new variable every iteration
      for (const RawItem& item : raw_.items) {
        fresh = fresh || (item.role == ItemRole::kAssign && item.var == var && item.declaration &&
                          contains(loop.body_begin, loop.body_end, offsetOf(item)));
      }
      for (const RawItem& assign : raw_.items) {
        if (assign.role != ItemRole::kAssign || assign.var != var ||
            !runsEveryIteration(assign, loop, span)) {
          continue;
        }
        for (const VarUse& source : assign.sources) {
          if (isCacheKey(source.var)) continue;
          if (source.var == var) {
            if (!fresh) return true;
            continue;
          }
          if (source.loop >= 0 && static_cast<std::size_t>(source.loop) < raw_.loops.size() &&
              capturedOnceIn(raw_.loops[static_cast<std::size_t>(source.loop)], span)) {
            return true;
          }
          if (reassignedAfter(source.var, span) ||
              variesPerIteration(source.var, span, depth + 1)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  // Is `var` assigned after the capture ended and before a later graph launch of this function
  // (or in a loop that also launches, and does not capture again on every iteration)?
  bool reassignedAfter(std::uint64_t var, const Span& span) const {
    if (var == 0 || !span.closed || isCacheKey(var)) return false;
    for (const RawItem& assign : raw_.items) {
      if (assign.role != ItemRole::kAssign || assign.var != var) continue;
      std::uint32_t at = offsetOf(assign);
      if (at <= span.end) continue;
      for (const RawItem& launch : raw_.items) {
        if (launch.role != ItemRole::kEvent || launch.event.kind != EventKind::kReplay) continue;
        std::uint32_t replay = offsetOf(launch);
        if (replay <= span.end) continue;
        if (replay > at) return true;
        for (const RawLoop& loop : raw_.loops) {
          if (contains(loop.begin, loop.end, at) && contains(loop.begin, loop.end, replay) &&
              (!contains(loop.begin, loop.end, span.begin) || capturedOnceIn(loop, span))) {
            return true;
          }
        }
      }
    }
    return false;
  }

  void lowerItem(RawItem& item) {
    std::uint32_t offset = offsetOf(item);
    Span* span = spanAt(offset);
    item.event.region = span != nullptr ? span->index : -1;
    // Code that runs only when the stream is not capturing does not run under a caller's capture.
    if (item.not_capturing && span == nullptr &&
        (item.role == ItemRole::kEvent || item.role == ItemRole::kWork ||
         item.role == ItemRole::kHandleUse || item.role == ItemRole::kHostWrite)) {
      return;
    }
    switch (item.role) {
      case ItemRole::kEvent: {
        if (item.event.kind == EventKind::kCall && !item.callee_key.empty()) {
          auto it = facts_.functions.find(item.callee_key);
          if (it != facts_.functions.end()) item.event.callee = it->second;
        }
        RawItem handed_off;
        if (item.event.kind == EventKind::kCall) {
          classifyArguments(item, span);
          if (span == nullptr) noteCaptureThroughCall(item);
          noteInputs(item, span);
          noteHandoffs(item, span);
          handed_off.event.range = item.event.range;
          handed_off.event.api = item.event.api;
        }
        if (item.event.kind == EventKind::kStreamUse && span == nullptr && refusedBefore(item)) {
          break;
        }
        // A relaxed-mode capture permits allocating and freeing (only waiting is refused).
        if (item.event.kind == EventKind::kHostSync &&
            (item.event.flags & kFlagRelaxedPermits) != 0 && span != nullptr &&
            model_.regions[static_cast<std::size_t>(span->index)].mode == "relaxed") {
          break;
        }
        push(std::move(item.event));
        if (!item.stream_args.empty() && !(span == nullptr && refusedBefore(handed_off))) {
          pushHandedOff(handed_off, item.stream_args, span);
        }
        break;
      }
      case ItemRole::kWork: {
        classifyArguments(item, span);
        noteInputs(item, span);
        if (span == nullptr && item.stream.kind == StreamKind::kNamed && item.stream.param >= 0) {
          stream_params_.push_back(
              {static_cast<std::uint32_t>(item.stream.param), item.event.range, item.event.api});
        }
        std::string reason = escapeReason(item.stream, span);
        RawItem copy_for_use;
        copy_for_use.event.range = item.event.range;
        copy_for_use.event.api = item.event.api;
        const bool refused = span == nullptr && refusedBefore(item);
        push(std::move(item.event));
        if (!reason.empty() && !refused) pushStreamUse(copy_for_use, std::move(reason), span);
        break;
      }
      case ItemRole::kEventRecord: {
        std::string reason = escapeReason(item.stream, span);
        if (!reason.empty()) pushStreamUse(item, std::move(reason), span);
        if (span == nullptr) break;
        std::string key = keyIn(*span, item.stream);
        if (!key.empty() && (key == kCaptureKey || span->forked.count(key) != 0)) {
          span->recorded[item.key] = key;
          span->names[key] = item.stream.name;
        } else {
          span->recorded.erase(item.key);
        }
        break;
      }
      case ItemRole::kStreamWait: {
        if (!item.stream.key.empty()) waited_.insert(item.stream.key);
        if (span == nullptr) break;
        auto recorded = span->recorded.find(item.key);
        if (recorded == span->recorded.end()) break;
        std::string waiter = keyIn(*span, item.stream);
        if (waiter.empty()) break;
        Event event;
        event.range = item.event.range;
        event.api = item.event.api;
        event.text = item.event.text;
        event.region = span->index;
        if (waiter == kCaptureKey) {
          if (recorded->second == kCaptureKey) break;
          event.kind = EventKind::kStreamJoin;
          event.subject.text = span->names[recorded->second];
        } else {
          span->forked.insert(waiter);
          span->names[waiter] = item.stream.name;
          event.kind = EventKind::kStreamFork;
          event.subject.text = item.stream.name;
        }
        push(std::move(event));
        break;
      }
      case ItemRole::kHostWrite:
        if (facts_.pinned.count(item.key) != 0) {
          item.event.kind = EventKind::kHostBufferWrite;
          push(std::move(item.event));
        } else if (span == nullptr && staticSources().count(item.key) != 0) {
          item.event.kind = EventKind::kHostBufferWrite;
          item.event.flags |= kFlagStaticStorage;
          push(std::move(item.event));
        }
        break;
      case ItemRole::kStaticSource:
        break;
      case ItemRole::kHandleUse: {
        std::string handle = item.text;
        bool created = facts_.created_handles.count(item.key) != 0;
        auto set = facts_.handle_on_default.find(item.key);
        std::string reason;
        if (set != facts_.handle_on_default.end() && set->second) {
          reason = "the legacy default stream (library handle `" + handle +
                   "` is only ever set to a default stream)";
        } else if (created && set == facts_.handle_on_default.end()) {
          reason = "the legacy default stream (library handle `" + handle +
                   "` is never given a stream with cublasSetStream/cudnnSetStream)";
        }
        noteInputs(item, span);
        RawItem copy_for_use;
        copy_for_use.event.range = item.event.range;
        copy_for_use.event.api = item.event.api;
        push(std::move(item.event));
        if (!reason.empty()) pushStreamUse(copy_for_use, std::move(reason), span);
        break;
      }
      case ItemRole::kCaptureBegin:
      case ItemRole::kCaptureEnd:
      case ItemRole::kInstantiate:
      case ItemRole::kExecUpdate:
      case ItemRole::kStreamCreate:
      case ItemRole::kAssign:
      case ItemRole::kPinnedAlloc:
      case ItemRole::kHandleCreate:
      case ItemRole::kHandleStream:
        break;
    }
  }

  RawFunction& raw_;
  FileModel& model_;
  const SourceFile& source_;
  const UnitFacts& facts_;
  bool extension_code_;
  std::vector<VaryingArgument>& varying_arguments_;
  std::vector<Span> spans_;
  std::vector<Event> events_;
  std::vector<StreamParameterUse> stream_params_;
  std::vector<StreamHandoff> stream_handoffs_;
  std::set<std::string> waited_;  // streams made to wait on an event so far
  std::set<const RawItem*> matched_ends_;
  // variesPerIteration's answers, per variable and region (or call that captures: index < -1).
  mutable std::map<std::pair<std::uint64_t, std::int32_t>, bool> varies_;
  std::size_t spans_through_calls_ = 0;
  std::optional<std::set<std::string>> static_sources_;
  CaptureSplit split_;
};

}  // namespace

FileModel buildFileModel(RawTranslationUnit unit, const SourceFilePtr& source,
                         const AnalysisSettings& settings) {
  FileModel model;
  model.language = Language::kCuda;
  model.source = source;
  model.comments = std::move(unit.comments);
  model.notices = std::move(unit.notices);
  model.extension_code = unit.extension_code;
  model.cpp_aliases.assign(unit.cpp_aliases.begin(), unit.cpp_aliases.end());
  model.registered_ops.assign(unit.registered_ops.begin(), unit.registered_ops.end());

  UnitFacts facts = gatherFacts(unit);
  model.functions.reserve(unit.functions.size());
  std::vector<CaptureSplit> splits;
  splits.reserve(unit.functions.size());
  std::vector<VaryingArgument> varying_arguments;
  for (std::size_t f = 0; f < unit.functions.size(); ++f) {
    FunctionLowering lowering(unit.functions[f], model, facts, unit.extension_code,
                              varying_arguments);
    model.functions.push_back(lowering.lower(static_cast<FunctionId>(f)));
    splits.push_back(lowering.split());
  }
  // What the callers pass is what the callee's captures see (RegionWalker starts from these).
  for (const VaryingArgument& argument : varying_arguments) {
    for (CaptureRegion& region : model.regions) {
      if (region.function != argument.callee || region.whole_function) continue;
      std::size_t params = model.functions[argument.callee].params.size();
      if (argument.param >= params) continue;
      region.param_values.resize(params);
      if (region.param_values[argument.param].kind == ValueKind::kUnknown) {
        region.param_values[argument.param] = argument.value;
      }
    }
  }
  joinCapturesSplitAcrossCalls(model, splits);

  for (std::size_t f = 0; f < model.functions.size(); ++f) {
    const FunctionModel& function = model.functions[f];
    for (const std::string& entry : settings.capture_entry_points) {
      if (!cudaEntryPointMatches(entry, function.qualified_name, function.name)) continue;
      CaptureRegion region;
      region.kind = RegionKind::kEntryPoint;
      region.site = function.range;
      region.function = static_cast<FunctionId>(f);
      region.whole_function = true;
      model.regions.push_back(std::move(region));
      break;
    }
  }
  return model;
}

}  // namespace graphsafe::cuda
