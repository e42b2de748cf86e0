#pragma once

// The tree-sitter-python grammar as the frontend sees it: symbol and field ids looked up once
// per process, iteration over children through pooled TSTreeCursors (ts_node_child(i) is linear
// in i, and a cursor walk is the fast path), and the source text of a node.

#include <tree_sitter/api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/source/source_file.h"

extern "C" const TSLanguage* tree_sitter_python();

namespace graphsafe::python {

// Deepest syntax nesting the frontend follows. Deeper subtrees are treated as unknown values
// and their events are not lowered, so hostile input cannot exhaust the stack.
inline constexpr int kMaxNestingDepth = 256;

struct Grammar {
  // Named node symbols.
  TSSymbol module = 0, comment = 0, error = 0;
  TSSymbol identifier = 0, attribute = 0, call = 0, argument_list = 0, keyword_argument = 0;
  TSSymbol subscript = 0, slice = 0, binary_operator = 0, unary_operator = 0;
  TSSymbol comparison_operator = 0, boolean_operator = 0, not_operator = 0;
  TSSymbol conditional_expression = 0, parenthesized_expression = 0, named_expression = 0;
  TSSymbol lambda = 0, lambda_parameters = 0, await = 0, as_pattern = 0, as_pattern_target = 0;
  TSSymbol string = 0, string_start = 0, string_end = 0, concatenated_string = 0, interpolation = 0,
           integer = 0, float_literal = 0;
  TSSymbol true_literal = 0, false_literal = 0, none = 0, ellipsis = 0;
  TSSymbol list = 0, tuple = 0, set = 0, dictionary = 0, pair = 0, expression_list = 0;
  TSSymbol list_splat = 0, dictionary_splat = 0, parenthesized_list_splat = 0;
  TSSymbol list_comprehension = 0, set_comprehension = 0, dictionary_comprehension = 0;
  TSSymbol generator_expression = 0, for_in_clause = 0, if_clause = 0;
  TSSymbol pattern_list = 0, tuple_pattern = 0, list_pattern = 0, list_splat_pattern = 0;
  TSSymbol dictionary_splat_pattern = 0;
  TSSymbol expression_statement = 0, assignment = 0, augmented_assignment = 0;
  TSSymbol return_statement = 0, delete_statement = 0, raise_statement = 0, assert_statement = 0;
  TSSymbol global_statement = 0, nonlocal_statement = 0, import_statement = 0;
  TSSymbol import_from_statement = 0, future_import_statement = 0, aliased_import = 0;
  TSSymbol dotted_name = 0, relative_import = 0, import_prefix = 0, wildcard_import = 0;
  TSSymbol if_statement = 0, elif_clause = 0, else_clause = 0, for_statement = 0;
  TSSymbol while_statement = 0, try_statement = 0, except_clause = 0, finally_clause = 0;
  TSSymbol with_statement = 0, with_clause = 0, with_item = 0, match_statement = 0;
  TSSymbol case_clause = 0, block = 0, yield = 0;
  TSSymbol function_definition = 0, class_definition = 0, decorated_definition = 0, decorator = 0;
  TSSymbol parameters = 0, default_parameter = 0, typed_parameter = 0;
  TSSymbol typed_default_parameter = 0, type = 0;
  TSSymbol generic_type = 0, type_parameter = 0, member_type = 0, union_type = 0;
  // Anonymous tokens.
  TSSymbol op_percent = 0, op_is = 0, op_is_not = 0, op_in = 0, op_not_in = 0;

  // Fields.
  TSFieldId f_alias = 0, f_alternative = 0, f_argument = 0, f_arguments = 0, f_attribute = 0;
  TSFieldId f_body = 0, f_condition = 0, f_consequence = 0, f_definition = 0, f_function = 0;
  TSFieldId f_guard = 0, f_key = 0, f_left = 0, f_module_name = 0, f_name = 0, f_object = 0;
  TSFieldId f_operator = 0, f_operators = 0, f_parameters = 0, f_right = 0, f_subject = 0;
  TSFieldId f_subscript = 0, f_superclasses = 0, f_type = 0, f_value = 0, f_expression = 0;

  static const Grammar& get();
};

// Cursors are reused across the whole lowering of a file: resetting one is cheap, creating one
// allocates.
class CursorPool {
 public:
  CursorPool() = default;
  CursorPool(const CursorPool&) = delete;
  CursorPool& operator=(const CursorPool&) = delete;
  ~CursorPool();

  TSTreeCursor take(TSNode node);
  void give(TSTreeCursor cursor) { free_.push_back(cursor); }

 private:
  std::vector<TSTreeCursor> free_;
};

// Iterates the children of a node in order. By default only named children that are not
// comments (comments are extras and may sit anywhere); `all` includes anonymous tokens.
class Children {
 public:
  Children(CursorPool& pool, TSNode parent, bool all = false);
  Children(const Children&) = delete;
  Children& operator=(const Children&) = delete;
  ~Children() { pool_.give(cursor_); }

  bool valid() const { return valid_; }
  TSNode node() const { return node_; }
  TSFieldId field() const { return ts_tree_cursor_current_field_id(&cursor_); }
  void next();

 private:
  void settle();

  CursorPool& pool_;
  TSTreeCursor cursor_;
  TSNode node_{};
  bool all_;
  bool valid_;
};

// The source bytes a tree was parsed from, with the conversions the model needs.
class SourceText {
 public:
  explicit SourceText(const SourceFile& file) : file_(file), text_(file.text()) {}

  std::string_view of(TSNode node) const {
    std::uint32_t begin = ts_node_start_byte(node);
    std::uint32_t end = ts_node_end_byte(node);
    if (begin > text_.size() || end < begin) return {};
    return text_.substr(begin, std::min<std::size_t>(end, text_.size()) - begin);
  }
  // Source form for messages: whitespace runs folded to one space, cut near `limit` bytes.
  std::string brief(TSNode node, std::size_t limit = 60) const;
  SourceRange range(TSNode node) const {
    return file_.rangeOf(ts_node_start_byte(node), ts_node_end_byte(node));
  }
  SourceRange range(std::uint32_t begin, std::uint32_t end) const {
    return file_.rangeOf(begin, end);
  }
  const SourceFile& file() const { return file_; }
  std::string_view all() const { return text_; }

 private:
  const SourceFile& file_;
  std::string_view text_;
};

std::string briefText(std::string_view text, std::size_t limit = 60);

inline bool isNull(TSNode node) {
  return ts_node_is_null(node);
}
inline bool is(TSNode node, TSSymbol symbol) {
  return !ts_node_is_null(node) && ts_node_symbol(node) == symbol;
}
inline TSNode field(TSNode node, TSFieldId id) {
  return ts_node_child_by_field_id(node, id);
}
inline bool sameNode(TSNode a, TSNode b) {
  return a.id == b.id && a.tree == b.tree;
}

// Strips any number of parentheses around an expression (bounded by the nesting cap).
TSNode unparenthesize(CursorPool& pool, TSNode node);
// The first named, non-comment child, or a null node.
TSNode firstNamedChild(CursorPool& pool, TSNode node);
// The text of a string literal without prefix and quotes, when it has no interpolation.
bool plainStringValue(CursorPool& pool, const SourceText& text, TSNode node,
                      std::string_view& value);

// `a OP b` with one operator: its two operands and the operator ("==", "is not", "not in").
struct Comparison {
  TSNode operands[2] = {};
  std::string op;
};
// False unless `node` is such a comparison (a chain `a < b < c` is not).
bool readComparison(CursorPool& pool, const SourceText& text, TSNode node, Comparison& out);

}  // namespace graphsafe::python
