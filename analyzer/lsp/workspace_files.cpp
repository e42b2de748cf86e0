#include "analyzer/lsp/workspace_files.h"

#include <filesystem>

#include "analyzer/engine/file_walker.h"
#include "analyzer/engine/result_cache.h"
#include "analyzer/engine/source_reader.h"

namespace graphsafe::lsp {

std::vector<SourceFilePtr> WorkspaceFiles::read(const std::string& root,
                                                const std::vector<std::string>& exclude,
                                                const AnalysisSettings& settings,
                                                const std::map<std::string, SourceFilePtr>& open,
                                                std::vector<Notice>& notices) {
  // The input checks (the size bound) depend on the settings: new settings, new reads.
  std::string settings_key = analysisSettingsKey(settings);
  if (settings_key != settings_key_) {
    entries_.clear();
    settings_key_ = std::move(settings_key);
  }
  // A workspace whose root is a file system's root, or that holds more files than the
  // analysis keeps, is not walked: its open documents are analyzed alone.
  if (std::filesystem::path(root).lexically_normal() ==
      std::filesystem::path(root).lexically_normal().root_path()) {
    notices.push_back({"", -1,
                       "the workspace root is " + root +
                           ": only the open documents are analyzed (open a project's directory)"});
    return {};
  }
  bool stopped = false;
  std::vector<std::string> paths =
      collectFiles({root}, exclude, notices, false, kMaxWorkspaceFiles, &stopped);
  if (stopped) {
    notices.push_back({"", -1,
                       "the workspace holds more than " + std::to_string(kMaxWorkspaceFiles) +
                           " files to analyze: only the open documents are analyzed (open a "
                           "project's directory, or exclude what is not its code)"});
    return {};
  }
  std::map<std::string, Entry> entries;
  std::vector<SourceFilePtr> sources;
  sources.reserve(paths.size());
  for (const std::string& path : paths) {
    if (auto it = open.find(path); it != open.end()) {
      sources.push_back(it->second);
      continue;
    }
    std::optional<FileStamp> stamp = stampFile(path);
    auto known = entries_.find(path);
    Entry entry;
    if (known != entries_.end() && stamp && known->second.stamp == *stamp &&
        !racyStamp(*stamp, known->second.read_ns)) {
      entry = std::move(known->second);
    } else {
      entry.stamp = stamp.value_or(FileStamp{});
      entry.read_ns = wallClockNs();
      entry.source = readSource(path, settings, entry.notices);
      ++reads_;
      // The same text as before keeps its SourceFile: the analysis sees an unchanged input.
      if (known != entries_.end() && entry.source && known->second.source &&
          known->second.source->text() == entry.source->text()) {
        entry.source = known->second.source;
      }
    }
    notices.insert(notices.end(), entry.notices.begin(), entry.notices.end());
    if (entry.source) sources.push_back(entry.source);
    entries.emplace(path, std::move(entry));
  }
  entries_ = std::move(entries);
  return sources;
}

}  // namespace graphsafe::lsp
