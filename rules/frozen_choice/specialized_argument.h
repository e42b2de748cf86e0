#pragma once

// A capture specialized on an optional argument (GS109), which GS102 yields to: a function that
// captures its graph on its first call and replays it on every later one, whose captured code
// tests one of its parameters that has a default (`if attn_mask is not None:`, `if flag:`), the
// graphs not cached by it; and the program calls it both ways: some calls leave the parameter at
// its default, others pass another value. Whichever call captures, the others replay its branch.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/engine/check.h"

namespace graphsafe {

struct ArgumentCall {
  const FileModel* file = nullptr;
  const FunctionModel* caller = nullptr;
  const Event* call = nullptr;
  std::string receiver;  // `runner` of `runner.forward(x)`; "" for a call with no receiver
};

struct SpecializedArgument {
  const FileModel* file = nullptr;          // of the capturing function
  const FunctionModel* function = nullptr;  // the function that captures lazily
  std::uint32_t param = 0;                  // its parameter the capture tests
  std::vector<ArgumentCall> passing;        // calls that pass another value
  std::vector<ArgumentCall> defaulted;      // calls that leave it at its default
};

// Can the two calls reach the same object? The same receiver name in one function, `self.x` in
// methods of one class, or calls with no receiver (a module function).
bool sameReceiver(const ArgumentCall& a, const ArgumentCall& b);

// The specialized argument that `branch` (an event of `context`) tests, or nothing.
std::optional<SpecializedArgument> specializedArgument(const RegionContext& context,
                                                       const Event& branch);

}  // namespace graphsafe
