// The graphsafe command: `check`, `rules`, `explain`, `lsp`. Option parsing only; each
// command's work lives in its own file so that other front ends reuse it.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <exception>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "analyzer/catalog/rule_catalog.h"
#include "analyzer/cli/callgraph_command.h"
#include "analyzer/cli/check_command.h"
#include "analyzer/cli/command_spec.h"
#include "analyzer/cli/hook_arguments.h"
#include "analyzer/cli/man_page.h"
#include "analyzer/cli/rules_command.h"
#include "analyzer/cli/shell_completion.h"
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
    "       graphsafe lsp (or: graphsafe server)\n"
    "       graphsafe generate-shell-completion bash|zsh|fish\n"
    "       graphsafe --version\n"
    "Run 'graphsafe --help' or 'graphsafe check --help' for details.\n";

// What each option's value is, for the completions and the man page (command_spec.h); CLI11
// knows only its type name.
struct ValueInfo {
  ArgumentKind kind = ArgumentKind::kText;
  std::vector<std::string> choices;
};
using ValueTable = std::map<const CLI::Option*, ValueInfo>;

ValueTable& valueTable() {
  static ValueTable table;
  return table;
}

// Names the option's value in --help (`FILE`, not `TEXT`) and records what it is.
CLI::Option* value(CLI::Option* option, const char* name, ArgumentKind kind) {
  option->type_name(name);
  valueTable()[option] = {kind, {}};
  return option;
}

// An option whose value is one of `choices`.
CLI::Option* choice(CLI::Option* option, const char* name, std::vector<std::string> choices) {
  option->type_name(name)->check(CLI::IsMember(choices));
  valueTable()[option] = {ArgumentKind::kChoice, std::move(choices)};
  return option;
}

OptionSpec optionSpec(const CLI::Option& option) {
  OptionSpec spec;
  for (const std::string& name : option.get_snames()) spec.names.push_back("-" + name);
  for (const std::string& name : option.get_lnames()) spec.names.push_back("--" + name);
  spec.help = option.get_description();
  if (option.get_expected_max() != 0) {
    spec.value_name = option.get_type_name();
    auto it = valueTable().find(&option);
    spec.kind = it != valueTable().end() ? it->second.kind : ArgumentKind::kText;
    if (it != valueTable().end()) spec.choices = it->second.choices;
  }
  return spec;
}

// The parser's definitions as data; hidden commands (no group) are left out.
ProgramSpec programSpec(CLI::App& app) {
  ProgramSpec program;
  program.name = "graphsafe";
  program.summary = "find CUDA graph capture hazards in PyTorch Python code and CUDA C++";
  program.version = GRAPHSAFE_VERSION;
  for (const CLI::Option* option : app.get_options()) {
    program.options.push_back(optionSpec(*option));
  }
  for (CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_group().empty()) continue;
    CommandSpec command;
    command.name = sub->get_name();
    command.aliases = sub->get_aliases();
    command.help = sub->get_description();
    for (const CLI::Option* option : sub->get_options()) {
      if (!option->get_positional()) {
        command.options.push_back(optionSpec(*option));
        continue;
      }
      command.operand_name = option->get_type_name();
      command.operands_repeat = option->get_expected_max() > 1;
      auto it = valueTable().find(option);
      if (it != valueTable().end()) {
        command.operand_kind = it->second.kind;
        command.operand_choices = it->second.choices;
      }
    }
    program.commands.push_back(std::move(command));
  }
  for (const RuleInfo& rule : RuleCatalog::instance().rules()) {
    program.rule_codes.push_back(rule.id);
  }
  program.exit_statuses = {
      {"0", "no findings"},
      {"1", "findings (unless --exit-zero)"},
      {"2", "a usage, configuration or internal error, or C++ files left unanalyzed (no C++ "
            "frontend module) while rules for C++ are selected"},
  };
  program.environment = {
      {"GRAPHSAFE_CUDA_FRONTEND", "the C++ frontend module or its directory; none turns it off"},
      {"GRAPHSAFE_CUDA_PATH", "the CUDA toolkit C++ files are parsed against, or none for the "
                              "built-in declarations"},
      {"CUDA_HOME, CUDA_PATH", "the CUDA toolkit when GRAPHSAFE_CUDA_PATH is not set (then "
                               "/usr/local/cuda)"},
      {"GRAPHSAFE_CACHE_DIR", "the result cache's directory (default: .graphsafe_cache)"},
      {"GRAPHSAFE_NO_CACHE", "1: neither read nor write the result cache"},
      {"NO_COLOR", "set and not empty: no colors (wins over FORCE_COLOR)"},
      {"FORCE_COLOR", "set and not empty: colors even off a terminal"},
  };
  return program;
}

int usageError(const std::string& message) {
  std::cerr << "graphsafe: error: " << message << "\n" << kUsage;
  return 2;
}

void addCheckOptions(CLI::App& check, CheckCommandOptions& options) {
  value(check.add_option("paths", options.paths,
                         "Files or directories to analyze (default: .); after `--`, every "
                         "argument is a path, even one that starts with -"),
        "PATH", ArgumentKind::kPath);
  choice(check.add_option("--format,--output-format", options.format,
                          "Output format (default: text); --output-format is Ruff's spelling"),
         "FORMAT",
         {"text", "concise", "json", "sarif", "github", "gitlab", "junit", "lintrunner",
          "json-lines"});
  value(check.add_option("-o,--output", options.output,
                         "Write the report to FILE (atomically) instead of stdout"),
        "FILE", ArgumentKind::kFile);
  value(check.add_option("--select", options.select,
                         "Only these rules: IDs or prefixes, comma-separated, in any case (GS4 = "
                         "the family, ALL = every rule)"),
        "CODES", ArgumentKind::kRule)
      ->delimiter(',')
      ->allow_extra_args(false);
  value(check.add_option("--extend-select", options.extend_select,
                         "Add these rules to the selection of --select or the configuration; "
                         "comma-separated"),
        "CODES", ArgumentKind::kRule)
      ->delimiter(',')
      ->allow_extra_args(false);
  value(check.add_option("--ignore", options.ignore,
                         "Not these rules: IDs or prefixes, comma-separated; wins over --select"),
        "CODES", ArgumentKind::kRule)
      ->delimiter(',')
      ->allow_extra_args(false);
  value(check.add_option("--exclude", options.exclude,
                         "Skip paths matching these gitignore-style patterns, comma-separated"),
        "PATTERNS", ArgumentKind::kText)
      ->delimiter(',')
      ->allow_extra_args(false);
  check.add_flag("--force-exclude", options.force_exclude,
                 "Apply --exclude and the configuration's exclude to files named on the command "
                 "line too (for pre-commit, which names every staged file)");
  check.add_flag("--pre-commit", options.pre_commit,
                 "Read the arguments as pre-commit gives them (the hook's args, then the staged "
                 "files): an argument that names an existing file is a path even when it starts "
                 "with -, every other one an option");
  value(check.add_option("--config", options.config,
                         "Read settings from FILE instead of the nearest .graphsafe.yaml or "
                         "pyproject.toml [tool.graphsafe]"),
        "FILE", ArgumentKind::kFile);
  value(check.add_option("-j,--jobs", options.jobs,
                         "Files analyzed in parallel (default: one per core)"),
        "N", ArgumentKind::kText)
      ->check(CLI::Range(0u, 1024u));
  value(check.add_option("--baseline", options.baseline,
                         "Do not report the findings recorded in FILE (see --write-baseline)"),
        "FILE", ArgumentKind::kFile);
  value(check.add_option("--write-baseline", options.write_baseline,
                         "Record every current finding in FILE and exit 0"),
        "FILE", ArgumentKind::kFile);
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
  choice(check.add_option("--color", options.color,
                          "Colored output: auto (on a terminal, unless NO_COLOR is set), always, "
                          "never"),
         "WHEN", {"auto", "always", "never"});
  value(check.add_option("--max-file-size", options.max_file_size,
                         "Skip files larger than this (default: 8M; accepts K, M, G suffixes)"),
        "SIZE", ArgumentKind::kText);
  check.add_flag("-q,--quiet", options.quiet, "Print no summary line");
  value(check.add_option("--cache-dir", options.cache_dir,
                         "Keep the result cache in DIR (default: $GRAPHSAFE_CACHE_DIR, else "
                         ".graphsafe_cache)"),
        "DIR", ArgumentKind::kDir);
  check.add_flag("--no-cache", options.no_cache,
                 "Neither read nor write the result cache (also GRAPHSAFE_NO_CACHE=1)");
  value(check.add_option("-p,--compile-commands-dir", options.compile_commands_dir,
                         "C++: the directory holding the build's compile_commands.json (default: "
                         "the nearest one above each file, or in a build/ directory on the way)"),
        "DIR", ArgumentKind::kDir);
  value(check.add_option("--cuda-path", options.cuda_path,
                         "C++: the CUDA toolkit to parse against, or `none` for the built-in "
                         "declarations (default: $GRAPHSAFE_CUDA_PATH, $CUDA_HOME, $CUDA_PATH, "
                         "/usr/local/cuda)"),
        "DIR", ArgumentKind::kDir);
  value(check.add_option("--extra-arg", options.extra_args,
                         "C++: an argument appended to every compile command (-DUSE_CUDA_GRAPH, "
                         "-Iinclude); repeatable"),
        "ARG", ArgumentKind::kText)
      ->allow_extra_args(false);
  value(check.add_option("--extra-arg-before", options.extra_args_before,
                         "C++: an argument put before every compile command's own; repeatable"),
        "ARG", ArgumentKind::kText)
      ->allow_extra_args(false);
  check.add_flag("--show-compiler-errors", options.show_compiler_errors,
                 "C++: list the compiler's errors about the analyzed files as notices");
  check.add_flag("--show-files", options.show_files,
                 "Print the files that would be analyzed, one per line, sorted, and exit 0");
  check.add_flag("--show-settings", options.show_settings,
                 "Print the resolved settings (configuration file, rules, exclude, C++ options) "
                 "and exit 0");
  value(check.add_option("--stdin-filename", options.stdin_filename,
                         "With the path -, analyze standard input as the file PATH (its "
                         "language, configuration and per-file-ignores)"),
        "PATH", ArgumentKind::kPath);
  check.add_flag("--report-unused-suppressions", options.report_unused_suppressions,
                 "Report suppression comments (or their codes) that suppressed no finding, as "
                 "warnings `unused-suppression`");
  check.add_flag("--whole-project", options.whole_project,
                 "Analyze the whole project the named files belong to and report only the "
                 "findings in them (for pre-commit, which splits long file lists)");
  value(check.add_option("--shard", options.shard,
                         "Report only shard I of N (I/N, by path hash); the analysis still sees "
                         "the whole tree. Merge the shards' SARIF with `graphsafe merge`"),
        "I/N", ArgumentKind::kText);
  check.add_flag("--allow-incomplete", options.allow_incomplete,
                 "Exit by the findings even when code was left unanalyzed (a file skipped or cut "
                 "short, a region past a budget); without it such a run exits 2");
  value(check
            .add_option_function<std::uint32_t>(
                "--cxx-timeout",
                [&options](const std::uint32_t& seconds) { options.cxx_timeout_seconds = seconds; },
                "C++: the wall time one translation unit may take, in seconds (0 = no bound; "
                "wins over the configuration files)")
            ->check(CLI::Range(0u, 86'400u)),
        "SECONDS", ArgumentKind::kText);
  value(check
            .add_option_function<std::uint32_t>(
                "--cxx-memory",
                [&options](const std::uint32_t& mib) { options.cxx_memory_mib = mib; },
                "C++: the memory one translation unit may add, in MiB (0 = no bound; wins over "
                "the configuration files)")
            ->check(CLI::Range(0u, 1u << 20)),
        "MIB", ArgumentKind::kText);
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
  choice(rules->add_option("--format", rules_format, "Output format (default: text)"), "FORMAT",
         {"text", "json"});

  std::string rule_to_explain;
  CLI::App* explain = app.add_subcommand("explain", "Print a rule's page");
  value(explain->add_option("rule", rule_to_explain, "A rule ID (GS401) or name (host-sync)"),
        "RULE", ArgumentKind::kRule)
      ->required();

  std::vector<std::string> merge_inputs;
  std::string merge_output;
  CLI::App* merge = app.add_subcommand("merge", "Merge SARIF files (of sharded runs) into one");
  value(merge->add_option("files", merge_inputs, "SARIF files to merge"), "FILE",
        ArgumentKind::kFile)
      ->required();
  value(merge->add_option("-o,--output", merge_output,
                          "Write the merged SARIF to FILE (default: stdout)"),
        "FILE", ArgumentKind::kFile);

  std::vector<std::string> callgraph_paths;
  CLI::App* callgraph = app.add_subcommand(
      "callgraph", "Print the resolved call graph of the given files as JSON (PyCG's form)");
  value(callgraph->add_option("paths", callgraph_paths, "Files or directories (default: .)"),
        "PATH", ArgumentKind::kPath);

  CLI::App* lsp = app.add_subcommand("lsp", "Run the Language Server (LSP over stdin/stdout)");
  lsp->alias("server");  // Ruff's name for it
  // Editors often pass --stdio; it is the only transport, so it is accepted and ignored.
  bool stdio = true;
  lsp->add_flag("--stdio", stdio, "Talk LSP over stdin and stdout (the default and only one)");

  std::string completion_shell;
  CLI::App* completion = app.add_subcommand(
      "generate-shell-completion", "Print a completion script for the shell (bash, zsh, fish)");
  choice(completion->add_option("shell", completion_shell, "The shell")->required(), "SHELL",
         completionShells());
  // For the build, which installs the page: no group, so neither --help nor the completions
  // list it.
  CLI::App* man_page = app.add_subcommand("generate-man-page", "Print the man page (troff)");
  man_page->group("");

  app.footer(helpFooter(programSpec(app)) +
             "\nRun `graphsafe COMMAND --help` for a command's options, `graphsafe explain "
             "RULE` for a rule's page.");

  // CLI11 takes the arguments last first.
  std::vector<std::string> arguments = hookArguments(std::vector<std::string>(argv + 1, argv + argc));
  std::reverse(arguments.begin(), arguments.end());
  try {
    app.parse(arguments);
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
  if (completion->parsed()) {
    std::cout << *shellCompletion(programSpec(app), completion_shell);
    return 0;
  }
  if (man_page->parsed()) {
    std::cout << manPage(programSpec(app));
    return 0;
  }
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
