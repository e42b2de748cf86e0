#include "analyzer/program/call_targets.h"

#include <algorithm>

namespace graphsafe::program {

namespace {

// Partials of partials, Sequential in Sequential: followed this deep.
constexpr int kMaxCallableDepth = 4;

class Collector {
 public:
  Collector(TypeEvaluator& evaluator, const CallArguments& arguments)
      : evaluator_(evaluator), arguments_(arguments) {}

  // Every function a value of type `callee` runs when called with the call's arguments.
  void add(TypeId callee, const Supplier& supplier, std::size_t extra_offset = 0, int depth = 0) {
    if (depth > kMaxCallableDepth) return;
    TypeTable& types = evaluator_.types();
    for (const Atom& atom : types.atoms(callee)) {
      switch (atom.kind) {
        case Atom::Kind::kFunction:
          push(atom.a, {}, supplier, extra_offset, atom.c - 1);
          break;
        case Atom::Kind::kBoundMethod:
          push(atom.a, {atom.b}, supplier, extra_offset, atom.c - 1);
          break;
        case Atom::Kind::kClass: {
          std::uint32_t init = evaluator_.lookupMethod(atom.a, "__init__");
          if (init != kNoId) {
            push(init, {types.atom({Atom::Kind::kInstance, 0, atom.a, 0})}, supplier, extra_offset);
          }
          break;
        }
        case Atom::Kind::kInstance: {
          std::uint32_t method = evaluator_.callMethodOf(atom.a);
          if (method != kNoId) push(method, {types.atom(atom)}, supplier, extra_offset);
          break;
        }
        case Atom::Kind::kPartial:
          add(atom.a, supplier, extra_offset + atom.b, depth + 1);
          break;
        case Atom::Kind::kExternal:
          if (atom.b == 0) addCalledArgument(types.nameAt(atom.a), supplier, depth);
          break;
        case Atom::Kind::kContainer:
          // nn.Sequential(a, b)(x) calls each of its modules.
          if (static_cast<Holder>(atom.sub) == Holder::kSequential) {
            add(atom.a, supplier, extra_offset, depth + 1);
          }
          break;
        default:
          break;
      }
    }
  }

  bool empty() const { return targets_.empty(); }

  // map(f, xs) and filter(f, xs) call f on each element of xs.
  void addCalledArgument(std::string_view library, const Supplier& supplier, int depth) {
    if ((library != "builtins.map" && library != "builtins.filter") ||
        arguments_.positional.size() < 2) {
      return;
    }
    CallArguments each;
    for (std::size_t i = 1; i < arguments_.positional.size(); ++i) {
      each.positional.push_back(evaluator_.elementType(arguments_.positional[i], -1, {}));
    }
    Collector inner(evaluator_, each);
    inner.add(arguments_.positional[0], supplier, 0, depth + 1);
    for (CallTarget& target : inner.targets_) targets_.push_back(std::move(target));
  }

  void addFunction(std::uint32_t function, std::vector<TypeId> bound) {
    push(function, std::move(bound), {}, 0);
  }

  std::vector<CallTarget> take() {
    // Sorted by function, the first way in (the one with a supplier, when there is one) kept.
    std::stable_sort(targets_.begin(), targets_.end(),
                     [](const CallTarget& a, const CallTarget& b) { return a.function < b.function; });
    targets_.erase(std::unique(targets_.begin(), targets_.end(),
                               [](const CallTarget& a, const CallTarget& b) {
                                 return a.function == b.function && a.offset == b.offset;
                               }),
                   targets_.end());
    return std::move(targets_);
  }

 private:
  void push(std::uint32_t function, std::vector<TypeId> bound, const Supplier& supplier,
            std::size_t extra_offset, FrameId closure = kNoId) {
    CallTarget target;
    target.function = function;
    target.offset = bound.size() + extra_offset;
    // A partial's own arguments are not typed: its parameters there stay context-free.
    bound.resize(target.offset, kBottom);
    target.frame =
        evaluator_.frame(function, evaluator_.bindParameters(function, arguments_, bound), closure);
    target.supplier = supplier;
    targets_.push_back(std::move(target));
  }

  TypeEvaluator& evaluator_;
  const CallArguments& arguments_;
  std::vector<CallTarget> targets_;
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
  const Reference& object = file.references[callee.operands[0]];
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
                                    const FileModel& file, const Event& call) {
  const Reference* reference =
      call.call != kNoRef && call.call < file.references.size() ? &file.references[call.call]
                                                                : nullptr;
  CallArguments arguments;
  if (reference != nullptr) arguments = evaluator.argumentsOf(caller, *reference);
  Collector collector(evaluator, arguments);
  if (reference != nullptr && !reference->operands.empty() && reference->operands[0] != kNoRef) {
    const RefId callee_ref = reference->operands[0];
    const Reference& callee = file.references[callee_ref];
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
  return collector.take();
}

}  // namespace graphsafe::program
