#pragma once

// `graphsafe check --pre-commit ARGS... FILES...`: pre-commit runs a hook's entry followed by
// its `args` and then the staged files, with nothing between them. An option and a staged file
// named like one (`--output=victim.py`) look the same; what tells them apart is that every
// staged file exists. So with --pre-commit, an argument that starts with `-` and names an
// existing file or directory is moved behind a `--`, where it can only be a path, and every
// other argument is read as usual: `args: [--fix]` is the option, a staged `--fix` the file.

#include <string>
#include <vector>

namespace graphsafe {

// `arguments` are the command's, after the program name (`check`, options, paths). Returns
// them unchanged unless `check` is the command and --pre-commit comes before any `--`.
std::vector<std::string> hookArguments(const std::vector<std::string>& arguments);

}  // namespace graphsafe
