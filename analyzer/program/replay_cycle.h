#pragma once

// The replay cycle of a capture region: the code that runs after one replay of its graph and
// before the next, program-wide. A graph captured once and replayed many times sees, at every
// replay, what its capture read; whatever this code changes, the replays do not see.
//
// The cycle is made of spans of functions:
//   - a loop whose body replays the region (directly, or through calls of functions that do),
//     when the loop does not capture anew on every iteration: its whole body;
//   - every function that replays the region on each call (a replaying method, a lazily
//     capturing function after its first call) and the functions on the way from such a loop
//     to it: their whole bodies;
//   - in the capturing function itself, the code between the capture's end and a replay;
//   - what those spans call, a few calls deep;
//   - the methods of the capturing object's class, for writes through their own `self` only: a
//     runner's setters are called between replays by code the analysis may never see.
// Code that runs once by design (the capture itself, a lazy-initialization guard's body) is not
// on the cycle even inside a span.

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe {
class ProgramModel;
}

namespace graphsafe::program {

struct CycleSpan {
  std::uint32_t function = 0xffffffffu;  // program function id
  SourceRange span;                      // the part of its body on the cycle
  // Only writes through the function's own `self` are on the cycle (the capturing object's
  // methods, which unseen code may call between replays).
  bool self_only = false;
  // What puts the span on the cycle: the replay, or the call that reaches one, in `via_function`
  // (kNoId when none: the capturing object's methods).
  const Event* via = nullptr;
  std::uint32_t via_function = 0xffffffffu;
  // Calls deep from a span the replays put there (a replaying loop or function, the capture's
  // home): 0 for those, 1 for what they call, and so on.
  std::uint8_t depth = 0;
};

class ReplayCycle {
 public:
  ReplayCycle() = default;
  ReplayCycle(std::vector<CycleSpan> spans,
              std::vector<std::pair<std::uint32_t, SourceRange>> excluded,
              std::vector<std::uint32_t> captured)
      : spans_(std::move(spans)), excluded_(std::move(excluded)), captured_(std::move(captured)) {}

  std::span<const CycleSpan> spans() const { return spans_; }
  // The span that runs code at `position` of `function` between replays, or null. `self_write`:
  // the code writes through the function's own `self`.
  const CycleSpan* at(std::uint32_t function, std::uint32_t position, bool self_write) const;
  // Does any span replay the graph in a loop (is the cycle seen, not only assumed)?
  bool empty() const { return spans_.empty(); }
  // Does the capture itself run `function` (the region's body calls it, a few calls deep)?
  bool runsAtCapture(std::uint32_t function) const {
    return std::binary_search(captured_.begin(), captured_.end(), function);
  }

 private:
  std::vector<CycleSpan> spans_;
  // Ranges of functions that run once: the capture, once-blocks.
  std::vector<std::pair<std::uint32_t, SourceRange>> excluded_;
  // The functions the capture runs, sorted.
  std::vector<std::uint32_t> captured_;
};

class ReplayReach;

ReplayCycle buildReplayCycle(const ProgramModel& program, ReplayReach& reach, const FileModel& file,
                             std::size_t region);

}  // namespace graphsafe::program
