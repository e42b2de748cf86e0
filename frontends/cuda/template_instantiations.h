#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace clang {
class ASTContext;
class CallExpr;
class FunctionDecl;
}  // namespace clang

namespace graphsafe::cuda {

// What the calls of the main file's templates resolve to in the instantiations the translation
// unit makes. The lowering walks each template once, as written, where a call that depends on a
// template parameter (`gemm.run(stream)` on a `Gemm` parameter, `policy::launch(...)`) names no
// function; each instantiation names one. Built once per unit, before lowering.
class TemplateInstantiations {
 public:
  explicit TemplateInstantiations(clang::ASTContext& context);

  struct Resolved {
    std::string name;  // the callee's name as the instantiation spells it
    const clang::FunctionDecl* callee = nullptr;
  };

  // The callees a call of template `pattern` resolves to in its instantiations (a call is
  // found by where it begins), and whether the unit instantiates `pattern` at all.
  const std::vector<Resolved>& calleesOf(const clang::FunctionDecl* pattern,
                                         const clang::CallExpr* call) const;
  bool instantiated(const clang::FunctionDecl* pattern) const;

 private:
  friend class InstantiationCollector;
  std::map<std::pair<const clang::FunctionDecl*, unsigned>, std::vector<Resolved>> calls_;
  std::map<const clang::FunctionDecl*, bool> patterns_;
};

}  // namespace graphsafe::cuda
