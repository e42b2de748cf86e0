#pragma once

// `graphsafe generate-shell-completion bash|zsh|fish` (Ruff's command): a completion script for
// the shell, made from the command line's own definitions (command_spec.h). Commands, their
// aliases, options, option values (formats, colors, rule codes, files, directories) and
// operands complete.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/cli/command_spec.h"

namespace graphsafe {

// The shells a script can be made for.
const std::vector<std::string>& completionShells();

// The script for `shell`; nullopt for a shell not in completionShells().
std::optional<std::string> shellCompletion(const ProgramSpec& program, std::string_view shell);

}  // namespace graphsafe
