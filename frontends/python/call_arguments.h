#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "frontends/python/syntax.h"

namespace graphsafe::python {

// The syntax of a call's arguments: positional expressions and keyword arguments in order.
struct CallArguments {
  std::vector<TSNode> positional;
  std::vector<std::pair<std::string_view, TSNode>> keywords;
  bool has_splat = false;  // *args or **kwargs: positions after it are not known
  std::vector<TSNode> splats;  // what `*args` / `**kwargs` spread (evaluated, not bound)

  void clear() {
    positional.clear();
    keywords.clear();
    splats.clear();
    has_splat = false;
  }
  // The keyword argument `name`, or the positional one at `position` (-1: keyword only).
  TSNode find(std::string_view name, int position = -1) const;
};

// Reads an argument_list (or the generator expression of `f(x for x in y)`).
void readArguments(CursorPool& pool, const SourceText& text, TSNode arguments, CallArguments& out);

// Is this device argument the host ("cpu", "cpu:0", torch.device("cpu"))?
bool isCpuDevice(CursorPool& pool, const SourceText& text, TSNode node);

}  // namespace graphsafe::python
