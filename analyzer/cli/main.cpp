// The graphsafe command: `check`, `rules`, `explain`, `lsp`. Option parsing only; each
// command's work lives in its own file so that other front ends reuse it.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "analyzer/cli/callgraph_command.h"
#include "analyzer/cli/check_command.h"
#include "analyzer/cli/rules_command.h"
#include "analyzer/lsp/language_server.h"
#include "analyzer/output/sarif_merge.h"

namespace graphsafe {
namespace {

constexpr const char* kUsage =
    "usage: graphsafe check [PATH...] [--format FORMAT] [--baseline FILE] [options]\n"
    "       graphsafe rules [--format text|json]\n"
    "       graphsafe explain RULE\n"
    "       graphsafe merge FILE.sarif... [-o OUT.sarif]\n"
    "       graphsafe callgraph [PATH...]\n"
    "       graphsafe lsp\n"
    "       graphsafe --version\n"
    "Run 'graphsafe --help' or 'graphsafe check --help' for details.\n";

int usageError(const std::string& message) {
  std::cerr << "graphsafe: error: " << message << "\n" << kUsage;
  return 2;
}

void addCheckOptions(CLI::App& check, CheckCommandOptions& options) {
  check.add_option("paths", options.paths,
                   "Files or directories to analyze (default: .); after `--`, every argument is a "
                   "path, even one that starts with -");
  check
      .add_option("--format,--output-format", options.format,
                  "Output format: text, concise, json, sarif, github, gitlab, junit, lintrunner "
                  "or json-lines (default: text); --output-format is Ruff's spelling")
      ->check(CLI::IsMember({"text", "concise", "json", "sarif", "github", "gitlab", "junit",
                             "lintrunner", "json-lines"}));
  check.add_option("-o,--output", options.output,
                   "Write the report to FILE (atomically) instead of stdout");
  check
      .add_option("--select", options.select,
                  "Only these rules: IDs or prefixes, comma-separated (GS4 = the family)")
      ->delimiter(',')
      ->allow_extra_args(false);
  check
      .add_option("--extend-select", options.extend_select,
                  "Add these rules to the selection of --select or the configuration; "
                  "comma-separated")
      ->delimiter(',')
      ->allow_extra_args(false);
  check
      .add_option("--ignore", options.ignore,
                  "Not these rules: IDs or prefixes, comma-separated; wins over --select")
      ->delimiter(',')
      ->allow_extra_args(false);
  check
      .add_option("--exclude", options.exclude,
                  "Skip paths matching these gitignore-style patterns, comma-separated")
      ->delimiter(',')
      ->allow_extra_args(false);
  check.add_flag("--force-exclude", options.force_exclude,
                 "Apply --exclude and the configuration's exclude to files named on the command "
                 "line too (for pre-commit, which names every staged file)");
  check.add_option("--config", options.config,
                   "Read settings from FILE instead of the nearest .graphsafe.yaml or "
                   "pyproject.toml [tool.graphsafe]");
  check.add_option("-j,--jobs", options.jobs, "Files analyzed in parallel (default: one per core)")
      ->check(CLI::Range(0u, 1024u));
  check.add_option("--baseline", options.baseline,
                   "Do not report the findings recorded in FILE (see --write-baseline)");
  check.add_option("--write-baseline", options.write_baseline,
                   "Record every current finding in FILE and exit 0");
  check.add_flag("--exit-zero", options.exit_zero, "Exit 0 even when there are findings");
  check.add_flag("--fix", options.fix,
                 "Apply the fixes findings carry (only those that cannot change what the code "
                 "means) to the files, and report the findings left");
  check.add_flag("--diff", options.diff,
                 "Print the fixes as a unified diff instead of applying them (exit 1 when there "
                 "is one)");
  check.add_flag("--statistics", options.statistics, "Print the number of findings per rule");
  check.add_flag("--show-regions", options.show_regions,
                 "List every capture site, the functions its captured work reaches, and each "
                 "call under it the analysis could not follow (with why)");
  check
      .add_option("--color", options.color,
                  "Colored output: auto (on a terminal, unless NO_COLOR is set), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  check.add_option("--max-file-size", options.max_file_size,
                   "Skip files larger than this (default: 8M; accepts K, M, G suffixes)");
  check.add_flag("-q,--quiet", options.quiet, "Print no summary line");
  check.add_option("--cache-dir", options.cache_dir,
                   "Keep the result cache in DIR (default: $GRAPHSAFE_CACHE_DIR, else "
                   ".graphsafe_cache)");
  check.add_flag("--no-cache", options.no_cache,
                 "Neither read nor write the result cache (also GRAPHSAFE_NO_CACHE=1)");
  check.add_option("-p,--compile-commands-dir", options.compile_commands_dir,
                   "C++: the directory holding the build's compile_commands.json (default: the "
                   "nearest one above each file, or in a build/ directory on the way)");
  check.add_option("--cuda-path", options.cuda_path,
                   "C++: the CUDA toolkit to parse against, or `none` for the built-in "
                   "declarations (default: $GRAPHSAFE_CUDA_PATH, $CUDA_HOME, /usr/local/cuda)");
  check
      .add_option("--extra-arg", options.extra_args,
                  "C++: an argument appended to every compile command (-DUSE_CUDA_GRAPH, "
                  "-Iinclude); repeatable")
      ->allow_extra_args(false);
  check
      .add_option("--extra-arg-before", options.extra_args_before,
                  "C++: an argument put before every compile command's own; repeatable")
      ->allow_extra_args(false);
  check.add_flag("--show-compiler-errors", options.show_compiler_errors,
                 "C++: list the compiler's errors about the analyzed files as notices");
  check.add_flag("--show-files", options.show_files,
                 "Print the files that would be analyzed, one per line, sorted, and exit 0");
  check.add_flag("--show-settings", options.show_settings,
                 "Print the resolved settings (configuration file, rules, exclude, C++ options) "
                 "and exit 0");
  check.add_option("--stdin-filename", options.stdin_filename,
                   "With the path -, analyze standard input as the file PATH (its language, "
                   "configuration and per-file-ignores)");
  check.add_flag("--report-unused-suppressions", options.report_unused_suppressions,
                 "Report suppression comments (or their codes) that suppressed no finding, as "
                 "warnings `unused-suppression`");
  check.add_flag("--whole-project", options.whole_project,
                 "Analyze the whole project the named files belong to and report only the "
                 "findings in them (for pre-commit, which splits long file lists)");
  check.add_option("--shard", options.shard,
                   "Report only shard I of N (I/N, by path hash); the analysis still sees the "
                   "whole tree. Merge the shards' SARIF with `graphsafe merge`");
  check.add_flag("--allow-incomplete", options.allow_incomplete,
                 "Exit by the findings even when code was left unanalyzed (a file skipped or cut "
                 "short, a region past a budget); without it such a run exits 2");
  check
      .add_option_function<std::uint32_t>(
          "--cxx-timeout",
          [&options](const std::uint32_t& seconds) { options.cxx_timeout_seconds = seconds; },
          "C++: the wall time one translation unit may take, in seconds (0 = no bound; "
          "wins over the configuration files)")
      ->check(CLI::Range(0u, 86'400u));
  check
      .add_option_function<std::uint32_t>(
          "--cxx-memory", [&options](const std::uint32_t& mib) { options.cxx_memory_mib = mib; },
          "C++: the memory one translation unit may add, in MiB (0 = no bound; wins over "
          "the configuration files)")
      ->check(CLI::Range(0u, 1u << 20));
}

int run(int argc, char** argv) {
  CLI::App app{"graphsafe: finds CUDA-graph capture hazards in PyTorch and CUDA C++ code.",
               "graphsafe"};
  app.set_version_flag("--version", std::string("graphsafe ") + GRAPHSAFE_VERSION);
  app.require_subcommand(1);

  CheckCommandOptions check_options;
  CLI::App* check = app.add_subcommand("check", "Analyze files and directories");
  addCheckOptions(*check, check_options);

  std::string rules_format = "text";
  CLI::App* rules = app.add_subcommand("rules", "List the rule catalog");
  rules->add_option("--format", rules_format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));

  std::string rule_to_explain;
  CLI::App* explain = app.add_subcommand("explain", "Print a rule's page");
  explain->add_option("rule", rule_to_explain, "A rule ID (GS401) or name (host-sync)")->required();

  std::vector<std::string> merge_inputs;
  std::string merge_output;
  CLI::App* merge = app.add_subcommand("merge", "Merge SARIF files (of sharded runs) into one");
  merge->add_option("files", merge_inputs, "SARIF files to merge")->required();
  merge->add_option("-o,--output", merge_output,
                    "Write the merged SARIF to FILE (default: stdout)");

  std::vector<std::string> callgraph_paths;
  CLI::App* callgraph = app.add_subcommand(
      "callgraph", "Print the resolved call graph of the given files as JSON (PyCG's form)");
  callgraph->add_option("paths", callgraph_paths, "Files or directories (default: .)");

  CLI::App* lsp = app.add_subcommand("lsp", "Run the Language Server (LSP over stdin/stdout)");
  // Editors often pass --stdio; it is the only transport, so it is accepted and ignored.
  bool stdio = true;
  lsp->add_flag("--stdio", stdio, "Talk LSP over stdin and stdout (the default and only one)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A first word that is not a flag and not a command: say so instead of "required".
    if (argc > 1 && argv[1][0] != '-' && app.get_subcommands().empty()) {
      return usageError(std::string("unknown command '") + argv[1] + "'");
    }
    return usageError(e.what());
  }

  if (check->parsed()) {
    return runCheckCommand(check_options, std::cout, std::cerr, ::isatty(STDOUT_FILENO) == 1,
                           ::isatty(STDERR_FILENO) == 1);
  }
  if (rules->parsed()) {
    writeRuleList(std::cout, rules_format == "json");
    return 0;
  }
  if (explain->parsed()) {
    if (!writeRuleExplanation(rule_to_explain, std::cout)) {
      std::cerr << "graphsafe: error: unknown rule '" << rule_to_explain << "' (";
      if (auto meant = suggestRule(rule_to_explain)) {
        std::cerr << "did you mean '" << *meant << "'? ";
      }
      std::cerr << "see `graphsafe rules`)\n";
      return 2;
    }
    return 0;
  }
  if (merge->parsed()) return runMergeCommand(merge_inputs, merge_output, std::cout, std::cerr);
  if (callgraph->parsed()) return runCallGraphCommand(callgraph_paths, std::cout, std::cerr);
  if (lsp->parsed()) return lsp::runLanguageServer(STDIN_FILENO, STDOUT_FILENO);
  return usageError("no command given");
}

}  // namespace
}  // namespace graphsafe

int main(int argc, char** argv) {
  // Exit code 2 for anything unexpected, never a crash report: CI reads the exit code.
  try {
    return graphsafe::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "graphsafe: error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "graphsafe: error: internal error\n";
  }
  return 2;
}
