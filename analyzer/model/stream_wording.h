#pragma once

// The words of a finding about a stream a call hands to a launcher's stream parameter, in one
// place for the two that find such calls: the C++ frontend within a translation unit (a launcher
// in one of its headers), and the engine across files (analyzer/engine/stream_handoffs.cpp).
//   "the default stream (nullptr) through its `stream` parameter (`k` at launch.cuh:3 runs on it)"

#include <string>
#include <string_view>

namespace graphsafe {

// The parameter receives work itself: `api` at `where` (path:line) runs on it.
inline std::string streamRunsOnIt(std::string_view api, std::string_view where) {
  return "`" + std::string(api) + "` at " + std::string(where) + " runs on it";
}

// The parameter is handed on to `callee` at `where`, whose parameter receives work.
inline std::string streamHandedOnTo(std::string_view callee, std::string_view where) {
  return "which it hands on to `" + std::string(callee) + "` at " + std::string(where);
}

// `escape` (the default stream, in a finding's words) through `param`, with how it is reached.
inline std::string streamThroughParameter(std::string_view escape, std::string_view param,
                                          std::string_view reach) {
  return std::string(escape) + " through its `" + std::string(param) + "` parameter (" +
         std::string(reach) + ")";
}

}  // namespace graphsafe
