#include "frontends/cuda/template_instantiations.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

#include <algorithm>

namespace graphsafe::cuda {

namespace {

// Calls in one instantiated body: bounded as every walk of the lowering is.
constexpr std::size_t kMaxNodes = 50'000;

}  // namespace

class InstantiationCollector : public clang::RecursiveASTVisitor<InstantiationCollector> {
  using Base = clang::RecursiveASTVisitor<InstantiationCollector>;

 public:
  InstantiationCollector(clang::ASTContext& context, TemplateInstantiations& out)
      : sources_(context.getSourceManager()), out_(out) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return false; }

  // Only the main file's declarations hold the main file's templates and their instantiations.
  bool TraverseDecl(clang::Decl* decl) {
    if (decl == nullptr) return true;
    if (!clang::isa<clang::TranslationUnitDecl, clang::NamespaceDecl, clang::LinkageSpecDecl>(
            decl) &&
        !sources_.isInMainFile(sources_.getExpansionLoc(decl->getLocation()))) {
      return true;
    }
    return Base::TraverseDecl(decl);
  }

  bool VisitFunctionDecl(clang::FunctionDecl* function) {
    const clang::FunctionDecl* pattern = function->getTemplateInstantiationPattern();
    if (pattern == nullptr || !function->hasBody()) return true;
    pattern = pattern->getCanonicalDecl();
    out_.patterns_[pattern] = true;
    llvm::SmallVector<const clang::Stmt*, 64> pending{function->getBody()};
    for (std::size_t visited = 0; !pending.empty() && visited < kMaxNodes; ++visited) {
      const clang::Stmt* statement = pending.pop_back_val();
      if (statement == nullptr) continue;
      for (const clang::Stmt* child : statement->children()) pending.push_back(child);
      const auto* call = clang::dyn_cast<clang::CallExpr>(statement);
      const clang::FunctionDecl* callee = call != nullptr ? call->getDirectCallee() : nullptr;
      if (callee == nullptr) continue;
      auto& resolved = out_.calls_[{pattern, call->getBeginLoc().getRawEncoding()}];
      const bool known = std::any_of(resolved.begin(), resolved.end(), [&](const auto& entry) {
        return entry.callee->getCanonicalDecl() == callee->getCanonicalDecl();
      });
      if (!known) resolved.push_back({callee->getNameAsString(), callee});
    }
    return true;
  }

 private:
  const clang::SourceManager& sources_;
  TemplateInstantiations& out_;
};

TemplateInstantiations::TemplateInstantiations(clang::ASTContext& context) {
  InstantiationCollector collector(context, *this);
  collector.TraverseDecl(context.getTranslationUnitDecl());
}

const std::vector<TemplateInstantiations::Resolved>& TemplateInstantiations::calleesOf(
    const clang::FunctionDecl* pattern, const clang::CallExpr* call) const {
  static const std::vector<Resolved> none;
  if (pattern == nullptr) return none;
  auto it = calls_.find({pattern->getCanonicalDecl(), call->getBeginLoc().getRawEncoding()});
  return it == calls_.end() ? none : it->second;
}

bool TemplateInstantiations::instantiated(const clang::FunctionDecl* pattern) const {
  return pattern != nullptr && patterns_.count(pattern->getCanonicalDecl()) != 0;
}

}  // namespace graphsafe::cuda
