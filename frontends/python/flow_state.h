#pragma once

// What the lowering remembers about flow between capture and replay: which names cross a
// region's boundary, which paths hold containers, which variable each graphed or compiled
// callable was bound to. The events themselves are emitted by flow_lowering.cpp.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe::python {

// Per file.
struct FileFlow {
  // Per function: self attributes and globals it reads that it did not bind first. They become
  // the inputs of a callable region (graphed or compiled) whose target is that function.
  std::vector<std::vector<RegionName>> external_reads;
  // Callable regions whose handle was bound by an assignment: the function that holds it, so
  // that a call through a local name matches only in that function.
  std::unordered_map<std::int32_t, FunctionId> handle_scope;
  // (class index, attribute) pairs that some method binds to a list, dict, set or deque.
  std::set<std::pair<std::int32_t, std::string>> container_attributes;
  // (class index, attribute) pairs bound inside a body region: the region's outputs, read by
  // the class's other methods.
  std::map<std::pair<std::int32_t, std::string>, std::int32_t> attribute_outputs;
  // (class index, attribute) pairs that methods bind to lists of a known length (loop_trips.cpp):
  // that length, or -1 where two bindings disagree.
  std::map<std::pair<std::int32_t, std::string>, std::int32_t> attribute_lengths;
};

// Per function lowering.
struct FunctionFlow {
  // Names (and self.<attr> paths) bound inside each open body region, by region index.
  std::unordered_map<std::int32_t, std::unordered_set<std::string>> bound_in_region;
  // Paths this function bound to a list, dict, set or deque (and did not rebind otherwise).
  std::unordered_set<std::string> containers;
  // Names this function bound (last) to a list or tuple of known length (loop_trips.cpp).
  std::unordered_map<std::string, std::int32_t> lengths;
  // self.<attr> paths this function bound, with what it bound them to last.
  std::unordered_map<std::string, Value> self_values;
  // Names whose read was already recorded as an external read of this function.
  std::unordered_set<std::string> external_seen;
  // A call of a compiled function (by decorator) seen in callFunction: the call node and the
  // region, for the result to be marked as that region's output.
  const void* replay_call = nullptr;
  std::int32_t replay_region = -1;
};

}  // namespace graphsafe::python
