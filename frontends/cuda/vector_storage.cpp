#include "frontends/cuda/vector_storage.h"

namespace graphsafe::cuda {

VectorStorage VectorStorage::withSize(std::uint64_t n) {
  VectorStorage storage;
  storage.known_ = true;
  storage.size_ = n;
  storage.capacity_ = n;
  return storage;
}

bool VectorStorage::apply(VectorOp op, std::optional<std::uint64_t> count) {
  const bool had_block = known_ && capacity_ > 0;
  switch (op) {
    case VectorOp::kClear:
      size_ = 0;
      return false;
    case VectorOp::kReplace:
      known_ = false;
      return had_block;
    case VectorOp::kUnknownEdit:
      known_ = false;
      return false;
    case VectorOp::kGrowByOne:
      if (!known_) return false;
      if (size_ < capacity_) {
        ++size_;
        return false;
      }
      known_ = false;  // the growth factor is the library's
      return had_block;
    case VectorOp::kReserve:
    case VectorOp::kResize:
      if (!known_ || !count) {
        known_ = false;
        return false;
      }
      if (op == VectorOp::kResize) size_ = *count;
      if (*count <= capacity_) return false;
      capacity_ = *count;
      return had_block;
  }
  return false;
}

}  // namespace graphsafe::cuda
