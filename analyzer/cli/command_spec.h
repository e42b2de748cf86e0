#pragma once

// The command line as data: each command, its options and what each option takes. main.cpp
// reads it from the parser's own definitions, so the shell completions and the man page made
// from it list exactly what `--help` lists.

#include <string>
#include <vector>

namespace graphsafe {

// What an option's value (or a command's operand) is, for completing it.
enum class ArgumentKind {
  kNone,     // a flag
  kFile,     // a file name
  kPath,     // a file or directory name
  kDir,      // a directory name
  kRule,     // rule codes (the catalog's IDs, and ALL)
  kChoice,   // one of `choices`
  kText,     // anything (a number, a pattern, a compiler argument)
};

struct OptionSpec {
  std::vector<std::string> names;  // "-o", "--output", as typed
  std::string value_name;          // "FILE", "CODES", ...; empty for a flag
  ArgumentKind kind = ArgumentKind::kNone;
  std::vector<std::string> choices;
  std::string help;
};

struct CommandSpec {
  std::string name;
  std::vector<std::string> aliases;
  std::string help;
  std::vector<OptionSpec> options;
  // The operands: their name as --help shows it ("PATH"), whether several may be given, and
  // what they are; no name when the command takes none.
  std::string operand_name;
  bool operands_repeat = false;
  ArgumentKind operand_kind = ArgumentKind::kNone;
  std::vector<std::string> operand_choices;
};

// An environment variable the program reads, or an exit status, with its meaning.
struct Explained {
  std::string name;
  std::string meaning;
};

struct ProgramSpec {
  std::string name;     // "graphsafe"
  std::string summary;  // one line
  std::string version;
  std::vector<OptionSpec> options;  // the options before a command (--help, --version)
  std::vector<CommandSpec> commands;
  std::vector<std::string> rule_codes;  // what kRule values complete to
  std::vector<Explained> exit_statuses;
  std::vector<Explained> environment;
};

// The --help footer: the exit statuses and the environment, as the man page has them.
std::string helpFooter(const ProgramSpec& program);

}  // namespace graphsafe
