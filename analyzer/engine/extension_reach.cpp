#include "analyzer/engine/extension_reach.h"

#include <deque>
#include <filesystem>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

namespace graphsafe {

namespace {

// The path Clang reports for an included file: absolute, symbolic links resolved.
std::string realPath(const std::string& path) {
  std::error_code error;
  std::filesystem::path real = std::filesystem::weakly_canonical(path, error);
  return error ? path : real.string();
}

void markExtensionCode(FileModel& model) {
  model.extension_code = true;
  for (FunctionModel& function : model.functions) {
    for (Event& event : function.events) event.flags |= kFlagExtensionCode;
  }
}

}  // namespace

void markHeadersOfExtensionUnits(std::vector<FileModel>& models) {
  std::unordered_map<std::string, std::size_t> by_path;
  bool any = false;
  for (std::size_t i = 0; i < models.size(); ++i) {
    const FileModel& model = models[i];
    if (model.language != Language::kCuda || !model.source) continue;
    any = any || (model.extension_code && !model.includes.empty());
    if (model.lowered && !model.extension_code) by_path.emplace(realPath(model.source->path()), i);
  }
  if (!any || by_path.empty()) return;
  std::vector<const FileModel*> includer(models.size(), nullptr);
  for (const FileModel& model : models) {
    if (model.language != Language::kCuda || !model.extension_code) continue;
    for (const std::string& header : model.includes) {
      auto it = by_path.find(header);
      if (it != by_path.end() && includer[it->second] == nullptr) includer[it->second] = &model;
    }
  }
  for (std::size_t i = 0; i < models.size(); ++i) {
    if (includer[i] == nullptr) continue;
    models[i].extension_includer = includer[i]->source->path();
    markExtensionCode(models[i]);
  }
}

void markRegisteredOperators(std::vector<FileModel>& models) {
  using At = std::pair<std::size_t, FunctionId>;
  std::unordered_map<std::string, std::vector<At>> by_name;
  std::deque<At> pending;
  std::set<At> seen;
  bool any = false;
  for (const FileModel& model : models) {
    any = any || (model.language == Language::kCuda && !model.registered_ops.empty());
  }
  if (!any) return;
  for (std::size_t i = 0; i < models.size(); ++i) {
    if (models[i].language != Language::kCuda) continue;
    for (FunctionId f = 0; f < models[i].functions.size(); ++f) {
      by_name[models[i].functions[f].qualified_name].emplace_back(i, f);
    }
  }
  auto reach = [&](const At& at) {
    if (seen.insert(at).second) pending.push_back(at);
  };
  for (const FileModel& model : models) {
    if (model.language != Language::kCuda) continue;
    for (const std::string& name : model.registered_ops) {
      auto it = by_name.find(name);
      if (it == by_name.end()) continue;
      for (const At& at : it->second) reach(at);
    }
  }
  while (!pending.empty()) {
    auto [file, f] = pending.front();
    pending.pop_front();
    FunctionModel& function = models[file].functions[f];
    for (Event& event : function.events) {
      event.flags |= kFlagExtensionCode;
      if (event.kind != EventKind::kCall) continue;
      if (event.callee != kNoFunction && event.callee < models[file].functions.size()) {
        reach({file, event.callee});
      } else if (auto it = by_name.find(event.callee_qualified);
                 !event.callee_qualified.empty() && it != by_name.end()) {
        for (const At& at : it->second) reach(at);
      }
    }
  }
}

}  // namespace graphsafe
