#include "frontends/python/parse_memory.h"

#include <malloc.h>
#include <tree_sitter/api.h>

#include <cstdlib>
#include <mutex>

namespace graphsafe::python {

namespace {

thread_local std::int64_t held_bytes = 0;

std::int64_t usable(void* block) {
  return block == nullptr ? 0 : static_cast<std::int64_t>(::malloc_usable_size(block));
}

void* countedMalloc(std::size_t size) {
  void* block = std::malloc(size);
  held_bytes += usable(block);
  return block;
}

void* countedCalloc(std::size_t count, std::size_t size) {
  void* block = std::calloc(count, size);
  held_bytes += usable(block);
  return block;
}

void* countedRealloc(void* old_block, std::size_t size) {
  std::int64_t before = usable(old_block);
  void* block = std::realloc(old_block, size);
  // realloc(p, 0) may free p and return null; a failed realloc keeps p.
  if (block != nullptr || size == 0) held_bytes += usable(block) - before;
  return block;
}

void countedFree(void* block) {
  held_bytes -= usable(block);
  std::free(block);
}

}  // namespace

void installParseMemoryMeter() {
  static std::once_flag once;
  std::call_once(
      once, [] { ts_set_allocator(countedMalloc, countedCalloc, countedRealloc, countedFree); });
}

std::int64_t parseMemoryInUse() {
  return held_bytes;
}

}  // namespace graphsafe::python
