#pragma once

// graphsafe(1): the manual page, in troff, made from the command line's own definitions
// (command_spec.h) so that it lists what `--help` lists. The build writes it with the hidden
// `graphsafe generate-man-page` and installs it (share/man/man1/graphsafe.1.gz).

#include <string>

#include "analyzer/cli/command_spec.h"

namespace graphsafe {

std::string manPage(const ProgramSpec& program);

}  // namespace graphsafe
