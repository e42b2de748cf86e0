#include "analyzer/program/call_sites.h"

namespace graphsafe::program {

std::string_view calleeName(const FileModel& file, RefId callee) {
  callee = throughLocal(file.references, callee);
  if (callee == kNoRef || callee >= file.references.size()) return {};
  const Reference& reference = file.references[callee];
  switch (reference.kind) {
    case Reference::Kind::kGlobal: {
      std::string_view name = reference.name;
      std::size_t dot = name.rfind('.');
      return dot == std::string_view::npos ? name : name.substr(dot + 1);
    }
    case Reference::Kind::kAttribute:
      return reference.name;
    case Reference::Kind::kFunction:
      return reference.function < file.functions.size() ? file.functions[reference.function].name
                                                        : std::string_view{};
    case Reference::Kind::kClass:
      return reference.index >= 0 && static_cast<std::size_t>(reference.index) < file.classes.size()
                 ? std::string_view(file.classes[static_cast<std::size_t>(reference.index)].name)
                 : std::string_view{};
    default:
      return {};
  }
}

CallSiteIndex::CallSiteIndex(const ProgramIndex& index) {
  const auto& files = index.files();
  for (std::uint32_t f = 0; f < files.size(); ++f) {
    const FileModel& file = files[f];
    if (!file.lowered || file.language != Language::kPython) continue;
    for (FunctionId id = 0; id < file.functions.size(); ++id) {
      for (const Event& event : file.functions[id].events) {
        if (event.kind != EventKind::kCall || event.call == kNoRef ||
            event.call >= file.references.size()) {
          continue;
        }
        const Reference& call = file.references[event.call];
        RefId callee = call.operands.empty() ? kNoRef : call.operands[0];
        std::string_view name = calleeName(file, callee);
        if (!name.empty()) by_name_[std::string(name)].push_back({f, id, &event});
      }
    }
  }
}

const std::vector<CallSite>& CallSiteIndex::named(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? none_ : it->second;
}

}  // namespace graphsafe::program
