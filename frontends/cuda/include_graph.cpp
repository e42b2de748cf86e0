#include "frontends/cuda/include_graph.h"

#include <algorithm>

#include "frontends/cuda/extension_code.h"

namespace graphsafe::cuda {

namespace {

// A project with more headers than this in one unit is generated code; the rest are not needed
// to decide reachability.
constexpr std::size_t kMaxHeaders = 4096;

}  // namespace

void IncludeGraph::InclusionDirective(
    clang::SourceLocation /*hash*/, const clang::Token& /*include_token*/,
    llvm::StringRef file_name, bool /*is_angled*/, clang::CharSourceRange /*file_name_range*/,
    clang::OptionalFileEntryRef file, llvm::StringRef /*search_path*/,
    llvm::StringRef /*relative_path*/, const clang::Module* /*suggested_module*/,
    bool /*module_imported*/, clang::SrcMgr::CharacteristicKind file_type) {
  if (isTorchHeader(file_name)) facts_.includes_torch = true;
  if (!file || file_type != clang::SrcMgr::C_User) return;
  if (facts_.headers.size() >= kMaxHeaders) {
    facts_.complete = false;
    return;
  }
  llvm::StringRef real = file->getFileEntry().tryGetRealPathName();
  if (real.empty() || real.starts_with("/__graphsafe__/")) return;
  facts_.headers.push_back(real.str());
}

void IncludeGraph::EndOfMainFile() {
  std::sort(facts_.headers.begin(), facts_.headers.end());
  facts_.headers.erase(std::unique(facts_.headers.begin(), facts_.headers.end()),
                       facts_.headers.end());
}

}  // namespace graphsafe::cuda
