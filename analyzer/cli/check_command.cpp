#include "analyzer/cli/check_command.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <limits>
#include <set>
#include <sstream>

#include "analyzer/baseline/baseline.h"
#include "analyzer/engine/fix_application.h"
#include "analyzer/catalog/rule_catalog.h"
#include "analyzer/config/apply_config.h"
#include "analyzer/config/config.h"
#include "analyzer/cli/progress_line.h"
#include "analyzer/engine/file_walker.h"
#include "analyzer/engine/ignore_rules.h"
#include "analyzer/io/atomic_write.h"
#include "analyzer/output/output_common.h"
#include "analyzer/output/output_format.h"
#include "frontends/cuda/nvcc_flag_filter.h"

namespace graphsafe {

namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::vector<std::string> nonEmptyPaths(const std::vector<std::string>& paths) {
  std::vector<std::string> kept;
  for (const std::string& path : paths) {
    if (!path.empty()) kept.push_back(path);
  }
  if (kept.empty()) kept.emplace_back(".");
  return kept;
}

bool environmentSet(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' && std::string_view(value) != "0";
}

// The result cache's directory, or "" when the cache is off.
std::string cacheDirectory(const CheckCommandOptions& options) {
  if (options.no_cache || environmentSet("GRAPHSAFE_NO_CACHE")) return {};
  if (!options.cache_dir.empty()) return options.cache_dir;
  const char* from_environment = std::getenv("GRAPHSAFE_CACHE_DIR");
  if (from_environment != nullptr && *from_environment != '\0') return from_environment;
  return ".graphsafe_cache";
}

// -p and --cuda-path name directories the C++ frontend reads; a wrong one is a mistake in the
// command, said before anything is parsed, not a silent fallback to other flags.
bool validateCxxOptions(const CheckCommandOptions& options, std::string& error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!options.compile_commands_dir.empty()) {
    fs::path database = fs::path(options.compile_commands_dir) / "compile_commands.json";
    if (!fs::is_directory(options.compile_commands_dir, ec)) {
      error = "-p: " + options.compile_commands_dir + " is not a directory";
      return false;
    }
    if (!fs::is_regular_file(database, ec)) {
      error = "-p: " + options.compile_commands_dir +
              " holds no compile_commands.json (CMake writes one with "
              "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON; Bear or compiledb make one for other builds)";
      return false;
    }
  }
  if (!options.cuda_path.empty() && options.cuda_path != "none" &&
      !fs::is_regular_file(fs::path(options.cuda_path) / "include" / "cuda_runtime.h", ec)) {
    error = "--cuda-path: " + options.cuda_path +
            " is not a CUDA toolkit (no include/cuda_runtime.h there); give the toolkit's root, "
            "such as /usr/local/cuda, or `none` for graphsafe's built-in CUDA declarations";
    return false;
  }
  for (const auto* args : {&options.extra_args, &options.extra_args_before}) {
    for (const std::string& arg : *args) {
      if (arg.empty()) {
        error = std::string(args == &options.extra_args ? "--extra-arg" : "--extra-arg-before") +
                ": an empty argument";
        return false;
      }
    }
  }
  return true;
}

}  // namespace

std::string canonicalRuleCode(std::string code) {
  for (char& c : code) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  // Every rule ID starts with GS: the prefix that selects the whole catalog.
  return code == "ALL" ? "GS" : code;
}

std::vector<std::string> splitCodeLists(const std::vector<std::string>& lists) {
  std::vector<std::string> codes;
  for (const std::string& list : lists) {
    std::size_t i = 0;
    while (i < list.size()) {
      while (i < list.size() && (list[i] == ',' || isSpace(list[i]))) ++i;
      std::size_t start = i;
      while (i < list.size() && list[i] != ',' && !isSpace(list[i])) ++i;
      if (i > start) codes.push_back(canonicalRuleCode(list.substr(start, i - start)));
    }
  }
  return codes;
}

std::string validateRuleCodes(const std::vector<std::string>& codes, std::string_view flag) {
  const auto& rules = RuleCatalog::instance().rules();
  for (const std::string& code : codes) {
    bool well_formed =
        code.size() >= 2 && code.starts_with("GS") &&
        std::all_of(code.begin() + 2, code.end(), [](char c) { return c >= '0' && c <= '9'; });
    bool known = well_formed && std::any_of(rules.begin(), rules.end(), [&](const RuleInfo& rule) {
                   return rule.id.starts_with(code);
                 });
    if (!known) {
      return std::string(flag) + ": unknown rule code '" + code +
             "' (expected a rule ID such as GS401, a prefix such as GS4, or ALL; see `graphsafe "
             "rules`)";
    }
  }
  return {};
}

std::optional<std::size_t> parseByteSize(std::string_view text) {
  while (!text.empty() && isSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && isSpace(text.back())) text.remove_suffix(1);
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 18) return std::nullopt;
  std::size_t value = 0;
  for (std::size_t i = 0; i < digits; ++i)
    value = value * 10 + static_cast<std::size_t>(text[i] - '0');
  std::string suffix;
  for (char c : text.substr(digits)) {
    suffix += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  }
  if (suffix.ends_with("IB")) suffix.erase(suffix.size() - 2, 1);  // "MiB" -> "MB"
  if (suffix.size() == 2 && suffix.back() == 'B') suffix.pop_back();
  std::size_t shift = 0;
  if (suffix.empty() || suffix == "B") {
    shift = 0;
  } else if (suffix == "K") {
    shift = 10;
  } else if (suffix == "M") {
    shift = 20;
  } else if (suffix == "G") {
    shift = 30;
  } else {
    return std::nullopt;
  }
  if (value > (std::numeric_limits<std::size_t>::max() >> shift)) return std::nullopt;
  return value << shift;
}

std::optional<Shard> parseShard(std::string_view text) {
  std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto number = [](std::string_view digits) -> std::optional<unsigned> {
    if (digits.empty() || digits.size() > 6) return std::nullopt;
    unsigned value = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + static_cast<unsigned>(c - '0');
    }
    return value;
  };
  auto index = number(text.substr(0, slash));
  auto count = number(text.substr(slash + 1));
  if (!index || !count || *count == 0 || *count > 4096 || *index == 0 || *index > *count) {
    return std::nullopt;
  }
  return Shard{*index, *count};
}

unsigned shardOfPath(std::string_view path, unsigned count) {
  while (path.starts_with("./")) path.remove_prefix(2);
  return static_cast<unsigned>(contentHash(path) % count) + 1;
}

void keepShard(RunResult& result, const Shard& shard) {
  if (shard.count <= 1) return;
  std::erase_if(result.diagnostics, [&](const Diagnostic& d) {
    return shardOfPath(d.path(), shard.count) != shard.index;
  });
  std::erase_if(result.notices, [&](const Notice& notice) {
    return !notice.path.empty() && shardOfPath(notice.path, shard.count) != shard.index;
  });
  std::erase_if(result.skipped_files, [&](const std::string& path) {
    return shardOfPath(path, shard.count) != shard.index;
  });
}

bool selectsCxxRules(const RuleSelection& selection) {
  const auto& rules = RuleCatalog::instance().rules();
  return std::any_of(rules.begin(), rules.end(), [&](const RuleInfo& rule) {
    return rule.implemented && selection.enabled(rule.id) &&
           std::find(rule.languages.begin(), rule.languages.end(), "cuda") != rule.languages.end();
  });
}

bool toEngineOptions(const CheckCommandOptions& options, EngineOptions& engine,
                     std::string& error) {
  if (!parseOutputFormat(options.format)) {
    error = "--format: unknown format '" + options.format +
            "' (expected text, concise, json, sarif, github, gitlab, junit, lintrunner or "
            "json-lines)";
    return false;
  }
  if (options.color != "auto" && options.color != "always" && options.color != "never") {
    error = "--color: expected auto, always or never, not '" + options.color + "'";
    return false;
  }
  engine.paths = nonEmptyPaths(options.paths);
  engine.force_exclude = options.force_exclude;
  engine.jobs = options.jobs;
  engine.selection.select = splitCodeLists(options.select);
  engine.selection.ignore = splitCodeLists(options.ignore);
  error = validateRuleCodes(engine.selection.select, "--select");
  if (error.empty()) error = validateRuleCodes(engine.selection.ignore, "--ignore");
  if (error.empty()) {
    error = validateRuleCodes(splitCodeLists(options.extend_select), "--extend-select");
  }
  if (!error.empty()) return false;
  for (const std::string& pattern : options.exclude) {
    if (!pattern.empty()) engine.exclude.push_back(pattern);
  }
  if (!options.max_file_size.empty()) {
    auto bytes = parseByteSize(options.max_file_size);
    if (!bytes || *bytes == 0) {
      error = "--max-file-size: expected a size such as 8M, 512K or 1000000, not '" +
              options.max_file_size + "'";
      return false;
    }
    engine.settings.max_file_bytes = *bytes;
  }
  if (options.statistics && options.format != "text" && options.format != "concise" &&
      options.format != "json") {
    // As Ruff: the statistics are a table (text, concise) or a JSON array (json); a table
    // inside a SARIF, JUnit or GitLab report would make it invalid.
    const std::string& format = options.format;
    error =
        "--statistics: prints a table (--format text or concise) or a JSON array (--format "
        "json), not " +
        format + "; run without --statistics for the " + format + " report";
    return false;
  }
  if (!options.shard.empty() && !parseShard(options.shard)) {
    error = "--shard: expected I/N with 1 <= I <= N (such as 2/4), not '" + options.shard + "'";
    return false;
  }
  if (!validateCxxOptions(options, error)) return false;
  engine.settings.compile_commands_dir = options.compile_commands_dir;
  engine.settings.cuda_path = options.cuda_path;
  engine.settings.show_compiler_errors = options.show_compiler_errors;
  // Relative include paths mean the directory graphsafe runs in, as in clang-tidy.
  std::error_code cwd_error;
  const std::string cwd = std::filesystem::current_path(cwd_error).string();
  engine.settings.extra_args = cuda::withAbsolutePaths(options.extra_args, cwd);
  engine.settings.extra_args_before = cuda::withAbsolutePaths(options.extra_args_before, cwd);
  engine.cache_dir = cacheDirectory(options);
  // The JSON document carries the regions report; --show-regions prints it.
  engine.report_regions = options.show_regions || options.format == "json";
  engine.report_unused_suppressions = options.report_unused_suppressions;
  return true;
}

bool useColor(std::string_view mode, bool is_terminal) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  auto set = [](const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0';
  };
  if (set("NO_COLOR")) return false;
  return is_terminal || set("FORCE_COLOR");
}

namespace {

namespace fs = std::filesystem;

std::string joined(const std::vector<std::string>& items, const char* none = "(none)") {
  if (items.empty()) return none;
  std::string text;
  for (const std::string& item : items) {
    if (!text.empty()) text += ", ";
    text += item;
  }
  return text;
}

// The absolute, normalized spelling of a path, for comparing paths spelled differently.
std::string canonicalPath(const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) return fs::path(path).lexically_normal().generic_string();
  fs::path canonical = fs::weakly_canonical(absolute, ec);
  return (ec ? absolute.lexically_normal() : canonical).generic_string();
}

// --whole-project: the named files and directories, and whether a path is one of them or under
// one of them.
class NamedPaths {
 public:
  explicit NamedPaths(const std::vector<std::string>& paths) {
    for (const std::string& path : paths) named_.insert(canonicalPath(path));
  }
  bool contains(const std::string& path) const {
    std::string canonical = canonicalPath(path);
    if (named_.count(canonical)) return true;
    for (std::size_t slash = canonical.rfind('/'); slash != std::string::npos && slash > 0;
         slash = canonical.rfind('/', slash - 1)) {
      if (named_.count(canonical.substr(0, slash))) return true;
    }
    return false;
  }

 private:
  std::set<std::string> named_;
};

// Keeps the findings, notices and skipped files of the named paths.
void keepNamed(RunResult& result, const NamedPaths& named) {
  std::erase_if(result.diagnostics,
                [&](const Diagnostic& d) { return !named.contains(d.path()); });
  std::erase_if(result.notices, [&](const Notice& notice) {
    return !notice.path.empty() && !named.contains(notice.path);
  });
  std::erase_if(result.skipped_files,
                [&](const std::string& path) { return !named.contains(path); });
}

// Whether `exclude` (gitignore-style patterns relative to the current directory) excludes
// `path`, a file that need not exist: the standard input's --stdin-filename.
bool excludedPath(const std::string& path, const std::vector<std::string>& exclude) {
  if (exclude.empty()) return false;
  std::string patterns;
  for (const std::string& pattern : exclude) patterns += pattern + "\n";
  IgnoreRules rules = IgnoreRules::parse(patterns, ".");
  std::error_code ec;
  fs::path given(path);
  if (given.is_absolute()) given = given.lexically_relative(fs::current_path(ec));
  std::string relative = given.lexically_normal().generic_string();
  while (relative.starts_with("./")) relative.erase(0, 2);
  for (std::size_t slash = relative.find('/'); slash != std::string::npos;
       slash = relative.find('/', slash + 1)) {
    if (rules.match(relative.substr(0, slash), true) == IgnoreRules::Verdict::kIgnore) return true;
  }
  return rules.match(relative, false) == IgnoreRules::Verdict::kIgnore;
}

// The checks of `-` and --stdin-filename; empty when fine. `from_stdin` says whether the run
// reads standard input.
std::string validateStdin(const CheckCommandOptions& options, bool& from_stdin) {
  bool dash = std::find(options.paths.begin(), options.paths.end(), "-") != options.paths.end();
  from_stdin = dash || (options.paths.empty() && !options.stdin_filename.empty());
  if (dash && options.paths.size() > 1) {
    return "`-` (standard input) must be the only path";
  }
  if (!from_stdin && !options.stdin_filename.empty()) {
    return "--stdin-filename names the file standard input holds; give `-` as the only path";
  }
  if (!from_stdin) return {};
  if (options.stdin_filename.empty()) {
    return "reading standard input (`-`) needs --stdin-filename PATH: the path decides the "
           "language, the configuration and the per-file-ignores (such as --stdin-filename "
           "src/model.py)";
  }
  if (!isPythonPath(options.stdin_filename) && !isCudaPath(options.stdin_filename)) {
    return "--stdin-filename: " + options.stdin_filename +
           " is neither a Python nor a C++ file (by its extension)";
  }
  if (options.whole_project) return "--whole-project reads files on disk, not standard input";
  if (options.fix && !options.diff) {
    return "--fix writes files, and standard input is none: --diff shows the fixes instead";
  }
  return {};
}

}  // namespace

std::string projectRoot(const std::string& path, const std::optional<std::string>& config_path) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec).lexically_normal();
  if (ec) return ".";
  fs::path root;
  if (config_path) {
    root = (cwd / *config_path).lexically_normal().parent_path();
  } else {
    fs::path dir = (cwd / path).lexically_normal();
    if (!fs::is_directory(dir, ec)) dir = dir.parent_path();
    while (!dir.empty()) {
      if (fs::exists(dir / ".git", ec)) {
        root = dir;
        break;
      }
      fs::path parent = dir.parent_path();
      if (parent == dir) break;
      dir = parent;
    }
  }
  if (root.empty()) return ".";
  fs::path relative = root.lexically_relative(cwd);
  std::string spelled = relative.generic_string();
  while (spelled.size() > 1 && spelled.ends_with("/")) spelled.pop_back();
  if (spelled.empty() || spelled == ".") return ".";
  // A root outside the current directory is spelled absolutely rather than as ../..
  if (spelled.starts_with("..")) return root.generic_string();
  return spelled;
}

void writeSettings(const EngineOptions& engine, const std::optional<std::string>& config_path,
                   std::ostream& out, const std::optional<std::string>& user_config_path,
                   bool allow_incomplete) {
  const AnalysisSettings& s = engine.settings;
  out << "configuration: " << (config_path ? *config_path : std::string("(none)")) << "\n";
  out << "user-configuration: " << (user_config_path ? *user_config_path : std::string("(none)"))
      << "\n";
  out << "allow-incomplete: " << (allow_incomplete ? "true" : "false") << "\n";
  out << "paths: " << joined(engine.paths) << "\n";
  out << "select: " << joined(engine.selection.select, "(every rule)") << "\n";
  out << "ignore: " << joined(engine.selection.ignore) << "\n";
  out << "exclude: " << joined(engine.exclude) << "\n";
  out << "force-exclude: " << (engine.force_exclude ? "true" : "false") << "\n";
  out << "per-file-ignores:";
  if (engine.per_file_ignores.empty()) out << " (none)";
  out << "\n";
  for (const PerFileIgnore& ignore : engine.per_file_ignores) {
    out << "  " << ignore.pattern << ": " << joined(ignore.codes);
    if (!ignore.base.empty()) out << " (relative to " << ignore.base << ")";
    out << "\n";
  }
  out << "severity:";
  if (engine.severity_overrides.empty()) out << " (none)";
  out << "\n";
  for (const auto& [code, severity] : engine.severity_overrides) {
    out << "  " << code << ": " << severityName(severity) << "\n";
  }
  out << "capture-entry-points: " << joined(s.capture_entry_points) << "\n";
  out << "extra-sync-apis: " << joined(s.extra_sync_apis) << "\n";
  out << "extra-state-apis: " << joined(s.extra_state_apis) << "\n";
  out << "capture-flags: " << joined(s.capture_flags) << "\n";
  std::vector<std::string> environment;
  for (const auto& [name, value] : s.environment) environment.push_back(name + "=" + value);
  out << "environment: " << joined(environment) << "\n";
  out << "max-file-size: " << s.max_file_bytes << " bytes\n";
  out << "jobs: " << (engine.jobs == 0 ? std::string("one per core") : std::to_string(engine.jobs))
      << "\n";
  out << "cache-dir: " << (engine.cache_dir.empty() ? std::string("(no cache)") : engine.cache_dir)
      << "\n";
  out << "compile-commands-dir: "
      << (s.compile_commands_dir.empty() ? std::string("(the nearest above each file)")
                                         : s.compile_commands_dir)
      << "\n";
  out << "cuda-path: " << (s.cuda_path.empty() ? std::string("(detected)") : s.cuda_path) << "\n";
  out << "extra-arg-before: " << joined(s.extra_args_before) << "\n";
  out << "extra-arg: " << joined(s.extra_args) << "\n";
  out << "show-compiler-errors: " << (s.show_compiler_errors ? "true" : "false") << "\n";
  out << "cxx-timeout: ";
  if (s.cxx_timeout_ms == 0) {
    out << "(no bound)\n";
  } else {
    out << s.cxx_timeout_ms / 1000 << " s\n";
  }
  out << "cxx-memory: ";
  if (s.cxx_memory_bytes == 0) {
    out << "(no bound)\n";
  } else {
    out << (s.cxx_memory_bytes >> 20) << " MiB\n";
  }
}

int runCheckCommand(const CheckCommandOptions& options, std::ostream& out, std::ostream& err,
                    bool out_is_terminal, bool err_is_terminal, std::istream& in) {
  EngineOptions engine;
  std::string error;
  bool from_stdin = false;
  error = validateStdin(options, from_stdin);
  if (!error.empty() || !toEngineOptions(options, engine, error)) {
    err << "graphsafe: error: " << error << "\n";
    return 2;
  }
  if (from_stdin) engine.paths = {options.stdin_filename};
  // A path the user typed that is not there is a mistake in the command, not a finding.
  for (const std::string& path : engine.paths) {
    std::error_code ec;
    if (from_stdin) break;
    if (!std::filesystem::exists(path, ec)) {
      err << "graphsafe: error: " << path << ": no such file or directory";
      // After `--` an option is a path: the pre-commit hook's entry ends with `--`, so its
      // `args` land there.
      if (path.starts_with("-")) {
        err << " (an option given after `--` is read as a path; in a pre-commit hook, put "
               "options in `entry` before its `--`, or in the configuration file)";
      }
      err << "\n";
      return 2;
    }
  }

  std::optional<std::string> config_path;
  std::optional<std::string> user_config_path;
  bool allow_incomplete = false;
  try {
    if (options.config.empty()) {
      config_path = findConfigFile(engine.paths.front());
      if (config_path) applyConfig(loadFoundConfigFile(*config_path), engine);
    } else {
      config_path = options.config;
      applyConfig(loadConfigFile(*config_path), engine);
    }
    // The user's own settings, then the command line's, win over the repository's.
    user_config_path =
        options.user_config.empty() ? findUserConfigFile() : std::optional(options.user_config);
    if (user_config_path) {
      applyUserConfig(loadUserConfigFile(*user_config_path), engine, allow_incomplete);
    }
  } catch (const ConfigError& config_error) {
    err << "graphsafe: error: " << printableName(config_error.what()) << "\n";
    return 2;
  }
  allow_incomplete = allow_incomplete || options.allow_incomplete;
  if (options.cxx_timeout_seconds) {
    engine.settings.cxx_timeout_ms = *options.cxx_timeout_seconds * 1000;
  }
  if (options.cxx_memory_mib) {
    engine.settings.cxx_memory_bytes = std::size_t{*options.cxx_memory_mib} << 20;
  }
  // --extend-select adds to a selection; without one every rule runs already.
  if (!engine.selection.select.empty()) {
    for (const std::string& code : splitCodeLists(options.extend_select)) {
      if (std::find(engine.selection.select.begin(), engine.selection.select.end(), code) ==
          engine.selection.select.end()) {
        engine.selection.select.push_back(code);
      }
    }
  }

  // --whole-project: the project's files are analyzed (the same set, hence the same cache
  // entry, whichever of its files are named), the named ones reported.
  std::optional<NamedPaths> named;
  std::vector<std::string> named_files;
  if (options.whole_project) {
    named.emplace(engine.paths);
    std::vector<Notice> ignored;
    named_files = collectFiles(engine.paths, engine.exclude, ignored, engine.force_exclude);
    std::vector<std::string> project = {projectRoot(engine.paths.front(), config_path)};
    std::vector<std::string> walked =
        collectFiles(project, engine.exclude, ignored, engine.force_exclude);
    std::set<std::string> in_walk;
    for (const std::string& path : walked) in_walk.insert(canonicalPath(path));
    // A named file the project's walk skips (a .gitignore'd file named without
    // --force-exclude) is analyzed as named.
    for (const std::string& file : named_files) {
      if (!in_walk.count(canonicalPath(file))) project.push_back(file);
    }
    engine.paths = std::move(project);
  }

  // Every file this run writes lands inside the trees it reads only through links that stay
  // there (atomic_write.h): a checkout's planted link is replaced, never written through.
  const std::vector<std::string> trees = analyzedTrees(engine.paths);
  const LinkBoundary boundary{trees};
  if (!engine.cache_dir.empty() && leavesBoundary(engine.cache_dir, boundary)) {
    engine.cache_dir.clear();  // the cache is the run's own: not through a link out of the tree
  }

  if (options.show_settings) {
    writeSettings(engine, config_path, out, user_config_path, allow_incomplete);
    return 0;
  }
  if (options.show_files) {
    std::vector<Notice> notices;
    std::vector<std::string> files;
    if (from_stdin) {
      if (!(engine.force_exclude && excludedPath(options.stdin_filename, engine.exclude))) {
        files.push_back(options.stdin_filename);
      }
    } else {
      files = collectFiles(engine.paths, engine.exclude, notices, engine.force_exclude);
    }
    writeNotices(notices, err, useColor(options.color, err_is_terminal));
    for (const std::string& file : files) out << printableName(file) << "\n";
    return 0;
  }

  std::optional<Baseline> baseline;
  if (!options.baseline.empty()) {
    baseline = Baseline::load(options.baseline, error);
    if (!baseline) {
      err << "graphsafe: error: " << error << "\n";
      return 2;
    }
  }

  // The baseline file as it is before the analysis: if someone changes it while the analysis
  // runs, their change is kept and the write refused.
  std::optional<FileSnapshot> baseline_before;
  if (!options.write_baseline.empty()) {
    baseline_before = snapshotFile(options.write_baseline, error, boundary);
    if (!baseline_before) {
      err << "graphsafe: error: " << error << "\n";
      return 2;
    }
  }

  RunResult result;
  if (from_stdin) {
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Ruff's --force-exclude for standard input: an excluded path is not analyzed.
    if (!(engine.force_exclude && excludedPath(options.stdin_filename, engine.exclude))) {
      result = analyzeSources(
          {std::make_shared<const SourceFile>(options.stdin_filename, std::move(text))}, engine);
    }
  } else {
    RunProgress progress;
    std::optional<ProgressLine> progress_line;
    if (options.progress && err_is_terminal && !options.quiet) {
      engine.progress = &progress;
      progress_line.emplace(err, progress);
    }
    result = runAnalysis(engine);
    if (progress_line) progress_line->stop();
  }
  if (named) {
    keepNamed(result, *named);
    // The summary counts the files reported on, not the project's.
    std::size_t reported = named_files.size();
    result.files_analyzed =
        reported > result.skipped_files.size() ? reported - result.skipped_files.size() : 0;
  }
  if (!options.shard.empty()) keepShard(result, *parseShard(options.shard));
  // C++ files the selected rules should have checked were not: the run cannot pass.
  const bool skipped_fails = !result.skipped_files.empty() && selectsCxxRules(engine.selection);
  auto reportSkipped = [&] {
    err << "graphsafe: error: "
        << plural(result.skipped_files.size(), "C++ file was", "C++ files were")
        << " not analyzed, and the selected rules check C++: " << result.skipped_reason
        << ". To check only the Python files, --exclude the C++ files\n";
  };
  // Code left unanalyzed (the notices say what and why): a clean report would not be a pass.
  const Incompleteness incomplete = incompleteness(result);
  const bool incomplete_fails = incomplete.notices > 0 && !allow_incomplete;
  auto reportIncomplete = [&] {
    err << "graphsafe: error: the analysis is incomplete: ";
    const std::size_t files = incomplete.files - result.skipped_files.size();
    if (files > 0) {
      err << plural(files, "file was", "files were") << " not analyzed completely";
    } else {
      err << "part of it was not completed";
    }
    err << " (the notices say why). Fix what they name or exclude those files; "
           "--allow-incomplete accepts the result as it is\n";
  };

  if (!options.write_baseline.empty()) {
    // What was left out of the baseline must be seen: its findings would come back as new.
    writeNotices(result.notices, err, useColor(options.color, err_is_terminal));
    if (skipped_fails) {  // a baseline without the C++ files' findings would be wrong
      reportSkipped();
      return 2;
    }
    if (incomplete_fails) {
      err << "graphsafe: error: the baseline was not written\n";
      reportIncomplete();
      return 2;
    }
    Baseline current = Baseline::fromResult(result, options.write_baseline);
    if (!current.write(options.write_baseline, *baseline_before, error, boundary)) {
      err << "graphsafe: error: " << error << "\n";
      return 2;
    }
    if (!options.quiet) {
      err << "graphsafe: wrote " << plural(current.entries().size(), "finding", "findings")
          << " to the baseline " << options.write_baseline << "\n";
    }
    return 0;
  }
  // Findings the baseline holds count as suppressed.
  if (baseline) result.suppressed += baseline->filter(result, options.baseline);

  if (options.diff) {
    std::size_t changed = 0;
    for (const FileFix& file : collectFixes(result)) {
      out << unifiedDiff(file.file->path(), file.file->text(), file.edits);
      changed += file.diagnostics.size();
    }
    out.flush();
    if (!options.quiet) {
      err << "graphsafe: " << plural(changed, "fix", "fixes") << " would be applied\n";
    }
    if (incomplete_fails) {
      writeNotices(result.notices, err, useColor(options.color, err_is_terminal));
      reportIncomplete();
      return 2;
    }
    return changed == 0 || options.exit_zero ? 0 : 1;
  }
  if (options.fix) {
    std::size_t files = 0;
    const std::size_t fixed = writeFixes(result, err, files, trees);
    if (fixed > 0 && !options.quiet) {
      err << "graphsafe: fixed " << plural(fixed, "finding", "findings") << " in "
          << plural(files, "file", "files") << "\n";
    }
  }

  OutputFormat format = *parseOutputFormat(options.format);
  bool to_file = !options.output.empty();
  OutputOptions output_options;
  // FORCE_COLOR is for terminals that do not say they are one (CI logs), not for a file.
  output_options.color =
      to_file ? options.color == "always" : useColor(options.color, out_is_terminal);
  output_options.quiet = options.quiet;
  output_options.status_color = useColor(options.color, err_is_terminal);
  std::ostringstream buffer;
  std::ostream& sink = to_file ? static_cast<std::ostream&>(buffer) : out;
  if (options.statistics) {
    if (format != OutputFormat::kJson && format != OutputFormat::kSarif) {
      writeNotices(result.notices, err, output_options.status_color);
    }
    writeStatistics(result, sink, format == OutputFormat::kJson);
  } else {
    // Findings may go to a file; notices and the clean-run line stay on stderr.
    writeResult(format, result, sink, err, output_options);
    if (options.show_regions && format != OutputFormat::kJson) {
      writeRegions(result.regions, sink, output_options.color);
    }
  }

  if (to_file) {
    if (!writeFileAtomically(options.output, buffer.str(), error, boundary)) {
      err << "graphsafe: error: " << printableName(error) << "\n";
      return 2;
    }
  }
  out.flush();
  if (skipped_fails) {
    reportSkipped();
    return 2;
  }
  if (incomplete_fails) {
    reportIncomplete();
    return 2;
  }
  if (result.diagnostics.empty() || options.exit_zero) return 0;
  return 1;
}

}  // namespace graphsafe
