#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/diagnostics/diagnostic.h"
#include "analyzer/engine/engine.h"

namespace graphsafe {

// The settings of one configuration file: `.graphsafe.yaml`, `[tool.graphsafe]` in
// pyproject.toml, or the top level of another .toml file. Keys are documented in
// docs/configuration.md.
struct Config {
  std::string path;                 // the file it came from, as given; empty when there is none
  std::vector<std::string> select;  // rule IDs or prefixes; empty = every rule
  std::vector<std::string> ignore;
  // In file order; each entry's base is the configuration's directory.
  std::vector<PerFileIgnore> per_file_ignores;
  std::vector<std::string> exclude;          // gitignore-style, relative to directory()
  std::map<std::string, Severity> severity;  // rule ID or prefix -> severity
  std::vector<std::string> capture_entry_points;
  std::vector<std::string> extra_sync_apis;
  std::vector<std::string> extra_state_apis;
  std::vector<std::string> capture_flags;
  // Environment variables to analyze as set, in file order: name, value.
  std::vector<std::pair<std::string, std::string>> environment;
  // C++: the bounds of one translation unit's analysis, when set. A project's configuration can
  // raise them within limits; only the user's can lift them (0 = no bound).
  std::optional<std::uint32_t> cxx_timeout_seconds;
  std::optional<std::uint32_t> cxx_memory_mib;
  // The user's configuration only: a run that could not analyze everything still passes
  // (--allow-incomplete).
  std::optional<bool> allow_incomplete;

  // The absolute directory of `path`, which patterns are relative to (the current directory
  // when `path` is empty).
  std::string directory() const;

  friend bool operator==(const Config&, const Config&) = default;
};

// A configuration that cannot be used. what() is "<file>:<line>: <message>" (without the line
// when it is unknown), ready to print after "graphsafe: error: ".
struct ConfigError : std::runtime_error {
  ConfigError(std::string file, int line, std::string key, std::string message);

  std::string file;
  int line = 0;     // 1-based; 0 = the whole file
  std::string key;  // the setting at fault ("severity.GS401"), empty for syntax errors
  std::string message;
};

// Reads and validates a configuration file. pyproject.toml is read from its [tool.graphsafe]
// table (none = an empty Config); any other *.toml from its top level; anything else as YAML.
// Throws ConfigError. Messages name the file, the line and the key, and never quote the file's
// own lines: a repository's configuration may be a link to any file the user can read.
Config loadConfigFile(const std::string& path);

// loadConfigFile() for a configuration findConfigFile() found, which is the repository's: one
// that is a symbolic link to a file outside the repository (the directory holding .git above it,
// else its own directory) is an error, not read: its target is a file the user did not name
// (`.graphsafe.yaml -> ~/.aws/credentials`). A link inside the repository is read. Throws
// ConfigError.
Config loadFoundConfigFile(const std::string& path);

// The user's own configuration, $XDG_CONFIG_HOME/graphsafe/graphsafe.yaml (~/.config/graphsafe
// when XDG_CONFIG_HOME is unset), when there is such a file. It holds what a repository is not
// trusted with: `allow-incomplete`, and `cxx-timeout` / `cxx-memory`, which win over the
// project's (and may be 0, no bound).
std::optional<std::string> findUserConfigFile();

// Reads the user's configuration (only the keys above). Throws ConfigError.
Config loadUserConfigFile(const std::string& path);

// The bounds and `allow-incomplete` of the user's configuration, on top of the project's.
void applyUserConfig(const Config& user, EngineOptions& options, bool& allow_incomplete);

// The configuration that applies to `start` (a directory, or a file's directory): the nearest
// `.graphsafe.yaml`, or pyproject.toml with a [tool.graphsafe] table, preferring the former in
// one directory, walking up to the repository root (a directory holding .git) or the filesystem
// root. A relative `start` gives a path relative to the current directory.
std::optional<std::string> findConfigFile(const std::string& start);

}  // namespace graphsafe
