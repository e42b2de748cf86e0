#pragma once

// The language server's analyses, run one at a time on a thread of their own, so that the
// server goes on reading and answering while a workspace is analyzed. Each analysis takes the
// open documents as the client holds them and, when the workspace has a root, every other file
// of the workspace from disk: a file's findings then do not depend on which files are open. The
// lowered files are kept between analyses (lowering_cache.h) and files on disk are re-read only
// when their stamps change (workspace_files.h), so an edit costs the lowering of the edited
// document and the checks, not the workspace.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "analyzer/engine/engine.h"
#include "analyzer/engine/lowering_cache.h"
#include "analyzer/lsp/workspace_files.h"

namespace graphsafe::lsp {

// An open document as one analysis saw it.
struct DocumentSnapshot {
  std::string uri;
  std::int64_t version = 0;
  SourceFilePtr source;
};

struct AnalysisInput {
  std::uint64_t generation = 0;  // the server's count of changes this input reflects
  std::vector<DocumentSnapshot> documents;
  std::string workspace_root;  // "" = the open documents only
  EngineOptions options;
  bool settings_changed = false;  // since the previous input
};

struct AnalysisOutput {
  std::uint64_t generation = 0;
  std::vector<DocumentSnapshot> documents;  // those of the input
  // No input changed since the previous analysis (the same texts, the same settings): its
  // results still hold and `result` is empty.
  bool unchanged = false;
  bool cancelled = false;
  bool settings_changed = false;  // that of the input
  std::string error;              // the analysis failed; `result` is empty
  RunResult result;
  std::size_t files = 0;  // the files analyzed, open documents included
  std::chrono::milliseconds took{0};
};

class BackgroundAnalysis {
 public:
  // `finished` is called on the analysis thread each time an output is ready to take().
  explicit BackgroundAnalysis(std::function<void()> finished);
  // Cancels what runs and waits for it.
  ~BackgroundAnalysis();
  BackgroundAnalysis(const BackgroundAnalysis&) = delete;
  BackgroundAnalysis& operator=(const BackgroundAnalysis&) = delete;

  // Whether an analysis runs or waits to be taken.
  bool busy() const;
  // Starts an analysis; only when not busy().
  void start(AnalysisInput input);
  // The output of the analysis that finished, once.
  std::optional<AnalysisOutput> take();
  // Asks a running analysis to stop at its next file (its output says `cancelled`); an input
  // newer than it is coming.
  void cancel() { cancelled_ = true; }
  // Asks a running analysis to stop at its next file, and waits at most `patience` for the
  // thread to be idle. False when it still runs (one C++ unit can take its whole time bound).
  bool stop(std::chrono::milliseconds patience);

 private:
  void serve();
  AnalysisOutput analyze(AnalysisInput& input);

  std::function<void()> finished_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::optional<AnalysisInput> input_;
  std::optional<AnalysisOutput> output_;
  bool running_ = false;
  bool quit_ = false;
  std::atomic<bool> cancelled_{false};
  // Only the analysis thread touches these.
  WorkspaceFiles workspace_;
  LoweringCache lowered_;
  std::vector<SourceFilePtr> last_inputs_;
  bool have_last_ = false;
  std::thread thread_;  // last: started once everything above exists
};

}  // namespace graphsafe::lsp
