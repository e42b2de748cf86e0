#pragma once

// Ordering questions about one file's flow between capture and replay, in the manner of
// clang-tidy's UseAfterMove: a region was captured, then something happened to a name it reads
// (rebound, deleted) or to a value it wrote (kept), then the region was replayed. "Then" is
// straight-line order in one function, or the next iteration of a loop that holds both events
// but not the capture (a capture inside the loop records a new graph every iteration).
//
// A region is replayed through its handle: the graph object (`g.replay()`), the variable bound
// to its graphed or compiled callable (`step(x)`), or the paths the handle was stored in or
// taken from in the capturing function (`self.graphs[bs] = g`, `g = self.graphs[bs]`). A path
// means the same object in two functions when it is `self.<attr>` in methods of one class, the
// same local in one function, or a module-level name in functions that do not bind it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe {

class CaptureFlow {
 public:
  struct Site {
    const FunctionModel* function = nullptr;
    const Event* event = nullptr;
  };

  explicit CaptureFlow(const FileModel& file);

  const FileModel& file() const { return file_; }

  // The function whose code performs the capture: a body region's function; for a callable
  // region, the innermost function whose body holds its site (where torch.compile or
  // make_graphed_callables is called, or the decorated definition). Null when unknown.
  const FunctionModel* home(std::size_t region) const { return regions_[region].home; }
  // The function whose names the region's inputs are: the home of a body region, the captured
  // function itself for a callable region.
  const FunctionModel* reader(std::size_t region) const { return regions_[region].reader; }
  // The paths the region is replayed by.
  const std::vector<std::string>& handles(std::size_t region) const {
    return regions_[region].handles;
  }
  // Every replay of the region in this file.
  const std::vector<Site>& replays(std::size_t region) const { return regions_[region].replays; }
  // The names the region reads from outside it: the model's, or for C++ (whose frontend does not
  // list them) the pointer variables its launches take.
  const std::vector<RegionName>& inputs(std::size_t region) const {
    return regions_[region].inputs;
  }
  // C++: a call of the region's home function from another function of this file, and how the
  // caller names what the home takes as parameters (the argument at the call, when it is a
  // variable or its address: `capture(staging, &exec)`). A helper that captures into `*exec` is
  // replayed where its caller launches `exec`.
  struct Caller {
    const FunctionModel* function = nullptr;
    const Event* call = nullptr;
    std::vector<std::pair<std::string, std::string>> names;  // home parameter -> caller's path
    std::vector<Site> replays;  // the caller's launches of the region's executable, after the call
    // The caller's path for the home's parameter `name`, or "" when it was not passed as one.
    std::string_view nameOf(std::string_view name) const;
  };
  const std::vector<Caller>& callers(std::size_t region) const { return regions_[region].callers; }
  // From the capture's start to its end (for C++: to its last recorded event).
  const SourceRange& span(std::size_t region) const { return regions_[region].span; }
  // The path an event binds, stores into, frees, updates or replays (C++ events name it in the
  // subject's text).
  std::string_view target(const Event& event) const;

  // Does `path` name the same object in `other` as in `anchor`?
  bool sameScope(const FunctionModel& anchor, const FunctionModel& other,
                 std::string_view path) const;
  // Does `function` bind `name` itself (a parameter, or an assignment to it)?
  static bool bindsLocally(const FunctionModel& function, std::string_view name);
  // Is `inner` defined inside `outer`, seeing `outer`'s `name` (no function on the way binds
  // it)?
  bool enclosedBy(const FunctionModel& inner, const FunctionModel& outer,
                  std::string_view name) const;

  // A replay of the region in `function` that runs after the code at byte `position` (and that
  // code runs after the capture): later in the function with no new capture of the region in
  // between, or in a later iteration of a loop that holds both and does not capture again.
  const Site* replayAfter(std::size_t region, const FunctionModel& function,
                          std::uint32_t position) const;
  // A replay of the region in `function` that ran before the code at `position`, after the
  // capture: earlier in the function, or in an earlier iteration of a loop holding both.
  const Site* replayBefore(std::size_t region, const FunctionModel& function,
                           std::uint32_t position) const;

  // Is `position` after the region's capture, as seen from `function`? In the home function:
  // after the capture's end. In any other function: always (the capture is assumed to have run
  // first, as in a runner class that captures in one method and replays in another).
  bool afterCapture(std::size_t region, const FunctionModel& function,
                    std::uint32_t position) const;

  // Does every iteration of `loop` (of the region's home) capture the region anew? Not when the
  // loop does not hold the capture, nor for a C++ capture under a lazy guard in it.
  bool capturesEveryIteration(std::size_t region, const SourceRange& loop) const;

  // The innermost loop of `function` that holds both positions, or null.
  static const SourceRange* commonLoop(const FunctionModel& function, std::uint32_t a,
                                       std::uint32_t b);
  static bool contains(const SourceRange& range, std::uint32_t position) {
    return range.begin <= position && position < range.end;
  }

  // The innermost `with` block of `kind` (autocast, stream) of `function` around `position`.
  static const ContextBlock* blockAround(const FunctionModel& function, ContextBlock::Kind kind,
                                         std::uint32_t position);
  // Does the host wait for queued GPU work between the positions of `function` (a host
  // synchronization, or a call of a function that may do one: another file's, or one of this
  // file that synchronizes or calls further)? With `stream_waits`, a stream made to wait on
  // another stream or an event counts too.
  bool waitsBetween(const FunctionModel& function, std::uint32_t from, std::uint32_t to,
                    bool stream_waits) const;

  // The function of this file whose events include `event`, or null.
  const FunctionModel* functionOf(const Event& event) const;

 private:
  struct RegionFlow {
    const FunctionModel* home = nullptr;
    const FunctionModel* reader = nullptr;
    std::vector<std::string> handles;
    std::vector<Site> replays;
    std::vector<RegionName> inputs;
    std::vector<Caller> callers;
    SourceRange span;
    bool global_handle = false;  // a decorated function's name: every call replays it
    bool any_launch = false;     // C++ without a handle: every launch in its function replays it
  };

  void collectHandles(std::size_t region);
  void collectCppFacts(std::size_t region);
  void collectReplays(std::size_t region);
  void collectCallers(std::size_t region);
  bool isHandle(std::size_t region, std::string_view path) const;
  bool recapturedBetween(std::size_t region, const FunctionModel& function, std::uint32_t from,
                         std::uint32_t to) const;

  const FileModel& file_;
  std::vector<RegionFlow> regions_;
  // Every replay in the file, in function and event order.
  std::vector<Site> replay_events_;
  // Per function (as indexed in the file): its binds and stores that copy one path to another.
  std::vector<std::vector<const Event*>> alias_events_;
};

}  // namespace graphsafe
