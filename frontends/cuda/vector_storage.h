#pragma once

// What the lowering knows about the heap block a local std::vector keeps its elements in, so
// that it can tell when an operation moves them to a new block and frees the old one. A graph
// that captured a copy from `v.data()` keeps the old address: every launch after the move reads
// freed memory. Only counts the code states as constants are tracked; anything else makes the
// block unknown, and an unknown block is never said to move.

#include <cstdint>
#include <optional>

namespace graphsafe::cuda {

enum class VectorOp : std::uint8_t {
  kReserve,      // reserve(n)
  kResize,       // resize(n), resize(n, value), assign(n, value)
  kGrowByOne,    // push_back, emplace_back, insert or emplace of one element
  kClear,        // clear(): the block stays
  kReplace,      // move assignment, swap: the vector takes another block
  kUnknownEdit,  // anything else that may change the block (shrink_to_fit, a non-const reference)
};

class VectorStorage {
 public:
  // Constructed with `n` elements (0 for a default-constructed vector): the block holds exactly
  // them, as every standard library allocates it.
  static VectorStorage withSize(std::uint64_t n);
  static VectorStorage unknown() { return VectorStorage(); }

  // Applies `op` (`count`: its constant element count, where it takes one). True when the
  // operation is known to move a non-empty block.
  bool apply(VectorOp op, std::optional<std::uint64_t> count);

  // After an operation that runs conditionally or repeatedly: its outcome is no longer known.
  void forget() { known_ = false; }

 private:
  bool known_ = false;
  std::uint64_t size_ = 0;
  std::uint64_t capacity_ = 0;
};

}  // namespace graphsafe::cuda
