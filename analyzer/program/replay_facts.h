#pragma once

// What calling a function does to the graph it holds, for the rules that follow a graph's
// buffers across calls. Two kinds of function matter:
//   - one that replays a graph and returns its output buffer (`self.graph.replay(); return
//     self.static_out`): every call overwrites what the previous call returned, so a caller
//     that keeps the results without a copy keeps one buffer many times (GS203);
//   - one that captures lazily, on its first call, with the capture reading one of its own
//     parameters by address (a StaticCapture-style wrapper's `self.fn(*args)`), and replays on
//     every later call: a caller that passes new tensors on each call gets the first call's
//     tensors read again (GS201).
// Computed once per program, from each file's capture flow; the rules resolve a call to a
// program function id and look it up here.

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe::program {

class ProgramIndex;

// A parameter a lazy capture reads directly.
struct LazyParameterRead {
  std::size_t region = 0;   // in the function's file
  std::uint32_t param = 0;  // index in FunctionModel::params
  const RegionName* read = nullptr;
};

struct ReplayingFunction {
  // Returns the output of this region (-1: none) after `replay`.
  std::int32_t output_region = -1;
  const Event* replay = nullptr;
  // Lazy captures reading parameters, and the replay that reuses them on later calls.
  std::vector<LazyParameterRead> lazy_reads;
  const Event* lazy_replay = nullptr;
};

class ReplayFacts {
 public:
  ReplayFacts(const std::vector<FileModel>& files, const ProgramIndex& index);

  bool empty() const { return functions_.empty(); }
  // Null when calling the function does neither.
  const ReplayingFunction* find(std::uint32_t function) const {
    auto it = functions_.find(function);
    return it == functions_.end() ? nullptr : &it->second;
  }

 private:
  std::unordered_map<std::uint32_t, ReplayingFunction> functions_;
};

}  // namespace graphsafe::program
