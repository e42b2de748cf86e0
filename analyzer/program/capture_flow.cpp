#include "analyzer/program/capture_flow.h"

#include <algorithm>
#include <functional>

namespace graphsafe {

namespace {

// A handle is rarely stored under more names than this; the set stays small and bounded.
constexpr std::size_t kMaxHandles = 16;
constexpr int kMaxAliasRounds = 3;

std::string_view classOf(const FunctionModel& function) {
  if (!function.is_method) return {};
  std::string_view name = function.qualified_name;
  std::size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? std::string_view{} : name.substr(0, dot);
}

bool isSelfPath(std::string_view path) {
  return path.starts_with("self.");
}

std::string_view rootOf(std::string_view path) {
  return path.substr(0, path.find('.'));
}

// A C++ variable name as written: the only arguments whose flow is followed.
bool isIdentifier(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  });
}

bool isBodyRegion(const CaptureRegion& region) {
  return !region.whole_function;
}

// The innermost function whose definition holds `position`, other than `skip`.
const FunctionModel* innermostAt(const FileModel& file, std::uint32_t position,
                                 const FunctionModel* skip) {
  const FunctionModel* best = nullptr;
  for (const FunctionModel& function : file.functions) {
    if (&function == skip) continue;
    if (!function.is_module_level && !CaptureFlow::contains(function.body, position)) continue;
    if (best == nullptr || best->is_module_level ||
        (!function.is_module_level &&
         function.body.end - function.body.begin < best->body.end - best->body.begin)) {
      best = &function;
    }
  }
  return best;
}

}  // namespace

CaptureFlow::CaptureFlow(const FileModel& file)
    : file_(file), regions_(file.regions.size()), alias_events_(file.functions.size()) {
  // What every region's handle and replay search looks at, gathered once per file: a file with
  // many regions would otherwise scan all of its events once per region.
  for (std::size_t f = 0; f < file.functions.size(); ++f) {
    for (const Event& event : file.functions[f].events) {
      if (event.kind == EventKind::kReplay) replay_events_.push_back({&file.functions[f], &event});
      if ((event.kind == EventKind::kBind || event.kind == EventKind::kStore) &&
          !event.target.empty() && !event.source.empty()) {
        alias_events_[f].push_back(&event);
      }
    }
  }
  for (std::size_t r = 0; r < file.regions.size(); ++r) {
    const CaptureRegion& region = file.regions[r];
    RegionFlow& flow = regions_[r];
    const FunctionModel* target =
        region.function < file.functions.size() ? &file.functions[region.function] : nullptr;
    if (isBodyRegion(region)) {
      flow.home = target;
      flow.reader = target;
    } else {
      flow.global_handle = region.kind == RegionKind::kCompiled && target != nullptr &&
                           !region.handle.empty() && region.handle == target->qualified_name;
      // A decorator sits inside the definition it decorates: the capture's home is outside it.
      flow.home = innermostAt(file, region.site.begin, flow.global_handle ? target : nullptr);
      flow.reader = target;
    }
    flow.inputs = region.inputs;
    flow.span = region.span;
    if (file.language == Language::kCuda) collectCppFacts(r);
    collectHandles(r);
  }
  for (std::size_t r = 0; r < file.regions.size(); ++r) {
    collectReplays(r);
    if (file.language == Language::kCuda) collectCallers(r);
  }
}

std::string_view CaptureFlow::Caller::nameOf(std::string_view name) const {
  for (const auto& [param, path] : names) {
    if (param == name) return path;
  }
  return {};
}

namespace {

// `exec`, `&exec` or `*exec` -> `exec`; "" for any other argument.
std::string passedPath(std::string_view text) {
  while (!text.empty() && (text.front() == '&' || text.front() == '*')) text.remove_prefix(1);
  return isIdentifier(text) ? std::string(text) : std::string();
}

}  // namespace

void CaptureFlow::collectCallers(std::size_t r) {
  RegionFlow& flow = regions_[r];
  if (flow.home == nullptr || flow.home->is_module_level) return;
  auto home = static_cast<FunctionId>(flow.home - file_.functions.data());
  const std::string& handle = file_.regions[r].handle;
  for (const FunctionModel& function : file_.functions) {
    if (&function == flow.home) continue;
    for (const Event& call : function.events) {
      if (call.kind != EventKind::kCall || call.callee != home) continue;
      Caller caller;
      caller.function = &function;
      caller.call = &call;
      for (std::size_t i = 0; i < flow.home->params.size() && i < call.args.size(); ++i) {
        std::string path = passedPath(call.args[i].text);
        if (!path.empty()) caller.names.emplace_back(flow.home->params[i].name, std::move(path));
      }
      std::string_view launched = handle.empty() ? std::string_view{} : caller.nameOf(handle);
      for (const Event& event : function.events) {
        if (launched.empty() || event.kind != EventKind::kReplay) continue;
        bool later = event.range.begin >= call.range.end ||
                     commonLoop(function, event.range.begin, call.range.begin) != nullptr;
        if (later && target(event) == launched) caller.replays.push_back({&function, &event});
      }
      flow.callers.push_back(std::move(caller));
    }
  }
}

std::string_view CaptureFlow::target(const Event& event) const {
  if (!event.target.empty() || file_.language != Language::kCuda) return event.target;
  return event.subject.text;
}

void CaptureFlow::collectCppFacts(std::size_t r) {
  const CaptureRegion& region = file_.regions[r];
  RegionFlow& flow = regions_[r];
  flow.any_launch = region.handle.empty();
  if (flow.home == nullptr) return;
  // The capture's extent and the pointers its launches read, from the events it records.
  std::uint32_t end = std::max(region.site.end, flow.span.end);
  SourceRange last = region.site;
  for (const Event& event : flow.home->events) {
    if (event.region != static_cast<std::int32_t>(r)) continue;
    if (event.range.end > end) {
      end = event.range.end;
      last = event.range;
    }
    if (!region.inputs.empty()) continue;
    if (event.kind != EventKind::kTensorOp && event.kind != EventKind::kCall) continue;
    for (const Value& argument : event.args) {
      if (!argument.isTensor() || argument.text.empty()) continue;
      if (!isIdentifier(argument.text)) continue;
      bool known = false;
      for (const RegionName& input : flow.inputs) known = known || input.name == argument.text;
      if (!known) flow.inputs.push_back({argument.text, event.range, argument});
    }
  }
  if (flow.span.end == 0) {
    flow.span = region.site;
    flow.span.end = end;
    flow.span.stop = last.stop;
  }
}

bool CaptureFlow::bindsLocally(const FunctionModel& function, std::string_view name) {
  if (function.is_module_level) return false;
  for (const Parameter& parameter : function.params) {
    if (parameter.name == name) return true;
  }
  for (const Event& event : function.events) {
    if (event.kind == EventKind::kBind && event.target == name) return true;
  }
  return false;
}

bool CaptureFlow::sameScope(const FunctionModel& anchor, const FunctionModel& other,
                            std::string_view path) const {
  if (&anchor == &other) return true;
  if (file_.language == Language::kCuda) return false;
  if (isSelfPath(path)) {
    std::string_view owner = classOf(anchor);
    return !owner.empty() && owner == classOf(other);
  }
  std::string_view root = rootOf(path);
  if (!anchor.is_module_level && bindsLocally(anchor, root)) {
    // A local of the anchor: the same object in a function nested in it that does not bind the
    // name itself (a closure that replays the graph its enclosing function captured).
    return enclosedBy(other, anchor, root);
  }
  return other.is_module_level || !bindsLocally(other, root);
}

bool CaptureFlow::enclosedBy(const FunctionModel& inner, const FunctionModel& outer,
                             std::string_view name) const {
  const FunctionModel* function = &inner;
  // Nesting is as deep as the source's defs; the bound keeps a malformed parent chain finite.
  for (int depth = 0; depth < 64; ++depth) {
    if (function->is_module_level || bindsLocally(*function, name)) return false;
    if (function->parent >= file_.functions.size()) return false;
    const FunctionModel* parent = &file_.functions[function->parent];
    if (parent == &outer) return true;
    function = parent;
  }
  return false;
}

void CaptureFlow::collectHandles(std::size_t r) {
  const CaptureRegion& region = file_.regions[r];
  RegionFlow& flow = regions_[r];
  if (region.handle.empty()) return;
  flow.handles.push_back(region.handle);
  if (flow.home == nullptr || flow.global_handle) return;
  // `self.graphs[bs] = g` after the capture, `g = self.graphs[bs]` before it: the same graph.
  auto home = static_cast<std::size_t>(flow.home - file_.functions.data());
  if (home >= alias_events_.size()) return;
  for (int round = 0; round < kMaxAliasRounds; ++round) {
    bool grew = false;
    for (const Event* event : alias_events_[home]) {
      bool has_target = isHandle(r, event->target);
      bool has_source = isHandle(r, event->source);
      if (has_target == has_source || flow.handles.size() >= kMaxHandles) continue;
      flow.handles.push_back(has_target ? event->source : event->target);
      grew = true;
    }
    if (!grew) break;
  }
}

bool CaptureFlow::isHandle(std::size_t region, std::string_view path) const {
  const auto& handles = regions_[region].handles;
  return std::find(handles.begin(), handles.end(), path) != handles.end();
}

void CaptureFlow::collectReplays(std::size_t r) {
  RegionFlow& flow = regions_[r];
  if (flow.any_launch && flow.home != nullptr) {
    for (const Event& event : flow.home->events) {
      if (event.kind == EventKind::kReplay) flow.replays.push_back({flow.home, &event});
    }
    return;
  }
  if (flow.handles.empty()) return;
  const FunctionModel* anchor = flow.home != nullptr ? flow.home : flow.reader;
  auto visible = [&](const FunctionModel& function, std::string_view path) {
    return flow.global_handle || (anchor != nullptr && sameScope(*anchor, function, path));
  };
  for (const Site& site : replay_events_) {
    const FunctionModel& function = *site.function;
    const Event& event = *site.event;
    bool replays = isHandle(r, event.target) && visible(function, event.target);
    if (!replays && !function.is_module_level) {
      // g = self.graphs[bs]; g.replay(): a local alias of the handle.
      for (const Event& bind : function.events) {
        if (bind.range.begin >= event.range.begin) break;
        if (bind.kind == EventKind::kBind && bind.target == event.target && !bind.source.empty() &&
            isHandle(r, bind.source) && visible(function, bind.source)) {
          replays = true;
        }
      }
    }
    if (replays) flow.replays.push_back(site);
  }
}

bool CaptureFlow::afterCapture(std::size_t region, const FunctionModel& function,
                               std::uint32_t position) const {
  if (&function != regions_[region].home) return true;
  return position >= regions_[region].span.end;
}

bool CaptureFlow::recapturedBetween(std::size_t region, const FunctionModel& function,
                                    std::uint32_t from, std::uint32_t to) const {
  for (std::size_t other = 0; other < file_.regions.size(); ++other) {
    if (other == region || regions_[other].home != &function) continue;
    const CaptureRegion& capture = file_.regions[other];
    if (capture.handle.empty() || !isHandle(region, capture.handle)) continue;
    if (regions_[other].span.begin > from && regions_[other].span.begin < to) return true;
  }
  return false;
}

const SourceRange* CaptureFlow::commonLoop(const FunctionModel& function, std::uint32_t a,
                                           std::uint32_t b) {
  const SourceRange* best = nullptr;
  for (const SourceRange& loop : function.loops) {
    if (!contains(loop, a) || !contains(loop, b)) continue;
    if (best == nullptr || loop.end - loop.begin < best->end - best->begin) best = &loop;
  }
  return best;
}

bool CaptureFlow::capturesEveryIteration(std::size_t region, const SourceRange& loop) const {
  if (!contains(loop, regions_[region].span.begin)) return false;
  const CaptureRegion& capture = file_.regions[region];
  // C++ under a lazy guard in the loop: one iteration captures, the others launch.
  if (file_.language == Language::kCuda) return !capture.lazy;
  // Python: a lazy guard, or any conditional inside the loop around the capture (`if step ==
  // 0:`), captures on some iterations only.
  if (capture.lazy) return false;
  return !(capture.guard.end > capture.guard.begin && contains(loop, capture.guard.begin));
}

const CaptureFlow::Site* CaptureFlow::replayAfter(std::size_t region, const FunctionModel& function,
                                                  std::uint32_t position) const {
  bool home = &function == regions_[region].home;
  for (const Site& site : regions_[region].replays) {
    if (site.function != &function) continue;
    std::uint32_t replay = site.event->range.begin;
    if (replay > position) {
      if (!recapturedBetween(region, function, position, replay)) return &site;
      continue;
    }
    const SourceRange* loop = commonLoop(function, position, replay);
    if (loop == nullptr) continue;
    if (home && capturesEveryIteration(region, *loop)) continue;
    return &site;
  }
  return nullptr;
}

const CaptureFlow::Site* CaptureFlow::replayBefore(std::size_t region,
                                                   const FunctionModel& function,
                                                   std::uint32_t position) const {
  bool home = &function == regions_[region].home;
  for (const Site& site : regions_[region].replays) {
    if (site.function != &function) continue;
    std::uint32_t replay = site.event->range.begin;
    if (replay < position && afterCapture(region, function, replay)) return &site;
    const SourceRange* loop = commonLoop(function, position, replay);
    if (loop == nullptr) continue;
    if (home && capturesEveryIteration(region, *loop)) continue;
    return &site;
  }
  return nullptr;
}

const ContextBlock* CaptureFlow::blockAround(const FunctionModel& function, ContextBlock::Kind kind,
                                             std::uint32_t position) {
  const ContextBlock* best = nullptr;
  for (const ContextBlock& block : function.contexts) {
    if (block.kind != kind || block.site.begin > position || !contains(block.span, position)) {
      continue;
    }
    if (best == nullptr || block.span.begin >= best->span.begin) best = &block;
  }
  return best;
}

bool CaptureFlow::waitsBetween(const FunctionModel& function, std::uint32_t from, std::uint32_t to,
                               bool stream_waits) const {
  if (stream_waits) {
    for (const ContextBlock& block : function.contexts) {
      if (block.kind == ContextBlock::Kind::kStreamWait && block.site.begin >= from &&
          block.site.begin < to) {
        return true;
      }
    }
  }
  for (const Event& event : function.events) {
    if (event.range.begin < from || event.range.begin >= to) continue;
    if (event.kind == EventKind::kHostSync) return true;
    // A torch.nn module call runs no code of the program.
    if (event.kind != EventKind::kCall || (event.flags & kFlagReadsWeights) != 0) continue;
    if (event.callee >= file_.functions.size()) {
      if (!event.callee_qualified.empty()) return true;  // another file's: it may wait
      continue;
    }
    const FunctionModel& callee = file_.functions[event.callee];
    if (stream_waits && !callee.contexts.empty()) return true;
    for (const Event& inner : callee.events) {
      if (inner.kind == EventKind::kHostSync || inner.kind == EventKind::kCall) return true;
    }
  }
  return false;
}

const FunctionModel* CaptureFlow::functionOf(const Event& event) const {
  for (const FunctionModel& function : file_.functions) {
    if (function.events.empty()) continue;
    const Event* first = function.events.data();
    const Event* last = first + function.events.size();
    if (!std::less<const Event*>()(&event, first) && std::less<const Event*>()(&event, last)) {
      return &function;
    }
  }
  return nullptr;
}

}  // namespace graphsafe
