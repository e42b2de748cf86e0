// Configuration: both file forms, every key, the error messages, the search for the file,
// merging with the command line, and the per-file ignores and severity overrides the engine
// applies.
#include "analyzer/config/config.h"

#include <gtest/gtest.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/config/apply_config.h"
#include "analyzer/config/suggestion.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/per_file_ignores.h"
#include "analyzer/engine/severity_overrides.h"

namespace graphsafe::testing {
namespace {

namespace fs = std::filesystem;

// A fresh directory that is a repository root (so the search for a config stops there),
// removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "graphsafe-config-XXXXXX").string();
    char* made = mkdtemp(pattern.data());
    path_ = made ? fs::path(made) : fs::temp_directory_path() / "graphsafe-config-fallback";
    fs::create_directories(path_ / ".git");
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }

  std::string write(const std::string& relative, const std::string& text) const {
    fs::path file = path_ / relative;
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file.string();
  }

 private:
  fs::path path_;
};

// Restores the current directory when the test ends.
class CurrentDir {
 public:
  explicit CurrentDir(const fs::path& dir) : saved_(fs::current_path()) { fs::current_path(dir); }
  ~CurrentDir() {
    std::error_code ec;
    fs::current_path(saved_, ec);
  }
  CurrentDir(const CurrentDir&) = delete;
  CurrentDir& operator=(const CurrentDir&) = delete;

 private:
  fs::path saved_;
};

constexpr const char* kYamlConfig = R"(# every key
select: [GS1, GS401]
ignore:
  - GS102
exclude: ["build/", "gen/*.py"]
capture-entry-points: ["pkg.mod.Runner.run", "Runner.run", "ns::Class::method", "launch"]
extra-sync-apis: ["pkg.mod.func", ".wait_all"]
extra-state-apis: ["pkg.amp.unscale", ".advance"]
per-file-ignores:
  "tests/*.py": [GS401]
  "!src/**": ["GS2"]
severity:
  GS401: warning
  GS1: error
)";

constexpr const char* kPyprojectConfig = R"([project]
name = "example"

[tool.graphsafe]
select = ["GS1", "GS401"]
ignore = ["GS102"]
exclude = ["build/", "gen/*.py"]
capture-entry-points = ["pkg.mod.Runner.run", "Runner.run", "ns::Class::method", "launch"]
extra-sync-apis = ["pkg.mod.func", ".wait_all"]
extra-state-apis = ["pkg.amp.unscale", ".advance"]

[tool.graphsafe.per-file-ignores]
"tests/*.py" = ["GS401"]
"!src/**" = ["GS2"]

[tool.graphsafe.severity]
GS401 = "warning"
GS1 = "error"
)";

// Loads `text` written to `name` and returns the error it must raise.
ConfigError loadError(const TempDir& dir, const std::string& name, const std::string& text) {
  std::string path = dir.write(name, text);
  try {
    loadConfigFile(path);
  } catch (const ConfigError& error) {
    return error;
  }
  ADD_FAILURE() << "no error for " << name << ":\n" << text;
  return ConfigError(path, 0, "", "");
}

// --- both forms, every key ----------------------------------------------------------------

TEST(ConfigTest, YamlReadsEveryKey) {
  TempDir dir;
  std::string path = dir.write(".graphsafe.yaml", kYamlConfig);
  Config config = loadConfigFile(path);
  EXPECT_EQ(config.path, path);
  EXPECT_EQ(config.directory(), dir.path().lexically_normal().generic_string());
  EXPECT_EQ(config.select, (std::vector<std::string>{"GS1", "GS401"}));
  EXPECT_EQ(config.ignore, (std::vector<std::string>{"GS102"}));
  EXPECT_EQ(config.exclude, (std::vector<std::string>{"build/", "gen/*.py"}));
  EXPECT_EQ(config.capture_entry_points,
            (std::vector<std::string>{"pkg.mod.Runner.run", "Runner.run", "ns::Class::method",
                                      "launch"}));
  EXPECT_EQ(config.extra_sync_apis, (std::vector<std::string>{"pkg.mod.func", ".wait_all"}));
  EXPECT_EQ(config.extra_state_apis, (std::vector<std::string>{"pkg.amp.unscale", ".advance"}));
  std::string base = config.directory();
  EXPECT_EQ(config.per_file_ignores, (std::vector<PerFileIgnore>{{"tests/*.py", {"GS401"}, base},
                                                                 {"!src/**", {"GS2"}, base}}));
  EXPECT_EQ(config.severity, (std::map<std::string, Severity>{{"GS401", Severity::kWarning},
                                                              {"GS1", Severity::kError}}));
}

TEST(ConfigTest, PyprojectAndYamlWithTheSameContentGiveTheSameConfig) {
  TempDir dir;
  Config yaml = loadConfigFile(dir.write(".graphsafe.yaml", kYamlConfig));
  Config toml = loadConfigFile(dir.write("pyproject.toml", kPyprojectConfig));
  EXPECT_NE(yaml.path, toml.path);
  toml.path = yaml.path;
  EXPECT_EQ(yaml, toml);
}

TEST(ConfigTest, OtherTomlFilesHoldTheKeysAtTheTopLevel) {
  TempDir dir;
  Config config = loadConfigFile(dir.write("graphsafe.toml", "select = [\"GS4\"]\n"));
  EXPECT_EQ(config.select, (std::vector<std::string>{"GS4"}));
}

TEST(ConfigTest, PyprojectWithoutToolTableIsNoConfig) {
  TempDir dir;
  std::string path = dir.write("pyproject.toml", "[tool.ruff]\nselect = [\"E\"]\n");
  Config config = loadConfigFile(path);
  Config empty;
  empty.path = path;
  EXPECT_EQ(config, empty);
}

TEST(ConfigTest, EmptyYamlIsAnEmptyConfig) {
  TempDir dir;
  Config config = loadConfigFile(dir.write(".graphsafe.yaml", "# nothing yet\n"));
  EXPECT_TRUE(config.select.empty());
  EXPECT_TRUE(config.per_file_ignores.empty());
}

TEST(ConfigTest, RuleCodesMayBePrefixes) {
  TempDir dir;
  Config config = loadConfigFile(dir.write(".graphsafe.yaml", "ignore: [GS2, GS20, GS201]\n"));
  EXPECT_EQ(config.ignore, (std::vector<std::string>{"GS2", "GS20", "GS201"}));
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "ignore: [GS]\n").message,
            "ignore: 'GS' is not a rule");
}

// --- errors name the file, the line and the key -----------------------------------------

TEST(ConfigTest, UnknownKeyIsAnErrorWithSuggestion) {
  TempDir dir;
  ConfigError error =
      loadError(dir, ".graphsafe.yaml", "# settings\nignore: [GS102]\n\nselct: [GS401]\n");
  EXPECT_EQ(error.file, (dir.path() / ".graphsafe.yaml").string());
  EXPECT_EQ(error.line, 4);
  EXPECT_EQ(error.key, "selct");
  EXPECT_EQ(error.message, "unknown key 'selct' (did you mean 'select'?)");
  EXPECT_EQ(std::string(error.what()),
            error.file + ":4: unknown key 'selct' (did you mean 'select'?)");
}

TEST(ConfigTest, UnknownKeyWithUnderscoresSuggestsTheDashedSpelling) {
  TempDir dir;
  ConfigError error = loadError(dir, ".graphsafe.yaml", "per_file_ignores: {}\n");
  EXPECT_EQ(error.message, "unknown key 'per_file_ignores' (did you mean 'per-file-ignores'?)");
}

TEST(ConfigTest, UnknownKeyFarFromAnyKnownOneHasNoSuggestion) {
  TempDir dir;
  ConfigError error = loadError(dir, ".graphsafe.yaml", "line-length: 100\n");
  EXPECT_EQ(error.message, "unknown key 'line-length'");
}

TEST(ConfigTest, UnknownKeyInPyprojectNamesTheTable) {
  TempDir dir;
  ConfigError error =
      loadError(dir, "pyproject.toml", "[project]\nname = \"x\"\n\n[tool.graphsafe]\nselct = []\n");
  EXPECT_EQ(error.line, 5);
  EXPECT_EQ(error.key, "selct");
  EXPECT_EQ(error.message, "[tool.graphsafe] unknown key 'selct' (did you mean 'select'?)");
}

TEST(ConfigTest, BadSeverityInPyproject) {
  TempDir dir;
  std::string text =
      "[project]\nname = \"x\"\nversion = \"1\"\n\n[tool.ruff]\nline-length = 100\n\n"
      "[tool.graphsafe]\nselect = [\"GS4\"]\n\n[tool.graphsafe.severity]\nGS401 = \"fatal\"\n";
  ConfigError error = loadError(dir, "pyproject.toml", text);
  EXPECT_EQ(error.line, 12);
  EXPECT_EQ(error.key, "severity.GS401");
  EXPECT_EQ(std::string(error.what()),
            error.file +
                ":12: [tool.graphsafe] severity.GS401: expected 'error' or 'warning', got 'fatal'");
}

TEST(ConfigTest, BadSeverityInYaml) {
  TempDir dir;
  ConfigError error = loadError(dir, ".graphsafe.yaml", "severity:\n  GS401: 3\n");
  EXPECT_EQ(error.line, 2);
  EXPECT_EQ(error.message, "severity.GS401: expected 'error' or 'warning', got a number (3)");
}

TEST(ConfigTest, UnknownRuleCodeInPerFileIgnores) {
  TempDir dir;
  std::string text =
      "select: [GS4]\nignore: [GS102]\nexclude: []\n# tests may sync\n"
      "per-file-ignores:\n  \"tests/*.py\": [GS401]\n  \"bench/*.py\": [GS401, GS999]\n";
  ConfigError error = loadError(dir, ".graphsafe.yaml", text);
  EXPECT_EQ(error.line, 7);
  EXPECT_EQ(error.key, "per-file-ignores");
  EXPECT_EQ(std::string(error.what()), error.file + ":7: per-file-ignores: 'GS999' is not a rule");
}

TEST(ConfigTest, UnknownRuleCodeSuggestsTheSpellingMeant) {
  TempDir dir;
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "select: [gs401]\n").message,
            "select: 'gs401' is not a rule (did you mean 'GS401'?)");
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "ignore: [GS4O1]\n").message,
            "ignore: 'GS4O1' is not a rule (did you mean 'GS401'?)");
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "severity: {GS9: warning}\n").message,
            "severity: 'GS9' is not a rule");
}

TEST(ConfigTest, WrongTypesSayWhatWasExpected) {
  TempDir dir;
  ConfigError error = loadError(dir, ".graphsafe.yaml", "select: GS401\n");
  EXPECT_EQ(error.line, 1);
  EXPECT_EQ(error.key, "select");
  EXPECT_EQ(error.message, "select: expected a list of rule codes, got a string ('GS401')");

  error = loadError(dir, "pyproject.toml", "[tool.graphsafe]\nselect = \"GS401\"\n");
  EXPECT_EQ(error.line, 2);
  EXPECT_EQ(error.message,
            "[tool.graphsafe] select: expected a list of rule codes, got a string ('GS401')");

  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "select: [401]\n").message,
            "select: expected a rule code, got a number (401)");
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "severity: [GS401]\n").message,
            "severity: expected a mapping of rule codes to severities, got a list");
  EXPECT_EQ(
      loadError(dir, "pyproject.toml", "[tool.graphsafe]\nseverity = [\"GS401\"]\n").message,
      "[tool.graphsafe] severity: expected a table of rule codes to severities, got an array");
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "exclude:\n").message,
            "exclude: expected a list of patterns, got nothing");
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "per-file-ignores:\n  \"tests/*\": GS401\n").message,
            "per-file-ignores.\"tests/*\": expected a list of rule codes, got a string ('GS401')");
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "- select\n").message,
            "expected a mapping of settings, got a list");
  EXPECT_EQ(loadError(dir, "pyproject.toml", "[tool]\ngraphsafe = 1\n").message,
            "[tool.graphsafe] expected a table of settings, got a number");
}

TEST(ConfigTest, CaptureFlagsAreNamesOrAttributes) {
  TempDir dir;
  Config config = loadConfigFile(
      dir.write(".graphsafe.yaml", "capture-flags: [mylib.graphs.CAPTURING, .is_capturing]\n"));
  EXPECT_EQ(config.capture_flags,
            (std::vector<std::string>{"mylib.graphs.CAPTURING", ".is_capturing"}));
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "capture-flags: [\"is capturing\"]\n").message,
            "capture-flags: 'is capturing' is not an API name (write it like 'pkg.mod.func' or "
            "'.method')");
  EngineOptions options;
  applyConfig(config, options);
  EXPECT_EQ(options.settings.capture_flags, config.capture_flags);
}

TEST(ConfigTest, EnvironmentMapsVariableNamesToValues) {
  TempDir dir;
  Config config = loadConfigFile(
      dir.write(".graphsafe.yaml", "environment:\n  APP_VALIDATE: \"1\"\n  APP_LEVEL: 3\n"));
  EXPECT_EQ(config.environment, (std::vector<std::pair<std::string, std::string>>{
                                    {"APP_VALIDATE", "1"}, {"APP_LEVEL", "3"}}));
  Config from_toml = loadConfigFile(
      dir.write("pyproject.toml", "[tool.graphsafe.environment]\nAPP_VALIDATE = \"1\"\n"));
  EXPECT_EQ(from_toml.environment,
            (std::vector<std::pair<std::string, std::string>>{{"APP_VALIDATE", "1"}}));
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "environment:\n  \"APP-X\": \"1\"\n").message,
            "environment: 'APP-X' is not an environment variable name (letters, digits and '_')");
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "environment:\n  APP_X: [1]\n").message,
            "environment.APP_X: expected a string, got a list");
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "environment: [APP_X]\n").message,
            "environment: expected a mapping of variable names to values, got a list");
  EngineOptions options;
  options.settings.environment = {{"APP_LEVEL", "9"}};  // set already: the first one wins
  applyConfig(config, options);
  EXPECT_EQ(options.settings.environment, (std::vector<std::pair<std::string, std::string>>{
                                              {"APP_LEVEL", "9"}, {"APP_VALIDATE", "1"}}));
}

TEST(ConfigTest, CxxBoundsAreWholeNumbers) {
  TempDir dir;
  Config config =
      loadConfigFile(dir.write(".graphsafe.yaml", "cxx-timeout: 120\ncxx-memory: 8192\n"));
  EXPECT_EQ(config.cxx_timeout_seconds, 120u);
  EXPECT_EQ(config.cxx_memory_mib, 8192u);
  EngineOptions options;
  applyConfig(config, options);
  EXPECT_EQ(options.settings.cxx_timeout_ms, 120'000u);
  EXPECT_EQ(options.settings.cxx_memory_bytes, std::size_t{8192} << 20);
  Config from_toml =
      loadConfigFile(dir.write("pyproject.toml", "[tool.graphsafe]\ncxx-memory = 2048\n"));
  EXPECT_EQ(from_toml.cxx_memory_mib, 2048u);
  EXPECT_FALSE(from_toml.cxx_timeout_seconds);
  EngineOptions defaults;
  applyConfig(from_toml, defaults);
  EXPECT_EQ(defaults.settings.cxx_timeout_ms, AnalysisSettings{}.cxx_timeout_ms);
  EXPECT_EQ(defaults.settings.cxx_memory_bytes, std::size_t{2048} << 20);
  const std::string user = " (no limit, or a higher one, only from --";
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "cxx-timeout: \"60s\"\n").message,
            "cxx-timeout: expected a whole number (1 to 600 seconds" + user +
                "cxx-timeout or the user's ~/.config/graphsafe/graphsafe.yaml)), got a string "
                "('60s')");
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "cxx-timeout: -1\n").message,
            "cxx-timeout: '-1' is not 1 to 600 seconds" + user +
                "cxx-timeout or the user's ~/.config/graphsafe/graphsafe.yaml)");
  // A repository cannot lift the bounds (0) nor raise them past what it may.
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "cxx-memory: 0\n").message,
            "cxx-memory: '0' is not 256 to 16384 MiB" + user +
                "cxx-memory or the user's ~/.config/graphsafe/graphsafe.yaml)");
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "cxx-timeout: 0\n").line, 1);
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "cxx-memory: 99999999999999\n").message,
            "cxx-memory: '99999999999999' is not 256 to 16384 MiB" + user +
                "cxx-memory or the user's ~/.config/graphsafe/graphsafe.yaml)");
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "cxx-timout: 3\n").message,
            "unknown key 'cxx-timout' (did you mean 'cxx-timeout'?)");
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "allow-incomplete: true\n").key, "allow-incomplete");
}

TEST(ConfigTest, TheUsersConfigurationMayLiftTheBounds) {
  TempDir dir;
  Config user = loadUserConfigFile(
      dir.write("graphsafe.yaml", "cxx-timeout: 0\ncxx-memory: 0\nallow-incomplete: true\n"));
  EXPECT_EQ(user.cxx_timeout_seconds, 0u);
  EXPECT_EQ(user.cxx_memory_mib, 0u);
  EXPECT_EQ(user.allow_incomplete, true);
  EngineOptions options;
  applyConfig(loadConfigFile(dir.write(".graphsafe.yaml", "cxx-timeout: 300\n")), options);
  bool allow_incomplete = false;
  applyUserConfig(user, options, allow_incomplete);
  EXPECT_EQ(options.settings.cxx_timeout_ms, 0u);
  EXPECT_EQ(options.settings.cxx_memory_bytes, 0u);
  EXPECT_TRUE(allow_incomplete);
  // Only what a repository is not trusted with; anything else has its own place.
  EXPECT_THROW(loadUserConfigFile(dir.write("other.yaml", "select: [GS401]\n")), ConfigError);
  EXPECT_THROW(loadUserConfigFile(dir.write("bad.yaml", "allow-incomplete: 1\n")), ConfigError);
}

TEST(ConfigTest, ADocumentThatIsNoMappingIsNotQuoted) {
  // A configuration may be a link to any file the user can read: its text is never printed.
  TempDir dir;
  for (const char* text :
       {"https://user:hunter2secret@example.com\n", "424242424242\n", "\"hunter2secret\"\n"}) {
    ConfigError error = loadError(dir, ".graphsafe.yaml", text);
    EXPECT_EQ(error.message.find("hunter2"), std::string::npos) << error.message;
    EXPECT_EQ(error.message.find("4242"), std::string::npos) << error.message;
    EXPECT_EQ(std::string(error.what()).find("example.com"), std::string::npos) << error.what();
  }
}

TEST(ConfigTest, BadNamesAreErrors) {
  TempDir dir;
  ConfigError error =
      loadError(dir, ".graphsafe.yaml", "capture-entry-points:\n  - ok.name\n  - \"pkg..run\"\n");
  EXPECT_EQ(error.line, 3);
  EXPECT_EQ(error.key, "capture-entry-points");
  EXPECT_EQ(error.message,
            "capture-entry-points: 'pkg..run' is not a qualified name (write it like "
            "'pkg.mod.Runner.run' or 'ns::Class::method')");
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "extra-sync-apis: [\"wait all\"]\n").message,
            "extra-sync-apis: 'wait all' is not an API name (write it like 'pkg.mod.func' or "
            "'.method')");
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "capture-entry-points: [.run]\n").message,
            "capture-entry-points: '.run' is not a qualified name (write it like "
            "'pkg.mod.Runner.run' or 'ns::Class::method')");
  EXPECT_EQ(loadError(dir, ".graphsafe.yaml", "exclude: [\"\"]\n").message,
            "exclude: empty pattern");
}

TEST(ConfigTest, DuplicateKeysAreErrors) {
  TempDir dir;
  ConfigError error = loadError(dir, ".graphsafe.yaml", "select: [GS4]\nselect: [GS1]\n");
  EXPECT_EQ(error.line, 2);
  EXPECT_EQ(error.message, "duplicate key 'select'");
  error = loadError(dir, ".graphsafe.yaml", "severity:\n  GS401: error\n  GS401: warning\n");
  EXPECT_EQ(error.line, 3);
  EXPECT_EQ(error.message, "severity: duplicate key 'GS401'");
}

TEST(ConfigTest, YamlSyntaxErrorNamesTheLine) {
  TempDir dir;
  ConfigError error =
      loadError(dir, ".graphsafe.yaml", "select: [GS401]\nignore:\n  - GS102\n   bad: : x\n");
  EXPECT_EQ(error.file, (dir.path() / ".graphsafe.yaml").string());
  EXPECT_EQ(error.line, 4);
  EXPECT_EQ(error.key, "");
  EXPECT_TRUE(error.message.starts_with("invalid YAML: ")) << error.message;
}

TEST(ConfigTest, TomlSyntaxErrorNamesTheLine) {
  TempDir dir;
  ConfigError error = loadError(dir, "pyproject.toml",
                                "[tool.graphsafe]\nselect = [\"GS401\"]\nignore = [\"GS1\"\n\n");
  EXPECT_EQ(error.file, (dir.path() / "pyproject.toml").string());
  EXPECT_GE(error.line, 3);
  EXPECT_TRUE(error.message.starts_with("invalid TOML: ")) << error.message;

  error = loadError(dir, "pyproject.toml", "[tool.graphsafe]\nselect = [\"GS401\"]\nselect = 1\n");
  EXPECT_EQ(error.line, 3);
}

TEST(ConfigTest, UnreadableFileIsAnError) {
  TempDir dir;
  std::string missing = (dir.path() / "nope.yaml").string();
  try {
    loadConfigFile(missing);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.file, missing);
    EXPECT_EQ(error.line, 0);
    EXPECT_TRUE(std::string(error.what()).starts_with(missing + ": cannot read")) << error.what();
  }
}

TEST(ConfigTest, AliasBombIsRefusedNotExpanded) {
  TempDir dir;
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  std::string previous = "a";
  for (std::string name : {"b", "c", "d", "e", "f"}) {
    text += name + ": &" + name + " [";
    for (int i = 0; i < 10; ++i) text += (i ? ", *" : "*") + previous;
    text += "]\n";
    previous = name;
  }
  ConfigError error = loadError(dir, ".graphsafe.yaml", text);
  // `e` alone stands for 100,000 values.
  EXPECT_EQ(error.key, "e");
  EXPECT_EQ(error.line, 5);
  EXPECT_EQ(error.message,
            "e: expands to more than 100000 values (YAML aliases repeat them), more than a "
            "configuration holds");
}

TEST(ConfigTest, DeepNestingIsAnErrorNotACrash) {
  TempDir dir;
  std::string text = "select: " + std::string(5000, '[') + std::string(5000, ']') + "\n";
  ConfigError error = loadError(dir, ".graphsafe.yaml", text);
  EXPECT_EQ(error.line, 1);
  std::string toml =
      "[tool.graphsafe]\nselect = " + std::string(5000, '[') + std::string(5000, ']') + "\n";
  error = loadError(dir, "pyproject.toml", toml);
  EXPECT_EQ(error.line, 2);
}

// The two examples of docs/configuration.md parse and say the same thing.
TEST(ConfigTest, DocumentedExamplesAgree) {
  std::ifstream in(fs::path(GRAPHSAFE_SOURCE_DIR) / "docs" / "configuration.md");
  std::string line;
  std::string yaml;
  std::string toml;
  std::string* block = nullptr;
  while (std::getline(in, line)) {
    if (block == nullptr && line == "```yaml") {
      block = &yaml;
    } else if (block == nullptr && line == "```toml") {
      block = &toml;
    } else if (block != nullptr && line == "```") {
      block = nullptr;
    } else if (block != nullptr) {
      *block += line + "\n";
    }
  }
  ASSERT_FALSE(yaml.empty());
  ASSERT_FALSE(toml.empty());
  TempDir dir;
  Config from_yaml = loadConfigFile(dir.write(".graphsafe.yaml", yaml));
  Config from_toml = loadConfigFile(dir.write("pyproject.toml", toml));
  EXPECT_FALSE(from_yaml.per_file_ignores.empty());
  from_toml.path = from_yaml.path;
  EXPECT_EQ(from_yaml, from_toml);
}

// --- finding the file ----------------------------------------------------------------------

TEST(ConfigTest, FindPrefersYamlOverPyprojectInOneDirectory) {
  TempDir dir;
  std::string yaml = dir.write(".graphsafe.yaml", "select: [GS4]\n");
  dir.write("pyproject.toml", "[tool.graphsafe]\nselect = [\"GS1\"]\n");
  EXPECT_EQ(findConfigFile(dir.path().string()), fs::path(yaml).generic_string());
}

TEST(ConfigTest, FindWalksUpFromDirectoriesAndFiles) {
  TempDir dir;
  std::string pyproject = dir.write("pyproject.toml", "[tool.graphsafe]\nselect = [\"GS1\"]\n");
  std::string source = dir.write("src/pkg/deep/model.py", "x = 1\n");
  EXPECT_EQ(findConfigFile((dir.path() / "src/pkg/deep").string()), pyproject);
  EXPECT_EQ(findConfigFile(source), pyproject);
  EXPECT_EQ(findConfigFile((dir.path() / "src/pkg/").string()), pyproject);
}

TEST(ConfigTest, FindTakesTheNearestFile) {
  TempDir dir;
  dir.write(".graphsafe.yaml", "select: [GS4]\n");
  std::string nearer = dir.write("sub/pyproject.toml", "[tool.graphsafe]\nignore = [\"GS1\"]\n");
  EXPECT_EQ(findConfigFile((dir.path() / "sub").string()), nearer);
}

TEST(ConfigTest, FindSkipsPyprojectWithoutToolTable) {
  TempDir dir;
  std::string yaml = dir.write(".graphsafe.yaml", "select: [GS4]\n");
  dir.write("sub/pyproject.toml", "[project]\nname = \"sub\"\n\n[tool.black]\nline-length = 99\n");
  EXPECT_EQ(findConfigFile((dir.path() / "sub").string()), fs::path(yaml).generic_string());
}

TEST(ConfigTest, FindReturnsBrokenPyprojectThatMentionsTheTable) {
  TempDir dir;
  std::string broken = dir.write("pyproject.toml", "[tool.graphsafe]\nselect = [\n");
  EXPECT_EQ(findConfigFile(dir.path().string()), broken);
}

TEST(ConfigTest, FindStopsAtTheRepositoryRoot) {
  TempDir dir;
  dir.write(".graphsafe.yaml", "select: [GS4]\n");
  fs::create_directories(dir.path() / "vendored/.git");
  fs::create_directories(dir.path() / "vendored/src");
  EXPECT_EQ(findConfigFile((dir.path() / "vendored/src").string()), std::nullopt);
}

TEST(ConfigTest, FindFromARelativeStartGivesARelativePath) {
  TempDir dir;
  dir.write(".graphsafe.yaml", "select: [GS4]\n");
  fs::create_directories(dir.path() / "a/b");
  CurrentDir here(dir.path() / "a");
  EXPECT_EQ(findConfigFile("b"), "../.graphsafe.yaml");
  EXPECT_EQ(findConfigFile("."), "../.graphsafe.yaml");
}

// --- merging with the command line -----------------------------------------------------------

Config sampleConfig() {
  Config config;
  config.path = (fs::current_path() / ".graphsafe.yaml").string();
  config.select = {"GS4"};
  config.ignore = {"GS402"};
  config.exclude = {"gen/"};
  config.per_file_ignores = {{"tests/", {"GS401"}, config.directory()}};
  config.severity = {{"GS401", Severity::kWarning}, {"GS1", Severity::kWarning}};
  config.capture_entry_points = {"pkg.Runner.run"};
  config.extra_sync_apis = {".wait_all"};
  return config;
}

TEST(ConfigTest, ApplyUsesConfigSelectionWithoutCommandLineSelect) {
  EngineOptions options;
  options.selection.ignore = {"GS403"};
  options.exclude = {"old/"};
  options.settings.capture_entry_points = {"cli.entry"};
  applyConfig(sampleConfig(), options);
  EXPECT_EQ(options.selection.select, (std::vector<std::string>{"GS4"}));
  EXPECT_EQ(options.selection.ignore, (std::vector<std::string>{"GS402", "GS403"}));
  EXPECT_FALSE(options.selection.enabled("GS402"));
  EXPECT_FALSE(options.selection.enabled("GS403"));
  EXPECT_TRUE(options.selection.enabled("GS401"));
  EXPECT_FALSE(options.selection.enabled("GS101"));
  EXPECT_EQ(options.exclude, (std::vector<std::string>{"old/", "gen/"}));
  EXPECT_EQ(options.per_file_ignores.size(), 1u);
  EXPECT_EQ(options.severity_overrides.at("GS401"), Severity::kWarning);
  EXPECT_EQ(options.settings.capture_entry_points,
            (std::vector<std::string>{"cli.entry", "pkg.Runner.run"}));
  EXPECT_EQ(options.settings.extra_sync_apis, (std::vector<std::string>{".wait_all"}));
}

TEST(ConfigTest, ApplyCommandLineSelectReplacesConfigSelectAndIgnore) {
  EngineOptions options;
  options.selection.select = {"GS402", "GS1"};
  options.selection.ignore = {"GS102"};
  applyConfig(sampleConfig(), options);
  EXPECT_EQ(options.selection.select, (std::vector<std::string>{"GS402", "GS1"}));
  EXPECT_EQ(options.selection.ignore, (std::vector<std::string>{"GS102"}));
  EXPECT_TRUE(options.selection.enabled("GS402"));  // config's ignore no longer applies
  EXPECT_FALSE(options.selection.enabled("GS401"));
  EXPECT_FALSE(options.selection.enabled("GS102"));
}

TEST(ConfigTest, ApplyKeepsSeveritiesAlreadySet) {
  EngineOptions options;
  options.severity_overrides["GS401"] = Severity::kError;
  applyConfig(sampleConfig(), options);
  EXPECT_EQ(options.severity_overrides.at("GS401"), Severity::kError);
  EXPECT_EQ(options.severity_overrides.at("GS1"), Severity::kWarning);
}

TEST(ConfigTest, ApplyRebasesAnchoredExcludesOntoTheCurrentDirectory) {
  fs::path cwd = fs::current_path().lexically_normal();
  Config below;
  below.path = (cwd / "sub" / ".graphsafe.yaml").string();
  below.exclude = {"*.pyc", "gen/*.py", "/top.py", "!keep/x.py", "out/"};
  EngineOptions options;
  applyConfig(below, options);
  EXPECT_EQ(options.exclude, (std::vector<std::string>{"*.pyc", "/sub/gen/*.py", "/sub/top.py",
                                                       "!/sub/keep/x.py", "out/"}));

  ASSERT_TRUE(cwd.has_parent_path());
  std::string here = cwd.filename().string();
  Config above;
  above.path = (cwd.parent_path() / ".graphsafe.yaml").string();
  above.exclude = {here + "/gen/", "elsewhere/x.py", "*/lib/*.py", "**/cache", "docs"};
  EngineOptions rebased;
  applyConfig(above, rebased);
  EXPECT_EQ(rebased.exclude, (std::vector<std::string>{"/gen/", "/lib/*.py", "/**/cache", "docs"}));
}

// --- the engine's filters, on their own -------------------------------------------------------

TEST(ConfigTest, PerFileIgnoresMatchLikeGitignore) {
  fs::path base = fs::current_path() / "proj";
  PerFileIgnores ignores({{"tests/", {"GS4"}, base.string()},
                          {"conftest.py", {"GS101"}, base.string()},
                          {"scripts/*.py", {"GS2", "GS301"}, base.string()},
                          {"!src/**", {"GS103"}, base.string()}});
  std::string root = base.string() + "/";
  EXPECT_TRUE(ignores.ignores(root + "tests/test_a.py", "GS401"));
  EXPECT_TRUE(ignores.ignores(root + "pkg/tests/unit/test_a.py", "GS402"));
  EXPECT_FALSE(ignores.ignores(root + "tests/test_a.py", "GS101"));
  EXPECT_FALSE(ignores.ignores(root + "tests.py", "GS401"));
  EXPECT_TRUE(ignores.ignores(root + "a/b/conftest.py", "GS101"));
  EXPECT_TRUE(ignores.ignores(root + "scripts/run.py", "GS203"));
  EXPECT_TRUE(ignores.ignores(root + "scripts/run.py", "GS301"));
  EXPECT_FALSE(ignores.ignores(root + "scripts/run.py", "GS302"));
  EXPECT_FALSE(ignores.ignores(root + "pkg/scripts/run.py", "GS203"));
  EXPECT_FALSE(ignores.ignores(root + "src/model.py", "GS103"));
  EXPECT_TRUE(ignores.ignores(root + "bench/model.py", "GS103"));
  // Paths as the engine names them, relative to the current directory.
  EXPECT_TRUE(ignores.ignores("proj/tests/test_a.py", "GS401"));
  EXPECT_TRUE(ignores.ignores("./proj/x/../tests/test_a.py", "GS401"));
  // Outside the base only name patterns apply.
  EXPECT_TRUE(ignores.ignores("/elsewhere/conftest.py", "GS101"));
  EXPECT_FALSE(ignores.ignores("/elsewhere/scripts/run.py", "GS203"));
}

TEST(ConfigTest, SeverityOverridesTakeTheLongestPrefix) {
  auto file = std::make_shared<SourceFile>("a.py", "x\n");
  std::vector<Diagnostic> diagnostics(3);
  diagnostics[0].rule_id = "GS401";
  diagnostics[1].rule_id = "GS402";
  diagnostics[2].rule_id = "GS101";
  diagnostics[2].severity = Severity::kWarning;
  for (Diagnostic& d : diagnostics) d.file = file;
  applySeverityOverrides({{"GS4", Severity::kWarning}, {"GS401", Severity::kError}}, diagnostics);
  EXPECT_EQ(diagnostics[0].severity, Severity::kError);
  EXPECT_EQ(diagnostics[1].severity, Severity::kWarning);
  EXPECT_EQ(diagnostics[2].severity, Severity::kWarning);
}

// --- what the engine does with them ----------------------------------------------------------

constexpr const char* kSyncInCapture = R"(import torch

g = torch.cuda.CUDAGraph()
x = torch.ones(4, device="cuda")
with torch.cuda.graph(g):
    y = x.sum().item()
)";

RunResult analyze(const std::string& path, const EngineOptions& options) {
  std::vector<SourceFilePtr> sources = {std::make_shared<SourceFile>(path, kSyncInCapture)};
  return analyzeSources(sources, options);
}

EngineOptions gs401Only() {
  EngineOptions options;
  options.jobs = 1;
  options.selection.select = {"GS401"};
  return options;
}

TEST(ConfigTest, EngineFindsTheSyncWithoutConfig) {
  RunResult result = analyze("pkg/tests/test_sync.py", gs401Only());
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].rule_id, "GS401");
  EXPECT_EQ(result.diagnostics[0].severity, Severity::kError);
}

TEST(ConfigTest, EngineDropsPerFileIgnoredFindings) {
  EngineOptions options = gs401Only();
  options.per_file_ignores = {{"tests/", {"GS4"}, ""}};
  RunResult result = analyze("pkg/tests/test_sync.py", options);
  EXPECT_TRUE(result.diagnostics.empty());
  EXPECT_EQ(result.suppressed, 1u);

  EXPECT_EQ(analyze("pkg/src/sync.py", options).diagnostics.size(), 1u);

  options.per_file_ignores = {{"tests/", {"GS1"}, ""}};  // other codes: kept
  EXPECT_EQ(analyze("pkg/tests/test_sync.py", options).diagnostics.size(), 1u);

  options.per_file_ignores = {{"pkg/*.py", {"GS401"}, ""}};  // anchored: only directly in pkg
  EXPECT_TRUE(analyze("pkg/sync.py", options).diagnostics.empty());
  EXPECT_EQ(analyze("pkg/tests/test_sync.py", options).diagnostics.size(), 1u);

  options.per_file_ignores = {{"!pkg/src/**", {"GS401"}, ""}};  // negated: all but pkg/src
  EXPECT_TRUE(analyze("pkg/tests/test_sync.py", options).diagnostics.empty());
  EXPECT_EQ(analyze("pkg/src/sync.py", options).diagnostics.size(), 1u);
}

TEST(ConfigTest, EnginePerFileIgnoresAreRelativeToTheConfigDirectory) {
  TempDir dir;
  std::string config_path =
      dir.write(".graphsafe.yaml", "per-file-ignores:\n  \"tests/*.py\": [GS401]\n");
  EngineOptions options = gs401Only();
  applyConfig(loadConfigFile(config_path), options);
  EXPECT_TRUE(analyze((dir.path() / "tests/test_sync.py").string(), options).diagnostics.empty());
  EXPECT_EQ(analyze((dir.path() / "src/tests/test_sync.py").string(), options).diagnostics.size(),
            1u);
  // The same relative path under another directory is not the config's tests/.
  EXPECT_EQ(analyze("elsewhere/tests/test_sync.py", options).diagnostics.size(), 1u);
}

TEST(ConfigTest, EngineAppliesSeverityOverrides) {
  EngineOptions options = gs401Only();
  options.severity_overrides = {{"GS4", Severity::kWarning}};
  RunResult result = analyze("sync.py", options);
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].severity, Severity::kWarning);

  options.severity_overrides = {{"GS4", Severity::kWarning}, {"GS401", Severity::kError}};
  result = analyze("sync.py", options);
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].severity, Severity::kError);  // the longest prefix wins
}

// --- the command line -------------------------------------------------------------------------

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

CommandResult runGraphsafe(const fs::path& dir, const std::string& args) {
  std::string command =
      "cd '" + dir.string() + "' && '" + std::string(GRAPHSAFE_BINARY) + "' " + args + " 2>&1";
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  std::size_t got = 0;
  while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, got);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

TEST(ConfigTest, CliExitsTwoOnABadConfigFoundAboveThePath) {
  TempDir dir;
  dir.write(".graphsafe.yaml", "select: [GS401]\nselct: [GS101]\n");
  dir.write("src/a.py", "x = 1\n");
  CommandResult result = runGraphsafe(dir.path(), "check src/a.py");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.output,
            "graphsafe: error: .graphsafe.yaml:2: unknown key 'selct' (did you mean 'select'?)\n");
}

TEST(ConfigTest, CliConfigOptionOverridesTheSearch) {
  TempDir dir;
  dir.write(".graphsafe.yaml", "selct: []\n");
  dir.write("ci/graphsafe.toml", "severity = { GS401 = \"fatal\" }\n");
  dir.write("a.py", "x = 1\n");
  CommandResult result = runGraphsafe(dir.path(), "check --config ci/graphsafe.toml a.py");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.output,
            "graphsafe: error: ci/graphsafe.toml:1: severity.GS401: expected 'error' or "
            "'warning', got 'fatal'\n");

  dir.write("ci/good.yaml", "ignore: [GS4]\n");
  result = runGraphsafe(dir.path(), "check --config ci/good.yaml a.py");
  EXPECT_EQ(result.exit_code, 0) << result.output;

  result = runGraphsafe(dir.path(), "check --config missing.yaml a.py");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.output,
            "graphsafe: error: missing.yaml: cannot read: No such file or directory\n");
}

// --- suggestions -----------------------------------------------------------------------------

TEST(ConfigTest, ClosestNameSuggestsOnlyCloseNames) {
  std::vector<std::string_view> names = {"select", "ignore", "exclude", "severity"};
  EXPECT_EQ(closestName("selct", names), "select");
  EXPECT_EQ(closestName("IGNORE", names), "ignore");
  EXPECT_EQ(closestName("excludes", names), "exclude");
  EXPECT_EQ(closestName("color", names), std::nullopt);
  EXPECT_EQ(closestName(std::string(1000, 'x'), names), std::nullopt);
}

}  // namespace
}  // namespace graphsafe::testing
