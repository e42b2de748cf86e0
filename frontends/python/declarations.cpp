#include "frontends/python/declarations.h"

#include <algorithm>

#include "analyzer/model/literal_key.h"
#include "frontends/python/python_apis.h"

namespace graphsafe::python {

namespace {

// Longer attribute chains than this are not names anyone imports.
constexpr std::size_t kMaxChainLength = 32;
// Base-class chains are followed this many classes deep at most (cycles are possible in
// broken code).
constexpr int kMaxClassWalk = 64;

class DeclarationPass {
 public:
  DeclarationPass(CursorPool& pool, const SourceText& text, FileIndex& index, FileModel& model)
      : pool_(pool), text_(text), index_(index), model_(model), g_(Grammar::get()) {}

  void run(TSNode root) {
    FunctionModel module;
    module.name = "<module>";
    module.qualified_name = "<module>";
    module.is_module_level = true;
    module.range = text_.range(0, 0);
    module.body = text_.range(ts_node_start_byte(root), ts_node_end_byte(root));
    model_.functions.push_back(std::move(module));
    index_.functions.emplace_back();
    walkBlock(root, 0, -1, 0);
  }

 private:
  bool atModuleLevel(FunctionId scope, std::int32_t class_index) const {
    return scope == 0 && class_index < 0;
  }

  void walkBlock(TSNode block, FunctionId scope, std::int32_t class_index, int depth) {
    if (depth > kMaxNestingDepth) return;
    for (Children it(pool_, block); it.valid(); it.next()) {
      walkStatement(it.node(), scope, class_index, depth + 1);
    }
  }

  // Visits the blocks of a compound statement (and of its elif/else/except/finally/case parts).
  void walkNested(TSNode statement, FunctionId scope, std::int32_t class_index, int depth) {
    if (depth > kMaxNestingDepth) return;
    for (Children it(pool_, statement); it.valid(); it.next()) {
      TSNode child = it.node();
      TSSymbol symbol = ts_node_symbol(child);
      if (symbol == g_.block) {
        walkBlock(child, scope, class_index, depth + 1);
      } else if (symbol == g_.elif_clause || symbol == g_.else_clause ||
                 symbol == g_.except_clause || symbol == g_.finally_clause ||
                 symbol == g_.case_clause) {
        walkNested(child, scope, class_index, depth + 1);
      }
    }
  }

  void walkStatement(TSNode node, FunctionId scope, std::int32_t class_index, int depth) {
    if (depth > kMaxNestingDepth) return;
    TSSymbol symbol = ts_node_symbol(node);
    if (symbol == g_.function_definition) {
      declareFunction(node, TSNode{}, scope, class_index, depth);
    } else if (symbol == g_.decorated_definition) {
      TSNode definition = field(node, g_.f_definition);
      if (is(definition, g_.function_definition)) {
        declareFunction(definition, node, scope, class_index, depth);
      } else if (is(definition, g_.class_definition)) {
        declareClass(definition, scope, class_index, depth);
      }
    } else if (symbol == g_.class_definition) {
      declareClass(node, scope, class_index, depth);
    } else if (symbol == g_.import_statement || symbol == g_.import_from_statement) {
      index_.imports.read(node, pool_, text_, index_.module);
    } else if (symbol == g_.expression_statement) {
      for (Children it(pool_, node); it.valid(); it.next()) {
        noteExpressionStatement(it.node(), scope, class_index);
      }
    } else if (symbol == g_.global_statement) {
      if (scope != 0) {
        for (Children it(pool_, node); it.valid(); it.next()) {
          if (is(it.node(), g_.identifier)) index_.globals_written.insert(text_.of(it.node()));
        }
      }
    } else if (symbol == g_.for_statement) {
      if (atModuleLevel(scope, class_index)) countTargets(field(node, g_.f_left), 0);
      walkNested(node, scope, class_index, depth);
    } else if (symbol == g_.with_statement) {
      if (atModuleLevel(scope, class_index)) countWithTargets(node);
      walkNested(node, scope, class_index, depth);
    } else if (symbol == g_.if_statement || symbol == g_.while_statement ||
               symbol == g_.try_statement || symbol == g_.match_statement) {
      walkNested(node, scope, class_index, depth);
    } else if (symbol == g_.block || ts_node_is_error(node)) {
      // Recovered code: whatever statements tree-sitter kept are still declarations.
      walkBlock(node, scope, class_index, depth);
    }
  }

  void noteExpressionStatement(TSNode node, FunctionId scope, std::int32_t class_index) {
    TSSymbol symbol = ts_node_symbol(node);
    if (symbol == g_.assignment || symbol == g_.augmented_assignment) {
      noteAssignment(node, scope, class_index, symbol == g_.augmented_assignment, 0);
      return;
    }
    // self.register_buffer("name", tensor) / self.register_parameter(...)
    if (symbol == g_.call && scope != 0 && index_.functions[scope].has_self) {
      TSNode callee = field(node, g_.f_function);
      if (is(callee, g_.attribute) && isSelf(field(callee, g_.f_object), scope)) {
        std::string_view method = text_.of(field(callee, g_.f_attribute));
        if (method == "register_buffer" || method == "register_parameter") {
          index_.functions[scope].writes_self_attributes = true;
        }
      }
    }
  }

  void noteAssignment(TSNode node, FunctionId scope, std::int32_t class_index, bool augmented,
                      int depth) {
    if (depth > kMaxNestingDepth) return;
    TSNode left = field(node, g_.f_left);
    if (atModuleLevel(scope, class_index)) countTargets(left, 0);
    if (scope != 0 && index_.functions[scope].has_self && writesSelf(left, scope, 0)) {
      index_.functions[scope].writes_self_attributes = true;
    }
    TSNode right = field(node, g_.f_right);
    if (!augmented && is(right, g_.assignment)) {
      noteAssignment(right, scope, class_index, false, depth + 1);
    }
  }

  bool isSelf(TSNode node, FunctionId scope) const {
    if (!is(node, g_.identifier)) return false;
    const FunctionModel& function = model_.functions[scope];
    return !function.params.empty() && text_.of(node) == function.params.front().name;
  }

  bool writesSelf(TSNode target, FunctionId scope, int depth) {
    if (isNull(target) || depth > 16) return false;
    if (is(target, g_.attribute)) return isSelf(field(target, g_.f_object), scope);
    TSSymbol symbol = ts_node_symbol(target);
    if (symbol == g_.pattern_list || symbol == g_.tuple_pattern || symbol == g_.list_pattern) {
      for (Children it(pool_, target); it.valid(); it.next()) {
        if (writesSelf(it.node(), scope, depth + 1)) return true;
      }
    }
    return false;
  }

  void countTargets(TSNode target, int depth) {
    if (isNull(target) || depth > 16) return;
    TSSymbol symbol = ts_node_symbol(target);
    if (symbol == g_.identifier) {
      ++index_.module_bindings[text_.of(target)];
    } else if (symbol == g_.pattern_list || symbol == g_.tuple_pattern ||
               symbol == g_.list_pattern || symbol == g_.list_splat_pattern) {
      for (Children it(pool_, target); it.valid(); it.next()) countTargets(it.node(), depth + 1);
    }
  }

  void countWithTargets(TSNode with) {
    for (Children clause(pool_, with); clause.valid(); clause.next()) {
      if (!is(clause.node(), g_.with_clause)) continue;
      for (Children item(pool_, clause.node()); item.valid(); item.next()) {
        TSNode value = field(item.node(), g_.f_value);
        if (!is(value, g_.as_pattern)) continue;
        TSNode alias = field(value, g_.f_alias);
        if (!isNull(alias)) countTargets(firstNamedChild(pool_, alias), 0);
      }
    }
  }

  void declareFunction(TSNode definition, TSNode decorated, FunctionId scope,
                       std::int32_t class_index, int depth) {
    TSNode name_node = field(definition, g_.f_name);
    if (isNull(name_node)) return;
    auto id = static_cast<FunctionId>(model_.functions.size());
    std::string_view name = text_.of(name_node);

    FunctionModel function;
    function.name = std::string(name);
    if (class_index >= 0) {
      function.qualified_name = index_.classes[class_index].qualified + "." + function.name;
    } else if (scope == 0) {
      function.qualified_name = function.name;
    } else {
      function.qualified_name =
          model_.functions[scope].qualified_name + ".<locals>." + function.name;
    }
    function.range = text_.range(name_node);
    function.body = text_.range(isNull(decorated) ? definition : decorated);
    function.is_method = class_index >= 0;
    function.parent = scope;
    function.class_index = class_index;

    FunctionDecl decl;
    decl.node = definition;
    decl.decorated = decorated;
    decl.parent = scope;
    decl.class_index = class_index;
    readParameters(field(definition, g_.f_parameters), function, decl);

    bool is_static = false;
    if (!isNull(decorated)) {
      for (Children it(pool_, decorated); it.valid(); it.next()) {
        if (!is(it.node(), g_.decorator)) continue;
        std::string_view decorator = text_.of(firstNamedChild(pool_, it.node()));
        if (decorator == "staticmethod" || decorator == "classmethod") is_static = true;
        if (!function.is_method) continue;
        function.is_classmethod = function.is_classmethod || decorator == "classmethod";
        function.is_staticmethod = function.is_staticmethod || decorator == "staticmethod";
        function.is_property = function.is_property || decorator == "property" ||
                               decorator == "functools.cached_property" ||
                               decorator == "cached_property";
      }
    }
    decl.has_self = function.is_method && !is_static && !function.params.empty();
    function.has_self = decl.has_self;

    if (class_index >= 0) {
      index_.classes[class_index].methods[name] = id;
      auto& methods = model_.classes[static_cast<std::size_t>(class_index)].methods;
      // The last definition of a name wins, as it does when the class body runs.
      auto slot = std::find_if(methods.begin(), methods.end(),
                               [&](const auto& entry) { return entry.first == name; });
      if (slot != methods.end()) {
        slot->second = id;
      } else {
        methods.emplace_back(std::string(name), id);
      }
    } else {
      index_.functions[scope].defs[name] = id;
    }
    model_.functions.push_back(std::move(function));
    index_.functions.push_back(std::move(decl));
    walkBlock(field(definition, g_.f_body), id, -1, depth + 1);
  }

  void declareClass(TSNode definition, FunctionId scope, std::int32_t class_index, int depth) {
    TSNode name_node = field(definition, g_.f_name);
    if (isNull(name_node)) return;
    auto index = static_cast<std::int32_t>(index_.classes.size());
    ClassDecl decl;
    decl.name = text_.of(name_node);
    if (class_index >= 0) {
      decl.qualified = index_.classes[class_index].qualified + "." + std::string(decl.name);
    } else if (scope == 0) {
      decl.qualified = std::string(decl.name);
    } else {
      decl.qualified =
          model_.functions[scope].qualified_name + ".<locals>." + std::string(decl.name);
    }
    decl.node = definition;
    decl.scope = scope;
    TSNode bases = field(definition, g_.f_superclasses);
    if (!isNull(bases)) {
      for (Children it(pool_, bases); it.valid(); it.next()) {
        if (!is(it.node(), g_.keyword_argument)) decl.bases.push_back(it.node());
      }
    }
    // A class nested in a class body is reachable only through the outer class: not by name.
    if (class_index < 0) index_.functions[scope].classes[decl.name] = index;
    ClassModel model;
    model.name = std::string(decl.name);
    model.qualified_name = decl.qualified;
    model.range = text_.range(name_node);
    model.scope = scope;
    model.outer_class = class_index;
    model_.classes.push_back(std::move(model));
    index_.classes.push_back(std::move(decl));
    walkBlock(field(definition, g_.f_body), scope, index, depth + 1);
    auto& methods = model_.classes[static_cast<std::size_t>(index)].methods;
    std::sort(methods.begin(), methods.end());
  }

  void readParameters(TSNode parameters, FunctionModel& function, FunctionDecl& decl) {
    if (isNull(parameters)) return;
    for (Children it(pool_, parameters); it.valid(); it.next()) {
      TSNode parameter = it.node();
      TSSymbol symbol = ts_node_symbol(parameter);
      TSNode name{};
      TSNode type{};
      TSNode fallback{};  // the default value
      if (symbol == g_.identifier) {
        name = parameter;
      } else if (symbol == g_.typed_parameter) {
        name = firstNamedChild(pool_, parameter);
        type = field(parameter, g_.f_type);
      } else if (symbol == g_.default_parameter) {
        name = field(parameter, g_.f_name);
        fallback = field(parameter, g_.f_value);
      } else if (symbol == g_.typed_default_parameter) {
        name = field(parameter, g_.f_name);
        type = field(parameter, g_.f_type);
        fallback = field(parameter, g_.f_value);
      } else if (symbol == g_.list_splat_pattern || symbol == g_.dictionary_splat_pattern) {
        name = parameter;
      } else if (symbol == g_.tuple_pattern) {
        name = parameter;
      } else {
        continue;  // the bare `*` and `/` separators
      }
      // *args / **kwargs: the identifier inside the splat.
      bool splat = is(name, g_.list_splat_pattern) || is(name, g_.dictionary_splat_pattern);
      bool keywords = is(name, g_.dictionary_splat_pattern);
      if (splat) name = firstNamedChild(pool_, name);
      if (isNull(name)) continue;
      Parameter entry;
      entry.name = std::string(text_.of(name));
      entry.variadic = splat;
      entry.keywords = keywords;
      if (!isNull(fallback)) entry.default_literal = literalKey(text_.of(fallback)).value_or("");
      function.params.push_back(std::move(entry));
      decl.param_names.push_back(name);
      decl.param_types.push_back(type);
      decl.param_defaults.push_back(fallback);
      decl.param_splat.push_back(splat);
    }
  }

  CursorPool& pool_;
  const SourceText& text_;
  FileIndex& index_;
  FileModel& model_;
  const Grammar& g_;
};

}  // namespace

void collectDeclarations(TSNode root, CursorPool& pool, const SourceText& text, FileIndex& index,
                         FileModel& model) {
  DeclarationPass(pool, text, index, model).run(root);
}

FunctionId declareLambda(TSNode lambda, FunctionId parent, CursorPool& pool, const SourceText& text,
                         FileIndex& index, FileModel& model) {
  const Grammar& g = Grammar::get();
  auto id = static_cast<FunctionId>(model.functions.size());
  FunctionModel function;
  function.name = "<lambda>";
  // A lambda in a lambda in a lambda...: each level's name would hold all the levels above it,
  // memory quadratic in the depth (a 200 KB file of them took 6 GB). Past a few dozen levels
  // the name stops growing: nobody names such a function, and messages stay readable.
  constexpr std::size_t kMaxNestedName = 512;
  const std::string& outer = model.functions[parent].qualified_name;
  function.qualified_name = parent == 0                     ? std::string("<lambda>")
                            : outer.size() > kMaxNestedName ? outer
                                                            : outer + ".<locals>.<lambda>";
  function.range = text.range(lambda);
  function.body = function.range;
  function.parent = parent;
  function.is_lambda = true;
  FunctionDecl decl;
  decl.node = lambda;
  decl.parent = parent;
  decl.is_lambda = true;
  TSNode parameters = field(lambda, g.f_parameters);
  if (!isNull(parameters)) {
    for (Children it(pool, parameters); it.valid(); it.next()) {
      TSNode name = it.node();
      TSNode fallback{};
      bool splat = false;
      bool keywords = false;
      if (is(name, g.default_parameter) || is(name, g.typed_default_parameter)) {
        fallback = field(name, g.f_value);
        name = field(name, g.f_name);
      } else if (is(name, g.list_splat_pattern) || is(name, g.dictionary_splat_pattern)) {
        keywords = is(name, g.dictionary_splat_pattern);
        name = firstNamedChild(pool, name);
        splat = true;
      } else if (!is(name, g.identifier)) {
        continue;
      }
      if (!is(name, g.identifier)) continue;
      Parameter entry;
      entry.name = std::string(text.of(name));
      entry.variadic = splat;
      entry.keywords = keywords;
      function.params.push_back(std::move(entry));
      decl.param_names.push_back(name);
      decl.param_types.emplace_back();
      decl.param_defaults.push_back(fallback);
      decl.param_splat.push_back(splat);
    }
  }
  model.functions.push_back(std::move(function));
  index.functions.push_back(std::move(decl));
  return id;
}

bool attributeChain(TSNode node, std::vector<TSNode>& parts) {
  const Grammar& g = Grammar::get();
  while (is(node, g.attribute)) {
    if (parts.size() >= kMaxChainLength) return false;
    TSNode name = field(node, g.f_attribute);
    if (isNull(name)) return false;
    parts.push_back(name);
    node = field(node, g.f_object);
  }
  if (!is(node, g.identifier)) return false;
  parts.push_back(node);
  return true;
}

void resolveClassBases(CursorPool& pool, const SourceText& text, FileIndex& index) {
  const Grammar& g = Grammar::get();
  for (ClassDecl& decl : index.classes) {
    for (TSNode base : decl.bases) {
      base = unparenthesize(pool, base);
      if (is(base, g.identifier)) {
        // A class of this file visible from the class's scope.
        std::string_view name = text.of(base);
        std::int32_t found = -1;
        for (FunctionId scope = decl.scope; scope != kNoFunction && found < 0;
             scope = index.functions[scope].parent) {
          auto it = index.functions[scope].classes.find(name);
          if (it != index.functions[scope].classes.end()) found = it->second;
        }
        if (found >= 0) {
          decl.base_classes.push_back(found);
          continue;
        }
      }
      std::string imported =
          importedName(base, pool, text, index.imports, [](std::string_view) { return false; });
      if (imported.empty()) continue;
      std::string_view canonical = canonicalApiName(imported);
      if (canonical == "torch.nn.Module" || classifyFunction(canonical) == ApiKind::kNnModule) {
        decl.derives_module = true;
      }
    }
  }
  // Through bases of this file; as many rounds as there are classes reach a fixed point.
  for (std::size_t round = 0; round < index.classes.size(); ++round) {
    bool changed = false;
    for (ClassDecl& decl : index.classes) {
      if (decl.derives_module) continue;
      for (std::int32_t base : decl.base_classes) {
        if (index.classes[base].derives_module) {
          decl.derives_module = true;
          changed = true;
          break;
        }
      }
    }
    if (!changed) break;
  }
}

FunctionId findMethod(const FileIndex& index, std::int32_t class_index, std::string_view name) {
  if (class_index < 0 || static_cast<std::size_t>(class_index) >= index.classes.size()) {
    return kNoFunction;
  }
  const ClassDecl& own = index.classes[static_cast<std::size_t>(class_index)];
  auto found = own.methods.find(name);
  if (found != own.methods.end()) return found->second;
  if (own.base_classes.empty()) return kNoFunction;
  std::vector<std::int32_t> queue{class_index};
  for (std::size_t i = 0; i < queue.size() && i < kMaxClassWalk; ++i) {
    std::int32_t current = queue[i];
    if (current < 0 || static_cast<std::size_t>(current) >= index.classes.size()) continue;
    const ClassDecl& decl = index.classes[current];
    auto it = decl.methods.find(name);
    if (it != decl.methods.end()) return it->second;
    queue.insert(queue.end(), decl.base_classes.begin(), decl.base_classes.end());
  }
  return kNoFunction;
}

const AttributeFacts* findAttribute(const FileIndex& index, std::int32_t class_index,
                                    std::string_view name) {
  if (class_index < 0 || static_cast<std::size_t>(class_index) >= index.classes.size()) {
    return nullptr;
  }
  const ClassDecl& own = index.classes[static_cast<std::size_t>(class_index)];
  auto found = own.attributes.find(name);
  if (found != own.attributes.end() && found->second.seen) return &found->second;
  if (own.base_classes.empty()) return nullptr;
  std::vector<std::int32_t> queue{class_index};
  for (std::size_t i = 0; i < queue.size() && i < kMaxClassWalk; ++i) {
    std::int32_t current = queue[i];
    if (current < 0 || static_cast<std::size_t>(current) >= index.classes.size()) continue;
    const ClassDecl& decl = index.classes[current];
    auto it = decl.attributes.find(name);
    if (it != decl.attributes.end() && it->second.seen) return &it->second;
    queue.insert(queue.end(), decl.base_classes.begin(), decl.base_classes.end());
  }
  return nullptr;
}

}  // namespace graphsafe::python
