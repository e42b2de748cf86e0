#include "analyzer/model/entry_points.h"

#include <string>

namespace graphsafe {

namespace {

// `outer.<locals>.inner` -> `outer.inner`: how a user writes a nested function's name.
std::string withoutLocals(std::string_view qualified) {
  static constexpr std::string_view kLocals = ".<locals>";
  std::string plain;
  plain.reserve(qualified.size());
  for (std::size_t i = 0; i < qualified.size();) {
    if (qualified.substr(i, kLocals.size()) == kLocals) {
      i += kLocals.size();
      continue;
    }
    plain.push_back(qualified[i++]);
  }
  return plain;
}

// Is `tail` the end of `whole` at a component boundary (`separator`), or all of it?
bool endsAtBoundary(std::string_view whole, std::string_view tail, std::string_view separator) {
  if (whole == tail) return true;
  return whole.size() > tail.size() + separator.size() && whole.ends_with(tail) &&
         whole.substr(whole.size() - tail.size() - separator.size(), separator.size()) ==
             separator;
}

bool matchesSpelling(std::string_view entry, std::string_view module, std::string_view qualified) {
  if (entry == qualified) return true;
  if (module.empty()) return false;
  std::string full;
  full.reserve(module.size() + 1 + qualified.size());
  full.append(module).append(".").append(qualified);
  if (entry == full) return true;
  if (entry.find('.') == std::string_view::npos) return false;  // a plain name: top level only
  return endsAtBoundary(full, entry, ".") || endsAtBoundary(entry, full, ".");
}

}  // namespace

bool pythonEntryPointMatches(std::string_view entry, std::string_view module,
                             std::string_view qualified) {
  if (entry.empty() || entry.find("::") != std::string_view::npos) return false;
  std::string dotted(entry);
  for (char& c : dotted) {
    if (c == ':') c = '.';  // `pkg.mod:Runner.run`
  }
  if (matchesSpelling(dotted, module, qualified)) return true;
  if (qualified.find(".<locals>") == std::string_view::npos) return false;
  return matchesSpelling(dotted, module, withoutLocals(qualified));
}

bool cudaEntryPointMatches(std::string_view entry, std::string_view qualified_name,
                           std::string_view name) {
  if (entry.empty() || entry.find('.') != std::string_view::npos) return false;
  if (entry.find("::") == std::string_view::npos) return entry == name;
  if (entry.starts_with("::")) entry.remove_prefix(2);
  return endsAtBoundary(qualified_name, entry, "::");
}

std::vector<std::string> unmatchedEntryPoints(const std::vector<std::string>& entries,
                                              const std::vector<FileModel>& files) {
  std::vector<std::string> unmatched;
  for (const std::string& entry : entries) {
    bool matched = false;
    for (const FileModel& file : files) {
      const bool python = file.language == Language::kPython;
      // A Python file's function 0 is its module-level code.
      for (std::size_t f = python ? 1 : 0; f < file.functions.size() && !matched; ++f) {
        const FunctionModel& function = file.functions[f];
        matched = python ? !function.is_lambda && pythonEntryPointMatches(entry, file.module_name,
                                                                         function.qualified_name)
                         : cudaEntryPointMatches(entry, function.qualified_name, function.name);
      }
      if (matched) break;
    }
    if (!matched) unmatched.push_back(entry);
  }
  return unmatched;
}

}  // namespace graphsafe
