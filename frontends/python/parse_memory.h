#pragma once

// The memory guard of the Python frontend. tree-sitter's syntax tree is usually 15-25 times
// the size of the source, but dense generated text (`a,a,a,...`, a million nested brackets)
// reaches 300 times: 2.7 GB for an 8 MB file. tree-sitter's allocations are counted per thread,
// so that a parse can be cancelled, and the file skipped with a notice, once it holds more than
// its budget.

#include <cstddef>
#include <cstdint>

namespace graphsafe::python {

// Routes tree-sitter's allocations through the counter. Idempotent and thread-safe; call it
// before the first parser is created (blocks allocated before are still freed correctly).
void installParseMemoryMeter();

// Bytes tree-sitter currently holds that were allocated on this thread (blocks freed on
// another thread make it drift; the frontend allocates and frees a tree on one thread).
std::int64_t parseMemoryInUse();

// Measures what one parse allocates on this thread from the point it was made.
class ParseMemoryBudget {
 public:
  explicit ParseMemoryBudget(std::size_t limit_bytes)
      : start_(parseMemoryInUse()), limit_(static_cast<std::int64_t>(limit_bytes)) {}
  bool exceeded() const { return parseMemoryInUse() - start_ > limit_; }
  std::size_t limit() const { return static_cast<std::size_t>(limit_); }

 private:
  std::int64_t start_;
  std::int64_t limit_;
};

}  // namespace graphsafe::python
