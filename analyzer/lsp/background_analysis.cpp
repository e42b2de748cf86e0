#include "analyzer/lsp/background_analysis.h"

#include <malloc.h>

#include <map>
#include <new>
#include <set>

namespace graphsafe::lsp {

using Clock = std::chrono::steady_clock;

BackgroundAnalysis::BackgroundAnalysis(std::function<void()> finished)
    : finished_(std::move(finished)), thread_([this] { serve(); }) {}

BackgroundAnalysis::~BackgroundAnalysis() {
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
    cancelled_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

bool BackgroundAnalysis::busy() const {
  std::lock_guard lock(mutex_);
  return input_.has_value() || running_ || output_.has_value();
}

void BackgroundAnalysis::start(AnalysisInput input) {
  {
    std::lock_guard lock(mutex_);
    input_ = std::move(input);
    cancelled_ = false;
  }
  wake_.notify_one();
}

std::optional<AnalysisOutput> BackgroundAnalysis::take() {
  std::lock_guard lock(mutex_);
  std::optional<AnalysisOutput> output = std::move(output_);
  output_.reset();
  return output;
}

bool BackgroundAnalysis::stop(std::chrono::milliseconds patience) {
  std::unique_lock lock(mutex_);
  cancelled_ = true;
  input_.reset();
  return idle_.wait_for(lock, patience, [this] { return !running_; });
}

void BackgroundAnalysis::serve() {
  for (;;) {
    AnalysisInput input;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return quit_ || input_.has_value(); });
      if (quit_) return;
      input = std::move(*input_);
      input_.reset();
      running_ = true;
    }
    AnalysisOutput output = analyze(input);
    {
      std::lock_guard lock(mutex_);
      running_ = false;
      output_ = std::move(output);
    }
    idle_.notify_all();
    finished_();
  }
}

AnalysisOutput BackgroundAnalysis::analyze(AnalysisInput& input) {
  AnalysisOutput output;
  output.generation = input.generation;
  output.documents = input.documents;
  output.settings_changed = input.settings_changed;
  Clock::time_point started = Clock::now();
  try {
    std::vector<Notice> notices;
    std::map<std::string, SourceFilePtr> open;
    for (const DocumentSnapshot& document : input.documents) {
      open.emplace(document.source->path(), document.source);
    }
    std::vector<SourceFilePtr> sources;
    if (!input.workspace_root.empty()) {
      sources = workspace_.read(input.workspace_root, input.options.exclude, input.options.settings,
                                open, notices);
    }
    // Open documents outside the workspace (or excluded from it) are analyzed too, as files
    // named on the command line are.
    std::set<const SourceFile*> included;
    for (const SourceFilePtr& source : sources) included.insert(source.get());
    for (const auto& [path, source] : open) {
      if (!included.contains(source.get())) sources.push_back(source);
    }
    output.files = sources.size();
    if (have_last_ && !input.settings_changed && sources == last_inputs_) {
      output.unchanged = true;
      return output;
    }
    input.options.lowering_cache = &lowered_;
    input.options.cancelled = &cancelled_;
    RunResult result = analyzeSources(sources, input.options);
    notices.insert(notices.end(), std::make_move_iterator(result.notices.begin()),
                   std::make_move_iterator(result.notices.end()));
    result.notices = std::move(notices);
    output.result = std::move(result);
    last_inputs_ = std::move(sources);
    have_last_ = true;
  } catch (const RunCancelled&) {
    output.cancelled = true;
    have_last_ = false;
  } catch (const std::bad_alloc&) {
    output.error = "ran out of memory";
    have_last_ = false;
  } catch (const std::exception& e) {
    output.error = e.what();
    have_last_ = false;
  }
  // A large input's peak (a file that took gigabytes to lower) is freed by now, but the
  // allocator keeps it mapped for the next one; a server that lives for days gives it back.
  ::malloc_trim(0);
  output.took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
  return output;
}

}  // namespace graphsafe::lsp
