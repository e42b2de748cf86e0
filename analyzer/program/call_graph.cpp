#include "analyzer/program/call_graph.h"

#include <algorithm>
#include <unordered_map>

namespace graphsafe {

using program::Atom;
using program::TypeId;

namespace {

// `outer.<locals>.inner` -> `outer.inner`.
std::string withoutLocals(std::string name) {
  static constexpr std::string_view kLocals = ".<locals>";
  for (std::size_t at = name.find(kLocals); at != std::string::npos; at = name.find(kLocals)) {
    name.erase(at, kLocals.size());
  }
  return name;
}

class Namer {
 public:
  explicit Namer(const ProgramModel& program) : program_(program) {}

  std::string function(std::uint32_t id) {
    auto cached = names_.find(id);
    if (cached != names_.end()) return cached->second;
    FunctionRef ref = program_.function(id);
    const FileModel& file = *ref.file;
    const FunctionModel& model = *ref.function;
    std::string name;
    if (model.is_module_level) {
      name = file.module_name;
    } else if (model.is_lambda) {
      const FunctionId parent = model.parent == kNoFunction ? 0 : model.parent;
      name = function(program_.functionId(file, file.functions[parent])) + ".<lambda" +
             std::to_string(lambdaNumber(file, ref.function)) + ">";
    } else if (model.parent != kNoFunction && model.parent != 0 && model.class_index < 0) {
      name = function(program_.functionId(file, file.functions[model.parent])) + "." + model.name;
    } else {
      std::string qualified = withoutLocals(model.qualified_name);
      name = file.module_name.empty() ? qualified : file.module_name + "." + qualified;
    }
    names_.emplace(id, name);
    return name;
  }

 private:
  // Lambdas are numbered in source order within the function that holds them.
  std::size_t lambdaNumber(const FileModel& file, const FunctionModel* lambda) {
    std::vector<const FunctionModel*> siblings;
    for (const FunctionModel& other : file.functions) {
      if (other.is_lambda && other.parent == lambda->parent) siblings.push_back(&other);
    }
    std::sort(siblings.begin(), siblings.end(), [](const FunctionModel* a, const FunctionModel* b) {
      return a->range.begin < b->range.begin;
    });
    return static_cast<std::size_t>(
               std::find(siblings.begin(), siblings.end(), lambda) - siblings.begin()) +
           1;
  }

  const ProgramModel& program_;
  std::unordered_map<std::uint32_t, std::string> names_;
};

std::string externalName(std::string_view dotted) {
  if (dotted.starts_with("builtins.")) return "<builtin>." + std::string(dotted.substr(9));
  return std::string(dotted);
}

}  // namespace

CallGraph callGraph(const ProgramModel& program) {
  CallGraph graph;
  Namer namer(program);
  program::TypeEvaluator& evaluator = program.evaluator();
  const program::TypeTable& types = evaluator.types();
  for (const FileModel& file : program.files()) {
    if (!file.lowered || file.language != Language::kPython) continue;
    for (const FunctionModel& function : file.functions) {
      const std::string caller = namer.function(program.functionId(file, function));
      std::set<std::string>& callees = graph[caller];
      const program::FrameId frame = program.plainFrame(file, function);
      for (const Event& event : function.events) {
        if (event.kind != EventKind::kCall) continue;
        for (const program::CallTarget& target : program.callTargets(frame, file, event)) {
          callees.insert(namer.function(target.function));
        }
        if (event.call == kNoRef || event.call >= file.references.size()) continue;
        // `raise Error`: the program's constructor is a call, a library's is not followed.
        if (event.api == "raise") continue;
        const Reference& call = file.references[event.call];
        if (call.operands.empty() || call.operands[0] == kNoRef) continue;
        // Library code the call runs: a function of a module not analyzed, a builtin, the
        // constructor of a class whose __init__ is a library base's.
        for (const Atom& atom : types.atoms(evaluator.typeOf(frame, call.operands[0]))) {
          if (atom.kind == Atom::Kind::kExternal && atom.b == 0) {
            callees.insert(externalName(types.nameAt(atom.a)));
          } else if (atom.kind == Atom::Kind::kClass &&
                     evaluator.lookupMethod(atom.a, "__init__") == program::kNoId) {
            if (std::uint32_t base = evaluator.externalBase(atom.a); base != 0) {
              callees.insert(externalName(types.nameAt(base)) + ".__init__");
            }
          }
        }
      }
      for (const std::string& builtin : function.builtin_calls) callees.insert("<builtin>." + builtin);
    }
  }
  // Every callee is a node too, as PyCG lists them.
  std::vector<std::string> nodes;
  for (const auto& [caller, callees] : graph) nodes.insert(nodes.end(), callees.begin(), callees.end());
  for (const std::string& node : nodes) graph.try_emplace(node);
  return graph;
}

}  // namespace graphsafe
