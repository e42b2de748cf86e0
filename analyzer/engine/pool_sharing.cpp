#include "analyzer/engine/pool_sharing.h"

#include <algorithm>

namespace graphsafe {

namespace {

// "g1.pool()" -> "g1"; "" for any other spelling.
std::string_view poolOwner(std::string_view pool) {
  constexpr std::string_view kSuffix = ".pool()";
  if (!pool.ends_with(kSuffix)) return {};
  return pool.substr(0, pool.size() - kSuffix.size());
}

bool isPath(std::string_view text) {
  if (text.empty() || text == "None") return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
  });
}

bool inLoop(const FunctionModel& function, std::uint32_t position) {
  return std::any_of(function.loops.begin(), function.loops.end(), [&](const SourceRange& loop) {
    return CaptureFlow::contains(loop, position);
  });
}

}  // namespace

std::vector<PoolGroup> sharedPools(const CaptureFlow& flow) {
  const FileModel& file = flow.file();
  std::vector<PoolGroup> groups;
  auto groupOf = [&](const std::string& key) -> PoolGroup& {
    for (PoolGroup& group : groups) {
      if (group.pool == key) return group;
    }
    groups.push_back({key, {}});
    return groups.back();
  };
  for (std::size_t r = 0; r < file.regions.size(); ++r) {
    const CaptureRegion& region = file.regions[r];
    if (region.whole_function || region.pool.empty()) continue;
    std::string_view owner = poolOwner(region.pool);
    if (!owner.empty()) {
      if (!isPath(owner)) continue;
      PoolGroup& group = groupOf(region.pool);
      // The owner joins its group once, ahead of the captures that borrow its pool.
      for (std::size_t o = 0; o < file.regions.size(); ++o) {
        const CaptureRegion& candidate = file.regions[o];
        if (candidate.whole_function || o == r) continue;
        if (candidate.graph != owner && candidate.handle != owner) continue;
        if (std::find(group.regions.begin(), group.regions.end(), o) == group.regions.end()) {
          group.regions.push_back(o);
        }
      }
      group.regions.push_back(r);
    } else if (isPath(region.pool)) {
      groupOf(region.pool).regions.push_back(r);
    }
  }
  std::vector<PoolGroup> shared;
  for (PoolGroup& group : groups) {
    if (group.regions.size() < 2) continue;
    const FunctionModel* home = flow.home(group.regions.front());
    bool straight = home != nullptr;
    for (std::size_t r : group.regions) {
      straight = straight && flow.home(r) == home && !inLoop(*home, flow.span(r).begin);
    }
    if (!straight) continue;
    std::sort(group.regions.begin(), group.regions.end(), [&](std::size_t a, std::size_t b) {
      return flow.span(a).begin < flow.span(b).begin;
    });
    group.regions.erase(std::unique(group.regions.begin(), group.regions.end()),
                        group.regions.end());
    shared.push_back(std::move(group));
  }
  return shared;
}

bool readsOutput(const CaptureRegion& region, std::string_view text) {
  return std::any_of(region.outputs.begin(), region.outputs.end(), [&](const RegionName& output) {
    const std::string& name = output.name;
    if (name.empty() || !text.starts_with(name)) return false;
    if (text.size() == name.size()) return true;
    char next = text[name.size()];
    return next == '.' || next == '[' || next == '(' || next == ' ';
  });
}

}  // namespace graphsafe
