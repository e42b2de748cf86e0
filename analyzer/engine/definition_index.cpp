#include "analyzer/engine/definition_index.h"

#include <algorithm>

namespace graphsafe {

void DefinitionIndex::add(const FileModel& file) {
  if (!file.module_name.empty()) modules_.try_emplace(file.module_name, &file);
  for (const FunctionModel& function : file.functions) {
    if (function.is_module_level) continue;
    std::string name = file.module_name.empty() ? function.qualified_name
                                                : file.module_name + "." + function.qualified_name;
    by_name_.try_emplace(std::move(name), FunctionRef{&file, &function});
  }
}

FunctionRef DefinitionIndex::resolve(std::string_view qualified,
                                     std::vector<std::string>* missing) const {
  return resolve(std::string(qualified), missing, 0);
}

FunctionRef DefinitionIndex::resolve(const std::string& qualified,
                                     std::vector<std::string>* missing, int hops) const {
  auto found = by_name_.find(qualified);
  if (found != by_name_.end()) return found->second;
  if (hops >= kMaxHops) return {};
  // The longest prefix that is an indexed module decides what the rest of the name means.
  for (std::size_t cut = qualified.rfind('.'); cut != std::string::npos && cut > 0;
       cut = cut == 0 ? std::string::npos : qualified.rfind('.', cut - 1)) {
    std::string prefix = qualified.substr(0, cut);
    auto module = modules_.find(prefix);
    if (module == modules_.end()) {
      if (missing != nullptr) missing->push_back(std::move(prefix));
      continue;
    }
    std::string rest = qualified.substr(cut + 1);
    std::size_t dot = rest.find('.');
    std::string first = rest.substr(0, dot);
    std::string tail = dot == std::string::npos ? std::string() : rest.substr(dot);
    const FileModel& file = *module->second;
    auto alias = std::lower_bound(file.import_aliases.begin(), file.import_aliases.end(), first,
                                  [](const std::pair<std::string, std::string>& entry,
                                     const std::string& key) { return entry.first < key; });
    if (alias != file.import_aliases.end() && alias->first == first) {
      std::string target = alias->second + tail;
      if (target != qualified) return resolve(target, missing, hops + 1);
      return {};
    }
    for (const std::string& star : file.star_imports) {
      FunctionRef through = resolve(star + "." + rest, missing, hops + 1);
      if (through) return through;
    }
    return {};
  }
  return {};
}

}  // namespace graphsafe
