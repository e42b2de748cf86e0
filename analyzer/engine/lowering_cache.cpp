#include "analyzer/engine/lowering_cache.h"

#include <algorithm>

namespace graphsafe {

std::optional<FileModel> LoweringCache::find(const SourceFilePtr& source,
                                             const std::string& settings_key) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(source->path());
  if (it == entries_.end()) return std::nullopt;
  Entry& entry = it->second;
  // The text compared whole: a fingerprint that collided would give another file's findings.
  bool same_text = entry.model.source == source || entry.model.source->text() == source->text();
  if (!same_text || entry.settings_key != settings_key) {
    return std::nullopt;
  }
  for (const Dependency& dependency : entry.dependencies) {
    std::optional<FileStamp> now = stampFile(dependency.path);
    if (!now || *now != dependency.stamp) return std::nullopt;
  }
  entry.last_run = run_;
  ++hits_;
  FileModel model = entry.model;
  model.source = source;
  return model;
}

void LoweringCache::keep(const FileModel& model, const std::string& settings_key) {
  if (!model.source || model.parse_failed) return;
  Entry entry;
  if (model.language == Language::kCuda) {
    if (!model.includes_complete) return;
    std::vector<std::string> paths = model.includes;
    if (!model.compile_database.empty()) paths.push_back(model.compile_database);
    std::int64_t now = wallClockNs();
    for (const std::string& path : paths) {
      std::optional<FileStamp> stamp = stampFile(path);
      if (!stamp || racyStamp(*stamp, now)) return;
      entry.dependencies.push_back({path, *stamp});
    }
  }
  entry.settings_key = settings_key;
  entry.model = model;
  std::lock_guard lock(mutex_);
  entry.last_run = run_;
  entries_[model.source->path()] = std::move(entry);
}

void LoweringCache::finishRun() {
  std::lock_guard lock(mutex_);
  ++run_;
  if (entries_.size() <= kMaxFiles) return;
  // Keep the files of the most recent runs: drop the oldest until within the bound.
  std::vector<std::uint64_t> runs;
  runs.reserve(entries_.size());
  for (const auto& [path, entry] : entries_) runs.push_back(entry.last_run);
  std::nth_element(runs.begin(),
                   runs.begin() + static_cast<std::ptrdiff_t>(runs.size() - kMaxFiles), runs.end());
  std::uint64_t oldest_kept = runs[runs.size() - kMaxFiles];
  std::erase_if(entries_, [&](const auto& item) { return item.second.last_run < oldest_kept; });
}

std::uint64_t LoweringCache::hits() const {
  std::lock_guard lock(mutex_);
  return hits_;
}

std::size_t LoweringCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace graphsafe
