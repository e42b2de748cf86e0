#include "frontends/python/call_arguments.h"

namespace graphsafe::python {

TSNode CallArguments::find(std::string_view name, int position) const {
  for (const auto& [keyword, value] : keywords) {
    if (keyword == name) return value;
  }
  if (position >= 0 && static_cast<std::size_t>(position) < positional.size()) {
    return positional[static_cast<std::size_t>(position)];
  }
  return TSNode{};
}

void readArguments(CursorPool& pool, const SourceText& text, TSNode arguments, CallArguments& out) {
  const Grammar& g = Grammar::get();
  out.clear();
  if (isNull(arguments)) return;
  if (!is(arguments, g.argument_list)) {
    out.positional.push_back(arguments);  // f(x for x in y)
    return;
  }
  for (Children it(pool, arguments); it.valid(); it.next()) {
    TSNode argument = it.node();
    TSSymbol symbol = ts_node_symbol(argument);
    if (symbol == g.keyword_argument) {
      TSNode name = field(argument, g.f_name);
      TSNode value = field(argument, g.f_value);
      if (!isNull(name) && !isNull(value)) out.keywords.emplace_back(text.of(name), value);
    } else if (symbol == g.list_splat || symbol == g.dictionary_splat) {
      out.has_splat = true;
      TSNode spread = firstNamedChild(pool, argument);
      if (!isNull(spread)) out.splats.push_back(spread);
    } else if (!out.has_splat) {
      out.positional.push_back(argument);
    }
  }
}

bool isCpuDevice(CursorPool& pool, const SourceText& text, TSNode node) {
  const Grammar& g = Grammar::get();
  node = unparenthesize(pool, node);
  std::string_view value;
  if (plainStringValue(pool, text, node, value)) {
    return value == "cpu" || value.starts_with("cpu:");
  }
  if (is(node, g.call)) {
    // torch.device("cpu"): any spelling of the callee ending in `device`.
    std::string_view callee = text.of(field(node, g.f_function));
    if (!callee.ends_with("device")) return false;
    CallArguments arguments;
    readArguments(pool, text, field(node, g.f_arguments), arguments);
    TSNode type = arguments.find("type", 0);
    return !isNull(type) && plainStringValue(pool, text, unparenthesize(pool, type), value) &&
           (value == "cpu" || value.starts_with("cpu:"));
  }
  return false;
}

}  // namespace graphsafe::python
