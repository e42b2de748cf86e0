#pragma once

#include <cstdint>
#include <string>

#include "analyzer/model/reference.h"

namespace graphsafe {

// The value lattice every frontend classifies expressions into. Rules act on what is known:
// an unknown value never triggers a default-severity diagnostic (precision first).
enum class ValueKind : std::uint8_t {
  kUnknown,       // nothing is known: stays quiet
  kTensor,        // a device tensor (or a device pointer in C++)
  kHostVarying,   // a host value that can differ between capture and replay
  kHostConstant,  // a host value fixed for the program's life (literal, never-rebound constant)
};

// Where a host value came from, so a message can say why it varies.
enum class ValueOrigin : std::uint8_t {
  kNone,
  kLiteral,
  kModuleConstant,    // module-level name bound once and never rebound
  kParameter,         // parameter of the captured function or of a call on the path
  kLoopVariable,      // target of an enclosing for loop
  kAttribute,         // attribute written somewhere after construction (self.step)
  kGlobal,            // module global rebound somewhere
  kHostCall,          // result of time/random/scheduler and similar calls
  kTensorExpr,        // produced by a tensor op
  kReassigned,        // assigned again after the capture (C++: before the graph launch; Python:
                      // later in the function, or in a loop around a capture made only once)
  kCaptureQuery,      // is_current_stream_capturing(): true exactly while capturing (GS104's)
  kLazyParameter,     // a host parameter of a function that captures on its first call only
  kOptimizerSetting,  // an optimizer's setting (param_groups[0]["lr"]), which learning-rate
                      // schedulers rewrite between steps
  kLazyCaller,        // C++: a parameter of a function that captures, whose caller captures
                      // through it once and launches the graph after what it passed changed
};

struct Value {
  ValueKind kind = ValueKind::kUnknown;
  ValueOrigin origin = ValueOrigin::kNone;
  // Bit i set: the value is derived from parameter i of the enclosing function. When `kind` is
  // unknown, the engine resolves it in each calling context (a tensor argument makes it a
  // tensor; a varying host argument makes it varying). Parameters past 63 are not tracked.
  std::uint64_t param_deps = 0;
  // Source text the value came from, for messages ("lr", "self.step", "x.sum() > 0").
  std::string text;
  // The expression as a reference of its file (analyzer/model/reference.h), which the program
  // model evaluates in a frame: what it holds and whether it changes between replays. kNoRef
  // when lowering could not name it.
  RefId ref = kNoRef;
  // Set by the program model on a value resolved in a region's context: 1 + the index of why it
  // varies between replays (ProgramModel::variation); 0 when nothing is known to change it.
  std::uint32_t variation = 0;

  bool isTensor() const { return kind == ValueKind::kTensor; }
  bool isHostVarying() const { return kind == ValueKind::kHostVarying; }
  bool isKnownHost() const {
    return kind == ValueKind::kHostVarying || kind == ValueKind::kHostConstant;
  }
};

inline std::uint64_t paramBit(std::size_t index) {
  return index < 64 ? (std::uint64_t{1} << index) : 0;
}

}  // namespace graphsafe
