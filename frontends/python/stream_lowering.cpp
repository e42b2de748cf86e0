// Streams under capture, for GS301 and GS302:
//   kStreamFork  a side stream made to wait on the capture stream: side.wait_stream(
//                torch.cuda.current_stream()), or side.wait_event(e) for an event recorded on it
//   kStreamJoin  the capture stream made to wait on a side stream: torch.cuda.current_stream()
//                .wait_stream(side), or .wait_event(e) for an event recorded on the side stream
//   kStreamUse   work placed on a stream outside the capture: `with torch.cuda.stream(s)` or
//                torch.cuda.set_stream(s) where s is torch.cuda.default_stream(), or a stream
//                made with torch.cuda.Stream() that nothing forked from the capture stream
// Streams and events are matched by their source text ("self.side", "helper_stream"); a stream
// whose role is not known (a parameter, an attribute of unknown origin) is never reported.
#include "frontends/python/function_lowering.h"

namespace graphsafe::python {

namespace {

bool mentionsEvent(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return lower.find("event") != std::string::npos;
}

}  // namespace

bool FunctionLowering::isCaptureStream(const ExprInfo& info, TSNode node) const {
  if (info.stream == StreamRole::kCurrent) return true;
  std::int32_t region = currentRegion();
  if (region < 0 || isNull(node)) return false;
  // torch.cuda.graph(g, stream=s): s is the capture stream.
  const std::string& capture = file_.model.regions[static_cast<std::size_t>(region)].stream;
  return !capture.empty() && capture == file_.text.brief(node);
}

bool FunctionLowering::isForked(std::string_view name) const {
  for (const StreamFact& fact : host_.forked) {
    if (fact.name == name && fact.region == currentRegion()) return true;
  }
  return false;
}

void FunctionLowering::emitStreamEvent(EventKind kind, TSNode call, std::string api,
                                       std::string stream) {
  if (kind == EventKind::kStreamFork) host_.forked.push_back({stream, currentRegion(), {}});
  if (quiet()) return;
  Event& event = emit(kind, call);
  event.api = std::move(api);
  event.text = file_.text.brief(call);
  event.subject.text = std::move(stream);
}

void FunctionLowering::streamContext(TSNode site, const Arguments& arguments) {
  const ExprInfo* stream = arguments.find("stream", 0);
  TSNode node = arguments.syntax.find("stream", 0);
  if (stream == nullptr || isNull(node) || quiet()) return;
  std::string name = file_.text.brief(node);
  std::string where;
  if (stream->stream == StreamRole::kDefault) {
    where = "the default stream (`" + name + "`)";
    name.clear();
  } else if (stream->stream == StreamRole::kCreated && !isCaptureStream(*stream, node) &&
             !isForked(name)) {
    where = "side stream `" + name + "`, never forked from the capture stream (no `" + name +
            ".wait_stream(torch.cuda.current_stream())` before it)";
  } else if (stream->stream == StreamRole::kUnknown && stream->ref != kNoRef &&
             !isCaptureStream(*stream, node) && !isForked(name)) {
    // A stream this file cannot place (a parameter, an attribute set in another file): the
    // program model may know what made it; `text` stays empty for the check to fill in.
    Event& event = emit(EventKind::kStreamUse, site);
    event.subject.text = std::move(name);
    event.operand = stream->ref;
    return;
  } else {
    return;
  }
  Event& event = emit(EventKind::kStreamUse, site);
  event.text = std::move(where);
  event.subject.text = std::move(name);
}

bool FunctionLowering::lowerStreamMethod(const Callee& callee, TSNode call,
                                         const Arguments& arguments) {
  std::string_view name = callee.name;
  const ExprInfo& receiver = callee.receiver;
  if (name == "wait_stream") {
    const ExprInfo* other = arguments.find("stream", 0);
    TSNode other_node = arguments.syntax.find("stream", 0);
    noteStreamWait(callee, call, other_node);
    if (other == nullptr || isNull(other_node)) return true;
    std::string waiter = file_.text.brief(callee.receiver_node);
    std::string waited = file_.text.brief(other_node);
    bool waiter_captures = isCaptureStream(receiver, callee.receiver_node);
    bool waited_captures = isCaptureStream(*other, other_node);
    if (waited_captures && !waiter_captures) {
      emitStreamEvent(EventKind::kStreamFork, call, "torch.cuda.Stream.wait_stream", waiter);
    } else if (waiter_captures && !waited_captures) {
      emitStreamEvent(EventKind::kStreamJoin, call, "torch.cuda.Stream.wait_stream", waited);
    } else if (isForked(waited)) {
      if (receiver.stream == StreamRole::kCreated) {
        // Forked from a stream that is itself forked: part of the capture too.
        emitStreamEvent(EventKind::kStreamFork, call, "torch.cuda.Stream.wait_stream", waiter);
      } else {
        // `stream.wait_stream(internal)` with the caller's stream as a parameter: a join.
        emitStreamEvent(EventKind::kStreamJoin, call, "torch.cuda.Stream.wait_stream", waited);
      }
    } else if (other->stream == StreamRole::kUnknown && !isForked(waiter)) {
      // Made to wait on a stream we cannot place (a parameter, usually the caller's stream):
      // not reported as outside the capture, and no fork is claimed that would need a join.
      host_.forked.push_back({waiter, currentRegion(), {}});
    }
    return true;
  }
  if (name == "wait_event") {
    TSNode event_node = arguments.syntax.find("event", 0);
    noteStreamWait(callee, call, event_node);
    if (isNull(event_node)) return true;
    std::string event_name = file_.text.brief(event_node);
    const StreamFact* recorded = nullptr;
    for (auto it = host_.recorded.rbegin(); it != host_.recorded.rend(); ++it) {
      if (it->name == event_name) {
        recorded = &*it;
        break;
      }
    }
    std::string waiter = file_.text.brief(callee.receiver_node);
    if (!isCaptureStream(receiver, callee.receiver_node)) {
      if (recorded != nullptr && recorded->stream.empty()) {
        emitStreamEvent(EventKind::kStreamFork, call, "torch.cuda.Stream.wait_event", waiter);
      } else if (recorded == nullptr) {
        // An event recorded where we cannot see: the stream may well be forked, so it is not
        // reported as outside the capture, and no fork is claimed that would need a join.
        host_.forked.push_back({waiter, currentRegion(), {}});
      }
    } else if (recorded != nullptr && !recorded->stream.empty()) {
      emitStreamEvent(EventKind::kStreamJoin, call, "torch.cuda.Stream.wait_event",
                      recorded->stream);
    } else if (recorded == nullptr) {
      // The capture stream waits on an event we cannot place: it may join any forked stream.
      std::vector<std::string> forked;
      for (const StreamFact& fact : host_.forked) {
        if (fact.region == currentRegion()) forked.push_back(fact.name);
      }
      for (std::string& stream : forked) {
        emitStreamEvent(EventKind::kStreamJoin, call, "torch.cuda.Stream.wait_event",
                        std::move(stream));
      }
    }
    return true;
  }
  if (name == "record_event") {
    // s.record_event(e): e now marks the work queued on s so far.
    TSNode event_node = arguments.syntax.find("event", 0);
    if (isNull(event_node)) return true;
    std::string stream = isCaptureStream(receiver, callee.receiver_node)
                             ? std::string()
                             : file_.text.brief(callee.receiver_node);
    host_.recorded.push_back({file_.text.brief(event_node), currentRegion(), std::move(stream)});
    return true;
  }
  if (name == "record" &&
      (receiver.object == ObjectKind::kEvent || mentionsEvent(textOf(callee.receiver_node)))) {
    // e.record(s), or e.record() on the current stream (the one a `with torch.cuda.stream(s)`
    // block around it selects).
    const ExprInfo* stream = arguments.find("stream", 0);
    TSNode stream_node = arguments.syntax.find("stream", 0);
    std::string on;
    if (stream != nullptr && !isNull(stream_node)) {
      if (!isCaptureStream(*stream, stream_node)) on = file_.text.brief(stream_node);
    } else if (!stream_stack_.empty() && !stream_stack_.back().empty()) {
      on = std::string(stream_stack_.back());
    }
    host_.recorded.push_back(
        {file_.text.brief(callee.receiver_node), currentRegion(), std::move(on)});
    return true;
  }
  return false;
}

}  // namespace graphsafe::python
