#pragma once

// Syntax trees kept between analyses of the same file, for the language server: a document
// edited in the editor is reparsed incrementally (tree-sitter reuses every subtree the edit did
// not touch) instead of from scratch. The edit is found by comparing the new text with the
// text the kept tree was parsed from (common prefix and suffix), so it does not matter how the
// client described the change.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <tree_sitter/api.h>

namespace graphsafe::python {

// One edit that turns `before` into `after`: the smallest middle span that differs.
TSInputEdit editBetween(std::string_view before, std::string_view after);

class IncrementalTrees {
 public:
  // At most this many files keep a tree; the least recently parsed one is dropped first.
  static constexpr std::size_t kMaxFiles = 64;

  static IncrementalTrees& instance();

  // The tree kept for `path`, edited to match `text`, for the parser to reuse; null when none
  // is kept. The caller owns the returned copy (ts_tree_delete).
  TSTree* editedTreeFor(const std::string& path, std::string_view text);
  // Keeps a copy of `tree`, parsed from `text`, for the next parse of `path`.
  void keep(const std::string& path, std::string_view text, const TSTree* tree);
  void forget(const std::string& path);

  // Parses that started from a kept tree (for tests and the benchmark).
  std::uint64_t reusedParses() const;
};

}  // namespace graphsafe::python
