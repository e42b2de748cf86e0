#include "analyzer/cli/progress_line.h"

#include <gtest/gtest.h>

#include <sstream>
#include <thread>

namespace graphsafe {
namespace {

using std::chrono::milliseconds;

// A quick run prints nothing at all.
TEST(ProgressLineTest, NothingBeforeTheDelay) {
  RunProgress progress;
  progress.total = 10;
  std::ostringstream out;
  ProgressLine line(out, progress, milliseconds(10'000), milliseconds(10));
  line.stop();
  EXPECT_FALSE(line.shown());
  EXPECT_EQ(out.str(), "");
}

// A slow run rewrites one line in place and erases it at the end.
TEST(ProgressLineTest, OneLineRewrittenThenErased) {
  RunProgress progress;
  progress.total = 2584;
  progress.done = 1200;
  std::ostringstream out;
  ProgressLine line(out, progress, milliseconds(0), milliseconds(5));
  std::this_thread::sleep_for(milliseconds(50));
  progress.done = 2584;
  std::this_thread::sleep_for(milliseconds(50));
  line.stop();
  line.stop();  // idempotent
  EXPECT_TRUE(line.shown());
  const std::string text = out.str();
  EXPECT_TRUE(text.starts_with("\rgraphsafe: analyzed 1200/2584 files\x1b[K")) << text;
  EXPECT_NE(text.find("\rgraphsafe: analyzed 2584/2584 files\x1b[K"), std::string::npos) << text;
  EXPECT_TRUE(text.ends_with("\r\x1b[K")) << text;
  EXPECT_EQ(text.find('\n'), std::string::npos) << text;
  // An unchanged count is not written again: two counts, two writes, one erase.
  std::size_t writes = 0;
  for (std::size_t at = text.find('\r'); at != std::string::npos; at = text.find('\r', at + 1)) {
    ++writes;
  }
  EXPECT_EQ(writes, 3u) << text;
}

// Until the walk has counted the files there is nothing to show.
TEST(ProgressLineTest, NoLineWithoutATotal) {
  RunProgress progress;
  std::ostringstream out;
  ProgressLine line(out, progress, milliseconds(0), milliseconds(5));
  std::this_thread::sleep_for(milliseconds(30));
  line.stop();
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace graphsafe
