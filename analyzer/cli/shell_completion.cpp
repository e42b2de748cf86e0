#include "analyzer/cli/shell_completion.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace graphsafe {

namespace {

std::string joined(const std::vector<std::string>& words, const char* separator = " ") {
  std::string text;
  for (const std::string& word : words) {
    if (!text.empty()) text += separator;
    text += word;
  }
  return text;
}

// Words a value of this kind completes to, when it is a fixed list.
std::vector<std::string> valueWords(const ProgramSpec& program, ArgumentKind kind,
                                    const std::vector<std::string>& choices) {
  if (kind == ArgumentKind::kChoice) return choices;
  if (kind == ArgumentKind::kRule) {
    std::vector<std::string> words = program.rule_codes;
    words.emplace_back("ALL");
    return words;
  }
  return {};
}

std::vector<std::string> namesOf(const CommandSpec& command) {
  std::vector<std::string> names = {command.name};
  names.insert(names.end(), command.aliases.begin(), command.aliases.end());
  return names;
}

// A string inside single quotes, for every shell here: ' closes, \' adds one, ' reopens.
std::string singleQuoted(std::string_view text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

// The first sentence of a help text, as a one-line description: up to " (" or "; ".
std::string shortHelp(std::string_view help) {
  std::size_t end = std::min(help.find(" ("), help.find("; "));
  return std::string(help.substr(0, end));
}

// ---- bash -----------------------------------------------------------------------------------

void bashValueCase(std::ostream& out, const ProgramSpec& program,
                   const std::vector<OptionSpec>& options) {
  out << "      case \"$prev\" in\n";
  for (const OptionSpec& option : options) {
    if (option.kind == ArgumentKind::kNone) continue;
    out << "        " << joined(option.names, "|") << ")\n          ";
    switch (option.kind) {
      case ArgumentKind::kFile:
      case ArgumentKind::kPath:
        out << "COMPREPLY=($(compgen -f -- \"$cur\"))";
        break;
      case ArgumentKind::kDir:
        out << "COMPREPLY=($(compgen -d -- \"$cur\"))";
        break;
      case ArgumentKind::kRule:
      case ArgumentKind::kChoice:
        out << "COMPREPLY=($(compgen -W "
            << singleQuoted(joined(valueWords(program, option.kind, option.choices)))
            << " -- \"$cur\"))";
        break;
      default:
        out << "COMPREPLY=()";
    }
    out << "\n          return ;;\n";
  }
  out << "      esac\n";
}

std::string bashScript(const ProgramSpec& program) {
  std::ostringstream out;
  std::vector<std::string> command_words;
  for (const CommandSpec& command : program.commands) {
    for (const std::string& name : namesOf(command)) command_words.push_back(name);
  }
  std::vector<std::string> top_words = command_words;
  for (const OptionSpec& option : program.options) {
    top_words.insert(top_words.end(), option.names.begin(), option.names.end());
  }
  out << "# bash completion for " << program.name << " " << program.version
      << " (made by `" << program.name << " generate-shell-completion bash`)\n"
      << "_" << program.name << "() {\n"
      << "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"\" command=\"\" i\n"
      << "  (( COMP_CWORD > 0 )) && prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
      << "  # --option=value: bash splits at the =.\n"
      << "  if [[ $cur == = ]]; then cur=\"\"; prev=\"${COMP_WORDS[COMP_CWORD-1]}\";\n"
      << "  elif [[ $prev == = ]] && (( COMP_CWORD > 1 )); then "
         "prev=\"${COMP_WORDS[COMP_CWORD-2]}\"; fi\n"
      << "  for (( i = 1; i < COMP_CWORD; i++ )); do\n"
      << "    case \"${COMP_WORDS[i]}\" in\n"
      << "      " << joined(command_words, "|") << ") command=\"${COMP_WORDS[i]}\"; break ;;\n"
      << "    esac\n"
      << "  done\n"
      << "  case \"$command\" in\n"
      << "    \"\")\n"
      << "      COMPREPLY=($(compgen -W " << singleQuoted(joined(top_words)) << " -- \"$cur\"))\n"
      << "      ;;\n";
  for (const CommandSpec& command : program.commands) {
    out << "    " << joined(namesOf(command), "|") << ")\n";
    bashValueCase(out, program, command.options);
    std::vector<std::string> option_words;
    for (const OptionSpec& option : command.options) {
      option_words.insert(option_words.end(), option.names.begin(), option.names.end());
    }
    out << "      if [[ $cur == -* ]]; then\n"
        << "        COMPREPLY=($(compgen -W " << singleQuoted(joined(option_words))
        << " -- \"$cur\"))\n";
    switch (command.operand_kind) {
      case ArgumentKind::kFile:
      case ArgumentKind::kPath:
        out << "      else\n        COMPREPLY=($(compgen -f -- \"$cur\"))\n";
        break;
      case ArgumentKind::kDir:
        out << "      else\n        COMPREPLY=($(compgen -d -- \"$cur\"))\n";
        break;
      case ArgumentKind::kRule:
      case ArgumentKind::kChoice:
        out << "      else\n        COMPREPLY=($(compgen -W "
            << singleQuoted(joined(valueWords(program, command.operand_kind,
                                              command.operand_choices)))
            << " -- \"$cur\"))\n";
        break;
      default:
        break;
    }
    out << "      fi\n      ;;\n";
  }
  out << "  esac\n"
      << "}\n"
      << "complete -o filenames -o bashdefault -F _" << program.name << " " << program.name
      << "\n";
  return out.str();
}

// ---- zsh ------------------------------------------------------------------------------------

// An _arguments description: brackets and colons would end it early.
std::string zshDescription(std::string_view help) {
  std::string text;
  for (char c : shortHelp(help)) {
    if (c == '[' || c == ']' || c == ':' || c == '\\') text += '\\';
    text += c;
  }
  return text;
}

std::string zshAction(const ProgramSpec& program, ArgumentKind kind,
                      const std::vector<std::string>& choices) {
  switch (kind) {
    case ArgumentKind::kFile:
    case ArgumentKind::kPath:
      return "_files";
    case ArgumentKind::kDir:
      return "_files -/";
    case ArgumentKind::kRule:
    case ArgumentKind::kChoice:
      return "(" + joined(valueWords(program, kind, choices)) + ")";
    default:
      return " ";
  }
}

// '(-o --output)'{-o,--output}'[description]:file:_files': the names outside the quotes so
// that the shell expands the braces into one specification per name.
std::string zshOption(const ProgramSpec& program, const OptionSpec& option) {
  std::string rest = "[" + zshDescription(option.help) + "]";
  if (option.kind != ArgumentKind::kNone) {
    std::string value = option.value_name;
    for (char& c : value) {
      c = c == ':' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    rest += ":" + value + ":" + zshAction(program, option.kind, option.choices);
  }
  if (option.names.size() == 1) return singleQuoted(option.names.front() + rest);
  return singleQuoted("(" + joined(option.names) + ")") + "{" + joined(option.names, ",") + "}" +
         singleQuoted(rest);
}

std::string zshScript(const ProgramSpec& program) {
  std::ostringstream out;
  out << "#compdef " << program.name << "\n"
      << "# zsh completion for " << program.name << " " << program.version << " (made by `"
      << program.name << " generate-shell-completion zsh`)\n"
      << "_" << program.name << "() {\n"
      << "  local -a commands\n"
      << "  commands=(\n";
  for (const CommandSpec& command : program.commands) {
    for (const std::string& name : namesOf(command)) {
      out << "    " << singleQuoted(name + ":" + zshDescription(command.help)) << "\n";
    }
  }
  out << "  )\n"
      << "  if (( CURRENT == 2 )); then\n"
      << "    if [[ $words[CURRENT] == -* ]]; then\n"
      << "      _arguments";
  for (const OptionSpec& option : program.options) out << " " << zshOption(program, option);
  out << "\n"
      << "    else\n"
      << "      _describe -t commands 'command' commands\n"
      << "    fi\n"
      << "    return\n"
      << "  fi\n"
      << "  local command=$words[2]\n"
      << "  shift words\n"
      << "  (( CURRENT-- ))\n"
      << "  case $command in\n";
  for (const CommandSpec& command : program.commands) {
    out << "    " << joined(namesOf(command), "|") << ")\n"
        << "      _arguments -s";
    for (const OptionSpec& option : command.options) {
      out << " \\\n        " << zshOption(program, option);
    }
    if (!command.operand_name.empty()) {
      std::string operand = command.operand_name;
      for (char& c : operand) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      out << " \\\n        "
          << singleQuoted(std::string(command.operands_repeat ? "*" : "1") + ":" + operand + ":" +
                          zshAction(program, command.operand_kind, command.operand_choices));
    }
    out << "\n      ;;\n";
  }
  out << "  esac\n"
      << "}\n"
      << "_" << program.name << " \"$@\"\n";
  return out.str();
}

// ---- fish -----------------------------------------------------------------------------------

std::string fishValue(const ProgramSpec& program, ArgumentKind kind,
                      const std::vector<std::string>& choices) {
  switch (kind) {
    case ArgumentKind::kFile:
    case ArgumentKind::kPath:
      return " -r -F";
    case ArgumentKind::kDir:
      return " -x -a '(__fish_complete_directories)'";
    case ArgumentKind::kRule:
    case ArgumentKind::kChoice:
      return " -x -a " + singleQuoted(joined(valueWords(program, kind, choices)));
    case ArgumentKind::kText:
      return " -x";
    default:
      return "";
  }
}

std::string fishNames(const OptionSpec& option) {
  std::string text;
  for (const std::string& name : option.names) {
    if (name.starts_with("--")) {
      text += " -l " + name.substr(2);
    } else {
      text += " -s " + name.substr(1);
    }
  }
  return text;
}

// fish's single quotes take \' and \\ as escapes.
std::string fishQuoted(std::string_view text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "'";
}

std::string fishScript(const ProgramSpec& program) {
  std::ostringstream out;
  std::vector<std::string> command_words;
  for (const CommandSpec& command : program.commands) {
    for (const std::string& name : namesOf(command)) command_words.push_back(name);
  }
  std::string c = "complete -c " + program.name;
  std::string none = "'not __fish_seen_subcommand_from " + joined(command_words) + "'";
  out << "# fish completion for " << program.name << " " << program.version << " (made by `"
      << program.name << " generate-shell-completion fish`)\n"
      << c << " -f\n";
  for (const OptionSpec& option : program.options) {
    out << c << " -n " << none << fishNames(option) << " -d " << fishQuoted(shortHelp(option.help))
        << "\n";
  }
  for (const CommandSpec& command : program.commands) {
    for (const std::string& name : namesOf(command)) {
      out << c << " -n " << none << " -a " << name << " -d " << fishQuoted(shortHelp(command.help))
          << "\n";
    }
  }
  for (const CommandSpec& command : program.commands) {
    std::string seen = "'__fish_seen_subcommand_from " + joined(namesOf(command)) + "'";
    for (const OptionSpec& option : command.options) {
      out << c << " -n " << seen << fishNames(option)
          << fishValue(program, option.kind, option.choices) << " -d "
          << fishQuoted(shortHelp(option.help)) << "\n";
    }
    switch (command.operand_kind) {
      case ArgumentKind::kFile:
      case ArgumentKind::kPath:
        out << c << " -n " << seen << " -F\n";
        break;
      case ArgumentKind::kDir:
        out << c << " -n " << seen << " -a '(__fish_complete_directories)'\n";
        break;
      case ArgumentKind::kRule:
      case ArgumentKind::kChoice:
        out << c << " -n " << seen << " -a "
            << singleQuoted(joined(
                   valueWords(program, command.operand_kind, command.operand_choices)))
            << "\n";
        break;
      default:
        break;
    }
  }
  return out.str();
}

}  // namespace

const std::vector<std::string>& completionShells() {
  static const std::vector<std::string> shells = {"bash", "zsh", "fish"};
  return shells;
}

std::optional<std::string> shellCompletion(const ProgramSpec& program, std::string_view shell) {
  if (shell == "bash") return bashScript(program);
  if (shell == "zsh") return zshScript(program);
  if (shell == "fish") return fishScript(program);
  return std::nullopt;
}

}  // namespace graphsafe
