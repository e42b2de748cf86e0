#pragma once

// Where a function body binds each name: the offsets of its assignment, augmented-assignment,
// for, with-as and walrus targets (identifiers, and attribute targets by their source text, such
// as "self.step"), and the for/while loops of the body. A read under capture asks it "is this
// name bound again after the capture, or on a later iteration of a loop around the capture?"

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frontends/python/syntax.h"

namespace graphsafe::python {

class BindingSites {
 public:
  struct Site {
    std::uint32_t offset = 0;  // where the target starts
    // The literal assigned (`n = 8`), so that binding the same literal again is not a change;
    // empty for any other value.
    std::string_view literal;
  };
  struct Loop {
    TSNode node{};
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    // The loop's own target (`for i in ...`): [target_begin, target_end); empty for while.
    std::uint32_t target_begin = 0;
    std::uint32_t target_end = 0;
  };

  // Walks `body` (a block, or the module) without entering nested functions, classes, lambdas
  // or comprehensions, which bind in scopes of their own.
  void collect(TSNode body, CursorPool& pool, const SourceText& text);

  // The targets that bind `key`, in source order; null when there are none.
  const std::vector<Site>* sitesOf(std::string_view key) const;
  const std::vector<Loop>& loops() const { return loops_; }

 private:
  void addTargets(TSNode target, CursorPool& pool, const SourceText& text, int depth,
                  std::string_view literal = {});

  std::unordered_map<std::string_view, std::vector<Site>> sites_;
  std::vector<Loop> loops_;
};

}  // namespace graphsafe::python
