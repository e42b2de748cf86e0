#include "analyzer/engine/extension_reach.h"

#include <filesystem>
#include <string>
#include <unordered_map>

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

}  // namespace graphsafe
