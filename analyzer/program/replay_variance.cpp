#include "analyzer/program/replay_variance.h"

#include <algorithm>

#include "analyzer/program/capture_flow.h"
#include "analyzer/program/program_model.h"
#include "analyzer/program/replay_cycle.h"

namespace graphsafe::program {

namespace {

bool isConstructorName(std::string_view name) {
  return name == "__init__" || name == "__new__" || name == "__post_init__";
}

// The keys of an optimizer's param_groups that learning-rate schedulers (and the code that sets
// rates by hand) rewrite between steps.
bool isOptimizerSetting(std::string_view key) {
  static constexpr std::string_view kSettings[] = {"s:lr",           "s:initial_lr", "s:momentum",
                                                   "s:weight_decay", "s:betas",      "s:eps"};
  return std::find(std::begin(kSettings), std::end(kSettings), key) != std::end(kSettings);
}

std::string place(const FileModel& at, const FileModel& from, const SourceRange& range) {
  const std::string line = std::to_string(range.start.line + 1);
  return at.source == from.source ? "line " + line : at.source->path() + ":" + line;
}

std::string quoted(std::string_view text) {
  constexpr std::size_t kMaxText = 60;
  std::string shown(text.substr(0, kMaxText));
  if (text.size() > kMaxText) shown += "...";
  return "`" + shown + "`";
}

// The source text of a range of a file, on one line.
std::string textAt(const FileModel& file, const SourceRange& range) {
  if (!file.source) return {};
  std::string_view all = file.source->text();
  if (range.end > all.size() || range.begin >= range.end) return {};
  std::string text(all.substr(range.begin, range.end - range.begin));
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

Variation because(ValueOrigin origin, std::string reason) {
  Variation variation;
  variation.origin = origin;
  variation.reason = std::move(reason);
  return variation;
}

}  // namespace

std::optional<Variation> ReplayVariance::of(const ReadSite& site, RefId ref) {
  visits_ = 0;
  return_depth_ = 0;
  return vary(site, ref, 0);
}

std::optional<Variation> ReplayVariance::vary(const ReadSite& site, RefId ref, int depth) {
  const auto& references = site.file->references;
  if (ref == kNoRef || ref >= references.size()) return std::nullopt;
  if (depth > kMaxDepth || ++visits_ > kMaxVisits) return std::nullopt;
  const Reference& reference = references[ref];
  using Kind = Reference::Kind;
  auto any = [&]() -> std::optional<Variation> {
    for (RefId operand : reference.operands) {
      if (auto found = vary(site, operand, depth + 1)) return found;
    }
    return std::nullopt;
  };
  // What the graphs are cached by (`if state.offset not in graphs:`) does not vary for the graph
  // captured with it.
  const CaptureRegion& region = site.region_file->regions[site.region];
  auto isCacheKey = [&](std::string_view name) {
    return region.lazy && std::find(region.cache_keys.begin(), region.cache_keys.end(), name) !=
                              region.cache_keys.end();
  };
  switch (reference.kind) {
    case Kind::kLocal:
      if (isCacheKey(reference.name)) return std::nullopt;
      if (auto found = local(site, reference)) return found;
      return any();
    case Kind::kParameter:
      return parameter(site, reference);
    case Kind::kOperation:
    case Kind::kNarrowed:
    case Kind::kJoin:
    case Kind::kContainer:
    case Kind::kUpdated:
      return any();
    case Kind::kAttribute:
      if (reference.operands.empty() || isCacheKey(reference.name)) return std::nullopt;
      if (auto found = field(site, reference.operands[0], reference.name, false)) return found;
      return vary(site, reference.operands[0], depth + 1);
    case Kind::kElement: {
      if (reference.operands.empty()) return std::nullopt;
      if (auto found = library(site, reference)) return found;
      // LRS[step]: an element chosen by a value that varies.
      if (reference.operands.size() > 1) {
        if (auto found = vary(site, reference.operands[1], depth + 1)) return found;
      }
      // self.scaling[name]: the container is a field; its items are written between replays.
      const RefId base = throughLocal(references, reference.operands[0]);
      if (base < references.size() && references[base].kind == Kind::kAttribute &&
          !references[base].operands.empty()) {
        const Reference& container = references[base];
        if (auto found = field(site, container.operands[0], container.name, true)) return found;
      }
      return vary(site, reference.operands[0], depth + 1);
    }
    case Kind::kCall:
      return call(site, reference, depth);
    case Kind::kGlobal:
      return global(site, reference.name);
    default:
      return std::nullopt;
  }
}

std::optional<Variation> ReplayVariance::local(const ReadSite& site, const Reference& local) {
  // The name flow of the capturing function: its bindings between capture and replay.
  const FileModel& file = *site.file;
  if (site.file != site.region_file || local.function >= file.functions.size()) {
    return std::nullopt;
  }
  const CaptureFlow& flow = program_.captureFlow(file);
  const FunctionModel* home = flow.home(site.region);
  const FunctionModel& function = file.functions[local.function];
  if (home != &function) return std::nullopt;
  const SourceRange& span = flow.span(site.region);
  // The literal of the last binding before the capture: binding it again changes nothing.
  std::string before;
  auto literalOf = [&](const Event& bind) -> std::string {
    const RefId ref = bind.subject.ref;
    if (ref >= file.references.size()) return {};
    const Reference& value = file.references[ref];
    return value.kind == Reference::Kind::kHost || value.kind == Reference::Kind::kNone
               ? "=" + value.name + (value.kind == Reference::Kind::kNone ? "None" : "")
               : std::string();
  };
  std::vector<const Event*> binds;
  for (const Event& event : function.events) {
    const bool binds_name = (event.kind == EventKind::kBind && event.target == local.name) ||
                            (event.kind == EventKind::kInPlaceUpdate && event.api == "+=" &&
                             event.target == local.name);
    if (!binds_name || CaptureFlow::contains(span, event.range.begin)) continue;
    if (event.range.begin < span.begin && event.kind == EventKind::kBind) before = literalOf(event);
    binds.push_back(&event);
  }
  for (const Event* bind : binds) {
    const bool same =
        !before.empty() && bind->kind == EventKind::kBind && literalOf(*bind) == before;
    if (same) continue;
    if (bind->range.begin >= span.end) {
      const CaptureFlow::Site* replay = flow.replayAfter(site.region, function, bind->range.begin);
      if (replay == nullptr) continue;
      Variation variation = because(
          ValueOrigin::kReassigned,
          "it is assigned again at line " + std::to_string(bind->range.start.line + 1) + " (" +
              quoted(bind->text) + "), after the capture, and the graph is replayed at line " +
              std::to_string(replay->event->range.start.line + 1) +
              " with the value captured before");
      variation.file = file.source;
      variation.at = bind->range;
      variation.note = "`" + local.name + "` is assigned again here, after the capture";
      return variation;
    }
    // Before the capture, in a loop around it that captures on some iterations only.
    const SourceRange* loop = CaptureFlow::commonLoop(function, bind->range.begin, span.begin);
    if (loop == nullptr || flow.capturesEveryIteration(site.region, *loop)) continue;
    if (flow.replayAfter(site.region, function, span.end) == nullptr) continue;
    const bool loop_target = bind->api == "for";
    Variation variation = because(
        loop_target ? ValueOrigin::kLoopVariable : ValueOrigin::kReassigned,
        loop_target
            ? "it is the variable of the loop at line " + std::to_string(loop->start.line + 1) +
                  ", around a capture made on one of its iterations: later iterations replay the "
                  "graph with a different value"
            : "it is assigned at line " + std::to_string(bind->range.start.line + 1) + " (" +
                  quoted(bind->text) + ") on every iteration of the loop at line " +
                  std::to_string(loop->start.line + 1) +
                  ", which replays a graph captured on one of them");
    variation.file = file.source;
    variation.at = bind->range;
    variation.note = "`" + local.name + "` takes a new value here on every iteration";
    return variation;
  }
  return std::nullopt;
}

std::optional<Variation> ReplayVariance::parameter(const ReadSite& site,
                                                   const Reference& parameter) {
  const FileModel& file = *site.file;
  if (site.function == nullptr ||
      &file.functions[parameter.function < file.functions.size() ? parameter.function : 0] !=
          site.function ||
      parameter.function >= file.functions.size()) {
    return std::nullopt;  // an enclosing function's parameter, read from a closure
  }
  const auto index = static_cast<std::size_t>(std::max(parameter.index, 0));
  if (index < site.params.size()) {
    const Value& passed = site.params[index];
    if (passed.variation != 0) return program_.variationAt(passed.variation);
    if (passed.isHostVarying()) return std::nullopt;  // the lowering's own reason, kept as is
  }
  return std::nullopt;
}

std::vector<FieldWrite> fieldWritesOnCycle(const ProgramModel& program, const ReadSite& site,
                                           RefId object, std::string_view name, bool items) {
  std::vector<FieldWrite> found;
  std::vector<FieldWrite> assumed;
  const std::vector<Atom> read = program.instanceAtoms(site.frame, object);
  if (read.empty()) return found;
  const ReplayCycle& cycle = program.replayCycle(*site.region_file, site.region);
  if (cycle.empty()) return found;
  const auto& files = program.files();
  auto sharesObject = [&](std::uint32_t writer, RefId written_on) {
    for (const Atom& atom : program.instanceAtoms(writer, written_on)) {
      for (const Atom& other : read) {
        if (atom.a == other.a && (atom.c == 0 || other.c == 0 || atom.c == other.c)) return true;
      }
    }
    return false;
  };
  auto selfWrite = [](const FileModel& file, const FunctionModel& writer, RefId target) {
    const RefId ref = throughLocal(file.references, target);
    return writer.has_self && ref < file.references.size() &&
           file.references[ref].kind == Reference::Kind::kParameter &&
           file.references[ref].index == 0 &&
           file.references[ref].function < file.functions.size() &&
           &file.functions[file.references[ref].function] == &writer;
  };
  // A lazily capturing function that writes a field from the graphs' cache key (`self.bs = bs`
  // before `if bs not in self.graphs:`): each graph sees the value it was captured with.
  const CaptureRegion& region = site.region_file->regions[site.region];
  const FunctionModel* home = program.captureFlow(*site.region_file).home(site.region);
  auto fromCacheKey = [&](const FileModel& file, const FunctionModel& writer, RefId value) {
    if (&writer != home || region.cache_keys.empty() || value >= file.references.size()) {
      return false;
    }
    const Reference& written = file.references[throughLocal(file.references, value)];
    if (written.kind != Reference::Kind::kParameter || written.index < 0 ||
        static_cast<std::size_t>(written.index) >= writer.params.size()) {
      return false;
    }
    const std::string& param = writer.params[static_cast<std::size_t>(written.index)].name;
    return std::find(region.cache_keys.begin(), region.cache_keys.end(), param) !=
           region.cache_keys.end();
  };
  // Written by the capturing function, called between replays, before it captures again
  // (`self.batch_size = max(...)` in a `_reinitialize()` the replaying call runs when the input
  // outgrows the graph): the new capture reads what was written.
  auto recapturesAfter = [&](const CycleSpan& span, const FileModel& file,
                             const FunctionModel& writer, std::uint32_t position) {
    return span.depth > 0 && &writer == home && !region.lazy && &file == site.region_file &&
           position < program.captureFlow(file).span(site.region).begin;
  };
  // The write, when it is on the cycle and on an object the read may be.
  auto consider = [&](const FileModel& file, FunctionId function, RefId target,
                      const SourceRange& range, FieldWrite write) {
    if (function >= file.functions.size()) return;
    const FunctionModel& writer = file.functions[function];
    if (isConstructorName(writer.name) || program.constructsOnly(file, writer)) return;
    const RefId value = write.write != nullptr ? write.write->value : write.item->value;
    if (fromCacheKey(file, writer, value)) return;
    const CycleSpan* span =
        cycle.at(program.functionId(file, writer), range.begin, selfWrite(file, writer, target));
    if (span == nullptr || recapturesAfter(*span, file, writer, range.begin)) return;
    // Code the capture runs, called again eagerly between replays (a module's forward between
    // two replays): it sets up per-call state, such as a fresh arguments object, that it reads
    // itself. Without allocation sites the model cannot tell that object from the one the
    // capture read, and unknown stays quiet.
    if (span->depth > 0 && cycle.runsAtCapture(program.functionId(file, writer))) return;
    if (!sharesObject(program.plainFrame(file, writer), target)) return;
    write.file = &file;
    write.function = &writer;
    write.span = span;
    (span->self_only ? assumed : found).push_back(write);
  };
  // Every write of the field assigns one literal (`self.training = True` on every step): the
  // value a replay sees is the one the capture saw.
  std::string literal;
  bool one_literal = true;
  for (const auto& [write_file, write] : program.writesNamed(name)) {
    const FileModel& file = files[write_file];
    const Reference* value =
        write->value < file.references.size() ? &file.references[write->value] : nullptr;
    const bool is_literal = !write->augmented && value != nullptr && !value->name.empty() &&
                            value->kind == Reference::Kind::kHost;
    if (!is_literal || (!literal.empty() && literal != value->name)) {
      one_literal = false;
      break;
    }
    literal = value->name;
  }
  if (one_literal && !literal.empty() && !items) return found;
  for (const auto& [write_file, write] : program.writesNamed(name)) {
    if (write->function == kNoFunction) continue;
    FieldWrite entry;
    entry.write = write;
    consider(files[write_file], write->function, write->object, write->range, entry);
  }
  if (items) {
    for (const FileModel& file : files) {
      for (const ElementWrite& write : file.element_writes) {
        const RefId container = throughLocal(file.references, write.container);
        if (container >= file.references.size()) continue;
        const Reference& target = file.references[container];
        if (target.kind != Reference::Kind::kAttribute || target.name != name ||
            target.operands.empty()) {
          continue;
        }
        FieldWrite entry;
        entry.item = &write;
        consider(file, write.function, target.operands[0], write.range, entry);
      }
    }
  }
  found.insert(found.end(), assumed.begin(), assumed.end());
  return found;
}

std::optional<Variation> ReplayVariance::field(const ReadSite& site, RefId object,
                                               std::string_view name, bool element) {
  const std::vector<FieldWrite> writes = fieldWritesOnCycle(program_, site, object, name, element);
  if (writes.empty()) return std::nullopt;
  const FieldWrite& write = writes.front();
  const SourceRange& range = write.write != nullptr ? write.write->range : write.item->range;
  const bool augmented = write.write != nullptr ? write.write->augmented : write.item->augmented;
  const bool item = write.item != nullptr;
  const std::string text = textAt(*write.file, range);
  const std::string what =
      item ? "an item of `" + std::string(name) + "`" : "`" + std::string(name) + "`";
  const std::string where =
      "`" + write.function->qualified_name + "()` at " + place(*write.file, *site.file, range);
  std::string when = ", which runs between replays";
  if (write.span->self_only) {
    when = ", a method of the capturing object that can run between replays";
  } else if (write.span->via != nullptr && write.span->via_function != kNoId) {
    if (FunctionRef via = program_.function(write.span->via_function)) {
      const std::string at = place(*via.file, *site.file, write.span->via->range);
      if (write.span->via->kind == EventKind::kReplay) {
        when = ", between replays (the graph is replayed at " + at + ")";
      } else if (write.span->depth > 0) {
        when = ", between replays (called through " + quoted(write.span->via->text) + " at " + at +
               ")";
      } else {
        when = ", between replays (on the way to " + quoted(write.span->via->text) + " at " + at +
               ", which replays the graph)";
      }
    }
  }
  Variation variation =
      because(ValueOrigin::kAttribute, "it is " + what + " of an object that " + where +
                                           (augmented ? " advances" : " assigns") + " (" +
                                           quoted(text) + ")" + when);
  variation.file = write.file->source;
  variation.at = range;
  variation.note = what + (augmented ? " is advanced" : " is written") + " here, between replays";
  return variation;
}

std::optional<Variation> ReplayVariance::global(const ReadSite& site, std::string_view dotted) {
  const std::size_t dot = dotted.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const std::string module(dotted.substr(0, dot));
  const std::string_view name = dotted.substr(dot + 1);
  const std::uint32_t module_file = program_.moduleFile(module, *site.file);
  if (module_file == kNoId) return std::nullopt;
  const auto& files = program_.files();
  for (const auto& [write_file, write] : program_.writesNamed(name)) {
    if (write->function == kNoFunction || write->function == 0) continue;
    const FileModel& writer_file = files[write_file];
    if (write->function >= writer_file.functions.size()) continue;
    const FunctionModel& writer = writer_file.functions[write->function];
    // Functions can run at any time, module code only once, at import.
    const bool once = std::any_of(
        writer.once_blocks.begin(), writer.once_blocks.end(),
        [&](const SourceRange& block) { return CaptureFlow::contains(block, write->range.begin); });
    if (once ||
        !program_.isModule(program_.plainFrame(writer_file, writer), write->object, module_file)) {
      continue;
    }
    Variation variation = because(
        ValueOrigin::kGlobal, "it is a module global that `" + writer.qualified_name +
                                  "()` assigns at " + place(writer_file, *site.file, write->range));
    variation.file = writer_file.source;
    variation.at = write->range;
    variation.note = "the global `" + std::string(name) + "` is assigned here";
    return variation;
  }
  // Module code that rebinds it on the region's cycle (a script's own replay loop).
  const FileModel& module_code = files[module_file];
  if (module_code.functions.empty()) return std::nullopt;
  const ReplayCycle& cycle = program_.replayCycle(*site.region_file, site.region);
  const std::uint32_t top = program_.functionId(module_code, module_code.functions[0]);
  for (const Event& bind : module_code.functions[0].events) {
    if (bind.kind != EventKind::kBind || bind.target != name) continue;
    if (cycle.at(top, bind.range.begin, false) == nullptr) continue;
    Variation variation = because(
        ValueOrigin::kGlobal, "it is a module global that the module's code assigns again at " +
                                  place(module_code, *site.file, bind.range) + ", between replays");
    variation.file = module_code.source;
    variation.at = bind.range;
    variation.note = "the global `" + std::string(name) + "` is assigned here, between replays";
    return variation;
  }
  return std::nullopt;
}

std::optional<Variation> ReplayVariance::call(const ReadSite& site, const Reference& call,
                                              int depth) {
  // What a call computes from arguments that vary varies (`min(step, limit)`, `f(lr)`).
  for (std::size_t i = 1; i < call.operands.size(); ++i) {
    if (auto found = vary(site, call.operands[i], depth + 1)) return found;
  }
  if (call.operands.empty() || return_depth_ >= kMaxReturnDepth) return std::nullopt;
  // `self.current_scale()`: what the program function returns, read from state the cycle
  // writes (its parameters are the call's arguments, which do not vary here).
  for (const std::uint32_t callee : program_.calledFunctions(site.frame, call.operands[0])) {
    FunctionRef target = program_.function(callee);
    if (!target || target.function->returns == kNoRef) continue;
    ReadSite inner = site;
    inner.file = target.file;
    inner.function = target.function;
    inner.frame = program_.plainFrame(*target.file, *target.function);
    inner.root = false;
    inner.params = {};
    ++return_depth_;
    std::optional<Variation> found = vary(inner, target.function->returns, depth + 1);
    --return_depth_;
    if (found) return found;
  }
  return std::nullopt;
}

std::optional<Variation> ReplayVariance::library(const ReadSite& site, const Reference& element) {
  // optimizer.param_groups[0]["lr"], or group["lr"] for a group of them.
  if (!isOptimizerSetting(element.name)) return std::nullopt;
  const auto& references = site.file->references;
  RefId base = throughLocal(references, element.operands[0]);
  for (int step = 0; step < 4 && base < references.size(); ++step) {
    const Reference& reference = references[base];
    if (reference.kind == Reference::Kind::kAttribute && reference.name == "param_groups") {
      return because(ValueOrigin::kOptimizerSetting,
                     "it is read from an optimizer's param_groups, which a learning-rate "
                     "scheduler (or any code that sets the rate) rewrites between steps");
    }
    if ((reference.kind != Reference::Kind::kElement &&
         reference.kind != Reference::Kind::kLocal) ||
        reference.operands.empty()) {
      break;
    }
    base = throughLocal(references, reference.operands[0]);
  }
  return std::nullopt;
}

}  // namespace graphsafe::program
