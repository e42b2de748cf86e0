#pragma once

#include <string_view>

namespace graphsafe::cuda {

// Is this C++ reachable from PyTorch? It includes torch/, ATen/ or c10/ headers, or registers
// operators (TORCH_LIBRARY..., or PYBIND11_MODULE in a file that mentions torch). Work it
// launches runs inside whatever capture the Python caller started, so it must go to the current
// stream even where no capture is visible (GS304).
bool isExtensionCode(std::string_view text);

// Is this a unit-test program (it includes gtest, gmock, Catch2, doctest or Boost.Test)? It runs
// as an executable of its own, not inside PyTorch's calls, so it is not extension code even when
// it includes torch headers to build its inputs.
bool isTestProgram(std::string_view text);

// Is `spelled`, as an #include names it, a PyTorch header (torch/, ATen/, c10/)?
bool isTorchHeader(std::string_view spelled);

// Each `#include <name>` / `#include "name"` of a source text, as written, in order, until
// `visit(name, angled)` returns true; a lexical scan (conditions and comments are not read).
// Returns whether a visit returned true.
template <class Visit>
bool forEachInclude(std::string_view text, Visit visit) {
  for (std::size_t at = text.find('#'); at != std::string_view::npos; at = text.find('#', at + 1)) {
    std::size_t i = at + 1;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (text.substr(i, 7) != "include") continue;
    i += 7;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i >= text.size() || (text[i] != '<' && text[i] != '"')) continue;
    const bool angled = text[i] == '<';
    std::size_t close = text.find_first_of(angled ? ">\n" : "\"\n", i + 1);
    if (close == std::string_view::npos || text[close] == '\n') continue;
    if (visit(text.substr(i + 1, close - i - 1), angled)) return true;
  }
  return false;
}

}  // namespace graphsafe::cuda
