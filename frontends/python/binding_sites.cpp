#include "frontends/python/binding_sites.h"

#include <algorithm>

namespace graphsafe::python {

namespace {

// A body with more nodes than this is indexed only up to it: what follows reads as never bound
// again, which can only make a rule quieter.
constexpr std::size_t kMaxNodes = 1u << 20;
constexpr int kMaxTargetDepth = 16;

std::string_view literalOf(TSNode value, const SourceText& text) {
  const Grammar& g = Grammar::get();
  if (is(value, g.integer) || is(value, g.float_literal) || is(value, g.true_literal) ||
      is(value, g.false_literal) || is(value, g.none) || is(value, g.string)) {
    return text.of(value);
  }
  return {};
}

bool opensScope(const Grammar& g, TSSymbol symbol) {
  return symbol == g.function_definition || symbol == g.class_definition ||
         symbol == g.decorated_definition || symbol == g.lambda || symbol == g.list_comprehension ||
         symbol == g.set_comprehension || symbol == g.dictionary_comprehension ||
         symbol == g.generator_expression;
}

}  // namespace

void BindingSites::addTargets(TSNode target, CursorPool& pool, const SourceText& text, int depth,
                              std::string_view literal) {
  const Grammar& g = Grammar::get();
  target = unparenthesize(pool, target);
  if (isNull(target) || depth > kMaxTargetDepth) return;
  TSSymbol symbol = ts_node_symbol(target);
  if (symbol == g.identifier || symbol == g.attribute) {
    sites_[text.of(target)].push_back({ts_node_start_byte(target), literal});
  } else if (symbol == g.pattern_list || symbol == g.tuple_pattern || symbol == g.list_pattern ||
             symbol == g.expression_list || symbol == g.tuple || symbol == g.list ||
             symbol == g.list_splat_pattern || symbol == g.list_splat) {
    for (Children it(pool, target); it.valid(); it.next()) {
      addTargets(it.node(), pool, text, depth + 1);
    }
  }
}

void BindingSites::collect(TSNode body, CursorPool& pool, const SourceText& text) {
  const Grammar& g = Grammar::get();
  if (isNull(body)) return;
  std::vector<TSNode> stack{body};
  std::size_t visited = 0;
  while (!stack.empty() && visited < kMaxNodes) {
    TSNode node = stack.back();
    stack.pop_back();
    ++visited;
    TSSymbol symbol = ts_node_symbol(node);
    if (symbol == g.assignment) {
      addTargets(field(node, g.f_left), pool, text, 0, literalOf(field(node, g.f_right), text));
    } else if (symbol == g.augmented_assignment) {
      addTargets(field(node, g.f_left), pool, text, 0);
    } else if (symbol == g.for_statement || symbol == g.while_statement) {
      Loop loop;
      loop.node = node;
      loop.begin = ts_node_start_byte(node);
      loop.end = ts_node_end_byte(node);
      if (symbol == g.for_statement) {
        TSNode left = field(node, g.f_left);
        addTargets(left, pool, text, 0);
        if (!isNull(left)) {
          loop.target_begin = ts_node_start_byte(left);
          loop.target_end = ts_node_end_byte(left);
        }
      }
      loops_.push_back(loop);
    } else if (symbol == g.named_expression) {
      addTargets(field(node, g.f_name), pool, text, 0);
    } else if (symbol == g.as_pattern && is(ts_node_parent(node), g.with_item)) {
      TSNode alias = field(node, g.f_alias);
      if (!isNull(alias)) addTargets(firstNamedChild(pool, alias), pool, text, 0);
    }
    std::size_t first = stack.size();
    for (Children it(pool, node); it.valid(); it.next()) {
      if (!opensScope(g, ts_node_symbol(it.node()))) stack.push_back(it.node());
    }
    std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(first), stack.end());
  }
  for (auto& [key, sites] : sites_) {
    std::sort(sites.begin(), sites.end(),
              [](const Site& a, const Site& b) { return a.offset < b.offset; });
  }
}

const std::vector<BindingSites::Site>* BindingSites::sitesOf(std::string_view key) const {
  auto it = sites_.find(key);
  return it == sites_.end() ? nullptr : &it->second;
}

}  // namespace graphsafe::python
