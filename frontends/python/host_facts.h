#pragma once

// What one function's lowering remembers for the host-side rules (frozen values, side effects,
// streams, pageable copies): where the body binds each name, the extent of each capture region
// it opens, the side streams forked into a capture and the events recorded on a stream, and the
// names it declares global or nonlocal.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "frontends/python/binding_sites.h"
#include "frontends/python/syntax.h"

namespace graphsafe::python {

struct RegionExtent {
  std::int32_t region = -1;
  std::uint32_t begin = 0;  // the with item / capture_begin() call
  std::uint32_t end = 0;    // the end of the with statement / the capture_end() call
  TSNode site{};
};

// A stream or event named by its source text, under the region that was open (-1: none).
struct StreamFact {
  std::string name;
  std::int32_t region = -1;
  std::string stream;  // events: the stream it was recorded on, "" for the capture stream
};

struct FunctionHostFacts {
  // Built on first use (a region, a test on a parameter): most functions never need it.
  mutable std::unique_ptr<BindingSites> sites;
  std::vector<RegionExtent> extents;
  std::vector<StreamFact> forked;    // side streams made to wait on the capture stream
  std::vector<StreamFact> recorded;  // events recorded on a known stream
  std::unordered_set<std::string_view> outer_names;  // `global` / `nonlocal` declarations
  std::unordered_set<std::string_view> global_names;  // `global` declarations only
  // Nesting of blocks that run once by design (once_blocks.cpp).
  int once_depth = 0;
  // Of those, the lazy-initialization guards (not capture-only blocks), and the names each one
  // caches by (`bs` in `if bs not in self.graphs:`): a capture opened under one is lazy.
  int lazy_depth = 0;
  std::vector<std::string> cache_keys;
  // The region whose body last bound each local name (-1: outside any region).
  std::unordered_map<std::string_view, std::int32_t> bound_in;
};

}  // namespace graphsafe::python
