#pragma once

// What one call event reaches, in the frame it is made from: the functions it runs (a method
// by its receiver's class, a module's forward, every element of a ModuleList it iterates, the
// callable a parameter holds), how the arguments bind, and, when the callable was handed in
// by a caller (a function that calls its parameter under capture, a decorator's wrapper, an
// attribute set from a constructor's argument), the call that supplied it.

#include <cstdint>
#include <vector>

#include "analyzer/program/type_evaluator.h"

namespace graphsafe::program {

// A place on the way a callable came from, for a finding's notes.
struct Supplier {
  enum class Kind : std::uint8_t {
    kNone,
    kArgument,   // the call passed the callable as an argument (`runner.capture(step)`,
                 // `@static_capture` applied to `step`)
    kAttribute,  // the attribute was set here (`self.fn = fn`), from `site`'s argument
  };
  Kind kind = Kind::kNone;
  CallSite site;  // kArgument, kAttribute: the call that passed the callable
  const AttributeWrite* write = nullptr;  // kAttribute
  std::uint32_t write_file = 0;
};

struct CallTarget {
  std::uint32_t function = kNoId;  // program function id
  std::size_t offset = 0;          // parameters bound before the call's own arguments
  FrameId frame = 0;               // the callee, with its parameters' types on this call
  Supplier supplier;
};

// The targets of `call` (a kCall event of `file`) made in `caller`, sorted by function id,
// without duplicates. Nothing for a call the model cannot resolve: it is never guessed at.
// `with_frames` false: the targets only, each in its context-free frame (what the lazy
// lowering's walk needs), without typing the call's arguments.
std::vector<CallTarget> callTargets(TypeEvaluator& evaluator, FrameId caller,
                                    const FileModel& file, const Event& call,
                                    bool with_frames = true);

}  // namespace graphsafe::program
