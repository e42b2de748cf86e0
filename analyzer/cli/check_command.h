#pragma once

// `graphsafe check`: its options as the user gives them, their validation and mapping to the
// engine's options, and the run itself. Free of any command-line library so that other front
// ends (the LSP server, tests) reuse the same option handling.

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/engine/engine.h"

namespace graphsafe {

struct CheckCommandOptions {
  std::vector<std::string> paths;  // default "."
  // text | concise | json | sarif | github | gitlab | junit | lintrunner | json-lines
  std::string format = "text";
  std::string output;               // file to write (atomically); empty = stdout
  std::vector<std::string> select;  // rule IDs or prefixes; entries may be comma lists
  std::vector<std::string> ignore;
  // --extend-select: added to the selection of --select or the configuration (as Ruff's); the
  // ignores still win. Without a select anywhere every rule runs already.
  std::vector<std::string> extend_select;
  std::vector<std::string> exclude;  // gitignore-style patterns
  // --force-exclude: `exclude` applies to paths named on the command line too (pre-commit names
  // every staged file), as Ruff's --force-exclude.
  bool force_exclude = false;
  // --pre-commit: its effect is on how the arguments are read (hook_arguments.h), before this
  // struct is filled.
  bool pre_commit = false;
  unsigned jobs = 0;                 // 0 = one per core
  bool exit_zero = false;
  bool fix = false;   // --fix: write the findings' fixes
  bool diff = false;  // --diff: print them as a unified diff, write nothing
  bool statistics = false;
  bool show_regions = false;   // --show-regions: the regions report after the findings
  std::string color = "auto";  // auto | always | never
  std::string max_file_size;   // "8M", "512K", "1000000"; empty = the default
  bool quiet = false;          // no summary line
  // --config FILE; empty = the nearest .graphsafe.yaml or pyproject.toml [tool.graphsafe]
  // above the first path.
  std::string config;
  // --baseline FILE: findings recorded there are not reported.
  std::string baseline;
  // --write-baseline FILE: record every current finding there (atomically) and exit 0.
  std::string write_baseline;
  // The result cache: --cache-dir DIR (default $GRAPHSAFE_CACHE_DIR, else .graphsafe_cache in
  // the current directory); --no-cache (or GRAPHSAFE_NO_CACHE=1) turns it off.
  std::string cache_dir;
  bool no_cache = false;
  // --shard I/N: report only the findings (and notices) of files in shard I of N (1-based). The
  // analysis still reads the whole tree, so cross-file results are those of an unsharded run.
  std::string shard;
  // C++: -p DIR (the directory of compile_commands.json), --cuda-path DIR|none,
  // --show-compiler-errors, and --extra-arg / --extra-arg-before ARG (repeatable), as
  // clang-tidy takes them.
  std::string compile_commands_dir;
  std::string cuda_path;
  bool show_compiler_errors = false;
  std::vector<std::string> extra_args;
  std::vector<std::string> extra_args_before;
  // --show-files: print the files that would be analyzed, sorted, and exit 0.
  bool show_files = false;
  // --show-settings: print the resolved settings (configuration file, selection, ...), exit 0.
  bool show_settings = false;
  // --stdin-filename PATH: with the path `-`, standard input is analyzed as the file PATH (its
  // language, configuration, exclude and per-file-ignores are PATH's). Required with `-`.
  std::string stdin_filename;
  // --report-unused-suppressions: each code of a suppression comment that suppressed nothing
  // (while a rule it names ran) is a warning `unused-suppression` (Ruff's RUF100).
  bool report_unused_suppressions = false;
  // --whole-project: analyze the whole project the named files belong to (the directory of the
  // configuration file, else the repository root holding .git, else the current directory) and
  // report only the findings in the named files: pre-commit's split file lists then give the
  // findings of one run.
  bool whole_project = false;
  // A progress line on stderr ("graphsafe: analyzed 1200/2584 files") when stderr is a
  // terminal, the run takes over a second, and --quiet is not given.
  bool progress = true;
  // --allow-incomplete: a run that left code unanalyzed (a file skipped or cut short, a region
  // past a budget) exits as its findings say instead of 2. The user's configuration can say so
  // too (`allow-incomplete: true`); a repository's cannot.
  bool allow_incomplete = false;
  // --cxx-timeout SECONDS, --cxx-memory MIB: the bounds of one C++ unit, over the configuration
  // files' (0 = no bound).
  std::optional<std::uint32_t> cxx_timeout_seconds;
  std::optional<std::uint32_t> cxx_memory_mib;
  // The user's configuration file (findUserConfigFile() when empty), for tests.
  std::string user_config;
};

struct Shard {
  unsigned index = 1;  // 1..count
  unsigned count = 1;
};

// "2/4" -> {2, 4}; nullopt unless 1 <= I <= N <= 4096.
std::optional<Shard> parseShard(std::string_view text);

// The shard (1..count) of a file: a hash of its path as the walker spells it, with any leading
// "./" dropped, the same on every machine and in every run.
unsigned shardOfPath(std::string_view path, unsigned count);

// Keeps the findings and notices of one shard; notices without a file stay in every shard.
void keepShard(RunResult& result, const Shard& shard);

// A rule code as the selection matches it: upper case (`gs401` is GS401, as `graphsafe explain`
// takes either case), and Ruff's `ALL` as `GS`, the prefix of every rule.
std::string canonicalRuleCode(std::string code);

// "GS4, gs101" and repeated flags -> {"GS4", "GS101"}, each code canonical.
std::vector<std::string> splitCodeLists(const std::vector<std::string>& lists);

// An error message for the first code that is not `GS` + digits naming (a prefix of) a rule
// in the catalog; empty when every code is fine.
std::string validateRuleCodes(const std::vector<std::string>& codes, std::string_view flag);

// "1048576", "512K", "8M", "8MB", "1G" (binary multiples); nullopt when malformed.
std::optional<std::size_t> parseByteSize(std::string_view text);

// Validates the options and maps them onto the engine's. Returns false with a one-line error
// (a usage error: exit code 2) when an option is invalid.
bool toEngineOptions(const CheckCommandOptions& options, EngineOptions& engine, std::string& error);

// --color: auto means on a terminal, or anywhere when FORCE_COLOR is set to a non-empty value
// (force-color.org), never when NO_COLOR is (no-color.org; it wins over FORCE_COLOR).
// always and never win over both.
bool useColor(std::string_view mode, bool is_terminal);

// The project root --whole-project analyzes for `path`: the directory of `config_path` when
// there is one, else the nearest directory above `path` holding .git, else the current
// directory. Spelled relative to the current directory ("." for it).
std::string projectRoot(const std::string& path, const std::optional<std::string>& config_path);

// --show-settings: the resolved settings, one `key: value` line each.
void writeSettings(const EngineOptions& engine, const std::optional<std::string>& config_path,
                   std::ostream& out,
                   const std::optional<std::string>& user_config_path = std::nullopt,
                   bool allow_incomplete = false);

// Whether any implemented rule the selection enables checks C++ code: when one does, a C++ file
// left unanalyzed (the C++ frontend missing) fails the run.
bool selectsCxxRules(const RuleSelection& selection);

// Runs the whole command: analysis, output (to `out` or --output), statistics. Returns the exit
// code: 0 no findings (or --exit-zero), 1 findings, 2 usage or internal error (printed to
// `err` as "graphsafe: error: ..."), C++ files that could not be analyzed while C++ rules are
// selected, or an incomplete analysis (a notice says what was left out) without
// --allow-incomplete (whatever --exit-zero says).
// `in` is read for the path `-` (--stdin-filename).
int runCheckCommand(const CheckCommandOptions& options, std::ostream& out, std::ostream& err,
                    bool out_is_terminal, bool err_is_terminal, std::istream& in = std::cin);

}  // namespace graphsafe
