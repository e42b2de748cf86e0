#pragma once

// References: expressions as one file's lowering saw them, left for the program model to
// evaluate across files. Lowering decides only what one file can know; a reference carries
// the rest: "the class `Llama` imported from pkg.llama, called with cfg", "parameter 1 of
// __init__", "attribute `model` of self", "an element of self.layers". The program model gives
// each a type (analyzer/program/type_evaluator.h); an expression lowering could not name is no
// reference at all (kNoRef), and the program model calls it unknown.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace graphsafe {

using RefId = std::uint32_t;
inline constexpr RefId kNoRef = std::numeric_limits<RefId>::max();

enum class ContainerKind : std::uint8_t { kList, kTuple, kDict, kSet, kGenerator };

// Where a tensor lives, when that is known: host memory, pageable or pinned (which a copy to
// the device under capture needs), or not known (most tensors: on the device, or any).
enum class TensorMemory : std::uint8_t { kUnknown, kPageableHost, kPinnedHost };

struct Reference {
  enum class Kind : std::uint8_t {
    kGlobal,      // `name`: a dotted name bound by an import, or a module-level name of a file
                  // ("pkg.llama.Llama", "pkg.runner.DEFAULT_MODE")
    kParameter,   // parameter `index` of function `function` of this file (its own, or an
                  // enclosing function's, read from a closure)
    kFunction,    // the def or lambda `function` of this file; `index` 1: as its name binds it,
                  // decorators applied
    kClass,       // class `index` of this file
    kCall,        // operands: the callee, then the positional arguments, then the keyword
                  // arguments (`names` holds their names, in order); `index`: how many are
                  // positional; `splat`: `*args` or `**kwargs` passes more than is written
    kAttribute,   // operands[0].`name`
    kElement,     // an element of operands[0]: position `index` when >= 0, the literal key
                  // `name` when not empty, the one operands[1] (an index expression)
                  // selects when there is one, any element otherwise. Literal keys are
                  // typed: "s:text" for a string, "i:12" for an integer
    kJoin,        // one of operands (the two sides of a conditional, a name bound twice)
    kContainer,   // a list/tuple/dict/set display or comprehension of `container`; operands
                  // are its elements (a dict's values; `names` its literal keys, "" when not
                  // literal)
    kSuper,       // super() in function `function`
    kInstanceOf,  // an instance of what operands[0] names: an annotation (`model: Llama`,
                  // `Optional[Llama]`), which a subclass's instance also satisfies
    kUpdated,     // the container operands[0] with the literal key `name` now holding
                  // operands[1] (`d["a"] = f` in straight-line code)
    kTensor,      // a value lowering knows to be a tensor; `index`, a TensorMemory: where
                  // lowering knows it lives
    kHost,        // a host value: a number, a string, a bool; `name` its typed key when it is
                  // a literal ("i:3", "s:cuda")
    kNone,        // None
    kOperation,   // a value an operator computes from operands (`a * b`, `-x`, `a < b`): a
                  // tensor when an operand is one, a host value when all are; `index` 1: a
                  // truth value on the host whatever the operands (`not x`, `x is None`,
                  // `k in d`)
    kNarrowed,    // operands[0], where a test proves it is no tensor (`if not isinstance(x,
                  // torch.Tensor):`): what it may hold but a tensor
    kLocal,       // the local name `name` of function `function`, read inside a capture
                  // region where it was bound outside it, holding operands[0]: the program
                  // model follows the name's bindings between capture and replay
  };
  Kind kind = Kind::kNone;
  ContainerKind container = ContainerKind::kList;
  bool splat = false;
  std::uint32_t function = std::numeric_limits<std::uint32_t>::max();
  std::int32_t index = -1;
  std::string name;
  std::vector<RefId> operands;
  std::vector<std::string> names;
};

// The reference a local read stands for (kLocal holds the value the name had), for code that
// asks what an expression is spelled as rather than where the name was bound.
inline RefId throughLocal(const std::vector<Reference>& references, RefId ref) {
  for (int depth = 0; depth < 8 && ref < references.size(); ++depth) {
    const Reference& reference = references[ref];
    if (reference.kind != Reference::Kind::kLocal || reference.operands.empty() ||
        reference.operands[0] >= references.size()) {
      break;
    }
    ref = reference.operands[0];
  }
  return ref;
}

}  // namespace graphsafe
