// Flow between capture and replay: the events the address rules (GS201, GS202, GS203) order
// against each other, in every function, not only under capture:
//   kBind           a name or attribute bound to a new object (`x = ...`, `self.x = ...`)
//   kInPlaceUpdate  a tensor updated in place (`copy_`, `fill_`, `x[:n] = y`, `out=`)
//   kFree           `del x`
//   kReplay         `g.replay()`, or a call of a graphed/compiled callable
//   kStore          a value kept: append/insert/extend, a container item, an attribute holding a
//                   graph output, yield, return
// and the region facts they are ordered against: each region's handle, span, inputs and outputs.
// Names are paths with subscripts and calls dropped ("self.graphs[bs]" -> "self.graphs").
#include <algorithm>

#include "frontends/python/function_lowering.h"

namespace graphsafe::python {

namespace {

// Attribute chains longer than this are not names anyone binds.
constexpr int kMaxPathParts = 32;
// How many nodes of a returned expression are searched for the names it keeps.
constexpr int kMaxReturnNodes = 256;

// Methods whose result may share the receiver's storage (a view, or the receiver itself when
// nothing needs converting): the result is the same block, not a new one.
bool mayShareStorage(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "view",    "view_as",    "reshape",    "reshape_as",     "detach",   "squeeze", "unsqueeze",
      "flatten", "unflatten",  "t",          "transpose",      "permute",  "expand",  "expand_as",
      "narrow",  "contiguous", "as_strided", "select",         "diagonal", "movedim", "swapaxes",
      "to",      "cuda",       "float",      "half",           "bfloat16", "double",  "int",
      "long",    "type",       "type_as",    "requires_grad_", "mT",       "T"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

// Methods that return a view of the receiver: a graph output seen through one is still the
// graph's buffer.
bool isViewMethod(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "view",    "view_as",    "reshape", "reshape_as", "detach",  "squeeze", "unsqueeze",
      "flatten", "unflatten",  "t",       "transpose",  "permute", "expand",  "expand_as",
      "narrow",  "as_strided", "select",  "diagonal",   "movedim", "swapaxes"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

// Container methods that keep their argument.
bool isStoreMethod(std::string_view name) {
  return name == "append" || name == "appendleft" || name == "insert" || name == "extend" ||
         name == "extendleft" || name == "put" || name == "put_nowait" || name == "add";
}

// x.copy_(y), x.fill_(v), x.zero_(): the trailing underscore is PyTorch's in-place convention.
bool isInPlaceMethod(std::string_view name) {
  return name.size() > 1 && name.back() == '_' && name.front() != '_';
}

bool isContainerConstructor(std::string_view qualified) {
  return qualified == "collections.defaultdict" || qualified == "collections.OrderedDict" ||
         qualified == "collections.deque" || qualified == "collections.Counter" ||
         qualified == "queue.Queue" || qualified == "queue.SimpleQueue";
}

// A path spelled by a region's graph expression ("self.graphs[bs]" -> "self.graphs"), or ""
// when it is not one (a call, a cut-off text).
std::string pathFromText(std::string_view text) {
  if (text.find("...") != std::string_view::npos) return {};
  std::string out;
  int depth = 0;
  for (char c : text) {
    if (c == '[') {
      ++depth;
    } else if (c == ']') {
      if (--depth < 0) return {};
    } else if (depth == 0) {
      if (c == ' ') continue;
      bool word = c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  (c >= '0' && c <= '9') || static_cast<unsigned char>(c) >= 0x80;
      if (!word) return {};
      out.push_back(c);
    }
  }
  if (depth != 0 || out.empty() || out.front() == '.' || out.back() == '.') return {};
  if (out.front() >= '0' && out.front() <= '9') return {};
  return out;
}

void addName(std::vector<RegionName>& names, std::string name, SourceRange range,
             const Value& value) {
  for (const RegionName& existing : names) {
    if (existing.name == name) return;
  }
  RegionName entry;
  entry.name = std::move(name);
  entry.range = range;
  entry.value = value;
  entry.value.text = entry.name;
  names.push_back(std::move(entry));
}

// Can a value bound under capture be a buffer of the graph (not a host value, not an object)?
bool mayBeOutput(const ExprInfo& info) {
  return !info.value.isKnownHost() && info.object == ObjectKind::kNone &&
         info.function == kNoFunction && isNull(info.node);
}

bool isCallableRegion(const CaptureRegion& region) {
  return region.whole_function &&
         (region.kind == RegionKind::kGraphedCallable || region.kind == RegionKind::kCompiled);
}

}  // namespace

// ---- paths ---------------------------------------------------------------------------------

std::string FunctionLowering::flowPath(TSNode node) const {
  std::vector<std::string_view> parts;
  node = unparenthesize(file_.pool, node);
  for (int step = 0; step < kMaxPathParts; ++step) {
    if (is(node, g_.identifier)) {
      std::string out(textOf(node));
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        out.push_back('.');
        out += *it;
      }
      return out;
    }
    if (is(node, g_.attribute)) {
      TSNode name = field(node, g_.f_attribute);
      if (isNull(name)) return {};
      parts.push_back(textOf(name));
      node = unparenthesize(file_.pool, field(node, g_.f_object));
    } else if (is(node, g_.subscript)) {
      node = unparenthesize(file_.pool, field(node, g_.f_value));
    } else {
      return {};
    }
  }
  return {};
}

std::string FunctionLowering::sourcePath(TSNode node) const {
  node = unparenthesize(file_.pool, node);
  for (int step = 0; step < kMaxPathParts && is(node, g_.call); ++step) {
    TSNode function = field(node, g_.f_function);
    if (!is(function, g_.attribute)) return {};
    if (!mayShareStorage(textOf(field(function, g_.f_attribute)))) return {};
    node = unparenthesize(file_.pool, field(function, g_.f_object));
  }
  if (is(node, g_.attribute) && mayShareStorage(textOf(field(node, g_.f_attribute)))) {
    node = field(node, g_.f_object);  // x.T, x.mT
  }
  return flowPath(node);
}

bool FunctionLowering::isOpaqueCallable(const ExprInfo& info) const {
  if (info.object == ObjectKind::kNnModule) return true;
  return info.object == ObjectKind::kNone && info.function == kNoFunction && isNull(info.node) &&
         info.value.kind == ValueKind::kUnknown;
}

bool FunctionLowering::isContainerPath(const std::string& path) const {
  if (flow_.containers.contains(path)) return true;
  if (self_class_ < 0 || self_name_.empty()) return false;
  if (path.size() <= self_name_.size() + 1 || !path.starts_with(self_name_) ||
      path[self_name_.size()] != '.') {
    return false;
  }
  std::string attribute = path.substr(self_name_.size() + 1);
  if (attribute.find('.') != std::string::npos) return false;
  return file_.flow.container_attributes.contains({self_class_, attribute});
}

// ---- bindings ------------------------------------------------------------------------------

void FunctionLowering::noteBound(std::string_view name, ExprInfo& info) {
  if (region_stack_.empty() || mode_ != Mode::kNormal) return;
  for (std::int32_t region : region_stack_) flow_.bound_in_region[region].emplace(name);
  // A value computed under capture lives in the graph's pool: every replay rewrites it.
  if (mayBeOutput(info)) info.output_of = region_stack_.back();
}

void FunctionLowering::noteBinding(TSNode target, const ExprInfo& info, TSNode value,
                                   bool augmented) {
  target = unparenthesize(file_.pool, target);
  std::string path = flowPath(target);
  if (path.empty()) return;
  bool self_attribute = !self_name_.empty() && path.size() > self_name_.size() &&
                        path.starts_with(self_name_) && path[self_name_.size()] == '.';

  // Which paths hold containers: also while only recording attributes, so that every method
  // knows what `self.<name>` holds.
  if (!augmented) {
    TSNode shown = unparenthesize(file_.pool, value);
    bool container = false;
    if (is(shown, g_.list) || is(shown, g_.dictionary) || is(shown, g_.set) ||
        is(shown, g_.list_comprehension) || is(shown, g_.dictionary_comprehension) ||
        is(shown, g_.set_comprehension)) {
      container = true;
    } else if (is(shown, g_.call)) {
      TSNode function = field(shown, g_.f_function);
      container = isUnshadowedBuiltin(function, "list") || isUnshadowedBuiltin(function, "dict") ||
                  isUnshadowedBuiltin(function, "set") ||
                  isContainerConstructor(importedNameOf(function));
    }
    if (container) {
      flow_.containers.insert(path);
      if (self_attribute && self_class_ >= 0 &&
          path.find('.', self_name_.size() + 1) == std::string::npos) {
        file_.flow.container_attributes.emplace(self_class_, path.substr(self_name_.size() + 1));
      }
    } else {
      flow_.containers.erase(path);
    }
  }
  noteLength(path, augmented ? TSNode{} : value);
  if (quiet()) return;
  if (isNull(value)) {
    // Comprehension variables live in their own scope: they rebind nothing outside. (Only
    // targets without a value can be one; parents are looked up only for those.)
    TSNode parent = ts_node_parent(target);
    for (int up = 0; up < 8 && !isNull(parent); ++up, parent = ts_node_parent(parent)) {
      if (is(parent, g_.for_in_clause)) return;
      if (is(parent, g_.expression_statement) || is(parent, g_.for_statement) ||
          is(parent, g_.with_statement)) {
        break;
      }
    }
  }
  if (self_attribute) {
    flow_.self_values[path] = info.value;
    for (std::int32_t region : region_stack_) flow_.bound_in_region[region].insert(path);
    if (!region_stack_.empty() && self_class_ >= 0 && mayBeOutput(info)) {
      file_.flow.attribute_outputs[{self_class_, path.substr(self_name_.size() + 1)}] =
          region_stack_.back();
    }
  }
  std::uint32_t begin = ts_node_start_byte(target);
  std::uint32_t end = isNull(value) ? ts_node_end_byte(target)
                                    : std::max(ts_node_end_byte(value), ts_node_end_byte(target));
  SourceRange range = file_.text.range(begin, end);
  std::string shown_text = briefText(file_.text.all().substr(begin, end - begin));
  if (augmented) {
    // `x += y` updates a tensor in place; `xs += [y]` extends a list.
    TSNode shown = unparenthesize(file_.pool, value);
    if (is(shown, g_.list) || is(shown, g_.tuple)) {
      for (Children it(file_.pool, shown); it.valid(); it.next()) {
        emitStore("__iadd__", path, it.node(), quietEval(it.node()));
      }
    } else if (info.value.isKnownHost() && info.object == ObjectKind::kNone) {
      // `step += 1` on a host number: the name is bound to a new value.
      Event& event = emit(EventKind::kBind, target);
      event.range = range;
      event.api = "+=";
      event.text = std::move(shown_text);
      event.target = std::move(path);
      event.subject = described(info.value, target);
    } else if (info.value.isTensor() ||
               (!info.value.isKnownHost() && info.object == ObjectKind::kNone)) {
      // Also a value that may be a tensor (`z *= -1` on a parameter's sum): device work that a
      // branch on the capture status may add on one side only (GS104).
      Event& event = emit(EventKind::kInPlaceUpdate, target);
      event.range = range;
      event.api = "+=";
      event.text = std::move(shown_text);
      event.target = std::move(path);
      event.subject = described(info.value, target);
    }
    return;
  }
  Event& event = emit(EventKind::kBind, target);
  event.range = range;
  event.api = "=";
  event.text = std::move(shown_text);
  event.target = path;
  event.subject = described(info.value, isNull(value) ? target : value);
  event.output_of = info.output_of;
  if (info.pinned) event.flags |= kFlagPinnedHost;
  if (!region_stack_.empty() && mayBeOutput(info)) event.output_of = region_stack_.back();
  if (!isNull(value)) {
    event.source = sourcePath(value);
    TSNode shown = unparenthesize(file_.pool, value);
    bool computed =
        is(shown, g_.call) || is(shown, g_.binary_operator) || is(shown, g_.unary_operator);
    if (info.value.isTensor() && event.source.empty() && computed) {
      event.flags |= kFlagFreshTensor;
    }
    if (isSizeRead(shown)) event.flags |= kFlagSizeRead;
  }
  if (is(target, g_.attribute) && info.output_of >= 0 && !isNull(value)) {
    emitStore("setattr", std::move(path), value, info);
  }
}

bool FunctionLowering::isSizeRead(TSNode node) const {
  auto attributeNamed = [&](TSNode candidate, std::initializer_list<std::string_view> names) {
    if (!is(candidate, g_.attribute)) return false;
    const std::string_view name = textOf(field(candidate, g_.f_attribute));
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  // x.shape, x.shape[0], x.size()[1]
  TSNode base = is(node, g_.subscript) ? unparenthesize(file_.pool, field(node, g_.f_value)) : node;
  if (attributeNamed(base, {"shape"})) return true;
  if (!is(base, g_.call)) return false;
  TSNode function = field(base, g_.f_function);
  // x.size(0), x.numel(), len(batch)
  if (attributeNamed(function, {"size", "numel"})) return true;
  return ts_node_eq(base, node) && isUnshadowedBuiltin(function, "len");
}

void FunctionLowering::noteSubscriptStore(TSNode target, const ExprInfo& base, const ExprInfo& info,
                                          TSNode value, bool augmented) {
  if (quiet()) return;
  std::string path = flowPath(target);
  if (path.empty()) return;
  bool slice = false;
  for (Children it(file_.pool, target); it.valid(); it.next()) {
    if (it.field() == g_.f_subscript && is(it.node(), g_.slice)) slice = true;
  }
  if (base.value.isTensor() ||
      ((slice || augmented) && !base.value.isKnownHost() && base.object == ObjectKind::kNone)) {
    // x[:n] = y, x[i] += y: the tensor's own block is written.
    Event& event = emit(EventKind::kInPlaceUpdate, target);
    if (!isNull(value)) {
      event.range = file_.text.range(ts_node_start_byte(target), ts_node_end_byte(value));
    }
    event.api = "__setitem__";
    event.text = file_.text.brief(target);
    event.target = std::move(path);
    event.subject = described(base.value, field(target, g_.f_value));
    return;
  }
  if (augmented || isNull(value)) return;
  // A container item: known to be a container, or holding an object no tensor can hold.
  bool object = (info.object != ObjectKind::kNone && info.object != ObjectKind::kTensorTuple) ||
                info.function != kNoFunction;
  if (base.value.isKnownHost() || isContainerPath(path) || object) {
    emitStore("__setitem__", std::move(path), value, info);
  }
}

void FunctionLowering::noteAssignedRegions(TSNode left, TSNode right, std::size_t regions_before) {
  if (quiet()) return;
  (void)right;
  std::vector<std::int32_t> created;
  for (std::size_t r = regions_before; r < file_.model.regions.size(); ++r) {
    const CaptureRegion& region = file_.model.regions[r];
    if (isCallableRegion(region) && region.handle.empty()) {
      created.push_back(static_cast<std::int32_t>(r));
    }
  }
  if (created.empty()) return;
  left = unparenthesize(file_.pool, left);
  std::vector<std::string> paths;
  if (is(left, g_.pattern_list) || is(left, g_.tuple_pattern) || is(left, g_.list_pattern) ||
      is(left, g_.expression_list) || is(left, g_.tuple) || is(left, g_.list)) {
    // a, b = torch.cuda.make_graphed_callables((m1, m2), ...): one handle per callable.
    for (Children it(file_.pool, left); it.valid(); it.next()) paths.push_back(flowPath(it.node()));
    if (paths.size() != created.size()) return;
  } else {
    paths.assign(created.size(), flowPath(left));
  }
  for (std::size_t i = 0; i < created.size(); ++i) {
    if (paths[i].empty()) continue;
    file_.model.regions[static_cast<std::size_t>(created[i])].handle = paths[i];
    file_.flow.handle_scope[created[i]] = id_;
  }
}

// ---- reads ---------------------------------------------------------------------------------

void FunctionLowering::noteNameRead(std::string_view path, TSNode node, ExprInfo& info) {
  if (quiet() || path.empty()) return;
  // Modules, classes, functions, graphs, streams and `self` are not data a graph reads.
  if ((info.object != ObjectKind::kNone && info.object != ObjectKind::kTensorTuple) ||
      info.function != kNoFunction || !isNull(info.node)) {
    return;
  }
  std::string name(path);
  bool self_attribute = !self_name_.empty() && name.size() > self_name_.size() &&
                        name.starts_with(self_name_) && name[self_name_.size()] == '.';
  Value value = info.value;
  if (self_attribute) {
    auto known = flow_.self_values.find(name);
    if (known != flow_.self_values.end() && known->second.kind != ValueKind::kUnknown) {
      value = known->second;
    }
    // self.<attr> bound under a capture (here or in another method): the graph's output.
    auto output =
        file_.flow.attribute_outputs.find({self_class_, name.substr(self_name_.size() + 1)});
    if (info.output_of < 0 && output != file_.flow.attribute_outputs.end()) {
      info.output_of = output->second;
    }
  }
  SourceRange range = file_.text.range(node);
  auto& regions = file_.model.regions;
  for (std::int32_t region : region_stack_) {
    auto bound = flow_.bound_in_region.find(region);
    if (bound != flow_.bound_in_region.end() && bound->second.contains(name)) continue;
    addName(regions[static_cast<std::size_t>(region)].inputs, name, range, value);
  }
  if (info.output_of >= 0 && static_cast<std::size_t>(info.output_of) < regions.size() &&
      std::find(region_stack_.begin(), region_stack_.end(), info.output_of) ==
          region_stack_.end()) {
    addName(regions[static_cast<std::size_t>(info.output_of)].outputs, name, range, value);
  }
  // What a function reads from outside itself: the inputs of a callable region made from it.
  if (id_ == 0 || flow_.external_seen.contains(name)) return;
  bool external = self_attribute ? !flow_.self_values.contains(name) : findLocal(name) == nullptr;
  if (!external) return;
  flow_.external_seen.insert(name);
  auto& reads = file_.flow.external_reads;
  if (reads.size() <= id_) reads.resize(id_ + 1);
  addName(reads[id_], std::move(name), range, value);
}

// ---- calls ---------------------------------------------------------------------------------

void FunctionLowering::noteFlowMethod(const Callee& callee, TSNode call,
                                      const Arguments& arguments) {
  if (quiet()) return;
  std::string_view name = callee.name;
  const ExprInfo& receiver = callee.receiver;
  if (name == "replay" && arguments.positional.empty() && arguments.keywords.empty() &&
      !receiver.value.isTensor() && !receiver.value.isKnownHost()) {
    std::string path = flowPath(callee.receiver_node);
    if (path.empty()) return;
    Event& event = emit(EventKind::kReplay, call);
    event.api =
        receiver.object == ObjectKind::kCudaGraph ? "torch.cuda.CUDAGraph.replay" : "replay";
    event.text = file_.text.brief(call);
    event.target = std::move(path);
    return;
  }
  if (isStoreMethod(name) && !receiver.value.isTensor() && receiver.object == ObjectKind::kNone) {
    std::string path = flowPath(callee.receiver_node);
    if (name == "add" && !(receiver.value.isKnownHost() || isContainerPath(path))) return;
    std::size_t position = name == "insert" ? 1 : 0;
    if (position >= arguments.syntax.positional.size()) return;
    TSNode value = arguments.syntax.positional[position];
    TSNode shown = unparenthesize(file_.pool, value);
    std::string api = std::string(name);
    if ((name == "extend" || name == "extendleft") && (is(shown, g_.list) || is(shown, g_.tuple))) {
      for (Children it(file_.pool, shown); it.valid(); it.next()) {
        emitStore(api, path, it.node(), quietEval(it.node()));
      }
      return;
    }
    emitStore(api, std::move(path), value, arguments.positional[position]);
    return;
  }
  if (isInPlaceMethod(name) && receiver.object == ObjectKind::kNone &&
      !receiver.value.isKnownHost()) {
    std::string path = flowPath(callee.receiver_node);
    if (path.empty()) return;
    Event& event = emit(EventKind::kInPlaceUpdate, call);
    event.api = "torch.Tensor." + std::string(name);
    event.text = methodText(callee, call);
    event.target = std::move(path);
    event.subject = described(receiver.value, callee.receiver_node);
  }
}

void FunctionLowering::noteFunctionCall(FunctionId function, TSNode call) {
  // A function compiled by its decorator: every call runs (and after the first, replays) the
  // recorded graph.
  const auto& regions = file_.model.regions;
  for (std::size_t r : file_.callableRegions()) {
    const CaptureRegion& region = regions[r];
    if (region.kind != RegionKind::kCompiled || !region.whole_function ||
        region.function != function ||
        region.handle != file_.model.functions[function].qualified_name) {
      continue;
    }
    flow_.replay_call = call.id;
    flow_.replay_region = static_cast<std::int32_t>(r);
    if (quiet()) return;
    Event& event = emit(EventKind::kReplay, call);
    event.api = "compiled call";
    event.text = file_.text.brief(call);
    event.target = region.handle;
    return;
  }
}

ExprInfo FunctionLowering::noteCallResult(TSNode call, ExprInfo result) {
  TSNode function = unparenthesize(file_.pool, field(call, g_.f_function));
  // torch.add(a, b, out=x): x is written in place.
  if (!quiet()) {
    TSNode arguments = field(call, g_.f_arguments);
    if (is(arguments, g_.argument_list)) {
      for (Children it(file_.pool, arguments); it.valid(); it.next()) {
        if (!is(it.node(), g_.keyword_argument)) continue;
        if (textOf(field(it.node(), g_.f_name)) != "out") continue;
        TSNode out = field(it.node(), g_.f_value);
        std::string path = flowPath(out);
        if (path.empty()) break;
        Event& event = emit(EventKind::kInPlaceUpdate, out);
        event.api = "out=";
        event.text = file_.text.brief(call);
        event.target = std::move(path);
        break;
      }
    }
  }
  if (flow_.replay_call != nullptr && flow_.replay_call == call.id) {
    flow_.replay_call = nullptr;
    if (!result.value.isKnownHost()) result.output_of = flow_.replay_region;
    return result;
  }
  std::string path = flowPath(function);
  if (!path.empty()) {
    const auto& regions = file_.model.regions;
    // graphed[1](x): the callable at that position of the graphed tuple.
    const std::int32_t position = literalIndex(function);
    for (std::size_t r : file_.callableRegions()) {
      const CaptureRegion& region = regions[r];
      if (!isCallableRegion(region) || region.handle != path) continue;
      if (position >= 0 && region.tuple_index >= 0 && region.tuple_index != position) continue;
      auto scope = file_.flow.handle_scope.find(static_cast<std::int32_t>(r));
      if (scope == file_.flow.handle_scope.end()) continue;
      FunctionId holder = scope->second;
      bool visible = false;
      if (holder == id_) {
        visible = true;
      } else if (!self_name_.empty() && path.starts_with(self_name_) &&
                 path.size() > self_name_.size() && path[self_name_.size()] == '.') {
        std::int32_t holder_class = file_.index.functions[holder].class_index;
        visible = holder_class >= 0 && holder_class == decl().class_index;
      } else if (holder == 0) {
        std::string_view root = std::string_view(path).substr(0, path.find('.'));
        visible = findLocal(root) == nullptr;
      }
      if (!visible) continue;
      if (!quiet()) {
        Event& event = emit(EventKind::kReplay, call);
        event.api =
            region.kind == RegionKind::kGraphedCallable ? "graphed callable" : "compiled call";
        event.text = file_.text.brief(call);
        event.target = path;
      }
      if (!result.value.isKnownHost()) result.output_of = static_cast<std::int32_t>(r);
      return result;
    }
  }
  // y.detach(), y.view(n): the same block as y, so still the graph's output.
  if (result.output_of < 0 && is(function, g_.attribute) &&
      isViewMethod(textOf(field(function, g_.f_attribute)))) {
    TSNode object = unparenthesize(file_.pool, field(function, g_.f_object));
    if (is(object, g_.identifier) || is(object, g_.attribute)) {
      ExprInfo receiver = quietEval(object);
      if (receiver.output_of >= 0) result.output_of = receiver.output_of;
    }
  }
  return result;
}

// ---- statements ----------------------------------------------------------------------------

void FunctionLowering::emitStore(std::string_view api, std::string target, TSNode value,
                                 const ExprInfo& info) {
  if (quiet() || isNull(value)) return;
  TSNode shown = unparenthesize(file_.pool, value);
  if (info.output_of < 0 && (is(shown, g_.tuple) || is(shown, g_.list) ||
                             is(shown, g_.dictionary) || is(shown, g_.expression_list))) {
    // results.append((logits, hidden)): the elements are what is kept.
    bool any = false;
    for (Children it(file_.pool, shown); it.valid(); it.next()) {
      TSNode element = is(it.node(), g_.pair) ? field(it.node(), g_.f_value) : it.node();
      if (isNull(element)) continue;
      ExprInfo element_info = quietEval(element);
      if (element_info.output_of < 0) continue;
      emitStore(api, target, element, element_info);
      any = true;
    }
    if (any) return;
  }
  Event& event = emit(EventKind::kStore, value);
  event.api = std::string(api);
  event.text = file_.text.brief(value);
  event.target = std::move(target);
  event.source = sourcePath(value);
  event.subject = described(info.value, value);
  event.output_of = info.output_of;
  event.value = info.ref;
}

void FunctionLowering::noteReturnedOutput(TSNode value, const ExprInfo& info) {
  if (quiet() || isNull(value) || info.output_of < 0 || info.value.isKnownHost()) return;
  if (std::find(region_stack_.begin(), region_stack_.end(), info.output_of) !=
      region_stack_.end()) {
    return;  // returned from inside the capture: the capture's own result
  }
  FunctionModel& model = file_.model.functions[id_];
  if (model.returned_output >= 0) return;
  model.returned_output = info.output_of;
  model.returned_output_at = file_.text.range(value);
}

void FunctionLowering::noteReturn(TSNode node) {
  if (quiet()) return;
  // Every name the returned value mentions is kept by the caller (`return g, static_input`,
  // `return Runner(g, x)`).
  std::vector<TSNode> pending;
  for (Children it(file_.pool, node); it.valid(); it.next()) pending.push_back(it.node());
  int visited = 0;
  while (!pending.empty() && visited++ < kMaxReturnNodes) {
    TSNode current = pending.back();
    pending.pop_back();
    if (is(current, g_.identifier) || is(current, g_.attribute) || is(current, g_.subscript)) {
      std::string path = flowPath(current);
      if (!path.empty()) {
        Event& event = emit(EventKind::kStore, current);
        event.api = "return";
        event.text = file_.text.brief(current);
        event.source = std::move(path);
        continue;
      }
    }
    if (is(current, g_.lambda)) continue;
    std::vector<TSNode> children;
    for (Children it(file_.pool, current); it.valid(); it.next()) children.push_back(it.node());
    pending.insert(pending.end(), children.rbegin(), children.rend());
  }
}

void FunctionLowering::noteDelete(TSNode node) {
  if (quiet()) return;
  auto free = [this](TSNode target) {
    target = unparenthesize(file_.pool, target);
    if (!is(target, g_.identifier) && !is(target, g_.attribute)) return;
    std::string path = flowPath(target);
    if (path.empty()) return;
    Event& event = emit(EventKind::kFree, target);
    event.api = "del";
    event.text = "del " + file_.text.brief(target);
    event.target = std::move(path);
  };
  for (Children it(file_.pool, node); it.valid(); it.next()) {
    TSNode child = it.node();
    if (is(child, g_.expression_list) || is(child, g_.tuple)) {
      for (Children element(file_.pool, child); element.valid(); element.next()) {
        free(element.node());
      }
    } else {
      free(child);
    }
  }
}

void FunctionLowering::noteLoop(TSNode node) {
  if (quiet()) return;
  file_.model.functions[id_].loops.push_back(file_.text.range(node));
}

void FunctionLowering::noteRegionSpan(std::int32_t region, SourceRange span) {
  if (region < 0 || static_cast<std::size_t>(region) >= file_.model.regions.size()) return;
  file_.model.regions[static_cast<std::size_t>(region)].span = span;
}

ExprInfo FunctionLowering::lowerYield(TSNode node) {
  std::string_view text = textOf(node);
  std::size_t after = text.find_first_not_of(" \t\r\n\\", 5);
  TSNode expression = firstNamedChild(file_.pool, node);
  if (after != std::string_view::npos && text.substr(after).starts_with("from")) {
    // yield from: the values are another generator's
    noteYieldValue(eval(expression), true);
    return {};
  }
  if (isNull(expression)) {
    noteYieldValue(withRef({}, file_.refs.none()), false);
    return {};
  }
  ExprInfo info = eval(expression);
  emitStore("yield", std::string{}, expression, info);
  noteYieldValue(info, false);
  return {};
}

// ---- per file ------------------------------------------------------------------------------

void FileLowering::finishFlow() {
  // What the imports bind, for re-exports through a package's __init__ across files.
  for (const auto& [alias, target] : index.imports.entries()) {
    model.import_aliases.emplace_back(std::string(alias), target);
  }
  std::sort(model.import_aliases.begin(), model.import_aliases.end());
  model.star_imports = index.imports.starModules();
  for (CaptureRegion& region : model.regions) {
    if (region.whole_function) {
      if (region.function != kNoFunction && region.function < flow.external_reads.size()) {
        region.inputs = flow.external_reads[region.function];
      }
      if (region.span.end == 0) region.span = region.site;
      continue;
    }
    if (region.handle.empty()) region.handle = pathFromText(region.graph);
    if (region.span.end == 0) {
      // capture_begin() never ended in this function: it runs to the function's end.
      SourceRange end = region.site;
      if (region.function != kNoFunction && region.function < model.functions.size()) {
        end = model.functions[region.function].body;
      }
      region.span = text.range(region.site.begin, std::max(region.site.end, end.end));
    }
  }
}

}  // namespace graphsafe::python
