#include "analyzer/config/config.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "analyzer/config/config_tree.h"
#include "analyzer/io/atomic_write.h"
#include "analyzer/io/bounded_read.h"

namespace graphsafe {

namespace fs = std::filesystem;

namespace {

constexpr const char* kYamlName = ".graphsafe.yaml";
constexpr const char* kPyprojectName = "pyproject.toml";
constexpr const char* kPyprojectTable = "tool.graphsafe";
// Nobody writes a configuration this large; reading stops there instead of at memory's end.
constexpr std::size_t kMaxConfigBytes = 4u << 20;

std::string whatOf(const std::string& file, int line, const std::string& message) {
  std::string what = file;
  if (line > 0) what += ":" + std::to_string(line);
  return what + ": " + message;
}

std::string readConfigText(const std::string& path) {
  std::string text;
  std::string error;
  if (!readRegularFile(path, kMaxConfigBytes, text, error)) throw ConfigError(path, 0, "", error);
  return text;
}

// Anything named like a configuration counts, a directory or a FIFO too: loading it then says
// what is wrong, instead of the search passing it by for a parent directory's configuration.
bool isPresent(const fs::path& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec)) && !ec;
}

// A pyproject.toml counts only when it has a [tool.graphsafe] table. One that does not parse
// counts when it mentions the table, so that loading it reports the syntax error; one that
// cannot be read (unreadable, too large, not a file) counts, so that loading it says so.
bool pyprojectConfigures(const fs::path& path) {
  std::string text;
  try {
    text = readConfigText(path.string());
  } catch (const ConfigError&) {
    return true;
  }
  try {
    return parseTomlConfig(path.string(), text, kPyprojectTable).has_value();
  } catch (const ConfigError&) {
    return text.find(kPyprojectTable) != std::string::npos;
  }
}

}  // namespace

ConfigError::ConfigError(std::string file_name, int line_number, std::string key_name,
                         std::string text)
    : std::runtime_error(whatOf(file_name, line_number, text)),
      file(std::move(file_name)),
      line(line_number),
      key(std::move(key_name)),
      message(std::move(text)) {}

std::string Config::directory() const {
  std::error_code ec;
  fs::path dir =
      path.empty() ? fs::current_path(ec) : fs::absolute(path, ec).lexically_normal().parent_path();
  if (ec || dir.empty()) return ".";
  return dir.generic_string();
}

Config loadConfigFile(const std::string& path) {
  std::string text = readConfigText(path);
  fs::path file(path);
  std::optional<ConfigDocument> document;
  if (file.filename() == kPyprojectName) {
    document = parseTomlConfig(path, text, kPyprojectTable);
  } else if (file.extension() == ".toml") {
    document = parseTomlConfig(path, text, "");
  } else {
    document = parseYamlConfig(path, text);
  }
  if (!document) {
    Config none;
    none.path = path;
    return none;
  }
  return validateConfig(*document);
}

Config loadFoundConfigFile(const std::string& path) {
  std::error_code ec;
  if (fs::is_symlink(path, ec)) {
    const fs::path absolute = fs::absolute(path, ec).lexically_normal();
    fs::path root = absolute.parent_path();
    for (fs::path dir = root; !dir.empty(); dir = dir.parent_path()) {
      if (fs::exists(dir / ".git", ec)) {
        root = dir;
        break;
      }
      if (dir == dir.parent_path()) break;
    }
    if (leavesBoundary(absolute.string(), LinkBoundary{{root.string()}})) {
      throw ConfigError(path, 0, "",
                        "a symbolic link to a file outside the repository, not read (a "
                        "configuration kept elsewhere is named with --config)");
    }
  }
  return loadConfigFile(path);
}

std::optional<std::string> findUserConfigFile() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  fs::path base;
  if (xdg != nullptr && *xdg == '/') {
    base = xdg;
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/') {
    base = fs::path(home) / ".config";
  } else {
    return std::nullopt;
  }
  fs::path file = base / "graphsafe" / "graphsafe.yaml";
  if (!isPresent(file)) return std::nullopt;
  return file.string();
}

Config loadUserConfigFile(const std::string& path) {
  ConfigDocument document = parseYamlConfig(path, readConfigText(path));
  document.scope = ConfigScope::kUser;
  return validateConfig(document);
}

void applyUserConfig(const Config& user, EngineOptions& options, bool& allow_incomplete) {
  if (user.cxx_timeout_seconds) {
    options.settings.cxx_timeout_ms = *user.cxx_timeout_seconds * 1000;
  }
  if (user.cxx_memory_mib) {
    options.settings.cxx_memory_bytes = std::size_t{*user.cxx_memory_mib} << 20;
  }
  if (user.allow_incomplete) allow_incomplete = *user.allow_incomplete;
}

std::optional<std::string> findConfigFile(const std::string& start) {
  std::error_code ec;
  fs::path given = start.empty() ? fs::path(".") : fs::path(start);
  fs::path cwd = fs::current_path(ec);
  if (ec) return std::nullopt;
  fs::path dir = (given.is_absolute() ? given : cwd / given).lexically_normal();
  if (!fs::is_directory(dir, ec)) dir = dir.parent_path();
  if (dir.has_filename() == false && dir != dir.root_path()) dir = dir.parent_path();

  // Each step goes one level up, so the walk ends at the root.
  while (true) {
    fs::path found;
    if (isPresent(dir / kYamlName)) {
      found = dir / kYamlName;
    } else if (isPresent(dir / kPyprojectName) && pyprojectConfigures(dir / kPyprojectName)) {
      found = dir / kPyprojectName;
    }
    if (!found.empty()) {
      if (given.is_absolute()) return found.generic_string();
      return found.lexically_relative(cwd).generic_string();
    }
    if (fs::exists(dir / ".git", ec)) return std::nullopt;
    fs::path parent = dir.parent_path();
    if (parent == dir || parent.empty()) return std::nullopt;
    dir = parent;
  }
}

}  // namespace graphsafe
