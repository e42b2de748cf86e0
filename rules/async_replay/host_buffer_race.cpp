// GS501 host-buffer-race: a pinned host buffer that a capture reads is written by the CPU after a
// replay, with nothing making the CPU wait for that replay. replay() only enqueues the graph; the
// captured copy reads the pinned buffer when the copy engine gets to it, so a write right after
// the replay (or in the next iteration of the replay loop, before the replay) can land before the
// copy and the replay reads the newer value.
//
// Pinned buffers are names bound to `pin_memory=True` factories or `.pin_memory()` results
// (kFlagPinnedHost) in the capturing function or at module level; the capture reads them through
// its own body or a call it makes. A write is an in-place update of the name (fill_, copy_, slice
// assignment). In between the replay and the write, any host synchronization (an event's or a
// stream's synchronize(), torch.cuda.synchronize(), .item()) or a call into code that may
// synchronize orders them, and the write is not reported.
//
// C++: buffers from cudaMallocHost / cudaHostAlloc, written through the pointer
// (`host_in[0] = v`, memcpy into it: kHostBufferWrite, which the frontend records for pinned
// buffers only, and for the parameters that calls of this unit pass them to), after
// cudaGraphLaunch with no cudaStreamSynchronize / cudaEventSynchronize / cudaDeviceSynchronize in
// between. A helper that captures from its parameter and instantiates into `*exec` is checked in
// each caller that launches `exec`, under the caller's names.
#include <set>
#include <string>

#include "analyzer/engine/check.h"
#include "analyzer/program/capture_flow.h"

namespace graphsafe {

namespace {

// The name's last binding in `function` before `position` (any binding when `position` is 0).
const Event* lastBinding(const FunctionModel& function, const std::string& name,
                         std::uint32_t position) {
  const Event* last = nullptr;
  for (const Event& event : function.events) {
    if (position != 0 && event.range.begin >= position) break;
    if (event.kind == EventKind::kBind && event.target == name) last = &event;
  }
  return last;
}

class HostBufferRaceCheck final : public Check {
 public:
  std::string_view id() const override { return "GS501"; }

  void checkFile(const FileModel& file, const ProgramModel& /*program*/,
                 DiagnosticSink& sink) const override {
    if (file.regions.empty() || !anyHostBuffer(file)) return;
    CaptureFlow flow(file);
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      const CaptureRegion& region = file.regions[r];
      const FunctionModel* home = flow.home(r);
      if (region.whole_function || home == nullptr) continue;
      if (file.language == Language::kCuda) checkSharedStatic(flow, r, sink);
      for (const RegionName& input : flow.inputs(r)) {
        if (input.name.find('.') != std::string::npos) continue;
        if (pinned(file, *home, input.name, flow.span(r).begin)) {
          for (const CaptureFlow::Site& replay : flow.replays(r)) {
            const FunctionModel& function = *replay.function;
            if (!flow.sameScope(*home, function, input.name)) continue;
            if (!flow.afterCapture(r, function, replay.event->range.begin)) continue;
            checkWrites(flow, r, {input.name, input.name, &function == home, 0, nullptr}, replay,
                        sink);
          }
        }
        // A helper that captures from its parameter, replayed where its caller launches the
        // executable it instantiated (`capture(staging, &exec); ... cudaGraphLaunch(exec, s)`).
        for (const CaptureFlow::Caller& caller : flow.callers(r)) {
          std::string name(caller.nameOf(input.name));
          if (name.empty() || !pinned(file, *caller.function, name, 0)) continue;
          for (const CaptureFlow::Site& replay : caller.replays) {
            checkWrites(flow, r, {name, input.name, false, caller.call->range.begin, caller.call},
                        replay, sink);
          }
        }
      }
    }
  }

 private:
  // A pinned host tensor bound in the file, or a host buffer written (C++): without one, no input
  // of any region can be one, and the per-input search is skipped.
  static bool anyHostBuffer(const FileModel& file) {
    for (const FunctionModel& function : file.functions) {
      for (const Event& event : function.events) {
        if (event.kind == EventKind::kHostBufferWrite ||
            (event.kind == EventKind::kBind && (event.flags & kFlagPinnedHost) != 0)) {
          return true;
        }
      }
    }
    return false;
  }

  // Is `name`, as `function` sees it, a pinned host tensor? For C++, a pinned buffer `function`
  // writes (the frontend records writes of pinned buffers only).
  static bool pinned(const FileModel& file, const FunctionModel& function, const std::string& name,
                     std::uint32_t capture) {
    if (file.language == Language::kCuda) {
      for (const Event& event : function.events) {
        if (event.kind == EventKind::kHostBufferWrite && event.target == name &&
            (event.flags & kFlagStaticStorage) == 0) {
          return true;
        }
      }
      return false;
    }
    const Event* bind = lastBinding(function, name, capture);
    if (bind == nullptr && !function.is_module_level &&
        !CaptureFlow::bindsLocally(function, name)) {
      for (const FunctionModel& other : file.functions) {
        if (other.is_module_level) bind = lastBinding(other, name, 0);
      }
    }
    return bind != nullptr && (bind->flags & kFlagPinnedHost) != 0;
  }

  // C++: static storage (a `static` local or a global) that the capture copies from, written
  // before the capture by the function that captures, which captures again and keeps each graph
  // (an element per iteration of a loop, or per call: `capture(b, &execs[b])`). The copy node
  // reads the variable when a graph is launched, so every graph kept replays the values written
  // for the last capture, not its own.
  static void checkSharedStatic(const CaptureFlow& flow, std::size_t r, DiagnosticSink& sink) {
    const FileModel& file = flow.file();
    const CaptureRegion& region = file.regions[r];
    const FunctionModel& home = *flow.home(r);
    const std::uint32_t capture = flow.span(r).begin;
    SourceRange within = home.body;  // where a write is made anew for each graph
    std::string again = capturedAgain(flow, r, within);
    if (again.empty()) return;
    std::set<std::string> reported;
    for (const Event& write : home.events) {
      if (write.kind != EventKind::kHostBufferWrite || (write.flags & kFlagStaticStorage) == 0 ||
          write.range.begin >= capture || !CaptureFlow::contains(within, write.range.begin) ||
          !reported.insert(write.target).second) {
        continue;
      }
      std::string message =
          "`" + write.text + "` writes `" + write.target +
          "`, static storage that the CUDA graph captured at line " + lineOf(region.site) +
          " copies from: the copy reads it when the graph is launched, not when it is captured, "
          "and " +
          again +
          " writes it again for the next graph, so every graph kept replays "
          "with the values written for the last capture; give each graph its own buffer (an "
          "array indexed like the graphs) or pass the values as kernel arguments";
      std::vector<RelatedLocation> related;
      related.push_back({file.source, region.site,
                         "the graph copies from `" + write.target + "` here, at each launch"});
      sink.reportAt(file.source, write.range, std::move(message), std::move(related));
    }
  }

  // How the capture is made again with each graph kept, in a message's words, or "". For a loop
  // of the capturing function, `within` becomes the loop.
  static std::string capturedAgain(const CaptureFlow& flow, std::size_t r, SourceRange& within) {
    const CaptureRegion& region = flow.file().regions[r];
    const FunctionModel& home = *flow.home(r);
    const std::string& handle = region.handle;
    if (handle.empty()) return "";
    // A loop around the capture that captures every iteration into an element of its own.
    if (const SourceRange* loop =
            CaptureFlow::commonLoop(home, flow.span(r).begin, flow.span(r).begin);
        loop != nullptr && flow.capturesEveryIteration(r, *loop) &&
        handle.find('[') != std::string::npos) {
      within = *loop;
      return "each iteration of the loop at line " + lineOf(*loop);
    }
    // Calls that each keep their graph: in a loop, or more than one.
    std::int32_t out = -1;
    for (std::size_t i = 0; i < home.params.size(); ++i) {
      if (home.params[i].name == handle) out = static_cast<std::int32_t>(i);
    }
    const auto& callers = flow.callers(r);
    for (const CaptureFlow::Caller& caller : callers) {
      const Event& call = *caller.call;
      bool kept = handle.find('[') != std::string::npos ||
                  (out >= 0 && static_cast<std::size_t>(out) < call.args.size() &&
                   call.args[static_cast<std::size_t>(out)].text.find('[') != std::string::npos);
      if (!kept) continue;
      if (CaptureFlow::commonLoop(*caller.function, call.range.begin, call.range.begin) !=
              nullptr ||
          callers.size() > 1) {
        return "each call of `" + home.name + "` (line " + lineOf(call.range) + ")";
      }
    }
    return "";
  }

  // A pinned buffer as the replaying function sees it.
  struct Buffer {
    std::string name;     // in the replaying function
    std::string read_as;  // in the capture
    bool home;            // the replaying function is the one that captures
    std::uint32_t call;   // else where it calls the helper that captures (`through`), or 0
    const Event* through;
  };

  // The writes of the buffer in the replay's function that race the replay. A loop that captures
  // again every iteration has nothing to race.
  static void checkWrites(const CaptureFlow& flow, std::size_t r, const Buffer& buffer,
                          const CaptureFlow::Site& replay, DiagnosticSink& sink) {
    const std::string& name = buffer.name;
    const FunctionModel& function = *replay.function;
    std::uint32_t at = replay.event->range.begin;
    for (const Event& write : function.events) {
      bool writes =
          write.kind == EventKind::kInPlaceUpdate || write.kind == EventKind::kHostBufferWrite;
      if (!writes || write.target != name) continue;
      std::uint32_t w = write.range.begin;
      bool races = false;
      if (w > at) {
        // Straight after the replay.
        races = !flow.waitsBetween(function, at, w, false) && !rebound(function, name, at, w);
      } else if (const SourceRange* loop = CaptureFlow::commonLoop(function, w, at)) {
        // In the next iteration of a loop that replays after the write.
        bool recaptured = buffer.home
                              ? flow.capturesEveryIteration(r, *loop)
                              : buffer.call != 0 && CaptureFlow::contains(*loop, buffer.call);
        races = !recaptured && !flow.waitsBetween(function, at, loop->end, false) &&
                !flow.waitsBetween(function, loop->begin, w, false);
      }
      if (!races) continue;
      report(flow.file(), flow.file().regions[r], buffer, write, *replay.event, sink);
    }
  }

  static bool rebound(const FunctionModel& function, const std::string& name, std::uint32_t from,
                      std::uint32_t to) {
    for (const Event& event : function.events) {
      if (event.kind == EventKind::kBind && event.target == name && event.range.begin > from &&
          event.range.begin < to) {
        return true;
      }
    }
    return false;
  }

  static void report(const FileModel& file, const CaptureRegion& region, const Buffer& buffer,
                     const Event& write, const Event& replay, DiagnosticSink& sink) {
    const std::string& name = buffer.name;
    const Event* through = buffer.through;
    bool next = write.range.begin < replay.range.begin;
    std::string when =
        next ? "in the next iteration after the replay at line " : "after the replay at line ";
    std::string shown = write.text.starts_with(".") ? name + write.text : write.text;
    std::string captured = through != nullptr
                               ? "the CUDA graph that `" + through->text + "` at line " +
                                     lineOf(through->range) + " captures"
                               : "the CUDA graph captured at line " + lineOf(region.site);
    std::string message =
        "`" + shown + "` writes the pinned host buffer `" + name + "`, which " + captured +
        " copies from, " + when + lineOf(replay.range) +
        " with no event or stream synchronization in between: " +
        (file.language == Language::kCuda ? std::string("cudaGraphLaunch") : "replay()") +
        " only enqueues the graph, so the CPU may overwrite the buffer before the replay's copy "
        "has read it";
    std::vector<RelatedLocation> related;
    if (through != nullptr) {
      related.push_back(
          {file.source, through->range, "`" + name + "` is handed to the capture here"});
    }
    related.push_back({file.source, region.site, "the graph reads `" + buffer.read_as + "` here"});
    related.push_back({file.source, replay.range, "replayed here, without waiting"});
    sink.reportAt(file.source, write.range, std::move(message), std::move(related));
  }
};

}  // namespace

std::unique_ptr<Check> makeHostBufferRaceCheck() {
  return std::make_unique<HostBufferRaceCheck>();
}

}  // namespace graphsafe
