#include "analyzer/program/call_targets.h"

#include <algorithm>
#include <deque>

namespace graphsafe::program {

namespace {

// Partials of partials, Sequential in Sequential: followed this deep.
constexpr int kMaxCallableDepth = 4;

// Collects what a call runs; the call's arguments are typed (for the callees' frames) only
// once it is known to run code of the program: most calls run a library's.
class Collector {
 public:
  Collector(TypeEvaluator& evaluator, FrameId caller, const Reference* call, bool with_frames)
      : evaluator_(evaluator), caller_(caller), call_(call), with_frames_(with_frames) {}

  // Every function a value of type `callee` runs when called with the call's arguments.
  void add(TypeId callee, const Supplier& supplier, std::size_t extra_offset = 0, int depth = 0,
           const CallArguments* arguments = nullptr) {
    if (depth > kMaxCallableDepth) return;
    TypeTable& types = evaluator_.types();
    for (const Atom& atom : types.atoms(callee)) {
      switch (atom.kind) {
        case Atom::Kind::kFunction:
          push({atom.a, {}, supplier, extra_offset, atom.c - 1, arguments});
          break;
        case Atom::Kind::kBoundMethod:
          push({atom.a, {atom.b}, supplier, extra_offset, atom.c - 1, arguments});
          break;
        case Atom::Kind::kClass: {
          std::uint32_t init = evaluator_.lookupMethod(atom.a, "__init__");
          if (init != kNoId) {
            push({init, {types.atom({Atom::Kind::kInstance, 0, atom.a, 0})}, supplier,
                  extra_offset, kNoId, arguments});
          }
          break;
        }
        case Atom::Kind::kInstance: {
          std::uint32_t method = evaluator_.callMethodOf(atom.a);
          if (method != kNoId) {
            push({method, {types.atom(atom)}, supplier, extra_offset, kNoId, arguments});
          }
          break;
        }
        case Atom::Kind::kPartial:
          add(atom.a, supplier, extra_offset + atom.b, depth + 1, arguments);
          break;
        case Atom::Kind::kExternal:
          if (atom.b == 0) addCalledArgument(types.nameAt(atom.a), supplier, depth);
          break;
        case Atom::Kind::kContainer:
          // nn.Sequential(a, b)(x) calls each of its modules.
          if (static_cast<Holder>(atom.sub) == Holder::kSequential) {
            add(atom.a, supplier, extra_offset, depth + 1, arguments);
          }
          break;
        default:
          break;
      }
    }
  }

  bool empty() const { return pending_.empty(); }

  void addFunction(std::uint32_t function, std::vector<TypeId> bound) {
    push({function, std::move(bound), {}, 0, kNoId, nullptr});
  }

  std::vector<CallTarget> take() {
    std::vector<CallTarget> targets;
    targets.reserve(pending_.size());
    for (Pending& pending : pending_) {
      CallTarget target;
      target.function = pending.function;
      target.offset = pending.bound.size() + pending.extra_offset;
      target.supplier = pending.supplier;
      if (with_frames_) {
        // A partial's own arguments are not typed: its parameters there stay context-free.
        pending.bound.resize(target.offset, kBottom);
        const CallArguments& arguments =
            pending.arguments != nullptr ? *pending.arguments : callArguments();
        target.frame = evaluator_.frame(
            pending.function, evaluator_.bindParameters(pending.function, arguments, pending.bound),
            pending.closure);
      } else {
        target.frame = evaluator_.plainFrame(pending.function);
      }
      targets.push_back(std::move(target));
    }
    // Sorted by function, the first way in (the one with a supplier, when there is one) kept.
    std::stable_sort(targets.begin(), targets.end(),
                     [](const CallTarget& a, const CallTarget& b) { return a.function < b.function; });
    targets.erase(std::unique(targets.begin(), targets.end(),
                              [](const CallTarget& a, const CallTarget& b) {
                                return a.function == b.function && a.offset == b.offset;
                              }),
                  targets.end());
    return targets;
  }

 private:
  struct Pending {
    std::uint32_t function = kNoId;
    std::vector<TypeId> bound;
    Supplier supplier;
    std::size_t extra_offset = 0;
    FrameId closure = kNoId;
    const CallArguments* arguments = nullptr;  // null: the call's own
  };

  void push(Pending pending) { pending_.push_back(std::move(pending)); }

  const CallArguments& callArguments() {
    if (!arguments_typed_) {
      arguments_typed_ = true;
      if (call_ != nullptr) arguments_ = evaluator_.argumentsOf(caller_, *call_);
    }
    return arguments_;
  }

  // map(f, xs) and filter(f, xs) call f on each element of xs.
  void addCalledArgument(std::string_view library, const Supplier& supplier, int depth) {
    if (library != "builtins.map" && library != "builtins.filter") return;
    const CallArguments& arguments = callArguments();
    if (arguments.positional.size() < 2) return;
    auto& each = derived_.emplace_back();
    for (std::size_t i = 1; i < arguments.positional.size(); ++i) {
      each.positional.push_back(evaluator_.elementType(arguments.positional[i], -1, {}));
    }
    add(arguments.positional[0], supplier, 0, depth + 1, &each);
  }

  TypeEvaluator& evaluator_;
  FrameId caller_;
  const Reference* call_;
  bool with_frames_ = true;
  bool arguments_typed_ = false;
  CallArguments arguments_;
  std::deque<CallArguments> derived_;  // argument lists made here (stable addresses)
  std::vector<Pending> pending_;
};

// The callee is a parameter the frame does not bind (the region's own function, reached from
// no call; a closure's enclosing function): each call of that function supplies what it passes.
void addSuppliedParameter(TypeEvaluator& evaluator, FrameId caller, const FileModel& file,
                          const Reference& callee, Collector& collector) {
  const std::uint32_t owner = evaluator.functionId(file, callee.function);
  const auto index = static_cast<std::size_t>(std::max(callee.index, 0));
  const FrameId binding = evaluator.frameOfFunction(caller, owner);
  if (binding != kNoId) {
    const auto& params = evaluator.frameParams(binding);
    if (index < params.size() && params[index] != kBottom) return;  // the path says
  }
  evaluator.forEachCall(owner, [&](const CallSite& site, const std::vector<TypeId>& params) {
    if (index >= params.size()) return;
    Supplier supplier;
    supplier.kind = Supplier::Kind::kArgument;
    supplier.site = site;
    collector.add(params[index], supplier);
  });
}

// `self.fn(x)` where the class's methods set `self.fn = fn` from a parameter: the calls of
// that method supply it (the constructor call `Runner(step)`).
void addSuppliedAttribute(TypeEvaluator& evaluator, FrameId caller, const FileModel& file,
                          const Reference& callee, Collector& collector) {
  const Reference& object = file.references[throughLocal(file.references, callee.operands[0])];
  if (object.kind != Reference::Kind::kParameter || object.index != 0) return;
  TypeTable& types = evaluator.types();
  TypeId receiver = evaluator.typeOf(caller, callee.operands[0]);
  for (const auto& [write_file, write] : evaluator.writesNamed(callee.name)) {
    if (write->augmented || write->function == kNoFunction) continue;
    const FileModel& writer_file = evaluator.index().file(write_file);
    const Reference& value = writer_file.references[write->value];
    if (value.kind != Reference::Kind::kParameter || value.function != write->function) continue;
    const std::uint32_t writer = evaluator.functionId(writer_file, write->function);
    // The write must be on an object the receiver may be.
    TypeId written_on = evaluator.typeOf(evaluator.plainFrame(writer), write->object);
    bool shared = false;
    for (const Atom& atom : types.atoms(receiver)) {
      shared = shared ||
               (atom.kind == Atom::Kind::kInstance && evaluator.holdsInstanceOf(written_on, atom.a));
    }
    if (!shared) continue;
    const auto index = static_cast<std::size_t>(std::max(value.index, 0));
    evaluator.forEachCall(writer, [&](const CallSite& site, const std::vector<TypeId>& params) {
      if (index >= params.size()) return;
      Supplier supplier;
      supplier.kind = Supplier::Kind::kAttribute;
      supplier.site = site;
      supplier.write = write;
      supplier.write_file = write_file;
      collector.add(params[index], supplier);
    });
  }
}

}  // namespace

std::vector<CallTarget> callTargets(TypeEvaluator& evaluator, FrameId caller,
                                    const FileModel& file, const Event& call, bool with_frames) {
  const Reference* reference =
      call.call != kNoRef && call.call < file.references.size() ? &file.references[call.call]
                                                                : nullptr;
  Collector collector(evaluator, caller, reference, with_frames);
  if (reference != nullptr && !reference->operands.empty() && reference->operands[0] != kNoRef) {
    const RefId callee_ref = reference->operands[0];
    const Reference& callee = file.references[throughLocal(file.references, callee_ref)];
    if (callee.kind == Reference::Kind::kParameter) {
      addSuppliedParameter(evaluator, caller, file, callee, collector);
    } else if (callee.kind == Reference::Kind::kAttribute && !callee.operands.empty() &&
               callee.operands[0] != kNoRef) {
      addSuppliedAttribute(evaluator, caller, file, callee, collector);
    }
    collector.add(evaluator.typeOf(caller, callee_ref), Supplier{});
  }
  // What lowering resolved within the file, when the types say nothing (a call it made an event
  // for without a reference). Not otherwise: lowering does not apply decorators.
  if (collector.empty() && call.callee != kNoFunction && call.callee < file.functions.size()) {
    const std::uint32_t function = evaluator.functionId(file, call.callee);
    const FunctionModel& model = file.functions[call.callee];
    std::vector<TypeId> bound;
    if (((call.flags & kFlagBoundMethod) != 0 ||
         (model.is_method && call.args.size() + 1 == model.params.size())) &&
        !model.params.empty()) {
      bound.push_back(kBottom);
    }
    collector.addFunction(function, std::move(bound));
  }
  // C++: a function only declared in the caller's translation unit, defined in another file
  // of the program under the same qualified name (a launcher in another .cu, a header's inline
  // function analyzed as its own file).
  if (collector.empty() && file.language == Language::kCuda && call.callee == kNoFunction &&
      !call.callee_qualified.empty()) {
    for (std::uint32_t function : evaluator.index().cppFunctions(call.callee_qualified)) {
      collector.addFunction(function, {});
    }
  }
  return collector.take();
}

}  // namespace graphsafe::program
