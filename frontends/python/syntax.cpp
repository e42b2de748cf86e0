#include "frontends/python/syntax.h"

#include <cstring>

namespace graphsafe::python {

namespace {

TSSymbol named(const TSLanguage* language, const char* name) {
  return ts_language_symbol_for_name(language, name, static_cast<std::uint32_t>(std::strlen(name)),
                                     true);
}

TSSymbol token(const TSLanguage* language, const char* name) {
  return ts_language_symbol_for_name(language, name, static_cast<std::uint32_t>(std::strlen(name)),
                                     false);
}

TSFieldId fieldId(const TSLanguage* language, const char* name) {
  return ts_language_field_id_for_name(language, name,
                                       static_cast<std::uint32_t>(std::strlen(name)));
}

Grammar load() {
  const TSLanguage* l = tree_sitter_python();
  Grammar g;
  g.module = named(l, "module");
  g.comment = named(l, "comment");
  g.error = named(l, "ERROR");
  g.identifier = named(l, "identifier");
  g.attribute = named(l, "attribute");
  g.call = named(l, "call");
  g.argument_list = named(l, "argument_list");
  g.keyword_argument = named(l, "keyword_argument");
  g.subscript = named(l, "subscript");
  g.slice = named(l, "slice");
  g.binary_operator = named(l, "binary_operator");
  g.unary_operator = named(l, "unary_operator");
  g.comparison_operator = named(l, "comparison_operator");
  g.boolean_operator = named(l, "boolean_operator");
  g.not_operator = named(l, "not_operator");
  g.conditional_expression = named(l, "conditional_expression");
  g.parenthesized_expression = named(l, "parenthesized_expression");
  g.named_expression = named(l, "named_expression");
  g.lambda = named(l, "lambda");
  g.lambda_parameters = named(l, "lambda_parameters");
  g.await = named(l, "await");
  g.as_pattern = named(l, "as_pattern");
  g.as_pattern_target = named(l, "as_pattern_target");
  g.string = named(l, "string");
  g.string_start = named(l, "string_start");
  g.string_end = named(l, "string_end");
  g.concatenated_string = named(l, "concatenated_string");
  g.interpolation = named(l, "interpolation");
  g.integer = named(l, "integer");
  g.float_literal = named(l, "float");
  g.true_literal = named(l, "true");
  g.false_literal = named(l, "false");
  g.none = named(l, "none");
  g.ellipsis = named(l, "ellipsis");
  g.list = named(l, "list");
  g.tuple = named(l, "tuple");
  g.set = named(l, "set");
  g.dictionary = named(l, "dictionary");
  g.pair = named(l, "pair");
  g.expression_list = named(l, "expression_list");
  g.list_splat = named(l, "list_splat");
  g.dictionary_splat = named(l, "dictionary_splat");
  g.parenthesized_list_splat = named(l, "parenthesized_list_splat");
  g.list_comprehension = named(l, "list_comprehension");
  g.set_comprehension = named(l, "set_comprehension");
  g.dictionary_comprehension = named(l, "dictionary_comprehension");
  g.generator_expression = named(l, "generator_expression");
  g.for_in_clause = named(l, "for_in_clause");
  g.if_clause = named(l, "if_clause");
  g.pattern_list = named(l, "pattern_list");
  g.tuple_pattern = named(l, "tuple_pattern");
  g.list_pattern = named(l, "list_pattern");
  g.list_splat_pattern = named(l, "list_splat_pattern");
  g.dictionary_splat_pattern = named(l, "dictionary_splat_pattern");
  g.expression_statement = named(l, "expression_statement");
  g.assignment = named(l, "assignment");
  g.augmented_assignment = named(l, "augmented_assignment");
  g.return_statement = named(l, "return_statement");
  g.delete_statement = named(l, "delete_statement");
  g.raise_statement = named(l, "raise_statement");
  g.assert_statement = named(l, "assert_statement");
  g.global_statement = named(l, "global_statement");
  g.nonlocal_statement = named(l, "nonlocal_statement");
  g.import_statement = named(l, "import_statement");
  g.import_from_statement = named(l, "import_from_statement");
  g.future_import_statement = named(l, "future_import_statement");
  g.aliased_import = named(l, "aliased_import");
  g.dotted_name = named(l, "dotted_name");
  g.relative_import = named(l, "relative_import");
  g.import_prefix = named(l, "import_prefix");
  g.wildcard_import = named(l, "wildcard_import");
  g.if_statement = named(l, "if_statement");
  g.elif_clause = named(l, "elif_clause");
  g.else_clause = named(l, "else_clause");
  g.for_statement = named(l, "for_statement");
  g.while_statement = named(l, "while_statement");
  g.try_statement = named(l, "try_statement");
  g.except_clause = named(l, "except_clause");
  g.finally_clause = named(l, "finally_clause");
  g.with_statement = named(l, "with_statement");
  g.with_clause = named(l, "with_clause");
  g.with_item = named(l, "with_item");
  g.match_statement = named(l, "match_statement");
  g.case_clause = named(l, "case_clause");
  g.block = named(l, "block");
  g.yield = named(l, "yield");
  g.function_definition = named(l, "function_definition");
  g.class_definition = named(l, "class_definition");
  g.decorated_definition = named(l, "decorated_definition");
  g.decorator = named(l, "decorator");
  g.parameters = named(l, "parameters");
  g.default_parameter = named(l, "default_parameter");
  g.typed_parameter = named(l, "typed_parameter");
  g.typed_default_parameter = named(l, "typed_default_parameter");
  g.type = named(l, "type");
  g.generic_type = named(l, "generic_type");
  g.type_parameter = named(l, "type_parameter");
  g.member_type = named(l, "member_type");
  g.union_type = named(l, "union_type");
  g.op_percent = token(l, "%");
  g.op_is = token(l, "is");
  g.op_is_not = token(l, "is not");
  g.op_in = token(l, "in");
  g.op_not_in = token(l, "not in");

  g.f_alias = fieldId(l, "alias");
  g.f_alternative = fieldId(l, "alternative");
  g.f_argument = fieldId(l, "argument");
  g.f_arguments = fieldId(l, "arguments");
  g.f_attribute = fieldId(l, "attribute");
  g.f_body = fieldId(l, "body");
  g.f_condition = fieldId(l, "condition");
  g.f_consequence = fieldId(l, "consequence");
  g.f_definition = fieldId(l, "definition");
  g.f_function = fieldId(l, "function");
  g.f_guard = fieldId(l, "guard");
  g.f_key = fieldId(l, "key");
  g.f_left = fieldId(l, "left");
  g.f_module_name = fieldId(l, "module_name");
  g.f_name = fieldId(l, "name");
  g.f_object = fieldId(l, "object");
  g.f_operator = fieldId(l, "operator");
  g.f_operators = fieldId(l, "operators");
  g.f_parameters = fieldId(l, "parameters");
  g.f_right = fieldId(l, "right");
  g.f_subject = fieldId(l, "subject");
  g.f_subscript = fieldId(l, "subscript");
  g.f_superclasses = fieldId(l, "superclasses");
  g.f_type = fieldId(l, "type");
  g.f_value = fieldId(l, "value");
  g.f_expression = fieldId(l, "expression");
  return g;
}

}  // namespace

const Grammar& Grammar::get() {
  static const Grammar grammar = load();
  return grammar;
}

CursorPool::~CursorPool() {
  for (TSTreeCursor& cursor : free_) ts_tree_cursor_delete(&cursor);
}

TSTreeCursor CursorPool::take(TSNode node) {
  if (free_.empty()) return ts_tree_cursor_new(node);
  TSTreeCursor cursor = free_.back();
  free_.pop_back();
  ts_tree_cursor_reset(&cursor, node);
  return cursor;
}

Children::Children(CursorPool& pool, TSNode parent, bool all)
    : pool_(pool), cursor_(pool.take(parent)), all_(all) {
  valid_ = ts_tree_cursor_goto_first_child(&cursor_);
  settle();
}

void Children::next() {
  if (!valid_) return;
  valid_ = ts_tree_cursor_goto_next_sibling(&cursor_);
  settle();
}

void Children::settle() {
  const Grammar& g = Grammar::get();
  while (valid_) {
    node_ = ts_tree_cursor_current_node(&cursor_);
    if (all_ || (ts_node_is_named(node_) && ts_node_symbol(node_) != g.comment)) return;
    valid_ = ts_tree_cursor_goto_next_sibling(&cursor_);
  }
}

std::string briefText(std::string_view text, std::size_t limit) {
  std::string out;
  out.reserve(std::min(text.size(), limit + 3));
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    if (out.size() >= limit) {
      // Do not cut inside a UTF-8 sequence.
      while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80)
        out.pop_back();
      if (!out.empty() && (static_cast<unsigned char>(out.back()) & 0x80) != 0) out.pop_back();
      out += "...";
      return out;
    }
    out.push_back(c);
  }
  return out;
}

std::string SourceText::brief(TSNode node, std::size_t limit) const {
  return briefText(of(node), limit);
}

TSNode unparenthesize(CursorPool& pool, TSNode node) {
  const Grammar& g = Grammar::get();
  for (int i = 0; i < kMaxNestingDepth && is(node, g.parenthesized_expression); ++i) {
    TSNode inner = firstNamedChild(pool, node);
    if (isNull(inner)) break;
    node = inner;
  }
  return node;
}

TSNode firstNamedChild(CursorPool& pool, TSNode node) {
  Children it(pool, node);
  return it.valid() ? it.node() : TSNode{};
}

bool plainStringValue(CursorPool& pool, const SourceText& text, TSNode node,
                      std::string_view& value) {
  const Grammar& g = Grammar::get();
  if (!is(node, g.string)) return false;
  std::string_view content;
  int parts = 0;
  for (Children it(pool, node); it.valid(); it.next()) {
    TSSymbol symbol = ts_node_symbol(it.node());
    if (symbol == g.interpolation) return false;
    if (symbol != g.string_start && symbol != g.string_end) {
      content = text.of(it.node());
      ++parts;
    }
  }
  if (parts > 1) return false;
  value = content;
  return true;
}

bool readComparison(CursorPool& pool, const SourceText& text, TSNode node, Comparison& out) {
  const Grammar& g = Grammar::get();
  if (!is(node, g.comparison_operator)) return false;
  int count = 0;
  for (Children it(pool, node, true); it.valid(); it.next()) {
    TSNode child = it.node();
    if (it.field() == g.f_operators) {
      if (!out.op.empty()) out.op.push_back(' ');
      out.op += text.of(child);
      continue;
    }
    if (!ts_node_is_named(child) || is(child, g.comment)) continue;
    if (count < 2) out.operands[count] = child;
    ++count;
  }
  return count == 2;
}

}  // namespace graphsafe::python
