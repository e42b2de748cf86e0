#include "analyzer/cli/progress_line.h"

#include <string>

namespace graphsafe {

ProgressLine::ProgressLine(std::ostream& out, const RunProgress& progress,
                           std::chrono::milliseconds delay, std::chrono::milliseconds interval)
    : out_(out), progress_(progress), delay_(delay), interval_(interval) {
  thread_ = std::thread([this] { run(); });
}

ProgressLine::~ProgressLine() {
  stop();
}

void ProgressLine::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ProgressLine::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (wake_.wait_for(lock, delay_, [this] { return stopping_; })) return;
  std::string last;
  do {
    std::size_t total = progress_.total.load(std::memory_order_relaxed);
    std::size_t done = progress_.done.load(std::memory_order_relaxed);
    if (total == 0) continue;  // still walking the tree
    std::string line = "graphsafe: analyzed " + std::to_string(done < total ? done : total) + "/" +
                       std::to_string(total) + " files";
    if (line == last) continue;
    // Back to the line's start, the text, and the rest of the line cleared.
    out_ << '\r' << line << "\x1b[K" << std::flush;
    last = std::move(line);
    shown_ = true;
  } while (!wake_.wait_for(lock, interval_, [this] { return stopping_; }));
  if (shown_) out_ << "\r\x1b[K" << std::flush;
}

}  // namespace graphsafe
