#include "frontends/cuda/ast_lowering.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analyzer/model/stream_wording.h"
#include "frontends/cuda/cuda_api_table.h"
#include "frontends/cuda/project_tree.h"
#include "frontends/cuda/template_instantiations.h"
#include "frontends/cuda/vector_storage.h"

namespace graphsafe::cuda {

namespace {

using clang::cast;
using clang::dyn_cast;
using clang::dyn_cast_or_null;
using clang::isa;

constexpr std::size_t kMaxTextLength = 120;
constexpr int kMaxDepth = 16;
constexpr int kMaxWalk = 256;  // nodes one expression walk visits
constexpr std::size_t kMaxSignatureNodes = 20000;

std::string pointerKey(char tag, const void* pointer) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%c%" PRIxPTR, tag,
                reinterpret_cast<std::uintptr_t>(pointer));
  return buffer;
}

std::uint64_t pointerId(const void* pointer) {
  return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(pointer));
}

// Strips what does not change which object an expression names: parentheses, casts,
// temporaries, copies.
const clang::Expr* strip(const clang::Expr* expr) {
  for (int i = 0; expr != nullptr && i < kMaxDepth; ++i) {
    const clang::Expr* next = expr->IgnoreParenCasts();
    if (const auto* temporary = dyn_cast<clang::MaterializeTemporaryExpr>(next)) {
      next = temporary->getSubExpr();
    } else if (const auto* bind = dyn_cast<clang::CXXBindTemporaryExpr>(next)) {
      next = bind->getSubExpr();
    } else if (const auto* cleanups = dyn_cast<clang::ExprWithCleanups>(next)) {
      next = cleanups->getSubExpr();
    } else if (const auto* construct = dyn_cast<clang::CXXConstructExpr>(next);
               construct != nullptr && construct->getNumArgs() == 1 &&
               construct->getConstructor() != nullptr &&
               construct->getConstructor()->isCopyOrMoveConstructor()) {
      next = construct->getArg(0);
    }
    if (next == expr) return expr;
    expr = next;
  }
  return expr;
}

// `&x` -> `x`, through casts: the object an out-parameter names.
const clang::Expr* pointee(const clang::Expr* expr) {
  expr = strip(expr);
  if (const auto* unary = dyn_cast_or_null<clang::UnaryOperator>(expr);
      unary != nullptr && unary->getOpcode() == clang::UO_AddrOf) {
    return strip(unary->getSubExpr());
  }
  return expr;
}

bool typeNameContains(clang::QualType type, std::string_view needle) {
  if (type.isNull()) return false;
  std::string name =
      type.getNonReferenceType().getCanonicalType().getUnqualifiedType().getAsString();
  return name.find(needle) != std::string::npos;
}

bool isStreamType(clang::QualType type) {
  return typeNameContains(type, "CUstream_st") || typeNameContains(type, "CUDAStream");
}

bool isTensorLike(clang::QualType type) {
  if (type.isNull()) return false;
  const auto* record = type.getNonReferenceType()->getAsCXXRecordDecl();
  if (record == nullptr || record->getIdentifier() == nullptr) return false;
  llvm::StringRef name = record->getName();
  return name == "Tensor" || name == "TensorBase" || name.contains("TensorAccessor");
}

bool isDeviceOnly(const clang::FunctionDecl* function) {
  if (function->hasAttr<clang::CUDAGlobalAttr>()) return true;
  return function->hasAttr<clang::CUDADeviceAttr>() && !function->hasAttr<clang::CUDAHostAttr>();
}

std::string qualifiedName(const clang::NamedDecl* decl) {
  std::string name = decl->getQualifiedNameAsString();
  const std::string anonymous = "(anonymous namespace)::";
  for (std::size_t at = name.find(anonymous); at != std::string::npos; at = name.find(anonymous)) {
    name.erase(at, anonymous.size());
  }
  return name;
}

bool inLibraryNamespace(const clang::Decl* decl) {
  for (const clang::DeclContext* context = decl->getDeclContext(); context != nullptr;
       context = context->getParent()) {
    const auto* ns = dyn_cast<clang::NamespaceDecl>(context);
    if (ns == nullptr || ns->getIdentifier() == nullptr) continue;
    if (!isa<clang::TranslationUnitDecl>(ns->getParent()->getRedeclContext())) continue;
    llvm::StringRef name = ns->getName();
    if (name == "std" || name == "at" || name == "c10" || name == "torch" || name == "pybind11" ||
        name == "thrust" || name == "cub" || name == "cuda" || name == "cutlass" ||
        name == "cute" || name == "__gnu_cxx") {
      return true;
    }
  }
  return false;
}

// A function a value holds (a lambda, a function pointer): its identity in the translation unit
// (functionKey) and its name in the model (functionName).
struct Callable {
  std::string key;   // "" for another holder (a callable parameter handed on)
  std::string name;
  std::string what;  // a holder: how the calls not followed name it
};

// What a call calls: its name, and its declaration when Clang resolved it (or, in a template,
// the declaration the unresolved name can only mean).
struct Callee {
  std::string name;
  std::string qualified;
  const clang::FunctionDecl* decl = nullptr;
};

const clang::FunctionDecl* asFunction(const clang::NamedDecl* decl) {
  if (decl == nullptr) return nullptr;
  decl = decl->getUnderlyingDecl();
  if (const auto* pattern = dyn_cast<clang::FunctionTemplateDecl>(decl)) {
    return pattern->getTemplatedDecl();
  }
  return dyn_cast<clang::FunctionDecl>(decl);
}

template <class Lookup>
const clang::FunctionDecl* onlyCandidate(const Lookup* lookup) {
  const clang::FunctionDecl* found = nullptr;
  for (const clang::NamedDecl* decl : lookup->decls()) {
    const clang::FunctionDecl* function = asFunction(decl);
    if (function == nullptr) continue;
    if (found != nullptr && found->getCanonicalDecl() != function->getCanonicalDecl()) {
      return found;  // overloads: any of them names the same API family
    }
    found = function;
  }
  return found;
}

Callee calleeOfExpr(const clang::Expr* callee_expr) {
  Callee callee;
  if (callee_expr == nullptr) return callee;
  const clang::Expr* expr = callee_expr->IgnoreParenImpCasts();
  if (const auto* ref = dyn_cast<clang::DeclRefExpr>(expr)) {
    callee.decl = asFunction(ref->getDecl());
    callee.name = ref->getDecl()->getNameAsString();
  } else if (const auto* lookup = dyn_cast<clang::UnresolvedLookupExpr>(expr)) {
    callee.name = lookup->getName().getAsString();
    callee.decl = onlyCandidate(lookup);
  } else if (const auto* member = dyn_cast<clang::UnresolvedMemberExpr>(expr)) {
    callee.name = member->getMemberName().getAsString();
    callee.decl = onlyCandidate(member);
  } else if (const auto* dependent = dyn_cast<clang::CXXDependentScopeMemberExpr>(expr)) {
    callee.name = dependent->getMember().getAsString();
  } else if (const auto* scoped = dyn_cast<clang::DependentScopeDeclRefExpr>(expr)) {
    callee.name = scoped->getDeclName().getAsString();
  } else if (const auto* member_ref = dyn_cast<clang::MemberExpr>(expr)) {
    callee.decl = asFunction(member_ref->getMemberDecl());
    callee.name = member_ref->getMemberDecl()->getNameAsString();
  }
  if (callee.decl != nullptr) callee.qualified = qualifiedName(callee.decl);
  if (callee.qualified.empty()) callee.qualified = callee.name;
  return callee;
}

Callee calleeOf(const clang::CallExpr* call) {
  if (const clang::FunctionDecl* direct = call->getDirectCallee()) {
    Callee callee;
    callee.decl = direct;
    callee.name = direct->getNameAsString();
    callee.qualified = qualifiedName(direct);
    return callee;
  }
  return calleeOfExpr(call->getCallee());
}

// The definition a call reaches in the translation unit: templates by their pattern.
const clang::FunctionDecl* patternOf(const clang::FunctionDecl* decl) {
  if (decl == nullptr) return nullptr;
  if (const clang::FunctionDecl* pattern = decl->getTemplateInstantiationPattern()) decl = pattern;
  return decl;
}

std::string functionKey(const clang::FunctionDecl* decl) {
  decl = patternOf(decl);
  return decl != nullptr ? pointerKey('f', decl->getCanonicalDecl()) : std::string();
}

std::string captureMode(const clang::Expr* mode, const clang::ASTContext& context) {
  if (mode == nullptr || isa<clang::CXXDefaultArgExpr>(mode)) return "global";
  mode = mode->IgnoreParenImpCasts();
  if (const auto* ref = dyn_cast<clang::DeclRefExpr>(mode)) {
    std::string name = ref->getDecl()->getNameAsString();
    if (name.find("Global") != std::string::npos || name.find("GLOBAL") != std::string::npos) {
      return "global";
    }
    if (name.find("ThreadLocal") != std::string::npos ||
        name.find("THREAD_LOCAL") != std::string::npos) {
      return "thread_local";
    }
    if (name.find("Relaxed") != std::string::npos || name.find("RELAXED") != std::string::npos) {
      return "relaxed";
    }
  }
  clang::Expr::EvalResult result;
  if (!mode->isValueDependent() && mode->EvaluateAsInt(result, context)) {
    switch (result.Val.getInt().getExtValue()) {
      case 0:
        return "global";
      case 1:
        return "thread_local";
      case 2:
        return "relaxed";
      default:
        break;
    }
  }
  return "";
}

// Does a value of this type hold a function to call: a function pointer or reference, a
// std::function, a lambda's closure, or an array of one of these?
bool holdsCallable(clang::QualType type) {
  if (type.isNull() || type->isDependentType()) return false;
  type = type.getNonReferenceType();
  if (const clang::ArrayType* array = type->getAsArrayTypeUnsafe()) type = array->getElementType();
  if (type->isFunctionPointerType() || type->isFunctionType()) return true;
  const auto* record = type->getAsCXXRecordDecl();
  if (record == nullptr) return false;
  if (record->isLambda()) return true;
  return record->getIdentifier() != nullptr && record->getName() == "function" &&
         record->isInStdNamespace();
}

// A template's parameter type that may hold a function once instantiated (`F f`, a dependent
// std::function): not a pointer or array, which hold data (`T* device_ptr`).
bool mayHoldCallable(clang::QualType type) {
  if (type.isNull() || !type->isDependentType()) return false;
  type = type.getNonReferenceType();
  return !type->isPointerType() && !type->isArrayType();
}

// A map (std::map, std::unordered_map, ...) whose values are executable graphs: a cache with one
// graph per key.
bool isGraphMap(clang::QualType type) {
  if (type.isNull()) return false;
  type = type.getNonReferenceType();
  if (type->isPointerType()) type = type->getPointeeType();
  const auto* specialization =
      dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(type->getAsCXXRecordDecl());
  if (specialization == nullptr || specialization->getIdentifier() == nullptr ||
      !specialization->getName().contains("map") || specialization->getTemplateArgs().size() < 2) {
    return false;
  }
  const clang::TemplateArgument& value = specialization->getTemplateArgs()[1];
  return value.getKind() == clang::TemplateArgument::Type &&
         (typeNameContains(value.getAsType(), "CUgraphExec_st") ||
          typeNameContains(value.getAsType(), "CUDAGraph"));
}

// A function's name in the model: its qualified name; a lambda's is the function it is written
// in, then `(lambda at line N)` (at namespace scope: `(lambda at file.cu:N)`).
std::string functionName(const clang::FunctionDecl* function, const clang::SourceManager& sources) {
  const auto* method = dyn_cast<clang::CXXMethodDecl>(function);
  if (method == nullptr || !method->getParent()->isLambda()) return qualifiedName(function);
  const clang::CXXRecordDecl* closure = method->getParent();
  clang::PresumedLoc where =
      sources.getPresumedLoc(sources.getExpansionLoc(closure->getLocation()));
  const std::string line = where.isValid() ? std::to_string(where.getLine()) : "?";
  if (const auto* outer = dyn_cast<clang::FunctionDecl>(closure->getDeclContext())) {
    return functionName(outer, sources) + "::(lambda at line " + line + ")";
  }
  std::string file = where.isValid()
                         ? std::filesystem::path(where.getFilename()).filename().string()
                         : std::string("?");
  return "(lambda at " + file + ":" + line + ")";
}

// The name a callable parameter goes by in the model (FileModel::cpp_aliases): what the
// callers pass to it is stored into it.
std::string parameterHolder(const std::string& function, unsigned index) {
  return function + "::<parameter " + std::to_string(index + 1) + ">";
}

class Lowering : public clang::RecursiveASTVisitor<Lowering> {
  using Base = clang::RecursiveASTVisitor<Lowering>;

 public:
  Lowering(clang::ASTContext& context, const SourceFile& source, const LoweringOptions& options,
           RawTranslationUnit& unit, const TemplateInstantiations& instantiations)
      : context_(context),
        sources_(context.getSourceManager()),
        source_(source),
        options_(options),
        unit_(unit),
        instantiations_(instantiations),
        tree_(projectTreeOf(std::filesystem::absolute(source.path()).string())) {}

  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return false; }
  bool shouldWalkTypesOfTypeLocs() const { return false; }

  bool TraverseDecl(clang::Decl* decl) {
    if (decl == nullptr) return true;
    if (function_ == nullptr) {
      if (!isa<clang::TranslationUnitDecl>(decl) && !inMainFile(decl->getLocation())) return true;
      if (auto* function = dyn_cast<clang::FunctionDecl>(decl)) {
        if (function->doesThisDeclarationHaveABody() && !isDeviceOnly(function)) {
          lowerFunction(function);
        }
        return true;
      }
    }
    return Base::TraverseDecl(decl);
  }

  // A lambda's body runs when it is called, not where it is written: it is lowered as a function
  // of its own (after the function it is written in), and calls of it, of a variable holding it,
  // or of a parameter it is passed to, reach it. Its captures' initializers run here.
  bool TraverseLambdaExpr(clang::LambdaExpr* lambda) {
    if (!inMainFile(lambda->getBeginLoc())) return true;
    if (function_ != nullptr) {
      for (clang::Expr* init : lambda->capture_inits()) TraverseStmt(init);
    }
    if (isDeviceOnly(lambda->getCallOperator())) return true;
    pending_lambdas_.push_back(lambda);
    if (function_ == nullptr) lowerPendingLambdas();
    return true;
  }

  // ---- blocks, loops and branches: traversed by hand to know what encloses what -------------

  bool TraverseCompoundStmt(clang::CompoundStmt* block) {
    if (function_ == nullptr) return Base::TraverseCompoundStmt(block);
    BlockScope scope(*this, block);
    compounds_.push_back(block);
    bool result = Base::TraverseCompoundStmt(block);
    compounds_.pop_back();
    noteScopeExit(block);
    return result;
  }

  bool TraverseIfStmt(clang::IfStmt* branch) {
    if (function_ == nullptr) return Base::TraverseIfStmt(branch);
    TraverseStmt(branch->getInit());
    TraverseStmt(branch->getConditionVariableDeclStmt());
    TraverseStmt(branch->getCond());
    noteBranch(branch->getCond(), branch->getThen(), branch->getElse(), branch);
    int polarity = captureDependent(branch->getCond(), 0) ? capturePolarity(branch->getCond()) : 0;
    traverseBody(branch->getThen(), polarity < 0);
    traverseBody(branch->getElse(), polarity > 0);
    // `if (capturing) return;`: what follows in the block runs only when not capturing.
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    if (polarity > 0 && branch->getElse() == nullptr && exits(branch->getThen()) &&
        !blocks_.empty() && fileRange(branch->getSourceRange(), begin, end)) {
      not_capturing_ranges_.emplace_back(end, blocks_.back().second);
    }
    return true;
  }

  bool TraverseForStmt(clang::ForStmt* loop) {
    if (function_ == nullptr) return Base::TraverseForStmt(loop);
    LoopScope scope(*this, loop, loop->getBody());
    noteTrips(loop);
    TraverseStmt(loop->getInit());
    if (const auto* init = dyn_cast_or_null<clang::DeclStmt>(loop->getInit())) {
      for (const clang::Decl* decl : init->decls()) {
        if (const auto* var = dyn_cast<clang::VarDecl>(decl)) scope.bind(var);
      }
    }
    bindStepped(loop->getInc(), scope);
    TraverseStmt(loop->getConditionVariableDeclStmt());
    TraverseStmt(loop->getCond());
    TraverseStmt(loop->getInc());
    traverseBody(loop->getBody());
    return true;
  }

  bool TraverseCXXForRangeStmt(clang::CXXForRangeStmt* loop) {
    if (function_ == nullptr) return Base::TraverseCXXForRangeStmt(loop);
    LoopScope scope(*this, loop, loop->getBody());
    TraverseStmt(loop->getInit());
    TraverseStmt(loop->getRangeInit());
    if (clang::VarDecl* var = loop->getLoopVariable()) {
      TraverseDecl(var);
      scope.bind(var);
    }
    traverseBody(loop->getBody());
    return true;
  }

  bool TraverseWhileStmt(clang::WhileStmt* loop) {
    if (function_ == nullptr) return Base::TraverseWhileStmt(loop);
    LoopScope scope(*this, loop, loop->getBody());
    TraverseStmt(loop->getConditionVariableDeclStmt());
    TraverseStmt(loop->getCond());
    traverseBody(loop->getBody());
    return true;
  }

  bool TraverseDoStmt(clang::DoStmt* loop) {
    if (function_ == nullptr) return Base::TraverseDoStmt(loop);
    LoopScope scope(*this, loop, loop->getBody());
    traverseBody(loop->getBody());
    TraverseStmt(loop->getCond());
    return true;
  }

  bool VisitConditionalOperator(clang::ConditionalOperator* branch) {
    if (function_ != nullptr) {
      noteBranch(branch->getCond(), branch->getTrueExpr(), branch->getFalseExpr(), nullptr);
    }
    return true;
  }

  // ---- calls -------------------------------------------------------------------------------

  bool VisitCallExpr(clang::CallExpr* call) {
    if (function_ == nullptr) return true;
    noteVectorEdits(call);
    if (auto* launch = dyn_cast<clang::CUDAKernelCallExpr>(call)) {
      lowerLaunch(launch);
      return true;
    }
    if (auto* op = dyn_cast<clang::CXXOperatorCallExpr>(call)) {
      lowerOperatorCall(op);
      return true;
    }
    Callee callee = calleeOf(call);
    if (callee.name == "__cudaPushCallConfiguration" || callee.name == "cudaConfigureCall") {
      return true;
    }
    if (callee.decl == nullptr && lowerCallThroughHolder(call)) return true;
    if (callee.name.empty()) return true;
    if (auto* member = dyn_cast<clang::CXXMemberCallExpr>(call)) {
      if (lowerMemberCall(member, callee)) return true;
    }
    lowerCall(call, callee);
    return true;
  }

  // A call Clang could not type-check (a header was missing): its callee and arguments survive.
  bool VisitRecoveryExpr(clang::RecoveryExpr* recovery) {
    if (function_ == nullptr || recovery->subExpressions().empty()) return true;
    const clang::Expr* head = recovery->subExpressions().front();
    if (head == nullptr) return true;
    const clang::Expr* callee_expr = head->IgnoreParenImpCasts();
    // A call through a member or variable whose declaration did not parse (a function pointer
    // member whose parameter types are in a header not found): still a call through it.
    if (const auto* member = dyn_cast<clang::MemberExpr>(callee_expr);
        (member != nullptr && isa<clang::FieldDecl>(member->getMemberDecl())) ||
        (isa<clang::DeclRefExpr>(callee_expr) &&
         isa<clang::VarDecl>(cast<clang::DeclRefExpr>(callee_expr)->getDecl()))) {
      CallSite site;
      site.at = recovery;
      site.callee = head;
      for (const clang::Expr* argument : recovery->subExpressions().drop_front()) {
        site.args.push_back(argument);
      }
      lowerThroughHolder(site, head, false);
      return true;
    }
    if (!isa<clang::UnresolvedLookupExpr, clang::DeclRefExpr, clang::UnresolvedMemberExpr>(
            callee_expr)) {
      return true;
    }
    Callee callee = calleeOfExpr(callee_expr);
    if (callee.name.empty()) return true;
    lowerRecoveredCall(recovery, callee);
    return true;
  }

  // ---- writes ------------------------------------------------------------------------------

  bool VisitBinaryOperator(clang::BinaryOperator* op) {
    if (function_ != nullptr && op->isAssignmentOp()) {
      noteWrite(op->getLHS(), op->getRHS(), op, op->getOpcode() == clang::BO_Assign);
    }
    return true;
  }

  bool VisitInitListExpr(clang::InitListExpr* list) {
    if (inMainFile(list->getBeginLoc())) noteCallableFields(list);
    return true;
  }

  // `return exec;`: the executable graph outlives the function.
  bool VisitReturnStmt(clang::ReturnStmt* ret) {
    const clang::Expr* value = ret->getRetValue();
    if (function_ == nullptr || value == nullptr || !isExecutableGraph(value->getType())) {
      return true;
    }
    const clang::Expr* named = strip(value);
    if (!isa<clang::DeclRefExpr, clang::MemberExpr>(named)) return true;
    RawItem& item = addEvent(EventKind::kStore, value, "return");
    item.event.source = textOf(named);
    return true;
  }

  bool VisitUnaryOperator(clang::UnaryOperator* op) {
    if (function_ != nullptr && op->isIncrementDecrementOp()) {
      noteWrite(op->getSubExpr(), nullptr, op, false);
    }
    return true;
  }

  bool VisitVarDecl(clang::VarDecl* var) {
    if (var->hasInit() && !isa<clang::ParmVarDecl>(var) && holdsCallable(var->getType())) {
      noteCallableStore(nullptr, var, var->getInit());
    }
    if (function_ != nullptr && var->hasInit() && !isa<clang::ParmVarDecl>(var)) {
      noteHandleFromCall(var);
    }
    if (function_ != nullptr) noteOwnedStorage(var);
    // A parameter's default is what callers that leave it out pass, not its value: the calls
    // decide (stream handoffs).
    if (function_ == nullptr || !var->hasInit() || isa<clang::ParmVarDecl>(var)) return true;
    const clang::Expr* init = var->getInit();
    if (captureDependent(init, 0)) {
      tainted_.insert(var->getCanonicalDecl());
      if (int polarity = capturePolarity(init); polarity != 0) {
        polarity_[var->getCanonicalDecl()] = polarity;
      }
    }
    // A local initialized in a loop body takes a new value on every iteration: what that value
    // reads decides whether it varies (the region builder's variesPerIteration).
    if (var->isLocalVarDecl() && var->hasLocalStorage() && init != nullptr) {
      RawItem& item = addItem(ItemRole::kAssign, EventKind::kBind, init, "");
      item.var = pointerId(var->getCanonicalDecl());
      item.sources = sourcesOf(init);
      item.declaration = true;
    }
    if (isStreamType(var->getType())) {
      StreamRef ref = classifyStream(init, 0);
      if (ref.kind != StreamKind::kOther && ref.kind != StreamKind::kMissing) {
        aliases_[var->getCanonicalDecl()] = ref;
      }
    }
    return true;
  }

 private:
  // A local that owns host memory (see noteOwnedStorage).
  struct OwnedStorage {
    std::pair<std::uint32_t, std::uint32_t> block;  // the block it is declared in
    std::optional<VectorStorage> vector;            // a std::vector's block, as far as known
    bool read = false;                              // its memory is an argument of some work
  };

  // ---- scopes ------------------------------------------------------------------------------

  class BlockScope {
   public:
    BlockScope(Lowering& owner, const clang::Stmt* statement) : owner_(owner) {
      if (statement == nullptr || statement->getBeginLoc().isMacroID()) return;
      std::uint32_t begin = 0;
      std::uint32_t end = 0;
      if (!owner_.fileRange(statement->getSourceRange(), begin, end)) return;
      owner_.blocks_.emplace_back(begin, end);
      pushed_ = true;
    }
    ~BlockScope() {
      if (pushed_) owner_.blocks_.pop_back();
    }
    BlockScope(const BlockScope&) = delete;
    BlockScope& operator=(const BlockScope&) = delete;

   private:
    Lowering& owner_;
    bool pushed_ = false;
  };

  class LoopScope {
   public:
    LoopScope(Lowering& owner, const clang::Stmt* loop, const clang::Stmt* body) : owner_(owner) {
      RawLoop raw;
      std::uint32_t begin = 0;
      std::uint32_t end = 0;
      if (owner_.fileRange(loop->getSourceRange(), begin, end)) {
        raw.begin = begin;
        raw.end = end;
      }
      if (body != nullptr && owner_.fileRange(body->getSourceRange(), begin, end)) {
        raw.body_begin = begin;
        raw.body_end = end;
      }
      index_ = static_cast<std::int32_t>(owner_.function_->loops.size());
      owner_.function_->loops.push_back(raw);
    }
    void bind(const clang::VarDecl* var) {
      var = var->getCanonicalDecl();
      auto it = owner_.loop_of_var_.find(var);
      saved_.emplace_back(var, it == owner_.loop_of_var_.end() ? -2 : it->second);
      owner_.loop_of_var_[var] = index_;
    }
    ~LoopScope() {
      for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
        if (it->second == -2) {
          owner_.loop_of_var_.erase(it->first);
        } else {
          owner_.loop_of_var_[it->first] = it->second;
        }
      }
    }
    LoopScope(const LoopScope&) = delete;
    LoopScope& operator=(const LoopScope&) = delete;

   private:
    Lowering& owner_;
    std::int32_t index_ = -1;
    std::vector<std::pair<const clang::VarDecl*, std::int32_t>> saved_;
  };

  void traverseBody(clang::Stmt* body, bool not_capturing = false) {
    if (body == nullptr) return;
    BlockScope scope(*this, body);
    not_capturing_ += not_capturing ? 1 : 0;
    TraverseStmt(body);
    not_capturing_ -= not_capturing ? 1 : 0;
  }

  // The capture status an enumerator names: +1 active, -1 none, 0 neither.
  static int statusConstant(const clang::Expr* expr) {
    const auto* ref = dyn_cast<clang::DeclRefExpr>(expr->IgnoreParenImpCasts());
    if (ref == nullptr || !isa<clang::EnumConstantDecl>(ref->getDecl())) return 0;
    std::string name = ref->getDecl()->getNameAsString();
    if (name.ends_with("None") || name.ends_with("NONE")) return -1;
    if (name.ends_with("Active") || name.ends_with("ACTIVE")) return 1;
    return 0;
  }

  // Which way a capture-state condition points: +1 true only while capturing, -1 true only
  // while not capturing, 0 unknown. Follows `!` and flags computed from such a condition.
  int capturePolarity(const clang::Expr* condition) const {
    const clang::Expr* expr = condition->IgnoreParenImpCasts();
    int sign = 1;
    for (int depth = 0; depth < kMaxDepth; ++depth) {
      const auto* unary = dyn_cast<clang::UnaryOperator>(expr);
      if (unary == nullptr || unary->getOpcode() != clang::UO_LNot) break;
      sign = -sign;
      expr = unary->getSubExpr()->IgnoreParenImpCasts();
    }
    if (captureFlagOf(expr) != nullptr) return sign;  // a flag is true while capturing
    if (const auto* ref = dyn_cast<clang::DeclRefExpr>(expr)) {
      auto it = polarity_.find(ref->getDecl()->getCanonicalDecl());
      return it != polarity_.end() ? sign * it->second : 0;
    }
    const auto* binary = dyn_cast<clang::BinaryOperator>(expr);
    if (binary == nullptr || !binary->isEqualityOp()) return 0;
    int state = statusConstant(binary->getLHS());
    if (state == 0) state = statusConstant(binary->getRHS());
    return sign * (binary->getOpcode() == clang::BO_EQ ? state : -state);
  }

  // Variables a for loop steps in its increment: `for (i = 0; ...; ++i)`.
  void bindStepped(const clang::Expr* increment, LoopScope& scope) {
    if (increment == nullptr) return;
    llvm::SmallVector<const clang::Expr*, 4> pending{increment};
    while (!pending.empty()) {
      const clang::Expr* expr = pending.pop_back_val()->IgnoreParenImpCasts();
      const clang::Expr* target = nullptr;
      if (const auto* unary = dyn_cast<clang::UnaryOperator>(expr)) {
        if (unary->isIncrementDecrementOp()) target = unary->getSubExpr();
      } else if (const auto* binary = dyn_cast<clang::BinaryOperator>(expr)) {
        if (binary->isAssignmentOp()) {
          target = binary->getLHS();
        } else if (binary->getOpcode() == clang::BO_Comma) {
          pending.push_back(binary->getLHS());
          pending.push_back(binary->getRHS());
        }
      }
      if (const auto* ref = dyn_cast_or_null<clang::DeclRefExpr>(strip(target))) {
        if (const auto* var = dyn_cast<clang::VarDecl>(ref->getDecl())) scope.bind(var);
      }
    }
  }

  // ---- functions ---------------------------------------------------------------------------

  void lowerPendingLambdas() {
    while (!pending_lambdas_.empty()) {
      const clang::LambdaExpr* lambda = pending_lambdas_.back();
      pending_lambdas_.pop_back();
      lowerFunction(lambda->getCallOperator(), lambda);
    }
  }

  void lowerFunction(clang::FunctionDecl* function, const clang::LambdaExpr* lambda = nullptr) {
    // A lambda is lowered right after the function it is written in, and sees what that
    // function's locals hold.
    if (lambda == nullptr) local_callables_.clear();
    RawFunction raw;
    raw.model.qualified_name = functionName(function, sources_);
    if (lambda != nullptr) {
      const std::string& qualified = raw.model.qualified_name;
      const std::size_t cut = qualified.rfind("::(lambda");
      raw.model.name = cut == std::string::npos ? qualified : qualified.substr(cut + 2);
      raw.model.range = rangeOf(lambda->getIntroducerRange());
      raw.model.body = rangeOf(lambda->getSourceRange());
    } else {
      raw.model.name = function->getNameAsString();
      raw.model.range = rangeOf(function->getNameInfo().getSourceRange());
      raw.model.body = rangeOf(function->getSourceRange());
    }
    for (const clang::ParmVarDecl* param : function->parameters()) {
      Parameter parameter;
      parameter.name = param->getNameAsString();
      raw.model.params.push_back(std::move(parameter));
    }
    raw.key = functionKey(function);
    function_ = &raw;
    current_decl_ = function;
    Base::TraverseDecl(function);
    function_ = nullptr;
    current_decl_ = nullptr;
    blocks_.clear();
    compounds_.clear();
    loop_of_var_.clear();
    aliases_.clear();
    created_locals_.clear();
    tainted_.clear();
    polarity_.clear();
    not_capturing_ranges_.clear();
    owned_.clear();
    unit_.functions.push_back(std::move(raw));
    lowerPendingLambdas();
  }

  // ---- locations ---------------------------------------------------------------------------

  bool inMainFile(clang::SourceLocation location) const {
    return location.isValid() && sources_.isInMainFile(sources_.getExpansionLoc(location));
  }

  // The byte range of `range` in the main file: where it is written (a macro argument), else
  // where the macro that produced it is used.
  bool fileRange(clang::SourceRange range, std::uint32_t& begin, std::uint32_t& end) const {
    if (range.isInvalid()) return false;
    clang::SourceLocation first = sources_.getFileLoc(range.getBegin());
    clang::SourceLocation last = sources_.getFileLoc(range.getEnd());
    if (!sources_.isWrittenInMainFile(first) || !sources_.isWrittenInMainFile(last) ||
        sources_.getFileOffset(last) < sources_.getFileOffset(first)) {
      clang::CharSourceRange expansion = sources_.getExpansionRange(range);
      first = expansion.getBegin();
      last = expansion.getEnd();
    }
    if (!sources_.isWrittenInMainFile(first) || !sources_.isWrittenInMainFile(last)) return false;
    begin = sources_.getFileOffset(first);
    end = sources_.getFileOffset(last) +
          clang::Lexer::MeasureTokenLength(last, sources_, context_.getLangOpts());
    auto size = static_cast<std::uint32_t>(source_.text().size());
    begin = std::min(begin, size);
    end = std::clamp(end, begin, size);
    return true;
  }

  graphsafe::SourceRange rangeOf(clang::SourceRange range) const {
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    if (!fileRange(range, begin, end)) {
      // Somewhere outside the main file: point at the function being lowered instead.
      if (function_ != nullptr) return function_->model.range;
      return source_.rangeOf(0, 0);
    }
    return source_.rangeOf(begin, end);
  }

  // Source text of a range, whitespace collapsed, shortened for messages.
  std::string textOf(clang::SourceRange range) const {
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    if (!fileRange(range, begin, end)) return "";
    std::string text;
    bool space = false;
    for (std::uint32_t i = begin; i < end && text.size() < kMaxTextLength; ++i) {
      char c = source_.text()[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        space = !text.empty();
        continue;
      }
      if (space) text.push_back(' ');
      space = false;
      text.push_back(c);
    }
    if (text.size() >= kMaxTextLength) text += "...";
    return text;
  }

  std::string textOf(const clang::Expr* expr) const {
    return expr != nullptr ? textOf(expr->getSourceRange()) : std::string();
  }

  // ---- items -------------------------------------------------------------------------------

  RawItem& addItem(ItemRole role, EventKind kind, const clang::Expr* at, std::string api) {
    return addItem(role, kind, at->getSourceRange(), std::move(api), textOf(at));
  }

  RawItem& addItem(ItemRole role, EventKind kind, clang::SourceRange at, std::string api,
                   std::string text) {
    RawItem& item = function_->items.emplace_back();
    item.role = role;
    item.event.kind = kind;
    item.event.range = rangeOf(at);
    item.event.api = std::move(api);
    item.event.text = std::move(text);
    item.not_capturing = not_capturing_ > 0;
    for (const auto& [from, to] : not_capturing_ranges_) {
      item.not_capturing =
          item.not_capturing || (from <= item.event.range.begin && item.event.range.begin < to);
    }
    if (!blocks_.empty()) {
      item.block_begin = blocks_.back().first;
      item.block_end = blocks_.back().second;
    }
    return item;
  }

  RawItem& addEvent(EventKind kind, const clang::Expr* at, const std::string& api,
                    const std::string& subject = "") {
    RawItem& item = addItem(ItemRole::kEvent, kind, at, api);
    item.event.subject.text = subject;
    return item;
  }

  // ---- values ------------------------------------------------------------------------------

  struct ArgFacts {
    Value value;
    std::vector<VarUse> vars;
  };

  std::int32_t loopOf(const clang::VarDecl* var) const {
    auto it = loop_of_var_.find(var->getCanonicalDecl());
    return it != loop_of_var_.end() ? it->second : -1;
  }

  static void constant(ArgFacts& facts, ValueOrigin origin) {
    facts.value.kind = ValueKind::kHostConstant;
    facts.value.origin = origin;
  }

  std::optional<std::int64_t> constantInteger(const clang::Expr* expr) const {
    clang::Expr::EvalResult result;
    if (expr == nullptr || !evaluatesToConstant(expr) || !expr->EvaluateAsInt(result, context_)) {
      return std::nullopt;
    }
    return result.Val.getInt().getExtValue();
  }

  // `for (int i = 0; i < 64; ++i)`: a kLoop event with how many times the body runs, when the
  // bounds are constants and the index steps by one.
  void noteTrips(const clang::ForStmt* loop) {
    const auto* init = dyn_cast_or_null<clang::DeclStmt>(loop->getInit());
    const auto* var = init != nullptr && init->isSingleDecl()
                          ? dyn_cast<clang::VarDecl>(init->getSingleDecl())
                          : nullptr;
    if (var == nullptr || !var->getType()->isIntegerType()) return;
    auto isIndex = [&](const clang::Expr* expr) {
      const auto* ref = dyn_cast_or_null<clang::DeclRefExpr>(
          expr != nullptr ? expr->IgnoreParenImpCasts() : nullptr);
      return ref != nullptr && ref->getDecl()->getCanonicalDecl() == var->getCanonicalDecl();
    };
    const clang::Expr* inc = loop->getInc() != nullptr ? loop->getInc()->IgnoreParens() : nullptr;
    bool steps_by_one = false;
    if (const auto* unary = dyn_cast_or_null<clang::UnaryOperator>(inc)) {
      steps_by_one = unary->isIncrementOp() && isIndex(unary->getSubExpr());
    } else if (const auto* compound = dyn_cast_or_null<clang::CompoundAssignOperator>(inc)) {
      steps_by_one = compound->getOpcode() == clang::BO_AddAssign && isIndex(compound->getLHS()) &&
                     constantInteger(compound->getRHS()) == 1;
    }
    const auto* cond = dyn_cast_or_null<clang::BinaryOperator>(
        loop->getCond() != nullptr ? loop->getCond()->IgnoreParenImpCasts() : nullptr);
    if (!steps_by_one || cond == nullptr || !isIndex(cond->getLHS())) return;
    std::optional<std::int64_t> start = constantInteger(var->getInit());
    std::optional<std::int64_t> stop = constantInteger(cond->getRHS());
    if (!start || !stop) return;
    std::int64_t trips = 0;
    switch (cond->getOpcode()) {
      case clang::BO_LT:
      case clang::BO_NE:
        trips = *stop - *start;
        break;
      case clang::BO_LE:
        trips = *stop - *start + 1;
        break;
      default:
        return;
    }
    if (trips < 0 || trips > std::numeric_limits<std::int32_t>::max()) return;
    RawItem& item = addItem(ItemRole::kEvent, EventKind::kLoop, loop->getCond(), "for");
    item.event.trips = static_cast<std::int32_t>(trips);
    item.event.target = var->getNameAsString();
  }

  bool evaluatesToConstant(const clang::Expr* expr) const {
    return !expr->isValueDependent() && !expr->isTypeDependent() && !expr->containsErrors() &&
           expr->isEvaluatable(context_);
  }

  // A pointer to a struct the program never sees (cudaStream_t, cudaEvent_t, cublasHandle_t):
  // a handle to a runtime object, not memory the work reads.
  static bool isOpaqueHandle(clang::QualType type) {
    if (!type->isPointerType()) return false;
    clang::QualType pointee = type->getPointeeType();
    return pointee->isStructureOrClassType() && pointee->isIncompleteType();
  }

  // What a kernel or call argument is: a device pointer or tensor, a host constant, a
  // parameter of this function, or a host value read from variables (decided later).
  ArgFacts classifyValue(const clang::Expr* expr, int depth) const {
    ArgFacts facts;
    if (expr == nullptr) return facts;
    if (depth == 0) facts.value.text = textOf(expr);
    const clang::Expr* e = expr->IgnoreParenImpCasts();
    if (isa<clang::StringLiteral, clang::IntegerLiteral, clang::FloatingLiteral,
            clang::CXXBoolLiteralExpr, clang::CharacterLiteral, clang::CXXNullPtrLiteralExpr>(e)) {
      constant(facts, ValueOrigin::kLiteral);
      return facts;
    }
    clang::QualType type = e->getType();
    if (!e->isTypeDependent() && !type.isNull() && isOpaqueHandle(type)) return facts;
    if (!e->isTypeDependent() && !type.isNull() &&
        (type->isPointerType() || type->isArrayType() || isTensorLike(type))) {
      facts.value.kind = ValueKind::kTensor;
      facts.value.origin = ValueOrigin::kTensorExpr;
      return facts;
    }
    if (depth > kMaxDepth) return facts;
    if (const auto* ref = dyn_cast<clang::DeclRefExpr>(e)) {
      if (isa<clang::EnumConstantDecl>(ref->getDecl())) {
        constant(facts, ValueOrigin::kModuleConstant);
        return facts;
      }
      const auto* var = dyn_cast<clang::VarDecl>(ref->getDecl());
      if (var == nullptr) return facts;
      clang::QualType var_type = var->getType();
      if (var->isConstexpr() || (var_type.isConstQualified() && !var_type->isReferenceType() &&
                                 var->hasInit() && evaluatesToConstant(var->getInit()))) {
        constant(facts, ValueOrigin::kModuleConstant);
        return facts;
      }
      if (const auto* param = dyn_cast<clang::ParmVarDecl>(var)) {
        if (param->getDeclContext() == current_decl_) {
          facts.value.param_deps = paramBit(param->getFunctionScopeIndex());
        }
      }
      facts.vars.push_back({pointerId(var->getCanonicalDecl()), loopOf(var)});
      return facts;
    }
    if (const auto* member = dyn_cast<clang::MemberExpr>(e)) {
      if (isa<clang::CXXThisExpr>(member->getBase()->IgnoreParenImpCasts())) {
        facts.vars.push_back({pointerId(member->getMemberDecl()->getCanonicalDecl()), -1});
      }
      return facts;
    }
    if (evaluatesToConstant(e)) {
      constant(facts, ValueOrigin::kLiteral);
      return facts;
    }
    llvm::SmallVector<const clang::Expr*, 3> parts;
    if (const auto* binary = dyn_cast<clang::BinaryOperator>(e)) {
      if (!binary->isAssignmentOp()) parts = {binary->getLHS(), binary->getRHS()};
    } else if (const auto* unary = dyn_cast<clang::UnaryOperator>(e)) {
      if (!unary->isIncrementDecrementOp()) parts = {unary->getSubExpr()};
    } else if (const auto* conditional = dyn_cast<clang::ConditionalOperator>(e)) {
      parts = {conditional->getCond(), conditional->getTrueExpr(), conditional->getFalseExpr()};
    } else if (const auto* cast = dyn_cast<clang::CastExpr>(e)) {
      parts = {cast->getSubExpr()};
    }
    if (parts.empty()) return facts;
    bool all_constant = true;
    for (const clang::Expr* part : parts) {
      ArgFacts inner = classifyValue(part, depth + 1);
      all_constant = all_constant && inner.value.kind == ValueKind::kHostConstant;
      facts.value.param_deps |= inner.value.param_deps;
      facts.vars.insert(facts.vars.end(), inner.vars.begin(), inner.vars.end());
    }
    if (all_constant) constant(facts, ValueOrigin::kLiteral);
    return facts;
  }

  // Every host variable (local, parameter, member of this object) an expression reads, calls'
  // arguments included: what a value assigned from it may vary with. Bounded, as all walks here.
  std::vector<VarUse> sourcesOf(const clang::Expr* expr) const {
    std::vector<VarUse> sources;
    llvm::SmallVector<const clang::Stmt*, 16> pending;
    if (expr != nullptr) pending.push_back(expr);
    for (int visited = 0; !pending.empty() && visited < kMaxWalk; ++visited) {
      const clang::Stmt* stmt = pending.pop_back_val();
      if (const auto* ref = dyn_cast<clang::DeclRefExpr>(stmt)) {
        if (const auto* var = dyn_cast<clang::VarDecl>(ref->getDecl())) {
          sources.push_back({pointerId(var->getCanonicalDecl()), loopOf(var)});
        }
      } else if (const auto* member = dyn_cast<clang::MemberExpr>(stmt);
                 member != nullptr &&
                 isa<clang::CXXThisExpr>(member->getBase()->IgnoreParenImpCasts())) {
        sources.push_back({pointerId(member->getMemberDecl()->getCanonicalDecl()), -1});
      }
      for (const clang::Stmt* child : stmt->children()) {
        if (child != nullptr) pending.push_back(child);
      }
    }
    return sources;
  }

  template <class Args>
  void setArguments(RawItem& item, const Args& args) {
    for (const clang::Expr* arg : args) {
      if (isa<clang::CXXDefaultArgExpr>(arg)) continue;
      ArgFacts facts = classifyValue(arg, 0);
      item.event.args.push_back(std::move(facts.value));
      item.arg_vars.push_back(std::move(facts.vars));
      const clang::Expr* named = strip(arg);
      if (const clang::Expr* owner = storageOwner(named)) {
        item.arg_paths.push_back(textOf(owner));
        continue;
      }
      item.arg_paths.push_back(isa<clang::DeclRefExpr, clang::MemberExpr>(named) ? textOf(named)
                                                                                 : std::string());
    }
  }

  // ---- streams -----------------------------------------------------------------------------

  StreamKind zeroStream() const {
    return options_.per_thread_default_stream ? StreamKind::kPerThreadDefault
                                              : StreamKind::kLegacyDefault;
  }

  std::string memberKey(const clang::MemberExpr* member) const {
    std::string key = pointerKey('m', member->getMemberDecl()->getCanonicalDecl());
    const clang::Expr* base = member->getBase()->IgnoreParenImpCasts();
    if (!isa<clang::CXXThisExpr>(base)) key += ":" + textOf(base);
    return key;
  }

  // Identity of the object an expression names (an event, a handle, a buffer).
  std::string objectKey(const clang::Expr* expr) const {
    const clang::Expr* object = pointee(expr);
    if (object == nullptr) return "";
    if (std::string key = elementKey(object); !key.empty()) return key;
    if (const auto* ref = dyn_cast<clang::DeclRefExpr>(object)) {
      return pointerKey('v', ref->getDecl()->getCanonicalDecl());
    }
    if (const auto* member = dyn_cast<clang::MemberExpr>(object)) return memberKey(member);
    return "t:" + textOf(object);
  }

  // The array or container an element expression indexes (`streams[i]`, `events_[k]`, a
  // std::vector's operator[]), or null. Its elements share one identity: a fork of any element
  // and a join of any element pair up whatever the index is called in each loop.
  static const clang::Expr* indexedBase(const clang::Expr* expr) {
    expr = strip(expr);
    if (const auto* subscript = dyn_cast<clang::ArraySubscriptExpr>(expr)) {
      return strip(subscript->getBase());
    }
    if (const auto* op = dyn_cast<clang::CXXOperatorCallExpr>(expr);
        op != nullptr && op->getOperator() == clang::OO_Subscript && op->getNumArgs() == 2) {
      return strip(op->getArg(0));
    }
    return nullptr;
  }

  // The identity of an element of a variable or member array, or "".
  std::string elementKey(const clang::Expr* expr) const {
    const clang::Expr* base = indexedBase(expr);
    if (base == nullptr) return "";
    if (const auto* ref = dyn_cast<clang::DeclRefExpr>(base)) {
      return pointerKey('v', ref->getDecl()->getCanonicalDecl()) + "[]";
    }
    if (const auto* member = dyn_cast<clang::MemberExpr>(base)) return memberKey(member) + "[]";
    return "";
  }

  std::string objectName(const clang::Expr* expr) const { return textOf(pointee(expr)); }

  // The variable or member an expression names, through `&`, `*` and casts: "graph" for
  // `*graph`, `&graph` or `(void**)&graph`.
  std::string pathOf(const clang::Expr* expr) const {
    for (int i = 0; expr != nullptr && i < kMaxDepth; ++i) {
      expr = strip(expr);
      const auto* unary = dyn_cast<clang::UnaryOperator>(expr);
      if (unary == nullptr ||
          (unary->getOpcode() != clang::UO_AddrOf && unary->getOpcode() != clang::UO_Deref)) {
        break;
      }
      expr = unary->getSubExpr();
    }
    return expr != nullptr ? textOf(expr) : std::string();
  }

  StreamRef classifyStream(const clang::Expr* expr, int depth) const {
    StreamRef ref;
    ref.kind = StreamKind::kOther;
    if (expr == nullptr || isa<clang::CXXDefaultArgExpr>(expr)) {
      ref.kind =
          options_.per_thread_default_stream ? StreamKind::kPerThreadDefault : StreamKind::kMissing;
      return ref;
    }
    ref.name = textOf(expr);
    if (ref.name == "cudaStreamLegacy" || ref.name == "CU_STREAM_LEGACY") {
      ref.kind = StreamKind::kLegacyDefault;
      return ref;
    }
    if (ref.name == "cudaStreamPerThread" || ref.name == "CU_STREAM_PER_THREAD") {
      ref.kind = StreamKind::kPerThreadDefault;
      return ref;
    }
    if (depth > 8) return ref;
    const clang::Expr* e = strip(expr);
    if (!e->isValueDependent() && !e->containsErrors() &&
        e->isNullPointerConstant(context_, clang::Expr::NPC_ValueDependentIsNotNull) !=
            clang::Expr::NPCK_NotNull) {
      ref.kind = zeroStream();
      return ref;
    }
    if (const auto* member_call = dyn_cast<clang::CXXMemberCallExpr>(e)) {
      const clang::CXXMethodDecl* method = member_call->getMethodDecl();
      if (method != nullptr &&
          (isa<clang::CXXConversionDecl>(method) || method->getNameAsString() == "stream")) {
        StreamRef inner = classifyStream(member_call->getImplicitObjectArgument(), depth + 1);
        inner.name = ref.name;
        return inner;
      }
    }
    if (const auto* call = dyn_cast<clang::CallExpr>(e)) {
      std::string name = calleeOf(call).name;
      if (isTorchCurrentStream(name)) {
        ref.kind = StreamKind::kTorchCurrent;
      } else if (isTorchDefaultStream(name)) {
        ref.kind = StreamKind::kTorchDefault;
      } else if (isTorchNewStream(name)) {
        ref.kind = StreamKind::kCreated;
        ref.key = "pool@" + std::to_string(rangeOf(call->getSourceRange()).begin);
      }
      return ref;
    }
    if (const auto* ref_expr = dyn_cast<clang::DeclRefExpr>(e)) {
      const auto* var = dyn_cast<clang::VarDecl>(ref_expr->getDecl());
      if (var == nullptr) return ref;
      const clang::VarDecl* canonical = var->getCanonicalDecl();
      auto alias = aliases_.find(canonical);
      if (alias != aliases_.end()) {
        StreamRef aliased = alias->second;
        aliased.name = ref.name;
        if (aliased.key.empty() && aliased.kind == StreamKind::kCreated) {
          aliased.key = pointerKey('v', canonical);
        }
        return aliased;
      }
      ref.key = pointerKey('v', canonical);
      ref.kind = created_locals_.count(canonical) != 0 ? StreamKind::kCreated : StreamKind::kNamed;
      if (const auto* param = dyn_cast<clang::ParmVarDecl>(canonical);
          param != nullptr && param->getDeclContext() == current_decl_) {
        ref.param = static_cast<std::int32_t>(param->getFunctionScopeIndex());
      }
      return ref;
    }
    if (const auto* member = dyn_cast<clang::MemberExpr>(e)) {
      ref.key = memberKey(member);
      ref.kind = StreamKind::kNamed;
      return ref;
    }
    // An element of a stream array: named by the array (`streams[]`), so that the fork and the
    // join of the elements match whatever the loops call their index.
    if (std::string key = elementKey(e); !key.empty()) {
      ref.key = std::move(key);
      ref.kind = StreamKind::kNamed;
      ref.name = textOf(indexedBase(e)) + "[]";
      return ref;
    }
    return ref;
  }

  StreamRef streamArgument(const clang::CallExpr* call, int index, const Callee& callee) const {
    StreamRef ref;
    if (index < 0) return ref;
    if (static_cast<unsigned>(index) >= call->getNumArgs() ||
        isa<clang::CXXDefaultArgExpr>(call->getArg(static_cast<unsigned>(index)))) {
      ref.kind = options_.per_thread_default_stream || isPerThreadVariant(callee.name)
                     ? StreamKind::kPerThreadDefault
                     : StreamKind::kMissing;
      return ref;
    }
    ref = classifyStream(call->getArg(static_cast<unsigned>(index)), 0);
    if (ref.kind == StreamKind::kLegacyDefault && isPerThreadVariant(callee.name) &&
        ref.name != "cudaStreamLegacy" && ref.name != "CU_STREAM_LEGACY") {
      ref.kind = StreamKind::kPerThreadDefault;
    }
    return ref;
  }

  static std::string streamIdentity(const StreamRef& stream) {
    if (!stream.key.empty()) return stream.key;
    return std::to_string(static_cast<int>(stream.kind)) + ":" + stream.name;
  }

  // ---- launches and calls ------------------------------------------------------------------

  void lowerLaunch(const clang::CUDAKernelCallExpr* launch) {
    Callee kernel = calleeOfExpr(launch->getCallee());
    RawItem& item = addItem(ItemRole::kWork, EventKind::kTensorOp, launch,
                            kernel.name.empty() ? std::string("kernel") : kernel.name);
    const auto* config = dyn_cast_or_null<clang::CallExpr>(launch->getConfig());
    const clang::Expr* stream = nullptr;
    if (config != nullptr && config->getNumArgs() >= 4) stream = config->getArg(3);
    item.stream = classifyStream(stream, 0);
    if (item.stream.kind == StreamKind::kLegacyDefault && options_.per_thread_default_stream) {
      item.stream.kind = StreamKind::kPerThreadDefault;
    }
    setArguments(item, launch->arguments());
  }

  bool isUserFunction(const clang::FunctionDecl* decl) const {
    if (decl == nullptr || decl->getBuiltinID() != 0) return false;
    clang::SourceLocation location = sources_.getExpansionLoc(decl->getLocation());
    if (location.isInvalid() || sources_.isInSystemHeader(location)) return false;
    llvm::StringRef file = sources_.getFilename(location);
    if (file.starts_with("/__graphsafe__/")) return false;
    return !inLibraryNamespace(decl) || inAnalyzedRepository(file.str());
  }

  // A library's namespace declared in the analyzed file's own repository is that repository's
  // code (CUTLASS's profiler is `cutlass::profiler`); a copy of the library in another
  // repository (a submodule, whose directory holds a .git of its own) or outside it is not.
  bool inAnalyzedRepository(const std::string& file) const {
    std::filesystem::path directory = std::filesystem::path(file).lexically_normal().parent_path();
    auto [memo, inserted] = repository_memo_.try_emplace(directory.string(), false);
    if (!inserted) return memo->second;
    if (!isUnder(file, tree_)) return false;
    for (std::filesystem::path dir = directory; dir != tree_ && isUnder(dir.string(), tree_);
         dir = dir.parent_path()) {
      std::error_code error;
      if (std::filesystem::exists(dir / ".git", error)) return false;
    }
    memo->second = true;
    return true;
  }

  // ---- calls through what holds a function -----------------------------------------------

  Callable callableOf(const clang::FunctionDecl* function) const {
    return {functionKey(function), functionName(patternOf(function), sources_), ""};
  }

  // The functions in the class of a type's template arguments: TORCH_FN(f) is a
  // `CompileTimeFunctionPointer<..., f>`.
  void templateArgumentFunctions(clang::QualType type, std::vector<Callable>& out) const {
    const auto* specialization =
        dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(type->getAsCXXRecordDecl());
    if (specialization == nullptr) return;
    for (const clang::TemplateArgument& argument : specialization->getTemplateArgs().asArray()) {
      if (argument.getKind() != clang::TemplateArgument::Declaration) continue;
      const auto* function = dyn_cast<clang::FunctionDecl>(argument.getAsDecl());
      if (function != nullptr && isUserFunction(function)) out.push_back(callableOf(function));
    }
  }

  // The functions of the program an expression that holds a function may hold: `f`, `&f`,
  // `Class::method`, a lambda, a local holding one, either side of a conditional, a
  // std::function or a braced list built from them.
  void callablesOf(const clang::Expr* expr, std::vector<Callable>& out, int depth = 0) const {
    if (expr == nullptr || depth > kMaxDepth) return;
    const clang::Expr* e = strip(expr);
    if (const auto* unary = dyn_cast<clang::UnaryOperator>(e);
        unary != nullptr && unary->getOpcode() == clang::UO_AddrOf) {
      callablesOf(unary->getSubExpr(), out, depth + 1);
    } else if (const auto* lambda = dyn_cast<clang::LambdaExpr>(e)) {
      if (!isDeviceOnly(lambda->getCallOperator())) {
        out.push_back(callableOf(lambda->getCallOperator()));
      }
    } else if (const auto* ref = dyn_cast<clang::DeclRefExpr>(e)) {
      if (const auto* function = dyn_cast<clang::FunctionDecl>(ref->getDecl())) {
        if (isUserFunction(function)) out.push_back(callableOf(function));
      } else if (const auto* param = dyn_cast<clang::ParmVarDecl>(ref->getDecl());
                 param != nullptr && param->getDeclContext() == current_decl_ &&
                 (holdsCallable(param->getType()) || mayHoldCallable(param->getType()))) {
        // The caller's own callable parameter, handed on: what its callers pass.
        const std::string caller = functionName(patternOf(current_decl_), sources_);
        out.push_back({"", parameterHolder(caller, param->getFunctionScopeIndex()),
                       "parameter `" + param->getNameAsString() + "` of `" + caller + "`"});
      } else if (const auto* var = dyn_cast<clang::VarDecl>(ref->getDecl())) {
        auto it = local_callables_.find(var->getCanonicalDecl());
        if (it != local_callables_.end())
          out.insert(out.end(), it->second.begin(), it->second.end());
      }
    } else if (const auto* lookup = dyn_cast<clang::UnresolvedLookupExpr>(e)) {
      const clang::FunctionDecl* function = onlyCandidate(lookup);
      if (function != nullptr && isUserFunction(function)) out.push_back(callableOf(function));
    } else if (const auto* conditional = dyn_cast<clang::ConditionalOperator>(e)) {
      callablesOf(conditional->getTrueExpr(), out, depth + 1);
      callablesOf(conditional->getFalseExpr(), out, depth + 1);
    } else if (const auto* construct = dyn_cast<clang::CXXConstructExpr>(e)) {
      for (const clang::Expr* argument : construct->arguments()) {
        callablesOf(argument, out, depth + 1);
      }
      templateArgumentFunctions(construct->getType(), out);
    } else if (const auto* list = dyn_cast<clang::InitListExpr>(e)) {
      for (const clang::Expr* init : list->inits()) callablesOf(init, out, depth + 1);
    }
  }

  // `holder = value` (or its initialization), where the holder keeps a function: a local
  // remembers what it holds; a member, a global or a static is named for the program index.
  void noteCallableStore(const clang::Expr* holder, const clang::VarDecl* declared,
                         const clang::Expr* value) {
    std::vector<Callable> stored;
    callablesOf(value, stored);
    if (stored.empty()) return;
    const clang::ValueDecl* target = declared;
    if (target == nullptr && holder != nullptr) {
      const clang::Expr* named = strip(holder);
      if (const clang::Expr* base = indexedBase(named)) named = base;
      if (const auto* ref = dyn_cast<clang::DeclRefExpr>(named)) target = ref->getDecl();
      if (const auto* member = dyn_cast<clang::MemberExpr>(named)) target = member->getMemberDecl();
    }
    if (target == nullptr) return;
    const auto* var = dyn_cast<clang::VarDecl>(target);
    if (var != nullptr && var->hasLocalStorage()) {
      auto& held = local_callables_[var->getCanonicalDecl()];
      for (Callable& callable : stored) {
        const bool known = std::any_of(held.begin(), held.end(),
                                       [&](const Callable& c) { return c.key == callable.key; });
        if (!known) held.push_back(std::move(callable));
      }
      return;
    }
    if (!isa<clang::VarDecl, clang::FieldDecl>(target)) return;
    for (const Callable& callable : stored) {
      unit_.cpp_aliases.emplace(qualifiedName(target), callable.name);
    }
  }

  // `Coll c = {"name", prepare, run};`: the fields of a braced initialization that keep a
  // function (also at namespace scope: a table of function pointers).
  void noteCallableFields(const clang::InitListExpr* list) {
    const clang::InitListExpr* semantic = list->isSemanticForm() ? list : list->getSemanticForm();
    if (semantic == nullptr || semantic->getType().isNull()) return;
    const auto* record = semantic->getType()->getAsRecordDecl();
    if (record == nullptr || record->isUnion()) return;
    unsigned i = 0;
    if (const auto* cxx = dyn_cast<clang::CXXRecordDecl>(record);
        cxx != nullptr && cxx->hasDefinition()) {
      i = cxx->getNumBases();
    }
    for (const clang::FieldDecl* field : record->fields()) {
      if (i >= semantic->getNumInits()) break;
      const clang::Expr* init = semantic->getInit(i++);
      if (!holdsCallable(field->getType())) continue;
      std::vector<Callable> stored;
      callablesOf(init, stored);
      for (const Callable& callable : stored) {
        unit_.cpp_aliases.emplace(qualifiedName(field), callable.name);
      }
    }
  }

  // A call as the lowering sees it: where it is, what it calls through, and its arguments (a
  // CallExpr's, or what Clang kept of a call it could not type: a RecoveryExpr's).
  struct CallSite {
    const clang::Expr* at = nullptr;
    const clang::Expr* callee = nullptr;
    std::vector<const clang::Expr*> args;
  };

  static CallSite siteOf(const clang::CallExpr* call) {
    CallSite site;
    site.at = call;
    site.callee = call->getCallee();
    for (const clang::Expr* argument : call->arguments()) site.args.push_back(argument);
    return site;
  }

  // A call the lowering resolved to one function of the unit (a lambda a local holds).
  void lowerCallOf(const CallSite& call, const Callable& callable, bool functor) {
    RawItem& item = addItem(ItemRole::kEvent, EventKind::kCall, call.at, callable.name);
    item.callee_key = callable.key;
    item.functor = functor;
    item.event.callee_qualified = callable.name;
    if (callable.key.empty()) {
      item.event.flags |= kFlagIndirectCall;
      item.event.target = callable.what;
    }
    setArguments(item, call.args);
  }

  // A call through something that holds a function: `holder` names it for the program index
  // (what the program stores into it is what the call reaches; "" when nothing names it), and
  // `what` describes it for the calls not followed.
  void lowerIndirectCall(const CallSite& call, std::string holder, std::string what, bool functor) {
    RawItem& item = addItem(ItemRole::kEvent, EventKind::kCall, call.at,
                            holder.empty() ? textOf(call.callee) : holder);
    item.functor = functor;
    item.event.callee_qualified = std::move(holder);
    item.event.flags |= kFlagIndirectCall;
    item.event.target = std::move(what);
    setArguments(item, call.args);
  }

  // A call of the value `holder` holds (`fp(x)`, `(*fp)(x)`, `table[i](x)`, `args->run(x)`,
  // `callback(x)` on a std::function): what the unit knows it holds, or a call the program
  // index follows by the holder's name. False when `holder` names no such value.
  bool lowerThroughHolder(const CallSite& call, const clang::Expr* holder, bool functor) {
    const clang::Expr* named = strip(holder);
    for (int i = 0; i < kMaxDepth; ++i) {
      const auto* unary = dyn_cast<clang::UnaryOperator>(named);
      if (unary == nullptr || unary->getOpcode() != clang::UO_Deref) break;
      named = strip(unary->getSubExpr());
    }
    if (const clang::Expr* base = indexedBase(named)) named = base;
    if (const auto* ref = dyn_cast<clang::DeclRefExpr>(named)) {
      const auto* var = dyn_cast<clang::VarDecl>(ref->getDecl());
      if (var == nullptr) return false;
      if (const auto* param = dyn_cast<clang::ParmVarDecl>(var)) {
        if (param->getDeclContext() != current_decl_) return false;
        const std::string function = functionName(patternOf(current_decl_), sources_);
        lowerIndirectCall(call, parameterHolder(function, param->getFunctionScopeIndex()),
                          "parameter `" + param->getNameAsString() + "` of `" + function + "`",
                          functor);
        return true;
      }
      if (var->hasLocalStorage()) {
        auto it = local_callables_.find(var->getCanonicalDecl());
        if (it != local_callables_.end() && !it->second.empty()) {
          for (const Callable& callable : it->second) lowerCallOf(call, callable, functor);
        } else {
          lowerIndirectCall(call, "",
                            "the local `" + var->getNameAsString() +
                                "`, whose function is not known where it is called",
                            functor);
        }
        return true;
      }
      lowerIndirectCall(call, qualifiedName(var), "`" + qualifiedName(var) + "`", functor);
      return true;
    }
    if (const auto* member = dyn_cast<clang::MemberExpr>(named)) {
      if (!isa<clang::FieldDecl>(member->getMemberDecl())) return false;
      const std::string field = qualifiedName(member->getMemberDecl());
      lowerIndirectCall(call, field, "the member `" + field + "`", functor);
      return true;
    }
    return false;
  }

  // A call whose callee is not a function Clang names: through a variable, member or parameter
  // that holds one; else the result of another call (`factory()(x)`).
  bool lowerCallThroughHolder(const clang::CallExpr* call) {
    const clang::Expr* callee = call->getCallee();
    if (callee == nullptr) return false;
    const clang::Expr* bare = callee->IgnoreParenImpCasts();
    if (isa<clang::UnresolvedLookupExpr, clang::UnresolvedMemberExpr,
            clang::CXXDependentScopeMemberExpr, clang::DependentScopeDeclRefExpr,
            clang::CXXPseudoDestructorExpr>(bare)) {
      return false;  // a template's call: decided by its instantiations (lowerCall)
    }
    if (lowerThroughHolder(siteOf(call), callee, false)) return true;
    if (isa<clang::CallExpr>(strip(bare))) {
      lowerIndirectCall(siteOf(call), "", "the function `" + textOf(bare) + "` returns", false);
      return true;
    }
    return false;
  }

  // `callable(args)` on an object: a lambda or the project's own functor is a call of its
  // operator(); a std::function (or another library class) calls what it holds. `holder = f`
  // on a std::function stores f; `graphs[key]` on a map of executable graphs keys a cache.
  void lowerOperatorCall(const clang::CXXOperatorCallExpr* call) {
    const clang::OverloadedOperatorKind op = call->getOperator();
    if (op == clang::OO_Equal && call->getNumArgs() == 2 &&
        holdsCallable(call->getArg(0)->getType())) {
      noteCallableStore(call->getArg(0), nullptr, call->getArg(1));
      return;
    }
    if (op == clang::OO_Subscript && call->getNumArgs() == 2 &&
        isGraphMap(call->getArg(0)->getType())) {
      noteCacheKey(call->getArg(1));
      return;
    }
    if (op != clang::OO_Call || call->getNumArgs() == 0) return;
    const clang::FunctionDecl* callee = call->getDirectCallee();
    if (callee != nullptr && isUserFunction(callee)) {
      Callee named;
      named.decl = callee;
      named.name = callee->getNameAsString();
      named.qualified = functionName(patternOf(callee), sources_);
      lowerUserCall(call, named);
      return;
    }
    lowerThroughHolder(siteOf(call), call->getArg(0), true);
  }

  // A function handed to a library call that calls it here (std::for_each, at::parallel_for,
  // std::call_once): a call of it at the argument.
  void noteCallablesRun(const clang::CallExpr* call, const Callee& callee) {
    // What only hands its argument on (std::forward<Args>(args), std::move(fn)) calls nothing.
    if (callee.name == "forward" || callee.name == "move" || callee.name == "ref" ||
        callee.name == "cref" || callee.name == "addressof" || callee.name == "as_const" ||
        callee.name == "move_if_noexcept") {
      return;
    }
    // A CUDA API call's arguments are data for the GPU (cudaLaunchKernelEx's kernel arguments),
    // except the host function a stream runs.
    const std::string_view name = callee.name;
    const bool cuda_api = name.starts_with("cuda") ||
                          (name.size() > 2 && name.starts_with("cu") &&
                           std::isupper(static_cast<unsigned char>(name[2])) != 0);
    if (cuda_api && name.find("HostFunc") == std::string_view::npos) return;
    for (const clang::Expr* argument : call->arguments()) {
      std::vector<Callable> run;
      callablesOf(argument, run);
      for (const Callable& callable : run) {
        RawItem& item = addItem(ItemRole::kEvent, EventKind::kCall, argument, callable.name);
        item.callee_key = callable.key;
        item.event.callee_qualified = callable.name;
        if (callable.key.empty()) {
          item.event.flags |= kFlagIndirectCall;
          item.event.target = callable.what;
        }
      }
    }
  }

  // Functions passed to a function of the project: stored into its parameters, for the calls it
  // makes through them (FileModel::cpp_aliases).
  void noteCallableArguments(const clang::CallExpr* call, const Callee& callee) {
    const clang::FunctionDecl* pattern = patternOf(callee.decl);
    if (pattern == nullptr) return;
    const std::string function = functionName(pattern, sources_);
    const unsigned skip = isa<clang::CXXOperatorCallExpr>(call) ? 1 : 0;
    for (unsigned i = 0; i + skip < call->getNumArgs(); ++i) {
      std::vector<Callable> passed;
      callablesOf(call->getArg(i + skip), passed);
      for (const Callable& callable : passed) {
        unit_.cpp_aliases.emplace(parameterHolder(function, i), callable.name);
      }
    }
  }

  // A call in a template that names no function until instantiated (`gemm.run(stream)` on a
  // `Gemm` parameter): the functions of the project it resolves to in the unit's
  // instantiations; when it resolves to none, a call not followed.
  bool lowerThroughInstantiations(const clang::CallExpr* call, const Callee& callee) {
    if (callee.decl != nullptr || current_decl_ == nullptr ||
        !current_decl_->isDependentContext()) {
      return false;
    }
    const clang::FunctionDecl* pattern = patternOf(current_decl_);
    bool followed = false;
    bool library = false;
    for (const TemplateInstantiations::Resolved& resolved :
         instantiations_.calleesOf(pattern, call)) {
      if (resolved.name != callee.name && resolved.name != "operator()") continue;
      if (!isUserFunction(resolved.callee)) {
        library = true;
        continue;
      }
      Callee named;
      named.decl = resolved.callee;
      named.name = resolved.name;
      named.qualified = functionName(patternOf(resolved.callee), sources_);
      lowerUserCall(call, named);
      followed = true;
    }
    if (followed || library) return true;
    const std::string text = textOf(call->getCallee());
    lowerIndirectCall(siteOf(call), "",
                      "`" + text + "`, which depends on a template parameter: " +
                          (instantiations_.instantiated(pattern)
                               ? std::string("no instantiation in this unit resolves it")
                               : std::string("this unit does not instantiate the template")),
                      false);
    return true;
  }

  // The key of a lookup in a map of executable graphs: a variable it reads keys a graph of its
  // own (RawFunction::cache_keys).
  void noteCacheKey(const clang::Expr* key) {
    for (const VarUse& use : sourcesOf(key)) function_->cache_keys.push_back(use.var);
  }

  // `static cublasHandle_t handle = [] { cublasHandle_t h; cublasCreate(&h); return h; }();`
  // (or a helper of the unit that does the same): the variable holds a created handle.
  void noteHandleFromCall(const clang::VarDecl* var) {
    if (!isOpaqueHandle(var->getType())) return;
    const auto* call = dyn_cast_or_null<clang::CallExpr>(strip(var->getInit()));
    const clang::FunctionDecl* callee = call != nullptr ? call->getDirectCallee() : nullptr;
    const clang::FunctionDecl* definition = callee != nullptr ? callee->getDefinition() : nullptr;
    if (definition == nullptr || !definition->hasBody() || !isUserFunction(definition)) return;
    auto [memo, first] = returns_created_handle_.try_emplace(definition, false);
    if (first) memo->second = returnsCreatedHandle(definition);
    if (!memo->second) return;
    RawItem& item =
        addItem(ItemRole::kHandleCreate, EventKind::kCall, var->getInit(), calleeOf(call).name);
    item.key = pointerKey('v', var->getCanonicalDecl());
  }

  // Does the function return a local it created a library handle into?
  bool returnsCreatedHandle(const clang::FunctionDecl* definition) const {
    std::set<const clang::Decl*> created;
    const clang::Decl* returned = nullptr;
    llvm::SmallVector<const clang::Stmt*, 32> pending{definition->getBody()};
    for (std::size_t visited = 0; !pending.empty() && visited < kMaxSignatureNodes; ++visited) {
      const clang::Stmt* statement = pending.pop_back_val();
      if (statement == nullptr) continue;
      for (const clang::Stmt* child : statement->children()) pending.push_back(child);
      if (const auto* ret = dyn_cast<clang::ReturnStmt>(statement)) {
        if (const auto* ref = dyn_cast_or_null<clang::DeclRefExpr>(
                ret->getRetValue() != nullptr ? strip(ret->getRetValue()) : nullptr)) {
          returned = ref->getDecl()->getCanonicalDecl();
        }
        continue;
      }
      const auto* inner = dyn_cast<clang::CallExpr>(statement);
      if (inner == nullptr) continue;
      const ApiInfo* api = findCudaApi(calleeOf(inner).name);
      if (api == nullptr || api->role != ApiRole::kHandleCreate) continue;
      if (const auto* ref =
              dyn_cast_or_null<clang::DeclRefExpr>(pointee(argument(inner, api->out_arg)))) {
        created.insert(ref->getDecl()->getCanonicalDecl());
      }
    }
    return returned != nullptr && created.count(returned) != 0;
  }

  void lowerUserCall(const clang::CallExpr* call, const Callee& callee) {
    RawItem& item = addItem(ItemRole::kEvent, EventKind::kCall, call, callee.qualified);
    item.callee_key = functionKey(callee.decl);
    item.functor = isa<clang::CXXOperatorCallExpr>(call);
    item.event.callee_qualified = callee.qualified;
    // Defined in a header of this unit: where, for the calls not followed when that header is
    // not among the analyzed files.
    if (const clang::FunctionDecl* definition =
            callee.decl != nullptr ? patternOf(callee.decl)->getDefinition() : nullptr;
        definition != nullptr && !inMainFile(definition->getLocation())) {
      const std::string where = whereIs(definition->getLocation());
      item.event.target = where.substr(0, where.rfind(':'));
    }
    setArguments(item, call->arguments());
    noteStreamArguments(item, call, callee);
    noteBufferArguments(item, call, callee);
    noteTemporaryStorage(call);
    noteCallableArguments(call, callee);
  }

  // The host buffers a call hands to the callee's pointer parameters: a pinned buffer passed to a
  // helper is pinned in the helper's body too (GS501 on `feed(staging)` where `feed` writes it).
  void noteBufferArguments(RawItem& item, const clang::CallExpr* call, const Callee& callee) {
    const clang::FunctionDecl* definition =
        callee.decl != nullptr ? callee.decl->getDefinition() : nullptr;
    if (definition == nullptr) return;
    const unsigned skip = isa<clang::CXXOperatorCallExpr>(call) ? 1 : 0;
    for (unsigned i = 0; i + skip < call->getNumArgs() && i < definition->getNumParams(); ++i) {
      const clang::ParmVarDecl* param = definition->getParamDecl(i);
      if (!param->getType()->isPointerType()) continue;
      std::string buffer = objectKey(bufferBase(call->getArg(i + skip)));
      if (buffer.empty()) continue;
      item.buffer_args.emplace_back(pointerKey('v', param->getCanonicalDecl()), std::move(buffer));
    }
  }

  // The streams a call hands to the callee's stream parameters, for following a stream into the
  // project's launchers (`launch(args, nullptr)`, a parameter left to its `= nullptr` default).
  void noteStreamArguments(RawItem& item, const clang::CallExpr* call, const Callee& callee) {
    const clang::FunctionDecl* decl = callee.decl;
    if (decl == nullptr) return;
    // `functor(args)`: the object is the call's first argument, not a parameter.
    const unsigned skip = isa<clang::CXXOperatorCallExpr>(call) ? 1 : 0;
    for (unsigned i = 0; i + skip < call->getNumArgs() && i < decl->getNumParams(); ++i) {
      const clang::ParmVarDecl* param = decl->getParamDecl(i);
      if (!isStreamType(param->getType())) continue;
      StreamArgument argument;
      argument.param = i;
      argument.param_name = param->getNameAsString();
      argument.stream = passedStream(call->getArg(i + skip));
      const clang::FunctionDecl* definition = decl->getDefinition();
      if (definition != nullptr && !inMainFile(definition->getLocation())) {
        argument.reaches = workOnParameter(definition, i, 0);
      }
      item.stream_args.push_back(std::move(argument));
    }
  }

  // Launchers calling launchers in headers: followed this many calls deep.
  static constexpr int kMaxLauncherDepth = 4;

  // Whether parameter `index` of `function` (defined in a header of this unit) is the stream of
  // device work in its body, directly or handed on to another such function: that work, in a
  // finding's words, or "".
  std::string workOnParameter(const clang::FunctionDecl* function, unsigned index,
                              int depth) const {
    if (depth > kMaxLauncherDepth || function == nullptr || !function->hasBody() ||
        index >= function->getNumParams()) {
      return "";
    }
    auto [memo, inserted] = launcher_memo_.try_emplace({function, index});
    if (!inserted) return memo->second;
    memo->second = findWorkOnParameter(function, index, depth);
    return memo->second;
  }

  std::string findWorkOnParameter(const clang::FunctionDecl* function, unsigned index,
                                  int depth) const {
    const clang::ParmVarDecl* param = function->getParamDecl(index);
    auto isParam = [&](const clang::Expr* expr) {
      const auto* ref =
          dyn_cast_or_null<clang::DeclRefExpr>(expr != nullptr ? strip(expr) : nullptr);
      return ref != nullptr && ref->getDecl()->getCanonicalDecl() == param->getCanonicalDecl();
    };
    llvm::SmallVector<const clang::Stmt*, 64> pending{function->getBody()};
    for (std::size_t visited = 0; !pending.empty() && visited < kMaxSignatureNodes; ++visited) {
      const clang::Stmt* statement = pending.pop_back_val();
      if (statement == nullptr) continue;
      for (const clang::Stmt* child : statement->children()) pending.push_back(child);
      if (const auto* launch = dyn_cast<clang::CUDAKernelCallExpr>(statement)) {
        const auto* config = dyn_cast_or_null<clang::CallExpr>(launch->getConfig());
        if (config != nullptr && config->getNumArgs() >= 4 && isParam(config->getArg(3))) {
          return streamRunsOnIt(calleeOfExpr(launch->getCallee()).name,
                                whereIs(launch->getBeginLoc()));
        }
        continue;
      }
      const auto* call = dyn_cast<clang::CallExpr>(statement);
      if (call == nullptr) continue;
      Callee callee = calleeOf(call);
      if (const ApiInfo* api = findCudaApi(callee.name);
          api != nullptr && !isUserFunction(callee.decl)) {
        if (api->stream_arg >= 0 && static_cast<unsigned>(api->stream_arg) < call->getNumArgs() &&
            isParam(call->getArg(static_cast<unsigned>(api->stream_arg)))) {
          return streamRunsOnIt(baseApiName(callee.name), whereIs(call->getBeginLoc()));
        }
        continue;
      }
      if (!isUserFunction(callee.decl) || callee.decl->getDefinition() == nullptr) continue;
      const unsigned skip = isa<clang::CXXOperatorCallExpr>(call) ? 1 : 0;
      for (unsigned j = 0; j + skip < call->getNumArgs(); ++j) {
        if (!isParam(call->getArg(j + skip))) continue;
        if (!workOnParameter(callee.decl->getDefinition(), j, depth + 1).empty()) {
          return streamHandedOnTo(callee.qualified, whereIs(call->getBeginLoc()));
        }
      }
    }
    return "";
  }

  // `include/decode.cuh:12`: a location in a header, relative to the working directory.
  std::string whereIs(clang::SourceLocation location) const {
    clang::PresumedLoc presumed = sources_.getPresumedLoc(sources_.getExpansionLoc(location));
    if (presumed.isInvalid()) return "?";
    std::error_code error;
    std::filesystem::path relative =
        std::filesystem::proximate(presumed.getFilename(), std::filesystem::current_path(), error);
    return (error ? std::string(presumed.getFilename()) : relative.string()) + ":" +
           std::to_string(presumed.getLine());
  }

  // A stream argument of a call of the project's own function: a parameter left out takes its
  // default (`cudaStream_t stream = nullptr`), which lives in the callee's declaration.
  StreamRef passedStream(const clang::Expr* argument) const {
    const auto* defaulted = dyn_cast<clang::CXXDefaultArgExpr>(argument);
    if (defaulted == nullptr) return classifyStream(argument, 0);
    const clang::Expr* value = defaulted->getExpr();
    StreamRef ref;
    ref.kind = StreamKind::kOther;
    if (value != nullptr && !value->isValueDependent() && !value->containsErrors() &&
        value->isNullPointerConstant(context_, clang::Expr::NPC_ValueDependentIsNotNull) !=
            clang::Expr::NPCK_NotNull) {
      ref.kind = zeroStream();
    } else if (const auto* call = dyn_cast_or_null<clang::CallExpr>(strip(value))) {
      std::string name = calleeOf(call).name;
      if (isTorchCurrentStream(name)) ref.kind = StreamKind::kTorchCurrent;
      if (isTorchDefaultStream(name)) ref.kind = StreamKind::kTorchDefault;
    }
    ref.defaulted = true;
    return ref;
  }

  // The CPU writing a buffer through a library call: memcpy(dst, ...), std::fill(dst, ...).
  void noteHostCopy(const clang::CallExpr* call, const Callee& callee) {
    int target = -1;
    if (callee.name == "memcpy" || callee.name == "memset" || callee.name == "memmove" ||
        callee.name == "fill" || callee.name == "fill_n") {
      target = 0;
    } else if (callee.name == "copy" || callee.name == "copy_n") {
      target = 2;
    }
    if (target < 0 || static_cast<unsigned>(target) >= call->getNumArgs()) return;
    const clang::Expr* buffer = call->getArg(static_cast<unsigned>(target));
    RawItem& item = addItem(ItemRole::kHostWrite, EventKind::kHostBufferWrite, call, callee.name);
    item.key = objectKey(bufferBase(buffer));
    item.event.subject.text = objectName(bufferBase(buffer));
    item.event.target = item.event.subject.text;
  }

  // `h + 4`, `&h[4]`, `h` -> `h`.
  static const clang::Expr* bufferBase(const clang::Expr* expr) {
    for (int i = 0; expr != nullptr && i < kMaxDepth; ++i) {
      expr = strip(expr);
      if (const auto* unary = dyn_cast<clang::UnaryOperator>(expr);
          unary != nullptr && unary->getOpcode() == clang::UO_AddrOf) {
        expr = unary->getSubExpr();
      } else if (const auto* subscript = dyn_cast<clang::ArraySubscriptExpr>(expr)) {
        expr = subscript->getBase();
      } else if (const auto* binary = dyn_cast<clang::BinaryOperator>(expr);
                 binary != nullptr && binary->isAdditiveOp()) {
        expr = binary->getLHS()->getType()->isPointerType() ? binary->getLHS() : binary->getRHS();
      } else {
        return expr;
      }
    }
    return expr;
  }

  // `extra-sync-apis` from the configuration: a qualified name, a plain name, or `.method`
  // for a method of any receiver.
  bool configuredSync(const Callee& callee, bool member) const {
    for (const std::string& entry : options_.extra_sync_apis) {
      if (entry.empty()) continue;
      if (entry.front() == '.') {
        if (member && entry.substr(1) == callee.name) return true;
      } else if (entry == callee.qualified || entry == callee.name) {
        return true;
      }
    }
    return false;
  }

  void lowerCall(const clang::CallExpr* call, const Callee& callee) {
    if (configuredSync(callee, isa<clang::CXXMemberCallExpr>(call))) {
      addEvent(EventKind::kHostSync, call, callee.qualified);
      return;
    }
    const ApiInfo* api = findCudaApi(callee.name);
    if (api != nullptr && !isUserFunction(callee.decl)) {
      lowerApiCall(call, callee, *api);
      return;
    }
    if (isLibraryWork(callee.name) && call->getNumArgs() > 0 && !isUserFunction(callee.decl)) {
      RawItem& item = addItem(ItemRole::kHandleUse, EventKind::kTensorOp, call,
                              std::string(baseApiName(callee.name)));
      item.key = objectKey(call->getArg(0));
      item.text = objectName(call->getArg(0));
      setArguments(item, call->arguments());
      return;
    }
    if (isTorchCaptureQuery(callee.name)) {
      addEvent(EventKind::kCaptureQuery, call, callee.qualified);
      return;
    }
    if (callee.name == "device_synchronize" && !isUserFunction(callee.decl)) {
      addEvent(EventKind::kHostSync, call, callee.qualified);
      return;
    }
    if (isUserFunction(callee.decl)) {
      lowerUserCall(call, callee);
      return;
    }
    if (lowerThroughInstantiations(call, callee)) return;
    noteCallablesRun(call, callee);
    noteHostCopy(call, callee);
  }

  void lowerRecoveredCall(const clang::RecoveryExpr* recovery, const Callee& callee) {
    const ApiInfo* api = findCudaApi(callee.name);
    if (api == nullptr) {
      if (isUserFunction(callee.decl)) {
        RawItem& item = addItem(ItemRole::kEvent, EventKind::kCall, recovery, callee.qualified);
        item.callee_key = functionKey(callee.decl);
        item.event.callee_qualified = callee.qualified;
      }
      return;
    }
    std::string name(baseApiName(callee.name));
    switch (api->role) {
      case ApiRole::kHostSync:
      case ApiRole::kAlloc:
      case ApiRole::kPinnedAlloc:
      case ApiRole::kFree:
        addEvent(EventKind::kHostSync, recovery, name);
        break;
      case ApiRole::kSyncCopy:
        addEvent(EventKind::kStreamUse, recovery, name);
        function_->items.back().event.text = syncCopyStream(callee.name);
        break;
      case ApiRole::kCaptureQuery:
        addEvent(EventKind::kCaptureQuery, recovery, name);
        break;
      case ApiRole::kCaptureBegin:
      case ApiRole::kCaptureEnd: {
        // An argument Clang could not type (a member of a class it did not parse): the capture
        // is still a capture, on the stream as written.
        auto args = recovery->subExpressions().drop_front();
        const bool begin = api->role == ApiRole::kCaptureBegin;
        RawItem& item = addItem(begin ? ItemRole::kCaptureBegin : ItemRole::kCaptureEnd,
                                EventKind::kCall, recovery, name);
        item.stream = classifyStream(args.empty() ? nullptr : args[0], 0);
        item.key = "stream:" + streamIdentity(item.stream);
        if (begin) {
          item.text = api->mode_arg >= 0 && static_cast<std::size_t>(api->mode_arg) < args.size()
                          ? captureMode(args[static_cast<std::size_t>(api->mode_arg)], context_)
                          : std::string("global");
        } else {
          item.text = args.size() > 1 ? pathOf(args[1]) : std::string();
        }
        break;
      }
      default:
        break;
    }
  }

  static std::string syncCopyStream(const std::string& name) {
    std::string base(baseApiName(name));
    if (isPerThreadVariant(name)) {
      return "the per-thread default stream (`" + base + "` is synchronous)";
    }
    return "the legacy default stream (`" + base + "` is synchronous)";
  }

  const clang::Expr* argument(const clang::CallExpr* call, int index) const {
    if (index < 0 || static_cast<unsigned>(index) >= call->getNumArgs()) return nullptr;
    const clang::Expr* arg = call->getArg(static_cast<unsigned>(index));
    return isa<clang::CXXDefaultArgExpr>(arg) ? nullptr : arg;
  }

  void noteBind(const clang::CallExpr* call, const clang::Expr* out, const std::string& api) {
    if (out == nullptr) return;
    RawItem& item = addItem(ItemRole::kEvent, EventKind::kBind, call, api);
    item.event.subject.kind = ValueKind::kTensor;
    item.event.subject.text = objectName(out);
    item.event.target = pathOf(out);
  }

  void lowerApiCall(const clang::CallExpr* call, const Callee& callee, const ApiInfo& api) {
    std::string name(baseApiName(callee.name));
    const clang::Expr* out = argument(call, api.out_arg);
    switch (api.role) {
      case ApiRole::kHostSync:
        addEvent(EventKind::kHostSync, call, name);
        break;
      case ApiRole::kAlloc:
      case ApiRole::kPinnedAlloc:
        addEvent(EventKind::kHostSync, call, name).event.flags |= kFlagRelaxedPermits;
        addEvent(EventKind::kAllocation, call, name);
        noteBind(call, out, name);
        if (api.role == ApiRole::kPinnedAlloc && out != nullptr) {
          RawItem& item = addItem(ItemRole::kPinnedAlloc, EventKind::kAllocation, call, name);
          item.key = objectKey(out);
        }
        break;
      case ApiRole::kFree:
        addEvent(EventKind::kHostSync, call, name).event.flags |= kFlagRelaxedPermits;
        if (const clang::Expr* freed = argument(call, 0)) {
          addEvent(EventKind::kFree, call, name, objectName(freed)).event.target = pathOf(freed);
        }
        break;
      case ApiRole::kAsyncAlloc:
      case ApiRole::kAsyncFree:
      case ApiRole::kAsyncWork: {
        if (api.role == ApiRole::kAsyncAlloc) noteBind(call, out, name);
        if (api.role == ApiRole::kAsyncFree) {
          if (const clang::Expr* freed = argument(call, 0)) {
            addEvent(EventKind::kFree, call, name, objectName(freed)).event.target = pathOf(freed);
          }
        }
        RawItem& item = addItem(ItemRole::kWork, EventKind::kTensorOp, call, name);
        item.stream = streamArgument(call, api.stream_arg, callee);
        setArguments(item, call->arguments());
        if (name == "cudaMemcpyAsync") noteStaticSource(call, argument(call, 1));
        break;
      }
      case ApiRole::kSyncCopy: {
        addEvent(EventKind::kStreamUse, call, name);
        function_->items.back().event.text = syncCopyStream(callee.name);
        break;
      }
      case ApiRole::kCaptureBegin: {
        RawItem& item = addItem(ItemRole::kCaptureBegin, EventKind::kCall, call, name);
        item.stream = classifyStream(argument(call, 0), 0);
        item.key = "stream:" + streamIdentity(item.stream);
        item.text = captureMode(argument(call, api.mode_arg), context_);
        break;
      }
      case ApiRole::kCaptureEnd: {
        RawItem& item = addItem(ItemRole::kCaptureEnd, EventKind::kCall, call, name);
        item.stream = classifyStream(argument(call, 0), 0);
        item.key = "stream:" + streamIdentity(item.stream);
        item.text = pathOf(argument(call, 1));
        break;
      }
      case ApiRole::kCaptureQuery:
        addEvent(EventKind::kCaptureQuery, call, name);
        if (const clang::Expr* status = pointee(out)) {
          if (const auto* ref = dyn_cast<clang::DeclRefExpr>(status)) {
            tainted_.insert(ref->getDecl()->getCanonicalDecl());
          } else if (const auto* member = dyn_cast<clang::MemberExpr>(status)) {
            tainted_.insert(member->getMemberDecl()->getCanonicalDecl());
          }
        }
        break;
      case ApiRole::kEventRecord: {
        RawItem& item = addItem(ItemRole::kEventRecord, EventKind::kCall, call, name);
        item.key = objectKey(argument(call, 0));
        item.stream = streamArgument(call, api.stream_arg, callee);
        break;
      }
      case ApiRole::kStreamWait: {
        RawItem& item = addItem(ItemRole::kStreamWait, EventKind::kCall, call, name);
        item.stream = classifyStream(argument(call, 0), 0);
        item.key = objectKey(argument(call, 1));
        break;
      }
      case ApiRole::kGraphLaunch:
        addEvent(EventKind::kReplay, call, name, objectName(argument(call, 0))).event.target =
            pathOf(argument(call, 0));
        break;
      case ApiRole::kInstantiate: {
        RawItem& item = addItem(ItemRole::kInstantiate, EventKind::kCall, call, name);
        item.key = pathOf(argument(call, 1));
        item.text = pathOf(out);
        if (out != nullptr && outlivesFunction(out)) {
          std::string kept = item.text;
          RawItem& store = addEvent(EventKind::kStore, call, name);
          store.event.target = kept;
          store.event.source = kept;
        }
        break;
      }
      case ApiRole::kExecUpdate: {
        RawItem& item = addItem(ItemRole::kExecUpdate, EventKind::kCall, call, name);
        item.key = pathOf(argument(call, 0));
        break;
      }
      case ApiRole::kStreamCreate:
        if (out != nullptr) {
          const clang::Expr* target = pointee(out);
          const auto* ref = dyn_cast_or_null<clang::DeclRefExpr>(target);
          const auto* var = ref != nullptr ? dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
          if (var != nullptr && var->isLocalVarDeclOrParm() && !isa<clang::ParmVarDecl>(var)) {
            created_locals_.insert(var->getCanonicalDecl());
            aliases_.erase(var->getCanonicalDecl());
          } else {
            RawItem& item = addItem(ItemRole::kStreamCreate, EventKind::kCall, call, name);
            item.key = objectKey(out);
          }
        }
        break;
      case ApiRole::kHandleCreate:
        if (out != nullptr) {
          RawItem& item = addItem(ItemRole::kHandleCreate, EventKind::kCall, call, name);
          item.key = objectKey(out);
        }
        break;
      case ApiRole::kHandleStream: {
        RawItem& item = addItem(ItemRole::kHandleStream, EventKind::kCall, call, name);
        item.key = objectKey(argument(call, 0));
        item.stream = streamArgument(call, api.stream_arg, callee);
        break;
      }
    }
  }

  // The torch C++ API: CUDAGraph, CUDAEvent, CUDAStream and Tensor methods. Returns false for
  // anything else (a user method is then lowered as a call).
  bool lowerMemberCall(const clang::CXXMemberCallExpr* call, const Callee& callee) {
    const clang::Expr* object = call->getImplicitObjectArgument();
    if (object == nullptr || configuredSync(callee, true)) return false;
    clang::QualType type = object->getType();
    if (type->isPointerType()) type = type->getPointeeType();
    const std::string& name = callee.name;
    if ((name == "def" || name == "impl" || name == "def_static") && isBinding(type)) {
      noteRegistered(call);
      return true;
    }
    if (isGraphMap(type)) {
      if ((name == "find" || name == "count" || name == "at" || name == "emplace" ||
           name == "try_emplace" || name == "contains" || name == "operator[]") &&
          call->getNumArgs() > 0) {
        noteCacheKey(call->getArg(0));
      }
      return true;
    }
    if (typeNameContains(type, "CUDAGraph")) {
      if (name == "capture_begin" || name == "capture_end") {
        bool begin = name == "capture_begin";
        RawItem& item = addItem(begin ? ItemRole::kCaptureBegin : ItemRole::kCaptureEnd,
                                EventKind::kCall, call, callee.qualified);
        item.torch_graph = true;
        item.key = "graph:" + textOf(object);
        item.stream.kind = StreamKind::kTorchCurrent;
        item.stream.name = "at::cuda::getCurrentCUDAStream()";
        if (begin) item.text = captureMode(argument(call, 1), context_);
        return true;
      }
      if (name == "replay") {
        addEvent(EventKind::kReplay, call, callee.qualified, textOf(object)).event.target =
            pathOf(object);
        return true;
      }
      return true;
    }
    if (typeNameContains(type, "CUDAStream")) {
      if (name == "synchronize" || name == "query") {
        addEvent(EventKind::kHostSync, call, callee.qualified);
      }
      return true;
    }
    if (typeNameContains(type, "CUDAEvent")) {
      if (name == "synchronize" || name == "query") {
        addEvent(EventKind::kHostSync, call, callee.qualified);
      } else if (name == "record" || name == "recordOnce") {
        RawItem& item = addItem(ItemRole::kEventRecord, EventKind::kCall, call, callee.qualified);
        item.key = objectKey(object);
        if (const clang::Expr* stream = argument(call, 0)) {
          item.stream = classifyStream(stream, 0);
        } else {
          item.stream.kind = StreamKind::kTorchCurrent;
        }
      } else if (name == "block") {
        RawItem& item = addItem(ItemRole::kStreamWait, EventKind::kCall, call, callee.qualified);
        item.key = objectKey(object);
        item.stream = classifyStream(argument(call, 0), 0);
      }
      return true;
    }
    if (isTensorLike(type)) {
      if (name == "item" || name == "cpu")
        addEvent(EventKind::kHostSync, call, "at::Tensor." + name);
      return true;
    }
    return false;
  }

  // torch::Library (TORCH_LIBRARY's `m`), pybind11's module_ and class_: what they register
  // runs when Python calls it.
  static bool isBinding(clang::QualType type) {
    const auto* record = type->getAsCXXRecordDecl();
    if (record == nullptr || record->getIdentifier() == nullptr) return false;
    llvm::StringRef name = record->getName();
    return name == "Library" || name == "module_" || name == "module" || name == "class_";
  }

  // The functions `m.def("op", &launch)`, `m.impl("op", TORCH_FN(launch))`,
  // `m.impl("op", torch::dispatch(key, &launch))` or `m.def("op", [](...) {...})` registers.
  void noteRegistered(const clang::CXXMemberCallExpr* call) {
    llvm::SmallVector<const clang::Stmt*, 16> pending;
    for (const clang::Expr* argument : call->arguments()) pending.push_back(argument);
    for (int visited = 0; !pending.empty() && visited < kMaxWalk; ++visited) {
      const clang::Stmt* statement = pending.pop_back_val();
      if (statement == nullptr) continue;
      std::vector<Callable> registered;
      if (const auto* expr = dyn_cast<clang::Expr>(statement)) callablesOf(expr, registered);
      for (const Callable& callable : registered) unit_.registered_ops.insert(callable.name);
      if (isa<clang::LambdaExpr>(statement)) continue;
      for (const clang::Stmt* child : statement->children()) pending.push_back(child);
    }
  }

  // ---- writes ------------------------------------------------------------------------------

  void noteWrite(const clang::Expr* target, const clang::Expr* value, const clang::Expr* whole,
                 bool plain_assignment) {
    const clang::Expr* lhs = target->IgnoreParenImpCasts();
    if (plain_assignment && value != nullptr && holdsCallable(target->getType())) {
      noteCallableStore(target, nullptr, value);
    }
    bool dependent = value != nullptr && captureDependent(value, 0);
    if (plain_assignment) noteGraphKept(lhs, value, whole);
    if (const auto* ref = dyn_cast<clang::DeclRefExpr>(lhs)) {
      const auto* var = dyn_cast<clang::VarDecl>(ref->getDecl());
      if (var == nullptr) return;
      const clang::VarDecl* canonical = var->getCanonicalDecl();
      RawItem& item = addItem(ItemRole::kAssign, EventKind::kBind, whole, "");
      item.var = pointerId(canonical);
      item.sources = sourcesOf(value);
      if (!plain_assignment) item.sources.push_back({item.var, loopOf(var)});
      if (plain_assignment && var->getType()->isPointerType()) {
        RawItem& bind = addEvent(EventKind::kBind, whole, "=", var->getNameAsString());
        bind.event.subject.kind = ValueKind::kTensor;
        bind.event.target = var->getNameAsString();
        bind.event.source = aliasSource(value);
      }
      if (hasStaticStorage(var)) noteHostWrite(ref, whole);
      if (dependent) tainted_.insert(canonical);
      if (plain_assignment && dependent) {
        if (int polarity = capturePolarity(value); polarity != 0) {
          polarity_[canonical] = polarity;
        } else {
          polarity_.erase(canonical);
        }
      }
      if (plain_assignment && isStreamType(var->getType()) && value != nullptr) {
        StreamRef ref_value = classifyStream(value, 0);
        if (ref_value.kind != StreamKind::kOther && ref_value.kind != StreamKind::kMissing) {
          aliases_[canonical] = ref_value;
        } else {
          aliases_.erase(canonical);
        }
      }
      return;
    }
    if (const auto* member = dyn_cast<clang::MemberExpr>(lhs)) {
      const clang::Expr* base = member->getBase()->IgnoreParenImpCasts();
      if (isa<clang::CXXThisExpr>(base)) {
        const clang::Decl* field = member->getMemberDecl()->getCanonicalDecl();
        RawItem& item = addItem(ItemRole::kAssign, EventKind::kBind, whole, "");
        item.var = pointerId(field);
        item.sources = sourcesOf(value);
        if (!plain_assignment) item.sources.push_back({item.var, -1});
        if (plain_assignment && member->getType()->isPointerType()) {
          RawItem& bind = addEvent(EventKind::kBind, whole, "=", textOf(member));
          bind.event.subject.kind = ValueKind::kTensor;
          bind.event.target = textOf(member);
          bind.event.source = aliasSource(value);
        }
        if (dependent) tainted_.insert(field);
        return;
      }
      if (member->isArrow()) {
        noteHostWrite(base, whole);
      } else if (const clang::DeclRefExpr* owner = staticOwner(member)) {
        noteHostWrite(owner, whole);  // `params.scale = s` on a static struct
      }
      return;
    }
    if (const auto* subscript = dyn_cast<clang::ArraySubscriptExpr>(lhs)) {
      noteHostWrite(subscript->getBase(), whole);
      return;
    }
    if (const auto* unary = dyn_cast<clang::UnaryOperator>(lhs);
        unary != nullptr && unary->getOpcode() == clang::UO_Deref) {
      noteHostWrite(bufferBase(unary->getSubExpr()), whole);
    }
  }

  // ---- host memory with static storage -----------------------------------------------------
  // A `static` local or a global (not a pointer: the memory itself) is one block for the whole
  // program: every graph that copies from it reads it when launched, so graphs captured with
  // different contents all replay the last ones (GS501).

  static bool hasStaticStorage(const clang::VarDecl* var) {
    return var != nullptr && var->hasGlobalStorage() && !var->getType()->isPointerType() &&
           !var->getType()->isReferenceType() && !var->getType().isConstQualified();
  }

  // `params` in `params.a.b`, when it has static storage; null otherwise.
  static const clang::DeclRefExpr* staticOwner(const clang::MemberExpr* member) {
    const clang::Expr* base = member;
    for (int i = 0; i < kMaxDepth; ++i) {
      const auto* dot = dyn_cast<clang::MemberExpr>(base);
      if (dot == nullptr || dot->isArrow()) break;
      base = dot->getBase()->IgnoreParenImpCasts();
    }
    const auto* ref = dyn_cast<clang::DeclRefExpr>(base);
    const auto* var = ref != nullptr ? dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
    return hasStaticStorage(var) ? ref : nullptr;
  }

  // The source of a host-to-device copy (`&params`, `&table[0]`, `table`, `&params.field`): when
  // it is memory with static storage, the copy reads that variable.
  void noteStaticSource(const clang::CallExpr* call, const clang::Expr* source) {
    const clang::Expr* expr = source != nullptr ? strip(source) : nullptr;
    if (const auto* unary = dyn_cast_or_null<clang::UnaryOperator>(expr);
        unary != nullptr && unary->getOpcode() == clang::UO_AddrOf) {
      expr = strip(unary->getSubExpr());
    }
    if (const clang::Expr* base = expr != nullptr ? indexedBase(expr) : nullptr) expr = base;
    const clang::DeclRefExpr* ref = nullptr;
    if (const auto* member = dyn_cast_or_null<clang::MemberExpr>(expr)) {
      ref = staticOwner(member);
    } else if (const auto* named = dyn_cast_or_null<clang::DeclRefExpr>(expr)) {
      const auto* var = dyn_cast<clang::VarDecl>(named->getDecl());
      if (hasStaticStorage(var)) ref = named;
    }
    if (ref == nullptr) return;
    RawItem& item = addItem(ItemRole::kStaticSource, EventKind::kTensorOp, call, "");
    item.key = objectKey(ref);
    item.text = textOf(ref);
  }

  void noteHostWrite(const clang::Expr* buffer, const clang::Expr* whole) {
    const clang::Expr* base = strip(buffer);
    if (!isa<clang::DeclRefExpr, clang::MemberExpr>(base)) return;
    RawItem& item = addItem(ItemRole::kHostWrite, EventKind::kHostBufferWrite, whole, "");
    item.key = objectKey(base);
    item.event.subject.text = textOf(base);
    item.event.target = textOf(base);
  }

  // `p = q` makes p another name for q's memory; `p = new_buffer()` does not.
  std::string aliasSource(const clang::Expr* value) const {
    if (value == nullptr) return "";
    const clang::Expr* source = strip(value);
    if (isa<clang::DeclRefExpr, clang::MemberExpr>(source)) return textOf(source);
    return "";
  }

  // ---- host memory owned by locals ---------------------------------------------------------
  // A local std::vector, std::array or C array owns the host memory a captured copy reads from
  // (`cudaMemcpyAsync(d, host.data(), ...)`). The memory is freed when the local goes out of
  // scope, and a vector moves its elements to a new block (freeing the old one) when it grows
  // past its capacity or takes another vector's block. Each of those is a kFree of the local,
  // for GS202; a vector edit whose effect on the block is not known is none.

  enum class OwnerKind : std::uint8_t { kNone, kVector, kFixed };

  static OwnerKind ownerKind(clang::QualType type) {
    if (type.isNull() || type->isDependentType() || type->isReferenceType()) {
      return OwnerKind::kNone;
    }
    if (type->isConstantArrayType()) return OwnerKind::kFixed;
    const auto* record = type->getAsCXXRecordDecl();
    if (record == nullptr || record->getIdentifier() == nullptr || !record->isInStdNamespace()) {
      return OwnerKind::kNone;
    }
    if (record->getName() == "vector") return OwnerKind::kVector;
    if (record->getName() == "array") return OwnerKind::kFixed;
    return OwnerKind::kNone;
  }

  static bool isExecutableGraph(clang::QualType type) {
    return typeNameContains(type, "CUgraphExec_st");
  }

  std::optional<std::uint64_t> constantCount(const clang::Expr* expr) const {
    if (expr == nullptr || expr->isValueDependent() || expr->isTypeDependent() ||
        !expr->getType()->isIntegralOrEnumerationType()) {
      return std::nullopt;
    }
    clang::Expr::EvalResult result;
    if (!expr->EvaluateAsInt(result, context_) || result.Val.getInt().isNegative()) {
      return std::nullopt;
    }
    return result.Val.getInt().getLimitedValue();
  }

  // The block a vector starts with: exactly its elements when constructed with a constant count
  // or an initializer list; unknown when copied or built from a range.
  VectorStorage initialStorage(const clang::VarDecl* var) const {
    const clang::Expr* init = var->getInit();
    const auto* construct =
        init != nullptr ? dyn_cast<clang::CXXConstructExpr>(init->IgnoreImplicit()) : nullptr;
    if (construct == nullptr) return VectorStorage::unknown();
    if (construct->getNumArgs() == 0 || isa<clang::CXXDefaultArgExpr>(construct->getArg(0))) {
      return VectorStorage::withSize(0);
    }
    const clang::Expr* first = construct->getArg(0)->IgnoreImplicit();
    if (const auto* list = dyn_cast<clang::CXXStdInitializerListExpr>(first)) {
      const auto* inits = dyn_cast<clang::InitListExpr>(list->getSubExpr()->IgnoreImplicit());
      return inits != nullptr ? VectorStorage::withSize(inits->getNumInits())
                              : VectorStorage::unknown();
    }
    if (std::optional<std::uint64_t> count = constantCount(first)) {
      return VectorStorage::withSize(*count);
    }
    return VectorStorage::unknown();
  }

  void noteOwnedStorage(const clang::VarDecl* var) {
    if (!var->hasLocalStorage()) return;
    clang::QualType type = var->getType();
    if (isa<clang::ParmVarDecl>(var)) {
      // Taken by value: the function's own copy, freed when it returns.
      std::uint32_t begin = 0;
      std::uint32_t end = 0;
      const clang::Stmt* body = current_decl_ != nullptr ? current_decl_->getBody() : nullptr;
      if (body == nullptr || var->getDeclContext() != current_decl_ ||
          ownerKind(type) == OwnerKind::kNone || !fileRange(body->getSourceRange(), begin, end)) {
        return;
      }
      OwnedStorage owned;
      owned.block = {begin, end};
      owned_[var->getCanonicalDecl()] = owned;
      return;
    }
    if (type->isReferenceType()) {
      // Another name that may edit a vector: its block is not followed any more.
      if (!type->getPointeeType().isConstQualified() && var->hasInit()) {
        if (const clang::VarDecl* edited = ownedVector(var->getInit())) {
          editVector(edited, {VectorOp::kUnknownEdit, std::nullopt}, nullptr, "");
        }
      }
      return;
    }
    OwnerKind kind = ownerKind(type);
    if (kind == OwnerKind::kNone || blocks_.empty()) return;
    OwnedStorage owned;
    owned.block = blocks_.back();
    if (kind == OwnerKind::kVector) owned.vector = initialStorage(var);
    owned_[var->getCanonicalDecl()] = owned;
  }

  const clang::VarDecl* ownedLocal(const clang::Expr* expr) const {
    const auto* ref = dyn_cast_or_null<clang::DeclRefExpr>(strip(expr));
    const auto* var = ref != nullptr ? dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
    if (var == nullptr) return nullptr;
    var = var->getCanonicalDecl();
    return owned_.count(var) != 0 ? var : nullptr;
  }

  const clang::VarDecl* ownedVector(const clang::Expr* expr) const {
    const clang::VarDecl* var = ownedLocal(expr);
    return var != nullptr && owned_.at(var).vector ? var : nullptr;
  }

  // The container whose memory a pointer argument points into (`host.data()`, `&host[0]`), or
  // null; a local that owns that memory (or a local array passed as it is) is marked read.
  const clang::Expr* storageOwner(const clang::Expr* pointer) {
    const clang::Expr* owner = nullptr;
    if (const auto* member = dyn_cast<clang::CXXMemberCallExpr>(pointer)) {
      const clang::CXXMethodDecl* method = member->getMethodDecl();
      if (method != nullptr && method->getIdentifier() != nullptr && method->getName() == "data") {
        owner = strip(member->getImplicitObjectArgument());
      }
    } else if (const auto* unary = dyn_cast<clang::UnaryOperator>(pointer);
               unary != nullptr && unary->getOpcode() == clang::UO_AddrOf) {
      if (const clang::Expr* base = indexedBase(unary->getSubExpr())) owner = base;
    }
    const clang::Expr* named = owner != nullptr ? owner : pointer;
    if (!isa<clang::DeclRefExpr, clang::MemberExpr>(named)) return nullptr;
    if (ownerKind(named->getType().getNonReferenceType()) == OwnerKind::kNone) return nullptr;
    if (const clang::VarDecl* var = ownedLocal(named)) owned_.at(var).read = true;
    return owner;
  }

  struct VectorEdit {
    VectorOp op = VectorOp::kUnknownEdit;
    std::optional<std::uint64_t> count;
  };

  // What a std::vector method does to the block; nullopt for one that leaves it alone.
  std::optional<VectorEdit> vectorEdit(llvm::StringRef name,
                                       const clang::CXXMemberCallExpr* call) const {
    static constexpr llvm::StringLiteral kReaders[] = {
        "data", "at",   "front", "back",     "begin",  "end",  "rbegin",
        "rend", "size", "empty", "capacity", "cbegin", "cend", "operator[]"};
    for (llvm::StringRef reader : kReaders) {
      if (name == reader) return std::nullopt;
    }
    const unsigned args = call->getNumArgs();
    auto countArg = [&]() { return args > 0 ? constantCount(call->getArg(0)) : std::nullopt; };
    if (name == "reserve") return VectorEdit{VectorOp::kReserve, countArg()};
    if (name == "resize") return VectorEdit{VectorOp::kResize, countArg()};
    if (name == "assign" && args == 2 &&
        call->getArg(0)->getType()->isIntegralOrEnumerationType()) {
      return VectorEdit{VectorOp::kResize, countArg()};
    }
    if (name == "push_back" || name == "emplace_back" || name == "emplace") {
      return VectorEdit{VectorOp::kGrowByOne, std::nullopt};
    }
    if (name == "insert" && args == 2 &&
        !typeNameContains(call->getArg(1)->getType(), "initializer_list")) {
      return VectorEdit{VectorOp::kGrowByOne, std::nullopt};
    }
    if (name == "clear") return VectorEdit{VectorOp::kClear, std::nullopt};
    if (name == "swap") return VectorEdit{VectorOp::kReplace, std::nullopt};
    return VectorEdit{VectorOp::kUnknownEdit, std::nullopt};
  }

  // Applies an edit to a local vector's block; one known to move it frees the old block there.
  void editVector(const clang::VarDecl* var, const VectorEdit& edit, const clang::Expr* at,
                  const std::string& api) {
    auto it = owned_.find(var);
    if (it == owned_.end() || !it->second.vector) return;
    VectorStorage& storage = *it->second.vector;
    const bool moves = storage.apply(edit.op, edit.count);
    // Run in a nested block (a branch, a loop): what the block is afterwards is not known.
    if (blocks_.empty() || blocks_.back() != it->second.block) storage.forget();
    if (!moves || at == nullptr) return;
    std::string name = var->getNameAsString();
    addEvent(EventKind::kFree, at, api, name).event.target = name;
  }

  // `std::move(v)`: the vector it names, handed on.
  const clang::VarDecl* movedVector(const clang::Expr* expr) const {
    const auto* call = dyn_cast_or_null<clang::CallExpr>(strip(expr));
    const clang::FunctionDecl* callee = call != nullptr ? call->getDirectCallee() : nullptr;
    if (callee == nullptr || callee->getIdentifier() == nullptr || callee->getName() != "move" ||
        !callee->isInStdNamespace() || call->getNumArgs() != 1) {
      return nullptr;
    }
    return ownedVector(call->getArg(0));
  }

  void noteVectorEdits(const clang::CallExpr* call) {
    if (owned_.empty()) return;
    if (const auto* member = dyn_cast<clang::CXXMemberCallExpr>(call)) {
      const clang::CXXMethodDecl* method = member->getMethodDecl();
      const clang::VarDecl* var = ownedVector(member->getImplicitObjectArgument());
      if (var != nullptr && method != nullptr && method->getIdentifier() != nullptr) {
        const std::string api = "std::vector::" + method->getNameAsString();
        if (std::optional<VectorEdit> edit = vectorEdit(method->getName(), member)) {
          editVector(var, *edit, call, api);
        }
        if (method->getName() == "swap" && member->getNumArgs() == 1) {
          if (const clang::VarDecl* other = ownedVector(member->getArg(0))) {
            editVector(other, {VectorOp::kReplace, std::nullopt}, call, api);
          }
        }
        return;
      }
    }
    if (const auto* op = dyn_cast<clang::CXXOperatorCallExpr>(call)) {
      if (op->getOperator() != clang::OO_Equal || op->getNumArgs() != 2) return;
      if (const clang::VarDecl* moved = movedVector(op->getArg(1))) {
        editVector(moved, {VectorOp::kUnknownEdit, std::nullopt}, nullptr, "");
      }
      const clang::VarDecl* var = ownedVector(op->getArg(0));
      if (var == nullptr) return;
      const auto* method = dyn_cast_or_null<clang::CXXMethodDecl>(op->getDirectCallee());
      // Move assignment takes the other vector's block and frees this one's; a copy may reuse it.
      const bool takes = method != nullptr && method->isMoveAssignmentOperator();
      editVector(var, {takes ? VectorOp::kReplace : VectorOp::kUnknownEdit, std::nullopt}, call,
                 "std::vector::operator=");
      return;
    }
    // std::swap(a, b) exchanges the blocks; a parameter taking a non-const reference (or the
    // vector handed on with std::move) may change one in ways not followed here.
    const clang::FunctionDecl* callee = call->getDirectCallee();
    const bool swap = callee != nullptr && callee->getIdentifier() != nullptr &&
                      callee->getName() == "swap" && callee->isInStdNamespace();
    for (unsigned i = 0; i < call->getNumArgs(); ++i) {
      if (const clang::VarDecl* moved = movedVector(call->getArg(i))) {
        editVector(moved, {VectorOp::kUnknownEdit, std::nullopt}, nullptr, "");
        continue;
      }
      const clang::VarDecl* var = ownedVector(call->getArg(i));
      if (var == nullptr) continue;
      if (swap) {
        editVector(var, {VectorOp::kReplace, std::nullopt}, call, "std::swap");
        continue;
      }
      const bool known_param = callee != nullptr && i < callee->getNumParams();
      clang::QualType type = known_param ? callee->getParamDecl(i)->getType() : clang::QualType();
      if (!known_param || (type->isReferenceType() && !type->getPointeeType().isConstQualified())) {
        editVector(var, {VectorOp::kUnknownEdit, std::nullopt}, nullptr, "");
      }
    }
  }

  // A temporary container passed to a reference parameter (`r.capture(std::vector<float>(16))`)
  // is freed at the end of the statement: a kFree of it (named only in its text), which GS202
  // pairs with a callee that keeps a graph reading the parameter's memory.
  void noteTemporaryStorage(const clang::CallExpr* call) {
    for (const clang::Expr* arg : call->arguments()) {
      // (IgnoreParenImpCasts would step over the MaterializeTemporaryExpr itself.)
      const clang::Expr* bound = arg->IgnoreParens();
      while (const auto* cast = dyn_cast<clang::ImplicitCastExpr>(bound)) {
        bound = cast->getSubExpr()->IgnoreParens();
      }
      const auto* temporary = dyn_cast<clang::MaterializeTemporaryExpr>(bound);
      if (temporary == nullptr || temporary->getExtendingDecl() != nullptr ||
          ownerKind(temporary->getType()) == OwnerKind::kNone) {
        continue;
      }
      RawItem& item = addItem(ItemRole::kEvent, EventKind::kFree, arg->getSourceRange(),
                              "temporary", textOf(arg));
      item.event.flags |= kFlagScopeExit;
    }
  }

  // The end of a block: the locals declared in it that device work read from are freed here.
  void noteScopeExit(const clang::CompoundStmt* block) {
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    if (owned_.empty() || !fileRange(block->getSourceRange(), begin, end)) return;
    for (auto it = owned_.begin(); it != owned_.end();) {
      if (it->second.block != std::make_pair(begin, end)) {
        ++it;
        continue;
      }
      if (it->second.read) {
        std::string name = it->first->getNameAsString();
        RawItem& item = addItem(ItemRole::kEvent, EventKind::kFree,
                                clang::SourceRange(block->getRBracLoc(), block->getRBracLoc()),
                                "scope exit", "");
        item.event.subject.text = name;
        item.event.target = name;
        item.event.flags |= kFlagScopeExit;
      }
      it = owned_.erase(it);
    }
  }

  // ---- executable graphs that outlive the function ------------------------------------------

  // Does the object an lvalue names outlive the function: a member (of this object, or of one
  // reached through a reference or pointer), a global or static, an element of one, or what a
  // reference or pointer parameter refers to?
  bool objectOutlives(const clang::Expr* expr) const {
    expr = strip(expr);
    if (const clang::Expr* base = indexedBase(expr)) return objectOutlives(base);
    if (const auto* member = dyn_cast<clang::MemberExpr>(expr)) {
      if (member->isArrow()) return true;
      return objectOutlives(member->getBase());
    }
    if (isa<clang::CXXThisExpr>(expr)) return true;
    if (const auto* unary = dyn_cast<clang::UnaryOperator>(expr);
        unary != nullptr && unary->getOpcode() == clang::UO_Deref) {
      const auto* ref = dyn_cast<clang::DeclRefExpr>(strip(unary->getSubExpr()));
      return ref != nullptr && isa<clang::ParmVarDecl>(ref->getDecl());
    }
    const auto* ref = dyn_cast<clang::DeclRefExpr>(expr);
    const auto* var = ref != nullptr ? dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
    if (var == nullptr) return false;
    return var->hasGlobalStorage() || var->getType()->isReferenceType();
  }

  // An out argument (`&exec`, `&this->exec_`, `out`): is what it points at kept past the call?
  bool outlivesFunction(const clang::Expr* out) const {
    const clang::Expr* expr = strip(out);
    if (const auto* unary = dyn_cast<clang::UnaryOperator>(expr);
        unary != nullptr && unary->getOpcode() == clang::UO_AddrOf) {
      return objectOutlives(unary->getSubExpr());
    }
    const auto* ref = dyn_cast<clang::DeclRefExpr>(expr);
    return ref != nullptr && isa<clang::ParmVarDecl>(ref->getDecl());
  }

  // `exec_ = exec;`, `*out = exec;`, `graphs_[key] = exec;`: the executable graph is kept.
  void noteGraphKept(const clang::Expr* lhs, const clang::Expr* value, const clang::Expr* whole) {
    if (value == nullptr || !isExecutableGraph(value->getType()) || !objectOutlives(lhs)) return;
    const clang::Expr* named = strip(value);
    if (!isa<clang::DeclRefExpr, clang::MemberExpr>(named)) return;
    RawItem& item = addEvent(EventKind::kStore, whole, "=");
    item.event.target = pathOf(lhs);
    item.event.source = textOf(named);
  }

  // ---- capture-dependent branches ----------------------------------------------------------

  // Does a condition read the capture state? A torch capture-status call in it, or a variable
  // a capture query wrote (cudaStreamIsCapturing(s, &status)) or that was computed from one.
  // The C queries return an error code: calling one in the condition only checks for errors.
  // Is `decl` one of the configured capture flags (a variable, member or function)?
  bool isCaptureFlag(const clang::NamedDecl* decl) const {
    if (decl == nullptr || options_.capture_flags.empty()) return false;
    const std::string name = decl->getNameAsString();
    const bool member = isa<clang::FieldDecl>(decl) || isa<clang::CXXMethodDecl>(decl);
    const std::string qualified = qualifiedName(decl);
    for (const std::string& flag : options_.capture_flags) {
      if (flag.starts_with(".")) {
        if (member && flag.compare(1, std::string::npos, name) == 0) return true;
      } else if (flag == qualified || qualified.ends_with("::" + flag)) {
        return true;
      }
    }
    return false;
  }

  // The configured flag an expression reads as it is (`capturing_`, `runner.is_capturing()`),
  // or null.
  const clang::NamedDecl* captureFlagOf(const clang::Expr* expr) const {
    if (expr == nullptr) return nullptr;
    expr = expr->IgnoreParenImpCasts();
    const clang::NamedDecl* decl = nullptr;
    if (const auto* ref = dyn_cast<clang::DeclRefExpr>(expr)) decl = ref->getDecl();
    if (const auto* member = dyn_cast<clang::MemberExpr>(expr)) decl = member->getMemberDecl();
    if (const auto* call = dyn_cast<clang::CallExpr>(expr)) decl = call->getDirectCallee();
    return isCaptureFlag(decl) ? decl : nullptr;
  }

  bool captureDependent(const clang::Stmt* statement, int depth) const {
    if (statement == nullptr || depth > 2 * kMaxDepth) return false;
    if (const auto* expr = dyn_cast<clang::Expr>(statement); captureFlagOf(expr) != nullptr) {
      return true;
    }
    if (const auto* call = dyn_cast<clang::CallExpr>(statement)) {
      std::string name = calleeOf(call).name;
      if (isTorchCaptureQuery(name)) return true;
      const ApiInfo* api = findCudaApi(name);
      if (api != nullptr && api->role == ApiRole::kCaptureQuery) return false;
    }
    if (const auto* ref = dyn_cast<clang::DeclRefExpr>(statement)) {
      if (tainted_.count(ref->getDecl()->getCanonicalDecl()) != 0) return true;
    }
    if (const auto* member = dyn_cast<clang::MemberExpr>(statement)) {
      if (tainted_.count(member->getMemberDecl()->getCanonicalDecl()) != 0) return true;
    }
    for (const clang::Stmt* child : statement->children()) {
      if (captureDependent(child, depth + 1)) return true;
    }
    return false;
  }

  // The device work a statement enqueues, as a sorted list of names: the two sides of a
  // capture-dependent branch "compute differently" when these differ.
  std::vector<std::string> workSignature(const clang::Stmt* root) const {
    std::vector<std::string> signature;
    llvm::SmallVector<const clang::Stmt*, 32> pending;
    if (root != nullptr) pending.push_back(root);
    std::size_t visited = 0;
    while (!pending.empty() && visited++ < kMaxSignatureNodes) {
      const clang::Stmt* statement = pending.pop_back_val();
      if (statement == nullptr) continue;
      if (const auto* launch = dyn_cast<clang::CUDAKernelCallExpr>(statement)) {
        signature.push_back("launch " + calleeOfExpr(launch->getCallee()).name);
      } else if (const auto* call = dyn_cast<clang::CallExpr>(statement);
                 call != nullptr && !isa<clang::CXXOperatorCallExpr>(call)) {
        std::string entry = workEntry(call);
        if (!entry.empty()) signature.push_back(std::move(entry));
      }
      for (const clang::Stmt* child : statement->children()) pending.push_back(child);
    }
    std::sort(signature.begin(), signature.end());
    return signature;
  }

  std::string workEntry(const clang::CallExpr* call) const {
    Callee callee = calleeOf(call);
    if (callee.name.empty() || callee.name == "__cudaPushCallConfiguration" ||
        isReportingCall(callee.name)) {
      return "";
    }
    if (const ApiInfo* api = findCudaApi(callee.name)) {
      switch (api->role) {
        case ApiRole::kAsyncWork:
        case ApiRole::kSyncCopy:
        case ApiRole::kAsyncAlloc:
        case ApiRole::kAsyncFree:
        case ApiRole::kGraphLaunch:
          return "api " + std::string(baseApiName(callee.name));
        default:
          return "";
      }
    }
    if (isLibraryWork(callee.name)) return "library " + callee.name;
    if (isUserFunction(callee.decl)) return "call " + callee.qualified;
    if (isTorchCaptureQuery(callee.name) || isTorchCurrentStream(callee.name) ||
        isTorchDefaultStream(callee.name) || isTorchNewStream(callee.name)) {
      return "";
    }
    if (callee.decl != nullptr &&
        (callee.qualified.starts_with("at::") || callee.qualified.starts_with("torch::"))) {
      return "op " + callee.qualified;
    }
    return "";
  }

  static bool exits(const clang::Stmt* statement) {
    if (statement == nullptr) return false;
    if (isa<clang::ReturnStmt, clang::BreakStmt, clang::ContinueStmt, clang::GotoStmt,
            clang::CXXThrowExpr>(statement)) {
      return true;
    }
    if (const auto* block = dyn_cast<clang::CompoundStmt>(statement)) {
      return !block->body_empty() && exits(block->body_back());
    }
    return false;
  }

  // The statements after `branch` in its block: what an early exit skips.
  std::vector<std::string> restSignature(const clang::Stmt* branch) const {
    std::vector<std::string> signature;
    if (compounds_.empty()) return signature;
    const clang::CompoundStmt* block = compounds_.back();
    bool after = false;
    for (const clang::Stmt* statement : block->body()) {
      if (after) {
        std::vector<std::string> part = workSignature(statement);
        signature.insert(signature.end(), part.begin(), part.end());
      }
      after = after || statement == branch;
    }
    std::sort(signature.begin(), signature.end());
    return signature;
  }

  void noteBranch(const clang::Expr* condition, const clang::Stmt* first, const clang::Stmt* second,
                  const clang::Stmt* branch) {
    if (condition == nullptr || !captureDependent(condition, 0)) return;
    std::vector<std::string> one = workSignature(first);
    std::vector<std::string> other;
    if (second != nullptr) {
      other = workSignature(second);
    } else if (branch != nullptr && exits(first)) {
      other = restSignature(branch);
    }
    RawItem& item = addItem(ItemRole::kEvent, EventKind::kBranch, condition, "");
    item.event.subject.text = item.event.text;
    item.event.flags = kFlagCaptureDependent | (one != other ? kFlagSidesDiffer : kFlagNone);
  }

  clang::ASTContext& context_;
  const clang::SourceManager& sources_;
  const SourceFile& source_;
  const LoweringOptions& options_;
  RawTranslationUnit& unit_;
  const TemplateInstantiations& instantiations_;
  const std::filesystem::path tree_;  // the analyzed file's (projectTreeOf)
  // inAnalyzedRepository's answers, per directory.
  mutable std::map<std::string, bool> repository_memo_;

  RawFunction* function_ = nullptr;
  // Lambdas met in the function being lowered, lowered as functions of their own after it.
  std::vector<const clang::LambdaExpr*> pending_lambdas_;
  // noteHandleFromCall's answers, per function.
  std::map<const clang::FunctionDecl*, bool> returns_created_handle_;
  // What a local that holds a function holds (`auto run = [&] {...};`, `fn = &launch;`).
  std::map<const clang::VarDecl*, std::vector<Callable>> local_callables_;
  const clang::FunctionDecl* current_decl_ = nullptr;
  // workOnParameter's answers, per header function and parameter, for the whole unit.
  mutable std::map<std::pair<const clang::FunctionDecl*, unsigned>, std::string> launcher_memo_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> blocks_;
  std::vector<const clang::CompoundStmt*> compounds_;
  int not_capturing_ = 0;
  std::map<const clang::VarDecl*, std::int32_t> loop_of_var_;
  std::map<const clang::VarDecl*, StreamRef> aliases_;
  std::set<const clang::VarDecl*> created_locals_;
  std::map<const clang::VarDecl*, OwnedStorage> owned_;  // see noteOwnedStorage
  std::set<const clang::Decl*> tainted_;
  std::map<const clang::Decl*, int> polarity_;  // capture-state flags: see capturePolarity
  std::vector<std::pair<std::uint32_t, std::uint32_t>> not_capturing_ranges_;
};

}  // namespace

void lowerTranslationUnit(clang::ASTContext& context, const SourceFile& source,
                          const LoweringOptions& options, RawTranslationUnit& unit) {
  TemplateInstantiations instantiations(context);
  Lowering lowering(context, source, options, unit, instantiations);
  lowering.TraverseDecl(context.getTranslationUnitDecl());
}

}  // namespace graphsafe::cuda
