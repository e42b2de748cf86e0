#include "analyzer/cli/man_page.h"

#include <sstream>

namespace graphsafe {

namespace {

// Text for a troff line: a backslash is \e, a line may not start with . or ', and `-` in
// option names is a minus sign (\-), so that a reader can copy it.
std::string escaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out.insert(0, "\\&");
  return out;
}

std::string minus(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  return out;
}

std::string upper(std::string text) {
  for (char& c : text) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return text;
}

void writeOption(std::ostream& out, const OptionSpec& option) {
  out << ".TP\n";
  for (std::size_t i = 0; i < option.names.size(); ++i) {
    out << (i ? ", " : "") << "\\fB" << minus(option.names[i]) << "\\fR";
    if (!option.value_name.empty()) out << " \\fI" << escaped(option.value_name) << "\\fR";
  }
  out << "\n" << escaped(option.help) << "\n";
}

}  // namespace

std::string manPage(const ProgramSpec& program) {
  std::ostringstream out;
  std::string name = program.name;
  out << ".\\\" Made by `" << name << " generate-man-page`; edit analyzer/cli/ instead.\n"
      << ".TH " << upper(name) << " 1 \"\" \"" << name << " " << program.version
      << "\" \"User Commands\"\n"
      << ".SH NAME\n"
      << name << " \\- " << escaped(program.summary) << "\n"
      << ".SH SYNOPSIS\n";
  for (const CommandSpec& command : program.commands) {
    out << ".B " << name << " " << minus(command.name) << "\n";
    if (!command.options.empty()) out << "[\\fIoptions\\fR]\n";
    if (!command.operand_name.empty()) {
      out << (command.operands_repeat ? "[\\fI" : "\\fI") << escaped(command.operand_name)
          << (command.operands_repeat ? "\\fR...]" : "\\fR") << "\n";
    }
    out << ".br\n";
  }
  out << ".B " << name << " \\-\\-version\n"
      << ".SH DESCRIPTION\n"
      << escaped(
             "graphsafe reads PyTorch Python code and CUDA C++ and reports what a CUDA graph "
             "freezes or refuses during capture (Python branches and scalars, tensor addresses, "
             "streams, host synchronization) before the code runs. It never imports, executes "
             "or compiles-to-run the code it analyzes. Each finding names the line inside the "
             "capture region, the capture site and the calls that lead there.")
      << "\n"
      << ".SH COMMANDS\n";
  for (const CommandSpec& command : program.commands) {
    out << ".SS " << name << " " << minus(command.name);
    for (const std::string& alias : command.aliases) out << ", " << minus(alias);
    out << "\n" << escaped(command.help) << "\n";
    for (const OptionSpec& option : command.options) writeOption(out, option);
  }
  out << ".SH OPTIONS\n";
  for (const OptionSpec& option : program.options) writeOption(out, option);
  out << ".SH EXIT STATUS\n";
  for (const Explained& status : program.exit_statuses) {
    out << ".TP\n.B " << escaped(status.name) << "\n" << escaped(status.meaning) << "\n";
  }
  out << ".SH ENVIRONMENT\n";
  for (const Explained& variable : program.environment) {
    out << ".TP\n.B " << escaped(variable.name) << "\n" << escaped(variable.meaning) << "\n";
  }
  out << ".SH FILES\n"
      << ".TP\n.B .graphsafe.yaml\\fR, \\fBpyproject.toml\\fR ([tool.graphsafe])\n"
      << escaped("The configuration: the nearest one above the first path analyzed.") << "\n"
      << ".TP\n.B .graphsafe_cache/\n"
      << escaped("The result cache of the current directory.") << "\n"
      << ".SH SEE ALSO\n"
      << escaped("graphsafe explain RULE prints a rule's page; the user guide is in "
                 "/usr/share/doc/graphsafe/docs/ (or the docs/ directory of the repository).")
      << "\n";
  return out.str();
}

}  // namespace graphsafe
