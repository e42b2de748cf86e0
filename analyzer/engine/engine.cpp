#include "analyzer/engine/engine.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "analyzer/catalog/rule_catalog.h"
#include "analyzer/engine/check.h"
#include "analyzer/engine/cuda_frontend_loader.h"
#include "analyzer/engine/extension_reach.h"
#include "analyzer/engine/file_walker.h"
#include "analyzer/engine/frontend.h"
#include "analyzer/engine/lowering_cache.h"
#include "analyzer/engine/parallel.h"
#include "analyzer/engine/per_file_ignores.h"
#include "analyzer/engine/region_report.h"
#include "analyzer/engine/region_walker.h"
#include "analyzer/engine/result_cache.h"
#include "analyzer/engine/severity_overrides.h"
#include "analyzer/engine/source_reader.h"
#include "analyzer/engine/stream_handoffs.h"
#include "analyzer/engine/suppressions.h"
#include "analyzer/engine/unit_cache.h"
#include "analyzer/io/atomic_write.h"
#include "analyzer/model/entry_points.h"
#include "analyzer/program/program_model.h"
#include "analyzer/program/type_evaluator.h"
#include "frontends/python/module_name.h"

namespace graphsafe {

namespace {

// GRAPHSAFE_CUDA_FRONTEND=none: run as a build without the C++ frontend module would, whatever
// the loader could find (the loader's other candidates, next to the binary and in the build tree,
// would otherwise be found after a forced path that does not exist). For tests and for
// reproducing what a binary installed without its module does.
std::unique_ptr<Frontend> loadCudaFrontendUnlessTurnedOff(std::string& error) {
  const char* forced = std::getenv("GRAPHSAFE_CUDA_FRONTEND");
  if (forced != nullptr && std::string_view(forced) == "none") {
    error = "the C++ frontend is turned off (GRAPHSAFE_CUDA_FRONTEND=none)";
    return nullptr;
  }
  return loadCudaFrontend(error);
}

// The frontends of one run. The CUDA frontend is loaded on first use only, so that a run over
// Python files never maps the Clang libraries.
class Frontends {
 public:
  Frontends() : python_(makePythonFrontend()) {}

  // Called from one thread (LazyLowering::run's first loop).
  const Frontend* forPath(const std::string& path) {
    if (isPythonPath(path)) return python_.get();
    if (!isCudaPath(path)) return nullptr;
    std::call_once(cuda_once_, [this] { cuda_ = loadCudaFrontendUnlessTurnedOff(cuda_error_); });
    if (!cuda_) skipped_.push_back(path);
    return cuda_.get();
  }

  // The C++ files met while the C++ frontend could not be loaded, in the order met.
  const std::vector<std::string>& skipped() const { return skipped_; }
  // Why: what is missing and where it was looked for.
  const std::string& cudaError() const { return cuda_error_; }

  // One notice for the run: how many files were not analyzed, and why.
  void noteSkipped(std::vector<Notice>& notices) const {
    if (skipped_.empty()) return;
    notices.push_back({"", -1,
                       (skipped_.size() == 1 ? std::string("1 C++ file")
                                             : std::to_string(skipped_.size()) + " C++ files") +
                           " not analyzed: " + cuda_error_});
  }

 private:
  std::unique_ptr<Frontend> python_;
  std::unique_ptr<Frontend> cuda_;
  std::once_flag cuda_once_;
  std::string cuda_error_;
  std::vector<std::string> skipped_;
};

// A frontend's notice about its own file that starts with the file's location
// ("b.py:4: syntax error") would print it twice: every output writes the location itself.
Notice withoutOwnLocation(Notice notice) {
  if (notice.path.empty()) return notice;
  std::string prefix = notice.path;
  if (notice.line >= 0) prefix += ":" + std::to_string(notice.line + 1);
  prefix += ": ";
  if (notice.message.starts_with(prefix) && notice.message.size() > prefix.size()) {
    notice.message.erase(0, prefix.size());
  }
  return notice;
}

// A file matters when its frontend's lexical pre-scan says it can hold something a rule looks
// at, or when it may define a capture entry point the configuration names.
bool fileMatters(const Frontend& frontend, const std::string& text,
                 const AnalysisSettings& settings) {
  if (frontend.mayMatter(text)) return true;
  for (const std::string& entry : settings.capture_entry_points) {
    std::size_t cut = entry.find_last_of(".:");
    std::string_view last = cut == std::string::npos ? std::string_view(entry)
                                                     : std::string_view(entry).substr(cut + 1);
    if (!last.empty() && text.find(last) != std::string::npos) return true;
  }
  return false;
}

// How many C++ translation units parsed with compiler errors: their findings rest on what
// Clang recovered, and the usual cause (flags the build passes that the analysis lacks) has a
// remedy the user should hear about once per run, not once per file.
void noteCompilerErrors(const std::vector<FileModel>& files, std::vector<Notice>& notices) {
  std::size_t parsed = 0;
  std::size_t with_errors = 0;
  for (const FileModel& file : files) {
    if (file.language != Language::kCuda || !file.lowered || file.parse_failed) continue;
    ++parsed;
    with_errors += file.compiler_errors > 0 ? 1 : 0;
  }
  if (with_errors == 0) return;
  notices.push_back({"", -1,
                     std::to_string(with_errors) + " of the " + std::to_string(parsed) +
                         " C++ files parsed (those that use a CUDA, library or stream API) had "
                         "compiler errors, and were analyzed as far as Clang recovered them "
                         "(--show-compiler-errors lists the errors; -p names the build's "
                         "compile_commands.json, --extra-arg adds a flag)"});
}

// Imports are followed this many files deep from a file that may capture: a longer chain of
// imports is not real code.
constexpr int kMaxImportRounds = 32;
// Importers of the files that capture are lowered this many rounds up (a loop, the trainer it
// drives, the wrapper that captures).
constexpr int kMaxImporterRounds = 3;

// Lowers the files of a run: first those that matter, then, round by round, the Python modules
// that code reachable from a capture region calls into. The others keep an empty model (read,
// not lowered). Each round lowers its files in parallel and in index order, so the result is
// the same whatever `jobs` says.
void throwIfCancelled(const EngineOptions& options) {
  if (options.cancelled != nullptr && options.cancelled->load(std::memory_order_relaxed)) {
    throw RunCancelled();
  }
}

class LazyLowering {
 public:
  LazyLowering(const std::vector<SourceFilePtr>& sources, const EngineOptions& options,
               Frontends& frontends, bool lower_everything = false)
      : lower_everything_(lower_everything),
        sources_(sources),
        options_(options),
        frontends_(frontends),
        models_(sources.size()),
        lowered_(sources.size(), false),
        frontend_of_(sources.size(), nullptr),
        settings_key_(options.lowering_cache != nullptr ? analysisSettingsKey(options.settings)
                                                        : std::string()) {}

  std::unique_ptr<ProgramModel> run(std::vector<Notice>& notices) {
    std::vector<std::size_t> batch;
    if (options_.progress != nullptr) options_.progress->total = sources_.size();
    for (std::size_t i = 0; i < sources_.size(); ++i) {
      const Frontend* frontend = frontends_.forPath(sources_[i]->path());
      frontend_of_[i] = frontend;
      models_[i].language = frontend ? frontend->language() : Language::kPython;
      models_[i].source = sources_[i];
      models_[i].lowered = false;
      if (frontend != nullptr &&
          (lower_everything_ || fileMatters(*frontend, sources_[i]->text(), options_.settings))) {
        batch.push_back(i);
      }
    }
    // Files that are not lowered now are done (an import may lower one later: not counted).
    if (options_.progress != nullptr) options_.progress->done += sources_.size() - batch.size();
    lower(batch, /*count=*/true);
    nameModules();
    lowerImported(batch);
    lowerImporters();
    markHeadersOfExtensionUnits(models_);
    markRegisteredOperators(models_);
    followStreamHandoffs(models_);
    auto program = std::make_unique<ProgramModel>(std::move(models_));
    program->settleRegions();
    for (const std::string& entry :
         unmatchedEntryPoints(options_.settings.capture_entry_points, program->files())) {
      notices.push_back(
          {"", -1,
           "capture entry point `" + entry +
               "` names no function of the analyzed files (spell it `package.module.Class.method`, "
               "`package.module:function`, `outer.inner` for a nested function, or "
               "`ns::Class::method` in C++)"});
    }
    // A notice about the run's settings (path "") comes from every C++ file that meets it: said
    // once.
    std::set<std::string> said;
    for (std::size_t i = 0; i < program->files().size(); ++i) {
      const FileModel& file = program->files()[i];
      for (const Notice& notice : file.notices) {
        if (notice.path.empty() && !said.insert(notice.message).second) continue;
        notices.push_back(withoutOwnLocation(notice));
        // A file the frontend gave up on (a crash, a bound, a parse that failed) was not
        // analyzed: its notice says so, and the run cannot pass.
        if (file.lowered && file.parse_failed) notices.back().incomplete = true;
      }
    }
    if (imports_cut_) {
      notices.push_back({"", -1,
                         "imports were followed " + std::to_string(kMaxImportRounds) +
                             " modules deep from the files that capture; the modules imported "
                             "deeper were not analyzed",
                         /*incomplete=*/true});
    }
    frontends_.noteSkipped(notices);
    noteCompilerErrors(program->files(), notices);
    if (options_.lowering_cache != nullptr) options_.lowering_cache->finishRun();
    return program;
  }

 private:
  void lower(const std::vector<std::size_t>& batch, bool count = false) {
    RunProgress* progress = count ? options_.progress : nullptr;
    const UnitCache* units = unitCache(batch);
    parallelFor(batch.size(), options_.jobs, [&](std::size_t k) {
      std::size_t i = batch[k];
      throwIfCancelled(options_);
      if (LoweringCache* cache = options_.lowering_cache) {
        if (std::optional<FileModel> kept = cache->find(sources_[i], settings_key_)) {
          models_[i] = std::move(*kept);
          if (progress != nullptr) ++progress->done;
          return;
        }
      }
      bool unit = units != nullptr && frontend_of_[i]->language() == Language::kCuda;
      try {
        std::optional<FileModel> stored = unit ? units->load(sources_[i]) : std::nullopt;
        if (stored) {
          models_[i] = std::move(*stored);
        } else {
          models_[i] = frontend_of_[i]->analyze(sources_[i], options_.settings);
          if (unit) units->store(models_[i]);
        }
        if (options_.lowering_cache != nullptr) {
          options_.lowering_cache->keep(models_[i], settings_key_);
        }
      } catch (const std::bad_alloc&) {
        // One file's lowering must not cost the others their results.
        models_[i] = FileModel{};
        models_[i].language = frontend_of_[i]->language();
        models_[i].source = sources_[i];
        models_[i].parse_failed = true;
        models_[i].notices.push_back({sources_[i]->path(), -1,
                                      "skipped: ran out of memory while analyzing this file",
                                      /*incomplete=*/true});
      }
      if (progress != nullptr) ++progress->done;
    });
    for (std::size_t i : batch) lowered_[i] = true;
  }

  // The C++ unit entries of the cache directory, when the run has one and `batch` holds a C++
  // file (made on first use: its key names the C++ frontend module, loaded by then).
  const UnitCache* unitCache(const std::vector<std::size_t>& batch) {
    if (options_.cache_dir.empty()) return nullptr;
    if (!unit_cache_) {
      bool cxx = std::any_of(batch.begin(), batch.end(), [&](std::size_t i) {
        return frontend_of_[i] != nullptr && frontend_of_[i]->language() == Language::kCuda;
      });
      if (!cxx) return nullptr;
      unit_cache_.emplace(options_.cache_dir, analysisSettingsKey(options_.settings));
    }
    return &*unit_cache_;
  }

  // The files the lowered files import, and the files those import, in rounds: what a capture
  // calls across files is there when the program model types it. Read lexically; each round
  // is lowered in parallel.
  void lowerImported(std::vector<std::size_t> frontier) {
    for (int round = 0; round < kMaxImportRounds && !frontier.empty(); ++round) {
      program::ProgramIndex index(models_);
      std::vector<std::vector<std::size_t>> found(frontier.size());
      parallelFor(frontier.size(), options_.jobs, [&](std::size_t k) {
        const std::size_t i = frontier[k];
        if (frontend_of_[i] == nullptr) return;
        for (const std::string& module : frontend_of_[i]->importedModules(*sources_[i])) {
          const std::uint32_t file = index.moduleFile(module, static_cast<std::uint32_t>(i));
          if (file != program::kNoId && !lowered_[file]) found[k].push_back(file);
        }
      });
      std::vector<std::size_t> next;
      for (const auto& files : found) next.insert(next.end(), files.begin(), files.end());
      std::sort(next.begin(), next.end());
      next.erase(std::unique(next.begin(), next.end()), next.end());
      lower(next);
      frontier = std::move(next);
    }
    imports_cut_ = !frontier.empty();
  }

  // The Python files that import a module holding a capture region, and those that import
  // them, a few rounds up: the loops that replay a graph, and what they change between replays,
  // are in the callers of the code that captures (a training loop calling a wrapper's step, a
  // server changing a runner's settings). With the files they import in turn.
  void lowerImporters() {
    if (lower_everything_) return;
    std::vector<bool> targets(models_.size(), false);
    bool any = false;
    for (std::size_t i = 0; i < models_.size(); ++i) {
      targets[i] =
          lowered_[i] && models_[i].language == Language::kPython && !models_[i].regions.empty();
      any = any || targets[i];
    }
    if (!any) return;
    // Each unlowered file's imports, read once (lexically).
    std::vector<std::vector<std::string>> imports(models_.size());
    parallelFor(models_.size(), options_.jobs, [&](std::size_t i) {
      if (lowered_[i] || frontend_of_[i] == nullptr ||
          frontend_of_[i]->language() != Language::kPython) {
        return;
      }
      imports[i] = frontend_of_[i]->importedModules(*sources_[i]);
    });
    for (int round = 0; round < kMaxImporterRounds; ++round) {
      program::ProgramIndex index(models_);
      std::vector<std::size_t> next;
      for (std::size_t i = 0; i < models_.size(); ++i) {
        if (lowered_[i]) continue;
        for (const std::string& module : imports[i]) {
          const std::uint32_t file = index.moduleFile(module, static_cast<std::uint32_t>(i));
          if (file != program::kNoId && targets[file]) {
            next.push_back(i);
            break;
          }
        }
      }
      if (next.empty()) break;
      lower(next);
      lowerImported(next);
      std::fill(targets.begin(), targets.end(), false);
      for (std::size_t i : next) targets[i] = true;
    }
  }

  // Every Python file's module name, lowered or not: a name that reaches a module not lowered
  // yet finds its file by this name.
  void nameModules() {
    parallelFor(sources_.size(), options_.jobs, [&](std::size_t i) {
      if (lowered_[i] || frontend_of_[i] == nullptr ||
          frontend_of_[i]->language() != Language::kPython) {
        return;
      }
      models_[i].module_name = python::moduleNameForPath(sources_[i]->path()).dotted;
    });
  }

  bool lower_everything_ = false;
  const std::vector<SourceFilePtr>& sources_;
  const EngineOptions& options_;
  Frontends& frontends_;
  std::vector<FileModel> models_;
  std::vector<bool> lowered_;
  std::vector<const Frontend*> frontend_of_;
  std::string settings_key_;  // when a lowering cache is given
  std::optional<UnitCache> unit_cache_;
  bool imports_cut_ = false;  // the import rounds ended with files still to lower
};

struct EnabledCheck {
  const Check* check;
  const RuleInfo* rule;
};

std::vector<EnabledCheck> enabledChecks(const std::vector<std::unique_ptr<Check>>& checks,
                                        const RuleSelection& selection,
                                        std::vector<Notice>& notices) {
  std::vector<EnabledCheck> enabled;
  for (const auto& check : checks) {
    const RuleInfo* rule = RuleCatalog::instance().find(check->id());
    if (rule == nullptr) {
      notices.push_back({"", -1, "internal: check " + std::string(check->id()) +
                                     " has no catalog entry and was skipped"});
      continue;
    }
    if (selection.enabled(rule->id)) enabled.push_back({check.get(), rule});
  }
  return enabled;
}

// A capture region whose walk ran into a bound, as the checks left it.
struct RegionCut {
  const FileModel* file = nullptr;
  std::size_t region = 0;
  RegionWalker::Cut cut;
};

// What checking one file found, and what it could not check.
struct FileChecks {
  std::vector<Diagnostic> diagnostics;
  std::vector<Notice> notices;
  std::vector<RegionCut> cuts;
};

std::string functions(std::size_t count) {
  return std::to_string(count) + (count == 1 ? " function" : " functions");
}

// A region whose walk left functions unwalked was checked in part: said once, at the region.
// Called once every check is done (the deep calls are resolved only then); nullopt when every
// function its calls reach was walked after all.
std::optional<Notice> regionCutNotice(const ProgramModel& program, const RegionCut& region_cut) {
  const RegionWalker::Cut& cut = region_cut.cut;
  const std::size_t deep = RegionWalker(program).functionsCutDeep(cut);
  if (cut.visit_budget == 0 && deep == 0) return std::nullopt;
  const FileModel& file = *region_cut.file;
  const CaptureRegion& region = file.regions[region_cut.region];
  std::string where = "this capture region";
  if (region.function < file.functions.size()) {
    where += " (in `" + file.functions[region.function].qualified_name + "`)";
  }
  std::string message = where + " was checked only in part:";
  if (cut.visit_budget > 0) {
    message += " its walk used the " + std::to_string(RegionWalker::kMaxFunctionVisits) +
               " function visits one region may take, and " + functions(cut.visit_budget) +
               " its calls reach past them were not walked";
  }
  if (deep > 0) {
    message += std::string(cut.visit_budget > 0 ? ";" : "") + " " + functions(deep) +
               " reached only more than " + std::to_string(RegionWalker::kMaxCallDepth) +
               " calls deep were not walked";
  }
  message += "; hazards in them are missed";
  return Notice{file.source->path(), static_cast<std::int32_t>(region.site.start.line),
                std::move(message), /*incomplete=*/true};
}

// Runs every enabled check over one file: the events of each of its capture regions (and what
// they reach), then the whole-file checks. Running out of memory costs this file's findings
// only, as in the frontends.
FileChecks checkFile(const ProgramModel& program, const FileModel& file,
                     const std::vector<EnabledCheck>& checks) {
  FileChecks result;
  try {
    std::vector<Diagnostic>& found = result.diagnostics;
    std::vector<DiagnosticSink> sinks;
    sinks.reserve(checks.size());
    for (const EnabledCheck& enabled : checks) sinks.emplace_back(*enabled.rule, found);

    RegionWalker walker(program);
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      bool traced = file.regions[r].dynamo_traced;
      RegionWalker::Cut cut =
          walker.walk(file, r, [&](const RegionContext& context, const Event& event) {
            for (std::size_t c = 0; c < checks.size(); ++c) {
              if (traced && !checks[c].rule->applies_when_traced) continue;
              checks[c].check->checkRegionEvent(context, event, sinks[c]);
            }
          });
      if (cut.any()) result.cuts.push_back({&file, r, std::move(cut)});
    }
    for (std::size_t c = 0; c < checks.size(); ++c) {
      checks[c].check->checkFile(file, program, sinks[c]);
    }
  } catch (const std::bad_alloc&) {
    result = FileChecks{};
    result.notices.push_back({file.source->path(), -1,
                              "skipped: ran out of memory while checking this file",
                              /*incomplete=*/true});
  }
  return result;
}

// The program model's evaluator answers "unknown" once its budget is spent: the checks after
// that point are quieter than the code deserves, and the run says where it happened.
Notice evaluatorBudgetNotice(const std::string& path) {
  std::string message =
      "the program model's budget (" + std::to_string(program::TypeEvaluator::kMaxEvaluations) +
      " type evaluations, " + std::to_string(program::TypeEvaluator::kMaxCallSiteVisits) +
      " call sites looked at) ran out ";
  message +=
      path.empty() ? "before the checks began" : "while this file's capture regions were checked";
  message += "; types asked for after that are unknown, so findings may be missed";
  return {path, -1, std::move(message), /*incomplete=*/true};
}

// One finding per rule and range: the same line reached from two regions or along two call
// paths is one hazard. The first (in file and region order) keeps its path.
void removeDuplicates(std::vector<Diagnostic>& diagnostics) {
  std::set<std::tuple<std::string, std::string, std::uint32_t, std::uint32_t>> seen;
  std::erase_if(diagnostics, [&](const Diagnostic& d) {
    return !seen.emplace(d.rule_id, d.path(), d.range.begin, d.range.end).second;
  });
}

void sortNotices(std::vector<Notice>& notices) {
  std::stable_sort(notices.begin(), notices.end(), [](const Notice& a, const Notice& b) {
    return std::tie(a.path, a.line) < std::tie(b.path, b.line);
  });
}

// Whether a rule that `code` names ("" = any rule) ran: a suppression of rules that did not run
// may be needed by a run that has them.
bool codeCouldFire(std::string_view code, const std::vector<EnabledCheck>& enabled) {
  if (code.empty()) {  // a comment for every rule: only a run of every rule can tell
    std::size_t implemented = 0;
    for (const RuleInfo& rule : RuleCatalog::instance().rules()) implemented += rule.implemented;
    return enabled.size() >= implemented;
  }
  return std::any_of(enabled.begin(), enabled.end(),
                     [&](const EnabledCheck& check) { return check.rule->id.starts_with(code); });
}

// One warning per code of a suppression comment that suppressed nothing, at the comment.
void reportUnused(const FileModel& file, const Suppressions& suppressions,
                  const std::vector<EnabledCheck>& enabled, std::vector<Diagnostic>& out) {
  const SourceFile& source = *file.source;
  auto could_fire = [&](std::string_view code) { return codeCouldFire(code, enabled); };
  for (const Suppressions::Unused& unused : suppressions.unused(could_fire)) {
    Diagnostic diagnostic;
    diagnostic.rule_id = kUnusedSuppressionId;
    diagnostic.rule_name = kUnusedSuppressionId;
    diagnostic.severity = Severity::kWarning;
    diagnostic.file = file.source;
    std::string_view line = source.line(unused.line);
    std::uint32_t begin = source.offsetAt({unused.line, unused.column});
    std::size_t length = line.size() > unused.column ? line.size() - unused.column : 0;
    diagnostic.range = source.rangeOf(begin, begin + static_cast<std::uint32_t>(length));
    if (unused.code.empty()) {
      diagnostic.message = "unused suppression: this comment suppresses no finding";
      diagnostic.help = "remove the comment";
    } else {
      diagnostic.message =
          "unused suppression: no finding of " + unused.code + " is suppressed by this comment";
      diagnostic.help = "remove " + unused.code + " from the comment (or the comment)";
    }
    out.push_back(std::move(diagnostic));
  }
}

// What the run did with each of its files (in the order of `sources`), for the result cache.
struct LoweringRecord {
  std::vector<bool> lowered;
  // Files outside the run's own that its result depends on: the project headers the C++ units
  // included and the compile databases their flags came from (sorted, unique).
  std::vector<std::string> dependencies;
  // A C++ unit read more headers than it lists, or the C++ frontend was missing (which a later
  // run may find): the result is not cached.
  bool uncacheable = false;
};

RunResult analyzeAll(const std::vector<SourceFilePtr>& sources, const EngineOptions& options,
                     std::vector<Notice> notices, LoweringRecord* record = nullptr) {
  Frontends frontends;
  std::unique_ptr<ProgramModel> model = LazyLowering(sources, options, frontends).run(notices);
  const ProgramModel& program = *model;
  if (record != nullptr) {
    for (const FileModel& file : program.files()) {
      record->lowered.push_back(file.lowered);
      if (!file.lowered || file.language != Language::kCuda) continue;
      record->uncacheable |= !file.includes_complete;
      record->dependencies.insert(record->dependencies.end(), file.includes.begin(),
                                  file.includes.end());
      if (!file.flags_from.empty()) record->dependencies.push_back(file.flags_from);
      if (!file.compile_database.empty()) record->dependencies.push_back(file.compile_database);
    }
    std::sort(record->dependencies.begin(), record->dependencies.end());
    record->dependencies.erase(
        std::unique(record->dependencies.begin(), record->dependencies.end()),
        record->dependencies.end());
    record->uncacheable |= !frontends.skipped().empty();
  }
  auto checks = makeAllChecks();
  auto enabled = enabledChecks(checks, options.selection, notices);

  const auto& files = program.files();
  std::vector<FileChecks> per_file(files.size());
  // The files with capture regions ask the program model's evaluator, whose answers under its
  // budgets depend on the order of the questions: they are checked one after another, in file
  // order, so that a run gives the same findings whatever `jobs` says. The others (most files)
  // ask nothing of it and are checked in parallel.
  std::vector<std::size_t> rest;
  if (program.evaluator().budgetExhausted()) notices.push_back(evaluatorBudgetNotice(""));
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (files[i].regions.empty()) {
      rest.push_back(i);
    } else {
      throwIfCancelled(options);
      const bool spent = program.evaluator().budgetExhausted();
      per_file[i] = checkFile(program, files[i], enabled);
      if (!spent && program.evaluator().budgetExhausted()) {
        per_file[i].notices.push_back(evaluatorBudgetNotice(files[i].source->path()));
      }
    }
  }
  parallelFor(rest.size(), options.jobs, [&](std::size_t k) {
    throwIfCancelled(options);
    per_file[rest[k]] = checkFile(program, files[rest[k]], enabled);
  });

  RunResult result;
  result.skipped_files = frontends.skipped();
  std::sort(result.skipped_files.begin(), result.skipped_files.end());
  if (!result.skipped_files.empty()) result.skipped_reason = frontends.cudaError();
  result.files_analyzed = files.size() - result.skipped_files.size();
  if (options.report_regions) result.regions = reportRegions(program);
  for (FileChecks& found : per_file) {
    std::move(found.diagnostics.begin(), found.diagnostics.end(),
              std::back_inserter(result.diagnostics));
    std::move(found.notices.begin(), found.notices.end(), std::back_inserter(notices));
    for (const RegionCut& cut : found.cuts) {
      if (std::optional<Notice> notice = regionCutNotice(program, cut)) {
        notices.push_back(std::move(*notice));
      }
    }
  }
  removeDuplicates(result.diagnostics);

  // Suppression comments live in the file a finding points at.
  std::map<std::string, Suppressions> suppressions;
  for (const FileModel& file : files) {
    if (!file.comments.empty()) {
      suppressions.emplace(file.source->path(), Suppressions::parse(file, notices));
    }
  }
  PerFileIgnores per_file_ignores(options.per_file_ignores);
  std::erase_if(result.diagnostics, [&](const Diagnostic& d) {
    auto it = suppressions.find(d.path());
    bool hidden =
        (it != suppressions.end() && it->second.suppressAndMark(d.rule_id, d.range.start.line)) ||
        per_file_ignores.ignores(d.path(), d.rule_id);
    result.suppressed += hidden ? 1 : 0;
    return hidden;
  });
  applySeverityOverrides(options.severity_overrides, result.diagnostics);
  if (options.report_unused_suppressions) {
    for (const FileModel& file : files) {
      auto it = suppressions.find(file.source->path());
      if (it != suppressions.end()) reportUnused(file, it->second, enabled, result.diagnostics);
    }
  }

  std::sort(result.diagnostics.begin(), result.diagnostics.end(), diagnosticLess);
  sortNotices(notices);
  result.notices = std::move(notices);
  return result;
}

}  // namespace

RunResult analyzeSources(const std::vector<SourceFilePtr>& sources, const EngineOptions& options) {
  std::vector<Notice> notices;
  std::vector<SourceFilePtr> accepted;
  for (const SourceFilePtr& source : sources) {
    std::string problem = checkSourceText(source->text(), options.settings);
    if (problem.empty()) {
      accepted.push_back(source);
    } else {
      notices.push_back({source->path(), -1, problem, /*incomplete=*/true});
    }
  }
  return analyzeAll(accepted, options, std::move(notices));
}

namespace {

// The walker's notices join a result (fresh or cached) in the order a single pass gives them.
RunResult withWalkerNotices(RunResult result, std::vector<Notice> walker_notices) {
  walker_notices.insert(walker_notices.end(), std::make_move_iterator(result.notices.begin()),
                        std::make_move_iterator(result.notices.end()));
  sortNotices(walker_notices);
  result.notices = std::move(walker_notices);
  return result;
}

}  // namespace

std::unique_ptr<ProgramModel> buildProgram(const EngineOptions& options,
                                           std::vector<Notice>& notices) {
  std::vector<std::string> roots = options.paths;
  if (roots.empty()) roots.emplace_back(".");
  std::vector<std::string> paths =
      collectFiles(roots, options.exclude, notices, options.force_exclude);
  std::vector<SourceFilePtr> sources;
  for (const std::string& path : paths) {
    if (SourceFilePtr source = readSource(path, options.settings, notices)) {
      sources.push_back(std::move(source));
    }
  }
  // The frontends must outlive the lowering only: the model keeps no pointer into them.
  Frontends frontends;
  return LazyLowering(sources, options, frontends, /*lower_everything=*/true).run(notices);
}

RunResult runAnalysis(const EngineOptions& options) {
  std::vector<Notice> walker_notices;
  std::vector<std::string> roots = options.paths;
  if (roots.empty()) roots.emplace_back(".");
  std::vector<std::string> paths =
      collectFiles(roots, options.exclude, walker_notices, options.force_exclude);

  std::optional<ResultCache> cache;
  if (!options.cache_dir.empty()) {
    cache.emplace(options.cache_dir, runCacheKey(options));
    std::unique_ptr<Frontend> python = makePythonFrontend();
    auto still_irrelevant = [&](const SourceFile& file) {
      return isPythonPath(file.path()) && !fileMatters(*python, file.text(), options.settings);
    };
    if (auto hit = cache->load(paths, options.settings, still_irrelevant)) {
      return withWalkerNotices(std::move(*hit), std::move(walker_notices));
    }
  }

  std::vector<SourceFilePtr> loaded(paths.size());
  std::vector<std::vector<Notice>> read_notices(paths.size());
  parallelFor(paths.size(), options.jobs, [&](std::size_t i) {
    loaded[i] = readSource(paths[i], options.settings, read_notices[i]);
  });
  std::vector<Notice> notices;
  for (auto& list : read_notices) notices.insert(notices.end(), list.begin(), list.end());
  std::vector<SourceFilePtr> sources;
  for (const SourceFilePtr& source : loaded) {
    if (source) sources.push_back(source);
  }
  LoweringRecord record;
  RunResult result = analyzeAll(sources, options, std::move(notices), &record);

  if (cache && !record.uncacheable && record.lowered.size() == sources.size()) {
    std::vector<CachedFileState> states(paths.size());
    std::size_t next = 0;
    for (std::size_t i = 0; i < paths.size(); ++i) {
      states[i].path = paths[i];
      if (!loaded[i]) continue;
      states[i].accepted = true;
      states[i].lowered = record.lowered[next++];
      states[i].content_hash = contentHash(loaded[i]->text());
    }
    cache->store(states, result, record.dependencies);
  }
  return withWalkerNotices(std::move(result), std::move(walker_notices));
}

}  // namespace graphsafe
