#pragma once

// A progress line on a terminal: "graphsafe: analyzed 1200/2584 files", rewritten in place at
// most every `interval` once the run has taken `delay`, and erased when the run ends, so a quick
// run prints nothing and a slow one leaves no trace in the output.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <ostream>
#include <thread>

#include "analyzer/engine/engine.h"

namespace graphsafe {

class ProgressLine {
 public:
  ProgressLine(std::ostream& out, const RunProgress& progress,
               std::chrono::milliseconds delay = std::chrono::seconds(1),
               std::chrono::milliseconds interval = std::chrono::milliseconds(100));
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Stops the updates and erases the line if one was shown. Idempotent.
  void stop();
  // Whether a line was shown.
  bool shown() const { return shown_; }

 private:
  void run();

  std::ostream& out_;
  const RunProgress& progress_;
  std::chrono::milliseconds delay_;
  std::chrono::milliseconds interval_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool shown_ = false;
  std::thread thread_;
};

}  // namespace graphsafe
