#pragma once

// Types for references, on demand and memoized: the program-wide half of the split Pyright
// makes between a per-file binder (lowering) and an evaluator asked only what a check needs.
//
// A reference is evaluated in a frame: a function, with the types its parameters hold on the
// way the question came (a call's arguments), or none (the context-free frame, where a
// parameter is what every call site passes, its annotation and its default). A function's
// return type is computed under the argument types of each call, a few calls deep; past
// that, in its context-free frame. Every question has a budget: a program that would cost
// more than its size is answered "unknown", never slowly.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analyzer/program/call_sites.h"
#include "analyzer/program/cycle_memo.h"
#include "analyzer/program/program_index.h"
#include "analyzer/program/types.h"

namespace graphsafe::program {

using FrameId = std::uint32_t;

// nn.Module methods that return the module itself (`model.cuda().eval()`).
bool isChainingMethodName(std::string_view name);

// A call's arguments as types, and how they bind to a callee's parameters.
struct CallArguments {
  std::vector<TypeId> positional;
  std::vector<std::pair<std::string, TypeId>> keywords;
  bool complete = true;  // false: `*args` / `**kwargs` pass more than is written
};

class TypeEvaluator {
 public:
  // Evaluations per run at most (each reference in each frame counts once).
  static constexpr std::size_t kMaxEvaluations = 4'000'000;
  // Call sites looked at per run at most, to type parameters from what their calls pass: each
  // look is cheap but a program whose functions all call each other asks for them cubically
  // often (600 such functions took 80 s). Past it, parameters typed from call sites are
  // unknown.
  static constexpr std::size_t kMaxCallSiteVisits = 10'000'000;
  // Calls deep that a return type is computed under its arguments' types.
  static constexpr int kMaxContextDepth = 2;
  // Frames with parameter types per function at most: past that, calls of it are typed in
  // its context-free frame (a helper called with every type there is says nothing new).
  static constexpr std::size_t kMaxFramesPerFunction = 12;
  // Calls up that a parameter's type is looked for at the calls of its function.
  static constexpr int kMaxCallSiteDepth = 2;
  // Nested evaluations at most (a chain of names each bound to the last, a recursive
  // container): deeper ones are unknown, so no input can exhaust the stack.
  static constexpr int kMaxNesting = 384;

  TypeEvaluator(const ProgramIndex& index, const CallSiteIndex& sites);

  TypeTable& types() { return types_; }
  const TypeTable& types() const { return types_; }
  const ProgramIndex& index() const { return index_; }

  FrameId plainFrame(std::uint32_t function);
  // A frame whose parameters hold `params` (kBottom where not known: the context-free type),
  // nested in `closure` (the frame of the enclosing function it was created in, or kNoId).
  // `exact`: never folded into the context-free frame when the function has many frames (a
  // decorator applied to one function: its result must be that function's, not every one's).
  FrameId frame(std::uint32_t function, std::vector<TypeId> params, FrameId closure = kNoId,
                bool exact = false);
  std::uint32_t frameFunction(FrameId frame) const { return frames_[frame].function; }
  const std::vector<TypeId>& frameParams(FrameId frame) const { return frames_[frame].params; }
  FrameId frameClosure(FrameId frame) const { return frames_[frame].closure; }
  // The frame, or the closure around it, that binds the parameters of `function` (kNoId when
  // none does: their types are the context-free ones).
  FrameId frameOfFunction(FrameId frame, std::uint32_t function) const;

  TypeId typeOf(FrameId frame, RefId ref);
  // What parameter `index` of the frame's function holds there.
  TypeId parameterType(FrameId frame, std::size_t index);
  // The arguments of a call reference, evaluated in `frame`.
  CallArguments argumentsOf(FrameId frame, const Reference& call);
  // The types the callee's parameters take from `arguments`, the first `offset` of them from
  // `bound` (a method's receiver, a partial's arguments).
  std::vector<TypeId> bindParameters(std::uint32_t callee, const CallArguments& arguments,
                                     const std::vector<TypeId>& bound);

  // What calling a value of type `callee` returns.
  TypeId callResult(TypeId callee, const CallArguments& arguments);
  TypeId attributeType(TypeId object, std::string_view name);
  // An element of a container (position >= 0, or a literal key, or any element).
  TypeId elementType(TypeId container, std::int32_t position, std::string_view key);
  // What a dotted name denotes, seen from a file.
  TypeId globalType(std::string_view dotted, std::uint32_t from_file);

  // Classes: method resolution order (C3, falling back to depth-first when the bases do not
  // linearize), the class itself first; subclasses, transitively; whether torch.nn.Module is
  // among the bases.
  const std::vector<std::uint32_t>& mro(std::uint32_t class_id);
  const std::vector<std::uint32_t>& subclasses(std::uint32_t class_id);
  bool derivesModule(std::uint32_t class_id);
  // The method `name` by the MRO of the class (kNoId: none).
  std::uint32_t lookupMethod(std::uint32_t class_id, std::string_view name);
  // Does the class have a base the model cannot see (a library class other than nn.Module)?
  bool hasOpaqueBase(std::uint32_t class_id);
  // The first library base of the class, through its program bases (a name id; 0: none).
  std::uint32_t externalBase(std::uint32_t class_id);

  bool budgetExhausted() const {
    return evaluations_ >= kMaxEvaluations || site_visits_ >= kMaxCallSiteVisits;
  }
  std::size_t evaluations() const { return evaluations_; }
  std::size_t callSiteVisits() const { return site_visits_; }
  std::size_t frameCount() const { return frames_.size(); }

  // Every call of `function` the program makes, with the types its parameters take there.
  void forEachCall(std::uint32_t function,
                   const std::function<void(const CallSite&, const std::vector<TypeId>&)>& visit);
  // What calling it returns under those parameter types (`exact`: under them whatever the
  // depth of contexts or the number of frames; see frame()).
  TypeId returnType(std::uint32_t function, std::vector<TypeId> params, FrameId closure = kNoId,
                    bool exact = false);
  // The function a module instance's call runs (`__call__`, else nn.Module's `forward`).
  std::uint32_t callMethodOf(std::uint32_t class_id);

  // Every `object.name = value` of the program with this name: (file, write).
  const std::vector<std::pair<std::uint32_t, const AttributeWrite*>>& writesNamed(
      std::string_view name);

  // Does the type hold an instance of the class (built anywhere)?
  bool holdsInstanceOf(TypeId type, std::uint32_t class_id) const;

  // A function's id from a file and its index.
  std::uint32_t functionId(const FileModel& file, FunctionId function) const {
    return index_.functionId(index_.fileIndex(file), function);
  }

 private:
  struct Frame {
    std::uint32_t function = 0;
    std::vector<TypeId> params;
    FrameId closure = kNoId;
  };
  struct ClassInfo {
    bool resolved = false;
    bool module = false;              // torch.nn.Module among the bases
    bool opaque_base = false;         // a base that is no class of the program and not nn.Module
    std::uint32_t external_base = 0;  // name id of the first such library base
    std::vector<std::uint32_t> bases;
    std::vector<std::uint32_t> mro;
  };

  // reference evaluation (type_evaluator.cpp)
  TypeId evaluate(FrameId frame, std::uint32_t file, const Reference& reference);
  TypeId instancesOf(TypeId classes);
  TypeId operationType(FrameId frame, const Reference& reference);
  TypeId updatedContainer(TypeId container, std::string_view key, TypeId value);
  std::uint32_t entryKey(Holder holder, std::string_view key);
  TypeId contextFreeParameter(std::uint32_t function, std::size_t index);
  TypeId computeParameter(std::uint32_t function, std::size_t index);
  TypeId applyDecorators(std::uint32_t function, FrameId closure, TypeId type);
  TypeId computeAttribute(TypeId object, std::string_view name);
  TypeId selfType(std::uint32_t function, bool as_class);
  TypeId moduleMember(std::uint32_t file, std::string_view name, int depth);
  TypeId resolveDotted(std::string_view dotted, std::uint32_t from_file, int depth);
  // What the name of a decorated def holds: the decorators applied (in the frame the def ran
  // in, `closure`, when it is a nested function).
  TypeId decoratedFunction(std::uint32_t function, FrameId closure = kNoId);
  // classes and attributes (attribute_types.cpp)
  ClassInfo& classInfo(std::uint32_t class_id);
  TypeId instanceAttribute(const Atom& instance, std::string_view name);
  TypeId classAttribute(std::uint32_t class_id, std::string_view name, TypeId receiver);
  TypeId methodAccess(std::uint32_t method, TypeId receiver, bool through_instance);
  TypeId writtenAttribute(const Atom& instance, std::string_view name);
  TypeId superAttribute(std::uint32_t class_id, TypeId receiver, std::string_view name);
  TypeId libraryAttribute(const Atom& atom, TypeId whole, std::string_view name);
  TypeId inheritedFromLibrary(std::uint32_t class_id, std::string_view name, TypeId receiver);
  // calls (call_results.cpp)
  TypeId instanceCall(std::uint32_t class_id, TypeId instance, const CallArguments& arguments);
  TypeId construct(std::uint32_t class_id, const CallArguments& arguments);
  TypeId libraryCall(std::string_view name, const CallArguments& arguments);
  // Where a torch op's result lives, from its arguments (a TensorMemory).
  std::uint8_t hostResultMemory(const CallArguments& arguments);
  TypeId libraryMethodCall(std::string_view method, TypeId receiver,
                           const CallArguments& arguments);
  TypeId parameterFromCallSites(std::uint32_t function, std::size_t index);

  bool spend();
  // Counts one level of nesting for as long as it lives; `ok()` is false past kMaxNesting.
  class Nesting {
   public:
    explicit Nesting(int& depth) : depth_(depth) { ++depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
    ~Nesting() { --depth_; }
    bool ok() const { return depth_ <= kMaxNesting; }

   private:
    int& depth_;
  };

  const ProgramIndex& index_;
  const CallSiteIndex& sites_;
  TypeTable types_;
  std::vector<Frame> frames_;
  std::unordered_map<std::string, FrameId> frame_ids_;
  std::vector<FrameId> plain_frames_;          // by function id; kNoId until made
  std::vector<std::uint16_t> context_frames_;  // by function id: frames with types made
  CycleTracker cycles_;
  CycleMemo<std::uint64_t, TypeId> memo_{cycles_};
  CycleMemo<std::uint64_t, TypeId> parameter_memo_{cycles_};
  // Attributes written from themselves need their own value: asked twice when they do.
  CycleMemo<std::string, TypeId> attribute_memo_{cycles_, 2};
  CycleMemo<std::string, TypeId> global_memo_{cycles_};
  CycleMemo<std::uint64_t, TypeId> decorated_memo_{cycles_};
  std::vector<ClassInfo> classes_;
  // Attribute writes by attribute name.
  std::unordered_map<std::string, std::vector<std::pair<std::uint32_t, const AttributeWrite*>>>
      writes_;
  bool writes_built_ = false;
  std::vector<std::pair<std::uint32_t, const AttributeWrite*>> no_writes_;
  // The calls of each name, by the function they run (with what binds before the arguments).
  struct SiteCall {
    const CallSite* site = nullptr;
    TypeId bound = kBottom;  // the receiver, or kBottom
  };
  using SitesByTarget = std::unordered_map<std::uint32_t, std::vector<SiteCall>>;
  std::shared_ptr<const SitesByTarget> sitesByTarget(std::string_view name);
  CycleMemo<std::string, std::shared_ptr<const SitesByTarget>> site_memo_{cycles_};
  std::vector<std::vector<std::uint32_t>> subclasses_;
  bool subclasses_built_ = false;
  bool resolving_classes_ = false;
  std::size_t evaluations_ = 0;
  std::size_t site_visits_ = 0;
  int context_depth_ = 0;
  int nesting_ = 0;
};

}  // namespace graphsafe::program
