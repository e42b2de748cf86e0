#pragma once

// Memoization that stays consistent through cycles and through a bounded search.
//
// Cycles: a question that depends on itself (a parameter whose argument is computed from the
// same parameter, a class whose base is made by a call into the class) gets a placeholder
// answer while it is being computed. A memo built with more than one round asks a question
// that used its own placeholder and came out larger again, from that answer: an attribute
// written from itself (`self.t = self.t.cuda()`) holds both values. An answer that used the
// placeholder of a question still open further out is provisional: it is reused while that question
// stays open (so a cycle costs one pass, not one per way into it) and dropped once it closes, to be
// asked again with the settled answer.
//
// The bounded search: the evaluator looks for a parameter's type at the calls of its function,
// a few calls up at most (`budget` is how many are left). An answer the bound cut short is
// remembered with the budget it had: asked again with as much or less, it is reused; asked with
// more, it is computed again. An answer nothing cut short holds for any budget.
//
// Either way the order unrelated questions come in never changes a type.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace graphsafe::program {

// Shared by the memos of one evaluator: the questions open right now, innermost last, each
// with an id no later question reuses; the shallowest open question the current one depended
// on; the search budget left, and whether the current question's answer was cut short.
class CycleTracker {
 public:
  int open() {
    ids_.push_back(next_id_++);
    return static_cast<int>(ids_.size());
  }
  void close() { ids_.pop_back(); }
  int depth() const { return static_cast<int>(ids_.size()); }
  std::uint64_t idAt(int depth) const { return ids_[static_cast<std::size_t>(depth) - 1]; }
  bool isOpen(int depth, std::uint64_t id) const {
    return depth >= 1 && static_cast<std::size_t>(depth) <= ids_.size() && idAt(depth) == id;
  }
  int lowest = INT_MAX;
  int budget = 0;
  bool truncated = false;

 private:
  std::vector<std::uint64_t> ids_;
  std::uint64_t next_id_ = 1;
};

template <typename Key, typename Value, typename Hash = std::hash<Key>>
class CycleMemo {
 public:
  // `rounds`: how many times a question that depends on itself is asked at most (1: its
  // placeholder stands for itself).
  explicit CycleMemo(CycleTracker& tracker, int rounds = 1) : tracker_(tracker), rounds_(rounds) {}

  // The answer for `key`: remembered, a placeholder (`on_cycle`) while it is being computed,
  // or computed now by `compute()`.
  template <typename Compute>
  Value get(const Key& key, const Value& on_cycle, Compute&& compute) {
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      Entry& entry = it->second;
      const bool enough = !entry.truncated || entry.budget >= tracker_.budget;
      if (entry.state == State::kFinal && enough) {
        tracker_.truncated = tracker_.truncated || entry.truncated;
        return entry.value;
      }
      if (entry.state == State::kOpen || (entry.state == State::kProvisional && enough &&
                                          tracker_.isOpen(entry.depends_on, entry.question))) {
        tracker_.lowest = std::min(tracker_.lowest, entry.depends_on);
        tracker_.truncated = tracker_.truncated || entry.truncated;
        return entry.value;
      }
      entries_.erase(it);  // settled since, or cut shorter than this question allows
    }
    const int budget = tracker_.budget;
    const int outer_lowest = tracker_.lowest;
    const bool outer_truncated = tracker_.truncated;
    Value placeholder = on_cycle;
    Value value;
    int depth = 0;
    int lowest = INT_MAX;
    bool truncated = false;
    for (int round = 0;; ++round) {
      depth = tracker_.open();  // a new id each round: what used the last placeholder is stale
      entries_[key] = Entry{placeholder, State::kOpen, depth, tracker_.idAt(depth), budget, false};
      tracker_.lowest = INT_MAX;
      tracker_.truncated = false;
      value = compute();
      lowest = tracker_.lowest;
      truncated = tracker_.truncated;
      tracker_.close();
      // It read its own placeholder and came out larger (`self.x = self.x.cuda()` reads the
      // attribute it writes): ask again from that answer, so that what the question feeds
      // itself is part of it. Types only grow, so this settles in a round or two.
      if (lowest != depth || value == placeholder || round + 1 >= rounds_) break;
      placeholder = value;
    }
    Entry& entry = entries_[key];
    if (lowest >= depth) {
      entry = Entry{value, State::kFinal, 0, 0, budget, truncated};
      tracker_.lowest = outer_lowest;
    } else {
      entry = Entry{value, State::kProvisional, lowest, tracker_.idAt(lowest), budget, truncated};
      tracker_.lowest = std::min(outer_lowest, lowest);
    }
    tracker_.truncated = outer_truncated || truncated;
    return value;
  }

  // The answer for `key`, computed once and kept whatever it met on the way: for tables that
  // summarize many questions (which function each call of a name runs), where recomputing
  // after every open question closes would cost more than the precision is worth. The
  // questions it asks on the way still follow the rules above.
  template <typename Compute>
  Value getOnce(const Key& key, const Value& on_cycle, Compute&& compute) {
    auto it = entries_.find(key);
    if (it != entries_.end()) return it->second.value;
    entries_[key] = Entry{on_cycle, State::kFinal, 0, 0, 0, false};
    const int outer_lowest = tracker_.lowest;
    const bool outer_truncated = tracker_.truncated;
    Value value = compute();
    tracker_.lowest = outer_lowest;
    tracker_.truncated = outer_truncated;
    entries_[key] = Entry{value, State::kFinal, 0, 0, 0, false};
    return value;
  }

  void clear() { entries_.clear(); }

 private:
  enum class State : std::uint8_t { kOpen, kProvisional, kFinal };
  struct Entry {
    Value value;
    State state = State::kFinal;
    int depends_on = 0;          // kOpen: its own depth; kProvisional: the open question it used
    std::uint64_t question = 0;  // that question's id
    int budget = 0;              // the search budget it was computed with
    bool truncated = false;      // the budget cut it short
  };
  CycleTracker& tracker_;
  int rounds_ = 1;
  std::unordered_map<Key, Entry, Hash> entries_;
};

}  // namespace graphsafe::program
