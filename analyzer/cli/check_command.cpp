#include "analyzer/cli/check_command.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <sstream>

#include "analyzer/baseline/baseline.h"
#include "analyzer/catalog/rule_catalog.h"
#include "analyzer/config/apply_config.h"
#include "analyzer/config/config.h"
#include "analyzer/io/atomic_write.h"
#include "analyzer/output/output_common.h"
#include "analyzer/output/output_format.h"

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

std::vector<std::string> splitCodeLists(const std::vector<std::string>& lists) {
  std::vector<std::string> codes;
  for (const std::string& list : lists) {
    std::size_t i = 0;
    while (i < list.size()) {
      while (i < list.size() && (list[i] == ',' || isSpace(list[i]))) ++i;
      std::size_t start = i;
      while (i < list.size() && list[i] != ',' && !isSpace(list[i])) ++i;
      if (i > start) codes.push_back(list.substr(start, i - start));
    }
  }
  return codes;
}

std::string validateRuleCodes(const std::vector<std::string>& codes, std::string_view flag) {
  const auto& rules = RuleCatalog::instance().rules();
  for (const std::string& code : codes) {
    bool well_formed =
        code.size() > 2 && code.starts_with("GS") &&
        std::all_of(code.begin() + 2, code.end(), [](char c) { return c >= '0' && c <= '9'; });
    bool known = well_formed && std::any_of(rules.begin(), rules.end(), [&](const RuleInfo& rule) {
                   return rule.id.starts_with(code);
                 });
    if (!known) {
      return std::string(flag) + ": unknown rule code '" + code +
             "' (expected a rule ID such as GS401 or a prefix such as GS4; see `graphsafe rules`)";
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
  engine.settings.extra_args = options.extra_args;
  engine.settings.extra_args_before = options.extra_args_before;
  engine.cache_dir = cacheDirectory(options);
  // The JSON document carries the regions report; --show-regions prints it.
  engine.report_regions = options.show_regions || options.format == "json";
  return true;
}

bool useColor(std::string_view mode, bool is_terminal) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  return is_terminal && (no_color == nullptr || *no_color == '\0');
}

int runCheckCommand(const CheckCommandOptions& options, std::ostream& out, std::ostream& err,
                    bool out_is_terminal, bool err_is_terminal) {
  EngineOptions engine;
  std::string error;
  if (!toEngineOptions(options, engine, error)) {
    err << "graphsafe: error: " << error << "\n";
    return 2;
  }
  // A path the user typed that is not there is a mistake in the command, not a finding.
  for (const std::string& path : engine.paths) {
    std::error_code ec;
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

  try {
    std::optional<std::string> config_path =
        options.config.empty() ? findConfigFile(engine.paths.front()) : options.config;
    if (config_path) applyConfig(loadConfigFile(*config_path), engine);
  } catch (const ConfigError& config_error) {
    err << "graphsafe: error: " << config_error.what() << "\n";
    return 2;
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
    baseline_before = snapshotFile(options.write_baseline, error);
    if (!baseline_before) {
      err << "graphsafe: error: " << error << "\n";
      return 2;
    }
  }

  RunResult result = runAnalysis(engine);
  if (!options.shard.empty()) keepShard(result, *parseShard(options.shard));
  // C++ files the selected rules should have checked were not: the run cannot pass.
  const bool skipped_fails = !result.skipped_files.empty() && selectsCxxRules(engine.selection);
  auto reportSkipped = [&] {
    err << "graphsafe: error: "
        << plural(result.skipped_files.size(), "C++ file was", "C++ files were")
        << " not analyzed, and the selected rules check C++: " << result.skipped_reason
        << ". To check only the Python files, --exclude the C++ files\n";
  };

  if (!options.write_baseline.empty()) {
    if (skipped_fails) {  // a baseline without the C++ files' findings would be wrong
      reportSkipped();
      return 2;
    }
    Baseline current = Baseline::fromResult(result, options.write_baseline);
    if (!current.write(options.write_baseline, *baseline_before, error)) {
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

  OutputFormat format = *parseOutputFormat(options.format);
  bool to_file = !options.output.empty();
  OutputOptions output_options;
  output_options.color = useColor(options.color, to_file ? false : out_is_terminal);
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
    if (!writeFileAtomically(options.output, buffer.str(), error)) {
      err << "graphsafe: error: " << error << "\n";
      return 2;
    }
  }
  out.flush();
  if (skipped_fails) {
    reportSkipped();
    return 2;
  }
  if (result.diagnostics.empty() || options.exit_zero) return 0;
  return 1;
}

}  // namespace graphsafe
