#include "analyzer/cli/command_spec.h"

namespace graphsafe {

namespace {

// "  NAME" padded to a column, then the meaning, as CLI11 lays out its option lists.
std::string row(const Explained& entry) {
  constexpr std::size_t kColumn = 30;
  std::string text = "  " + entry.name;
  text += text.size() < kColumn ? std::string(kColumn - text.size(), ' ') : std::string(" ");
  return text + entry.meaning + "\n";
}

}  // namespace

std::string helpFooter(const ProgramSpec& program) {
  std::string text = "Exit status:\n";
  for (const Explained& status : program.exit_statuses) text += row(status);
  text += "\nEnvironment:\n";
  for (const Explained& variable : program.environment) text += row(variable);
  return text;
}

}  // namespace graphsafe
