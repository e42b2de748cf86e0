#pragma once

#include <clang/Lex/PPCallbacks.h>

#include <string>
#include <vector>

namespace graphsafe::cuda {

// What a translation unit includes, at any depth: the project's own headers (by real path, so
// that the engine can find their files among the analyzed ones) and whether any include is a
// PyTorch header. Reachability from PyTorch is a property of the translation unit: a .cu that
// gets torch through the project's `common.h` is extension code, and so is every project
// header such a unit includes (GS304).
class IncludeGraph : public clang::PPCallbacks {
 public:
  struct Facts {
    std::vector<std::string> headers;  // sorted, unique; system and built-in headers left out
    bool includes_torch = false;
    bool complete = true;  // false when the unit has more project headers than are kept
  };

  explicit IncludeGraph(Facts& facts) : facts_(facts) {}

  void InclusionDirective(clang::SourceLocation hash, const clang::Token& include_token,
                          llvm::StringRef file_name, bool is_angled,
                          clang::CharSourceRange file_name_range, clang::OptionalFileEntryRef file,
                          llvm::StringRef search_path, llvm::StringRef relative_path,
                          const clang::Module* suggested_module, bool module_imported,
                          clang::SrcMgr::CharacteristicKind file_type) override;

  void EndOfMainFile() override;

 private:
  Facts& facts_;
};

}  // namespace graphsafe::cuda
