#include "analyzer/config/apply_config.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string_view>
#include <system_error>

#include "analyzer/engine/ignore_rules.h"

namespace graphsafe {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> splitSegments(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) parts.emplace_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

bool leavesBase(const fs::path& relative) {
  return relative.empty() || *relative.begin() == "..";
}

// An exclude pattern is written relative to the configuration's directory, and the file walker
// reads excludes relative to the current directory. Patterns without a slash match a name at
// any depth and need no change; anchored ones are re-anchored, or dropped when nothing under
// the current directory can match them.
std::optional<std::string> rebaseExclude(std::string_view pattern, const fs::path& config_dir,
                                         const fs::path& current_dir) {
  if (config_dir == current_dir) return std::string(pattern);
  std::string_view body = pattern;
  bool negated = body.starts_with('!');
  if (negated) body.remove_prefix(1);
  bool dir_only = false;
  while (body.size() > 1 && body.ends_with('/')) {
    body.remove_suffix(1);
    dir_only = true;
  }
  if (body.find('/') == std::string_view::npos) return std::string(pattern);

  std::vector<std::string> segments = splitSegments(body);
  std::string rebased;
  fs::path down = config_dir.lexically_relative(current_dir);
  fs::path up = current_dir.lexically_relative(config_dir);
  if (!leavesBase(down)) {
    // The configuration lives below the current directory: prefix its location.
    rebased = down.generic_string();
    for (const std::string& segment : segments) rebased += "/" + segment;
  } else if (!leavesBase(up)) {
    // The current directory lies inside the configuration's: strip the part of the pattern
    // that leads here, segment by segment.
    std::vector<std::string> prefix = splitSegments(up.generic_string());
    std::size_t i = 0;
    for (; i < prefix.size() && i < segments.size(); ++i) {
      if (segments[i] == "**") break;
      if (!globMatchSegment(segments[i], prefix[i])) return std::nullopt;
    }
    if (i == segments.size()) return std::nullopt;  // names a directory around this one
    for (std::size_t j = i; j < segments.size(); ++j) rebased += "/" + segments[j];
  } else {
    return std::nullopt;
  }
  if (rebased.front() != '/') rebased.insert(rebased.begin(), '/');
  if (dir_only) rebased += '/';
  if (negated) rebased.insert(rebased.begin(), '!');
  return rebased;
}

template <typename T>
void appendNew(std::vector<T>& to, const std::vector<T>& from) {
  for (const T& value : from) {
    if (std::find(to.begin(), to.end(), value) == to.end()) to.push_back(value);
  }
}

}  // namespace

void applyConfig(const Config& config, EngineOptions& options) {
  RuleSelection& selection = options.selection;
  if (selection.select.empty()) {
    selection.select = config.select;
    selection.ignore.insert(selection.ignore.begin(), config.ignore.begin(), config.ignore.end());
  }

  std::error_code ec;
  fs::path current_dir = fs::current_path(ec).lexically_normal();
  fs::path config_dir = fs::path(config.directory()).lexically_normal();
  for (const std::string& pattern : config.exclude) {
    if (ec) {
      options.exclude.push_back(pattern);
    } else if (auto rebased = rebaseExclude(pattern, config_dir, current_dir)) {
      options.exclude.push_back(*rebased);
    }
  }

  appendNew(options.per_file_ignores, config.per_file_ignores);
  for (const auto& [code, severity] : config.severity) {
    options.severity_overrides.emplace(code, severity);
  }
  appendNew(options.settings.capture_entry_points, config.capture_entry_points);
  appendNew(options.settings.extra_sync_apis, config.extra_sync_apis);
  appendNew(options.settings.extra_state_apis, config.extra_state_apis);
  appendNew(options.settings.capture_flags, config.capture_flags);
  if (config.cxx_timeout_seconds) {
    options.settings.cxx_timeout_ms = *config.cxx_timeout_seconds * 1000;
  }
  if (config.cxx_memory_mib) {
    options.settings.cxx_memory_bytes = std::size_t{*config.cxx_memory_mib} << 20;
  }
  for (const auto& [name, value] : config.environment) {
    auto& environment = options.settings.environment;
    auto same = std::find_if(environment.begin(), environment.end(),
                             [&](const auto& entry) { return entry.first == name; });
    if (same == environment.end()) environment.emplace_back(name, value);
  }
}

}  // namespace graphsafe
