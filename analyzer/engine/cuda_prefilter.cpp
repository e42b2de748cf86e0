#include "analyzer/engine/cuda_prefilter.h"

#include <array>
#include <cctype>

namespace graphsafe {

namespace {

bool isUpper(char c) {
  return c >= 'A' && c <= 'Z';
}

bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Words that matter wherever they appear.
constexpr std::array<std::string_view, 8> kWords = {
    "<<<",           "capture_begin",   "CUDAGraph",         "getCurrentCUDAStream",
    "TORCH_LIBRARY", "PYBIND11_MODULE", "torch/extension.h", "getStreamFromPool",
};

}  // namespace

bool cudaSourceMayMatter(std::string_view text) {
  for (std::string_view word : kWords) {
    if (text.find(word) != std::string_view::npos) return true;
  }
  // An identifier starting `cu` + uppercase (driver API: cuStreamSynchronize), `cuda` +
  // uppercase (runtime API: cudaMemcpy), `cublas` or `cudnn` + uppercase.
  for (std::size_t at = text.find("cu"); at != std::string_view::npos;
       at = text.find("cu", at + 2)) {
    if (at > 0 && isIdentifierChar(text[at - 1])) continue;
    std::string_view rest = text.substr(at + 2);
    for (std::string_view infix : {"da", "blas", "dnn", ""}) {
      if (rest.size() > infix.size() && rest.starts_with(infix) && isUpper(rest[infix.size()])) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace graphsafe
