#pragma once

// Which arguments of a torch function or tensor method set a shape: the sizes of factories, the
// target shape of view/reshape/expand, the lengths of narrow and split, the padding of F.pad.
// A host value there fixes how many elements the captured kernels process (GS105), which is why
// such arguments are not also reported as frozen scalars (GS103).

#include <array>
#include <cstdint>
#include <string_view>

namespace graphsafe::python {

struct ShapeArguments {
  // Every positional argument from this position on (torch.zeros(2, n), x.view(n, -1)); -1: none.
  std::int8_t from_position = -1;
  // Bit i: positional argument i (positions count after the receiver for methods).
  std::uint8_t positions = 0;
  // The last positional argument (torch.randint(low, high, size)).
  bool last_positional = false;
  // Keyword names that carry a shape ("size", "shape", "length").
  std::array<std::string_view, 3> keywords{};
};

// For canonical torch function names ("torch.zeros", "torch.nn.functional.pad"); null when no
// argument sets a shape.
const ShapeArguments* functionShapeArguments(std::string_view canonical);
// For tensor method names ("view", "new_zeros").
const ShapeArguments* methodShapeArguments(std::string_view name);

}  // namespace graphsafe::python
