// The C++ frontend's lexical pre-filter on arbitrary bytes. Besides memory safety, one property:
// the answer depends on the text only, so appending a marker that always matters must turn any
// answer into "may matter".

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "analyzer/engine/cuda_prefilter.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bool first = graphsafe::cudaSourceMayMatter(text);
  if (graphsafe::cudaSourceMayMatter(text) != first) std::abort();
  std::string extended(text);
  extended += "\ncudaDeviceSynchronize();\n";
  if (!graphsafe::cudaSourceMayMatter(extended)) std::abort();
  return 0;
}
