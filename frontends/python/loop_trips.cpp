// Loops whose number of iterations the code states: `for i in range(64)`, `for s in streams`
// where `streams = [torch.cuda.Stream() for _ in range(64)]`, `enumerate(self.streams)` after
// `self.streams = [...]` in a method of the class. The count goes on the kLoop event (`trips`),
// for rules that count what a loop under capture makes or forks.
#include <algorithm>
#include <limits>
#include <optional>

#include "frontends/python/function_lowering.h"

namespace graphsafe::python {

namespace {

constexpr int kMaxTripsDepth = 8;

std::optional<std::int64_t> integerKey(const std::string& key) {
  if (!key.starts_with("i:")) return std::nullopt;
  try {
    std::size_t used = 0;
    const std::int64_t value = std::stoll(key.substr(2), &used);
    if (used != key.size() - 2) return std::nullopt;
    return value;
  } catch (...) {
    return std::nullopt;
  }
}

// len(range(start, stop, step)), as Python computes it; nullopt for a zero step.
std::optional<std::int64_t> rangeLength(std::int64_t start, std::int64_t stop, std::int64_t step) {
  if (step == 0) return std::nullopt;
  if (step > 0) return stop > start ? (stop - start + step - 1) / step : 0;
  return start > stop ? (start - stop - step - 1) / -step : 0;
}

}  // namespace

std::int32_t FunctionLowering::tripsOf(TSNode node, int depth) const {
  node = unparenthesize(file_.pool, node);
  if (isNull(node) || depth > kMaxTripsDepth) return -1;
  if (is(node, g_.list) || is(node, g_.tuple)) {
    std::int32_t count = 0;
    for (Children it(file_.pool, node); it.valid(); it.next()) {
      if (is(it.node(), g_.comment)) continue;
      if (is(it.node(), g_.list_splat) || is(it.node(), g_.parenthesized_list_splat)) return -1;
      ++count;
    }
    return count;
  }
  if (is(node, g_.list_comprehension) || is(node, g_.generator_expression)) {
    // One `for` clause and no `if`: as many elements as its iterable gives.
    TSNode clause{};
    for (Children it(file_.pool, node); it.valid(); it.next()) {
      if (is(it.node(), g_.if_clause)) return -1;
      if (!is(it.node(), g_.for_in_clause)) continue;
      if (!isNull(clause)) return -1;
      clause = it.node();
    }
    return isNull(clause) ? -1 : tripsOf(field(clause, g_.f_right), depth + 1);
  }
  if (is(node, g_.identifier)) {
    const std::string_view name = textOf(node);
    if (auto it = flow_.lengths.find(std::string(name)); it != flow_.lengths.end()) {
      return it->second;
    }
    // A module global bound once, at the top level, and written by no function.
    if (id_ == 0 || isShadowed(name)) return -1;
    auto count = file_.index.module_bindings.find(name);
    if (count == file_.index.module_bindings.end() || count->second != 1 ||
        file_.index.globals_written.contains(name)) {
      return -1;
    }
    return tripsOf(file_.moduleAssignment(name), depth + 1);
  }
  if (is(node, g_.attribute)) {
    if (self_class_ < 0 || !isSelfName(field(node, g_.f_object))) return -1;
    auto it = file_.flow.attribute_lengths.find(
        {self_class_, std::string(textOf(field(node, g_.f_attribute)))});
    return it == file_.flow.attribute_lengths.end() ? -1 : it->second;
  }
  if (!is(node, g_.call)) return -1;
  TSNode function = field(node, g_.f_function);
  CallArguments arguments;
  readArguments(file_.pool, file_.text, field(node, g_.f_arguments), arguments);
  if (arguments.has_splat || !arguments.keywords.empty()) return -1;
  const std::vector<TSNode>& positional = arguments.positional;
  if (isUnshadowedBuiltin(function, "range")) {
    if (positional.empty() || positional.size() > 3) return -1;
    std::int64_t values[3] = {0, 0, 1};
    for (std::size_t i = 0; i < positional.size(); ++i) {
      // A negative step is written as a unary minus, which constantOf does not fold.
      TSNode bound = unparenthesize(file_.pool, positional[i]);
      const bool negated =
          is(bound, g_.unary_operator) && textOf(field(bound, g_.f_operator)) == "-";
      Constant constant = constantOf(negated ? field(bound, g_.f_argument) : bound, 0);
      std::optional<std::int64_t> value =
          constant.known && !constant.sequence ? integerKey(constant.key) : std::nullopt;
      if (!value) return -1;
      if (negated) *value = -*value;
      values[positional.size() == 1 ? 1 : i] = *value;
    }
    std::optional<std::int64_t> length = rangeLength(values[0], values[1], values[2]);
    if (!length || *length > std::numeric_limits<std::int32_t>::max()) return -1;
    return static_cast<std::int32_t>(*length);
  }
  if (isUnshadowedBuiltin(function, "enumerate") || isUnshadowedBuiltin(function, "reversed") ||
      isUnshadowedBuiltin(function, "list") || isUnshadowedBuiltin(function, "tuple")) {
    return positional.size() == 1 ? tripsOf(positional[0], depth + 1) : -1;
  }
  if (isUnshadowedBuiltin(function, "zip")) {
    std::int32_t shortest = -1;
    for (TSNode argument : positional) {
      const std::int32_t trips = tripsOf(argument, depth + 1);
      if (trips < 0) return -1;
      shortest = shortest < 0 ? trips : std::min(shortest, trips);
    }
    return shortest;
  }
  return -1;
}

void FunctionLowering::noteLength(const std::string& path, TSNode value) {
  const std::int32_t length = isNull(value) ? -1 : tripsOf(value, 0);
  const bool self_attribute = !self_name_.empty() && self_class_ >= 0 &&
                              path.size() > self_name_.size() + 1 && path.starts_with(self_name_) &&
                              path[self_name_.size()] == '.' &&
                              path.find('.', self_name_.size() + 1) == std::string::npos;
  if (self_attribute) {
    auto [it, added] = file_.flow.attribute_lengths.try_emplace(
        {self_class_, path.substr(self_name_.size() + 1)}, length);
    if (!added && it->second != length) it->second = -1;
    return;
  }
  if (length >= 0) {
    flow_.lengths[path] = length;
  } else {
    flow_.lengths.erase(path);
  }
}

}  // namespace graphsafe::python
