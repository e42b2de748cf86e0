#include "analyzer/lsp/workspace_settings.h"

#include <system_error>

#include "analyzer/cli/check_command.h"
#include "analyzer/config/apply_config.h"

namespace graphsafe::lsp {

namespace {

bool readStringList(const nlohmann::json& value, std::vector<std::string>& out) {
  std::vector<std::string> list;
  if (value.is_string()) {
    list.push_back(value.get<std::string>());
  } else if (value.is_array()) {
    for (const nlohmann::json& item : value) {
      if (!item.is_string()) return false;
      list.push_back(item.get<std::string>());
    }
  } else {
    return false;
  }
  out = splitCodeLists(list);
  return true;
}

}  // namespace

std::vector<std::string> updateClientSettings(const nlohmann::json& settings,
                                              ClientSettings& client) {
  std::vector<std::string> warnings;
  if (!settings.is_object()) return warnings;
  const nlohmann::json& ours = settings.contains("graphsafe") && settings["graphsafe"].is_object()
                                   ? settings["graphsafe"]
                                   : settings;
  for (const char* key : {"select", "ignore"}) {
    auto it = ours.find(key);
    if (it == ours.end() || it->is_null()) continue;
    std::vector<std::string> codes;
    if (!readStringList(*it, codes)) {
      warnings.push_back(std::string("setting '") + key + "' must be a list of rule codes");
      continue;
    }
    for (std::string& code : codes) code = canonicalRuleCode(code);
    std::string problem = validateRuleCodes(codes, key);
    if (!problem.empty()) {
      warnings.push_back("setting " + problem);
      continue;
    }
    (std::string_view(key) == "select" ? client.select : client.ignore) = std::move(codes);
  }
  if (auto it = ours.find("config"); it != ours.end() && !it->is_null()) {
    if (it->is_string()) {
      client.config = it->get<std::string>();
    } else {
      warnings.emplace_back("setting 'config' must be a path");
    }
  }
  if (auto it = ours.find("debounceMs"); it != ours.end() && !it->is_null()) {
    if (it->is_number_integer() && it->get<std::int64_t>() >= 0 &&
        it->get<std::int64_t>() <= 10000) {
      client.debounce_ms = static_cast<int>(it->get<std::int64_t>());
    } else {
      warnings.emplace_back("setting 'debounceMs' must be an integer from 0 to 10000");
    }
  }
  if (auto it = ours.find("analyzeWorkspace"); it != ours.end() && !it->is_null()) {
    if (it->is_boolean()) {
      client.analyze_workspace = it->get<bool>();
    } else {
      warnings.emplace_back("setting 'analyzeWorkspace' must be true or false");
    }
  }
  return warnings;
}

bool WorkspaceSettings::isConfigFile(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  return name == ".graphsafe.yaml" || name == ".graphsafe.yml" || name == "pyproject.toml" ||
         name.ends_with(".toml");
}

EngineOptions WorkspaceSettings::engineOptions(const std::string& first_path, std::string& error) {
  error.clear();
  EngineOptions options;
  // The open documents alone are a handful of files: threads would cost more than they save.
  // The server raises it for a workspace.
  options.jobs = 1;
  options.settings.reuse_syntax_trees = true;  // the same documents, edited, again and again
  options.selection.select = client_.select;
  options.selection.ignore = client_.ignore;

  std::optional<std::string> path;
  if (!client_.config.empty()) {
    std::filesystem::path given(client_.config);
    if (given.is_relative() && !root_.empty()) given = std::filesystem::path(root_) / given;
    path = given.string();
  } else {
    std::string start = !root_.empty() ? root_
                        : first_path.empty()
                            ? std::string(".")
                            : std::filesystem::path(first_path).parent_path().string();
    path = findConfigFile(start.empty() ? std::string(".") : start);
  }
  if (!path) {
    cached_.reset();
    cached_path_.clear();
    applyUserBounds(options, error);
    return options;
  }

  std::error_code ec;
  auto mtime = std::filesystem::last_write_time(*path, ec);
  if (ec || *path != cached_path_ || mtime != cached_mtime_) {
    cached_path_ = *path;
    cached_mtime_ = mtime;
    cached_.reset();
    try {
      cached_ = client_.config.empty() ? loadFoundConfigFile(*path) : loadConfigFile(*path);
      reported_error_.clear();
    } catch (const ConfigError& config_error) {
      if (reported_error_ != config_error.what()) {
        reported_error_ = config_error.what();
        error = reported_error_;
      }
    }
  }
  if (cached_) applyConfig(*cached_, options);
  applyUserBounds(options, error);
  return options;
}

void WorkspaceSettings::applyUserBounds(EngineOptions& options, std::string& error) {
  // The user's own bounds win over the workspace's, as on the command line.
  std::optional<std::string> user = findUserConfigFile();
  if (!user) return;
  try {
    bool allow_incomplete = false;  // diagnostics are shown either way
    applyUserConfig(loadUserConfigFile(*user), options, allow_incomplete);
  } catch (const ConfigError& config_error) {
    if (error.empty() && reported_error_ != config_error.what()) {
      reported_error_ = config_error.what();
      error = reported_error_;
    }
  }
}

}  // namespace graphsafe::lsp
