#include "frontends/python/incremental_trees.h"

#include <algorithm>
#include <list>
#include <mutex>
#include <unordered_map>

namespace graphsafe::python {

namespace {

TSPoint pointAt(std::string_view text, std::size_t offset) {
  TSPoint point{0, 0};
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++point.row;
      line_start = i + 1;
    }
  }
  point.column = static_cast<std::uint32_t>(offset - line_start);
  return point;
}

struct Kept {
  std::string text;
  TSTree* tree = nullptr;
};

struct Store {
  std::mutex mutex;
  std::list<std::string> order;  // most recently parsed first
  std::unordered_map<std::string, Kept> trees;
  std::uint64_t reused = 0;

  void drop(const std::string& path) {
    auto it = trees.find(path);
    if (it == trees.end()) return;
    ts_tree_delete(it->second.tree);
    trees.erase(it);
    order.remove(path);
  }
};

Store& store() {
  static Store* instance = new Store();  // never destroyed: worker threads may outlive statics
  return *instance;
}

}  // namespace

TSInputEdit editBetween(std::string_view before, std::string_view after) {
  std::size_t limit = std::min(before.size(), after.size());
  std::size_t prefix = 0;
  while (prefix < limit && before[prefix] == after[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < limit - prefix &&
         before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix]) {
    ++suffix;
  }
  TSInputEdit edit{};
  edit.start_byte = static_cast<std::uint32_t>(prefix);
  edit.old_end_byte = static_cast<std::uint32_t>(before.size() - suffix);
  edit.new_end_byte = static_cast<std::uint32_t>(after.size() - suffix);
  edit.start_point = pointAt(before, edit.start_byte);
  edit.old_end_point = pointAt(before, edit.old_end_byte);
  edit.new_end_point = pointAt(after, edit.new_end_byte);
  return edit;
}

IncrementalTrees& IncrementalTrees::instance() {
  static IncrementalTrees trees;
  return trees;
}

TSTree* IncrementalTrees::editedTreeFor(const std::string& path, std::string_view text) {
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.trees.find(path);
  if (it == s.trees.end()) return nullptr;
  TSTree* tree = ts_tree_copy(it->second.tree);
  TSInputEdit edit = editBetween(it->second.text, text);
  ts_tree_edit(tree, &edit);
  ++s.reused;
  return tree;
}

void IncrementalTrees::keep(const std::string& path, std::string_view text, const TSTree* tree) {
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.drop(path);
  s.trees[path] = Kept{std::string(text), ts_tree_copy(tree)};
  s.order.push_front(path);
  while (s.order.size() > kMaxFiles) s.drop(s.order.back());
}

void IncrementalTrees::forget(const std::string& path) {
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.drop(path);
}

std::uint64_t IncrementalTrees::reusedParses() const {
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.reused;
}

}  // namespace graphsafe::python
