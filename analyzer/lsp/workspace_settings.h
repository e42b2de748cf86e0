#pragma once

// What the server analyzes with: the client's settings (initializationOptions and
// workspace/didChangeConfiguration, section "graphsafe") on top of the workspace's
// configuration file (.graphsafe.yaml or pyproject.toml [tool.graphsafe]), which is re-read
// whenever it changes on disk.

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/config/config.h"
#include "analyzer/engine/engine.h"

namespace graphsafe::lsp {

// The client-side settings, all optional.
struct ClientSettings {
  std::vector<std::string> select;  // like --select: replaces the configuration's
  std::vector<std::string> ignore;  // like --ignore
  std::string config;               // a configuration file; empty = the nearest one
  int debounce_ms = 150;            // quiet time after a change before re-analyzing
  // Analyze every file of the workspace, not only the open documents (findings are reported
  // for the open documents either way).
  bool analyze_workspace = true;
};

// Reads {"select": [...], "ignore": [...], "config": "...", "debounceMs": n,
// "analyzeWorkspace": bool}, also when nested
// under "graphsafe". Unknown keys are ignored; a wrong type gives a warning and keeps the old
// value. Returns the warnings.
std::vector<std::string> updateClientSettings(const nlohmann::json& settings,
                                              ClientSettings& client);

class WorkspaceSettings {
 public:
  void setRoot(std::string root) { root_ = std::move(root); }
  const std::string& root() const { return root_; }
  ClientSettings& client() { return client_; }
  const ClientSettings& client() const { return client_; }

  // The engine options for analyzing documents, the first of which lies at `first_path`
  // (used to find the configuration when the workspace has no root). A configuration that
  // cannot be used is reported once in `error` (empty otherwise) and left out.
  EngineOptions engineOptions(const std::string& first_path, std::string& error);

  // Forget the cached configuration (a watched file changed).
  void invalidate() { cached_path_.clear(); }

  // Is `path` a file whose change means re-reading the configuration?
  static bool isConfigFile(const std::string& path);

 private:
  void applyUserBounds(EngineOptions& options, std::string& error);

  std::string root_;
  ClientSettings client_;
  std::string cached_path_;
  std::filesystem::file_time_type cached_mtime_{};
  std::optional<Config> cached_;
  std::string reported_error_;
};

}  // namespace graphsafe::lsp
