#include "analyzer/engine/region_report.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "analyzer/engine/region_walker.h"

namespace graphsafe {

using program::Atom;
using program::TypeId;

namespace {

std::string qualifiedName(const FileModel& file, const FunctionModel& function) {
  if (file.module_name.empty()) return function.qualified_name;
  if (function.is_module_level) return file.module_name;
  return file.module_name + "." + function.qualified_name;
}

// A short description of what a type holds, for a reason ("`Runner`", "a tensor").
std::string describe(const program::TypeEvaluator& evaluator, TypeId type) {
  const program::TypeTable& types = evaluator.types();
  if (type == program::kBottom || types.atoms(type).empty()) return "a value of unknown type";
  std::string out;
  for (const Atom& atom : types.atoms(type)) {
    if (!out.empty()) out += " or ";
    switch (atom.kind) {
      case Atom::Kind::kInstance:
        out += "`" + evaluator.index().classModel(atom.a).name + "`";
        break;
      case Atom::Kind::kClass:
        out += "the class `" + evaluator.index().classModel(atom.a).name + "`";
        break;
      case Atom::Kind::kExternal:
        out += "`" + types.nameAt(atom.a) + "`";
        break;
      case Atom::Kind::kModule:
        out += "a module";
        break;
      case Atom::Kind::kContainer:
        out += "a container";
        break;
      case Atom::Kind::kTensor:
        out += "a tensor";
        break;
      default:
        out += "a value";
        break;
    }
  }
  return out;
}

// Does a callee of this type run library code only (torch, a builtin, a tensor method)? Then
// the call is followed as far as anything can be: it is not reported as unresolved.
bool libraryOnly(const program::TypeTable& types, TypeId callee) {
  if (!types.isExact(callee)) return false;
  for (const Atom& atom : types.atoms(callee)) {
    switch (atom.kind) {
      case Atom::Kind::kExternal:
      case Atom::Kind::kLibraryMethod:
      case Atom::Kind::kTensor:
      case Atom::Kind::kHost:
      case Atom::Kind::kContainer:
      case Atom::Kind::kNone:
        break;
      default:
        return false;
    }
  }
  return true;
}

std::string whyUnresolved(program::TypeEvaluator& evaluator, std::uint32_t frame,
                          const FileModel& file, RefId callee_ref, TypeId callee) {
  const Reference& callee_reference = file.references[throughLocal(file.references, callee_ref)];
  switch (callee_reference.kind) {
    case Reference::Kind::kParameter: {
      const FunctionModel& owner = file.functions[callee_reference.function];
      const auto index = static_cast<std::size_t>(std::max(callee_reference.index, 0));
      std::string name = index < owner.params.size() ? owner.params[index].name : "?";
      return "parameter `" + name + "` of `" + owner.name +
             "`: no call of it passes anything the analysis can follow";
    }
    case Reference::Kind::kAttribute: {
      TypeId object = callee_reference.operands.empty()
                          ? program::kUnknown
                          : evaluator.typeOf(frame, callee_reference.operands[0]);
      if (!evaluator.types().isExact(object)) {
        return "attribute `" + callee_reference.name + "` of " + describe(evaluator, object);
      }
      return "attribute `" + callee_reference.name + "` of " + describe(evaluator, object) +
             " has no value the analysis can follow";
    }
    case Reference::Kind::kGlobal:
      return "`" + callee_reference.name + "` is not defined in the analyzed files";
    case Reference::Kind::kElement:
      return "an element of a container whose contents are not known";
    case Reference::Kind::kCall:
      return "the result of a call whose type is not known";
    default:
      break;
  }
  if (!evaluator.types().atoms(callee).empty()) {
    return describe(evaluator, callee) + " has no __call__ or forward in the analyzed files";
  }
  return "a value of unknown type";
}

// C++: why a call under a capture leads nowhere, or "" when it is followed or is library code.
std::string whyCppCallNotFollowed(const Event& call) {
  if ((call.flags & kFlagIndirectCall) != 0) {
    if (call.callee_qualified.empty()) return call.target;
    if (call.callee_qualified.find("::<parameter ") != std::string::npos) {
      return call.target + ": no call in the analyzed files passes it a function";
    }
    return call.target + ": nothing in the analyzed files stores a function into it";
  }
  if (call.callee == kNoFunction && !call.callee_qualified.empty()) {
    if (!call.target.empty()) {
      return "`" + call.callee_qualified + "` is defined in " + call.target +
             ", a header not among the analyzed files";
    }
    return "`" + call.callee_qualified + "` is not defined in the analyzed files";
  }
  return "";
}

bool isOwnWork(EventKind kind) {
  return kind == EventKind::kTensorOp || kind == EventKind::kStreamUse ||
         kind == EventKind::kHostSync || kind == EventKind::kReplay;
}

// A C++ region that reaches no function and has no call it could not follow still says why
// nothing is listed: its work is its own, or none is visible.
UnresolvedCall whyNothingReached(const FileModel& file, const CaptureRegion& region,
                                 std::size_t own_work) {
  UnresolvedCall entry;
  entry.file = file.source;
  entry.range = region.site;
  // The capture call as written, on one line and short.
  std::string_view text = file.source->text();
  if (region.site.begin < region.site.end && region.site.end <= text.size()) {
    for (char c : text.substr(region.site.begin, region.site.end - region.site.begin)) {
      const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
      if (space && (entry.text.empty() || entry.text.back() == ' ')) continue;
      entry.text.push_back(space ? ' ' : c);
      if (entry.text.size() >= 80) {
        entry.text += "...";
        break;
      }
    }
  }
  if (own_work > 0) {
    entry.reason =
        "no call to follow: the captured work is the " + std::to_string(own_work) +
        (own_work == 1 ? " kernel launch or CUDA call" : " kernel launches and CUDA calls") +
        " written in the region itself";
  } else {
    entry.reason =
        "nothing under this capture launches work or calls a function the analysis sees: the "
        "captured work is done elsewhere (between calls that begin and end the capture made from "
        "another translation unit or from Python, or in code that did not parse)";
  }
  return entry;
}

}  // namespace

const char* regionKindName(RegionKind kind) {
  switch (kind) {
    case RegionKind::kGraphContext:
      return "graph context";
    case RegionKind::kCaptureBeginEnd:
      return "capture_begin/capture_end";
    case RegionKind::kGraphedCallable:
      return "graphed callable";
    case RegionKind::kCompiled:
      return "compiled with CUDA graphs";
    case RegionKind::kEntryPoint:
      return "entry point";
    case RegionKind::kStreamCapture:
      return "stream capture";
  }
  return "capture";
}

std::vector<RegionSummary> reportRegions(const ProgramModel& program) {
  std::vector<RegionSummary> report;
  RegionWalker walker(program);
  program::TypeEvaluator& evaluator = program.evaluator();
  for (const FileModel& file : program.files()) {
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      const CaptureRegion& region = file.regions[r];
      RegionSummary summary;
      summary.file = file.source;
      summary.site = region.site;
      summary.kind = regionKindName(region.kind);
      if (FunctionRef home = program.regionFunction(file, region)) {
        summary.function = qualifiedName(*home.file, *home.function);
      }
      std::set<std::string> reached;
      std::set<std::tuple<const SourceFile*, std::uint32_t, std::string>> seen;
      std::set<std::uint32_t> own_work;  // where the region's own work is, one per call
      walker.walk(file, r, [&](const RegionContext& context, const Event& event) {
        if (!context.path.empty() || region.whole_function) {
          reached.insert(qualifiedName(*context.file, *context.function));
        }
        if (context.file->language == Language::kCuda) {
          if (context.path.empty() && isOwnWork(event.kind)) own_work.insert(event.range.begin);
          if (event.kind != EventKind::kCall ||
              !program.callTargets(context.frame, *context.file, event).empty()) {
            return;
          }
          std::string reason = whyCppCallNotFollowed(event);
          // A function missing from the analyzed files is named once per region (a library's
          // error check is called everywhere); a call through a holder, at each call.
          const bool once = (event.flags & kFlagIndirectCall) == 0;
          if (reason.empty() || !seen.emplace(once ? nullptr : context.file->source.get(),
                                              once ? 0 : event.range.begin, reason)
                                     .second) {
            return;
          }
          summary.unresolved.push_back(
              {context.file->source, event.range, event.text, std::move(reason)});
          return;
        }
        // Iterating and raising call the program's own methods when there are some: nothing
        // to report when there are none.
        if (event.kind != EventKind::kCall || event.call == kNoRef ||
            event.call >= context.file->references.size() || event.api == "iter" ||
            event.api == "raise") {
          return;
        }
        if (!program.callTargets(context.frame, *context.file, event).empty()) return;
        const Reference& call = context.file->references[event.call];
        if (call.operands.empty() || call.operands[0] == kNoRef) return;
        TypeId callee = evaluator.typeOf(context.frame, call.operands[0]);
        if (libraryOnly(evaluator.types(), callee)) return;
        std::string reason =
            whyUnresolved(evaluator, context.frame, *context.file, call.operands[0], callee);
        if (!seen.emplace(context.file->source.get(), event.range.begin, reason).second) return;
        summary.unresolved.push_back(
            {context.file->source, event.range, event.text, std::move(reason)});
      });
      if (file.language == Language::kCuda && reached.empty() && summary.unresolved.empty()) {
        summary.unresolved.push_back(whyNothingReached(file, region, own_work.size()));
      }
      summary.reaches.assign(reached.begin(), reached.end());
      std::sort(summary.unresolved.begin(), summary.unresolved.end(),
                [](const UnresolvedCall& a, const UnresolvedCall& b) {
                  return std::make_tuple(a.file->path(), a.range.begin) <
                         std::make_tuple(b.file->path(), b.range.begin);
                });
      report.push_back(std::move(summary));
    }
  }
  std::sort(report.begin(), report.end(), [](const RegionSummary& a, const RegionSummary& b) {
    return std::make_tuple(a.file->path(), a.site.begin) < std::make_tuple(b.file->path(), b.site.begin);
  });
  return report;
}

}  // namespace graphsafe
