#include "frontends/cuda/extension_code.h"

namespace graphsafe::cuda {

namespace {

// An `#include` of a header `matches` accepts (given as spelled, after `<` or `"`).
template <class Matches>
bool includesHeader(std::string_view text, Matches matches) {
  return forEachInclude(
      text, [&](std::string_view spelled, bool /*angled*/) { return matches(spelled); });
}

// `#include <torch/...>`, `#include "ATen/..."`, ...: the directive, then the header's directory.
bool includesTorchHeader(std::string_view text) {
  return includesHeader(text, isTorchHeader);
}

}  // namespace

bool isTorchHeader(std::string_view spelled) {
  for (std::string_view prefix : {"torch/", "ATen/", "c10/"}) {
    if (spelled.starts_with(prefix)) return true;
  }
  return false;
}

bool isTestProgram(std::string_view text) {
  return includesHeader(text, [](std::string_view spelled) {
    for (std::string_view header :
         {"gtest/", "gmock/", "catch2/", "catch.hpp", "doctest/", "doctest.h", "boost/test/"}) {
      if (spelled.starts_with(header)) return true;
    }
    return false;
  });
}

bool isExtensionCode(std::string_view text) {
  if (includesTorchHeader(text)) return true;
  if (text.find("TORCH_LIBRARY") != std::string_view::npos) return true;
  return text.find("PYBIND11_MODULE") != std::string_view::npos &&
         text.find("torch") != std::string_view::npos;
}

}  // namespace graphsafe::cuda
