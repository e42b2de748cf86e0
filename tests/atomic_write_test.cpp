#include "analyzer/io/atomic_write.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>

#include "analyzer/baseline/baseline.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

namespace fs = std::filesystem;

std::size_t entriesIn(const fs::path& dir) {
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++count;
  return count;
}

// Sets a file's modification time, so that a test can make an edit invisible to mtime.
void setMtime(const std::string& path, std::int64_t mtime_ns) {
  struct timespec times[2];
  times[0].tv_sec = static_cast<time_t>(mtime_ns / 1'000'000'000);
  times[0].tv_nsec = static_cast<long>(mtime_ns % 1'000'000'000);
  times[1] = times[0];
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

TEST(AtomicWriteTest, ContentHashIsFnv1a) {
  EXPECT_EQ(contentHash(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(contentHash("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_NE(contentHash("ab"), contentHash("ba"));
}

TEST(AtomicWriteTest, SnapshotOfMissingFileSaysSo) {
  testing::TempTree tree;
  std::string error;
  auto snapshot = snapshotFile(tree.path("absent"), error);
  ASSERT_TRUE(snapshot) << error;
  EXPECT_FALSE(snapshot->exists);
  std::string content;
  FileSnapshot read;
  EXPECT_FALSE(readFileWithSnapshot(tree.path("absent"), content, read, error));
  EXPECT_NE(error.find("absent"), std::string::npos);
}

TEST(AtomicWriteTest, ReadAndSnapshotAgree) {
  testing::TempTree tree;
  tree.write("a.json", "{\"x\": 1}\n");
  std::string content;
  FileSnapshot read;
  std::string error;
  ASSERT_TRUE(readFileWithSnapshot(tree.path("a.json"), content, read, error)) << error;
  EXPECT_EQ(content, "{\"x\": 1}\n");
  EXPECT_TRUE(read.exists);
  EXPECT_EQ(read.size, content.size());
  EXPECT_EQ(read.content_hash, contentHash(content));
  EXPECT_EQ(snapshotFile(tree.path("a.json"), error), read);
}

TEST(AtomicWriteTest, WritesWhenTheFileIsAsItWasRead) {
  testing::TempTree tree;
  tree.write("baseline.json", "old");
  std::string content;
  FileSnapshot read;
  std::string error;
  ASSERT_TRUE(readFileWithSnapshot(tree.path("baseline.json"), content, read, error));
  ASSERT_TRUE(writeFileAtomically(tree.path("baseline.json"), "new", read, error)) << error;
  EXPECT_EQ(tree.read("baseline.json"), "new");
  EXPECT_EQ(entriesIn(tree.root()), 1u);
}

TEST(AtomicWriteTest, RefusesWhenTheContentChangedBehindTheSameSizeAndTime) {
  testing::TempTree tree;
  std::string path = tree.path("model.py");
  tree.write("model.py", "x = 1\n");
  std::string content;
  FileSnapshot read;
  std::string error;
  ASSERT_TRUE(readFileWithSnapshot(path, content, read, error));
  // Someone edits the file: same size, and the same mtime (a coarse clock would show that).
  tree.write("model.py", "x = 2\n");
  setMtime(path, read.mtime_ns);
  EXPECT_FALSE(writeFileAtomically(path, "fixed\n", read, error));
  EXPECT_NE(error.find("changed since graphsafe read it"), std::string::npos) << error;
  EXPECT_EQ(tree.read("model.py"), "x = 2\n");  // their edit survives
  EXPECT_EQ(entriesIn(tree.root()), 1u);        // and no temporary file is left
}

TEST(AtomicWriteTest, RefusesWhenTouchedResizedRemovedOrCreated) {
  testing::TempTree tree;
  std::string path = tree.path("out.json");
  std::string error;
  tree.write("out.json", "same");
  FileSnapshot read = *snapshotFile(path, error);

  setMtime(path, read.mtime_ns + 1'000'000'000);
  EXPECT_FALSE(writeFileAtomically(path, "x", read, error));

  tree.write("out.json", "longer content");
  setMtime(path, read.mtime_ns);
  EXPECT_FALSE(writeFileAtomically(path, "x", read, error));

  fs::remove(path);
  EXPECT_FALSE(writeFileAtomically(path, "x", read, error));
  EXPECT_NE(error.find("removed"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(path));

  FileSnapshot absent = *snapshotFile(path, error);
  tree.write("out.json", "theirs");
  EXPECT_FALSE(writeFileAtomically(path, "mine", absent, error));
  EXPECT_NE(error.find("created"), std::string::npos) << error;
  EXPECT_EQ(tree.read("out.json"), "theirs");
  EXPECT_EQ(entriesIn(tree.root()), 1u);
}

TEST(AtomicWriteTest, KeepsPermissionsOfTheFileItReplaces) {
  testing::TempTree tree;
  std::string path = tree.path("script.sh");
  tree.write("script.sh", "#!/bin/sh\n");
  ::chmod(path.c_str(), 0750);
  std::string error;
  ASSERT_TRUE(writeFileAtomically(path, "#!/bin/sh\necho hi\n", error)) << error;
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0750u);
}

TEST(AtomicWriteTest, ASymbolicLinkKeepsPointingAtItsTarget) {
  testing::TempTree tree;
  tree.write("real/baseline.json", "old");
  fs::create_symlink("real/baseline.json", tree.root() / "baseline.json");
  std::string error;
  ASSERT_TRUE(writeFileAtomically(tree.path("baseline.json"), "new", error)) << error;
  EXPECT_TRUE(fs::is_symlink(tree.root() / "baseline.json"));
  EXPECT_EQ(tree.read("real/baseline.json"), "new");

  // A dangling link: its target is created.
  fs::create_symlink("real/later.json", tree.root() / "later.json");
  ASSERT_TRUE(writeFileAtomically(tree.path("later.json"), "made", error)) << error;
  EXPECT_TRUE(fs::is_symlink(tree.root() / "later.json"));
  EXPECT_EQ(tree.read("real/later.json"), "made");
}

TEST(AtomicWriteTest, AnOwnFileReplacesALinkAndNeverWritesThroughIt) {
  testing::TempTree tree;
  tree.write("victim.py", "precious");
  fs::create_symlink(tree.path("victim.py"), tree.root() / "run-1.entry");
  ::mkfifo(tree.path("run-2.entry").c_str(), 0600);
  std::string error;
  ASSERT_TRUE(replaceOwnFileAtomically(tree.path("run-1.entry"), "entry", error)) << error;
  EXPECT_FALSE(fs::is_symlink(tree.root() / "run-1.entry"));
  EXPECT_EQ(tree.read("run-1.entry"), "entry");
  EXPECT_EQ(tree.read("victim.py"), "precious");
  // A FIFO in its place would block a write into it: it is replaced too.
  ASSERT_TRUE(replaceOwnFileAtomically(tree.path("run-2.entry"), "two", error)) << error;
  EXPECT_TRUE(fs::is_regular_file(tree.root() / "run-2.entry"));
  EXPECT_EQ(tree.read("run-2.entry"), "two");
}

TEST(AtomicWriteTest, TemporariesNameTheProcessThatMadeThem) {
  long pid = 0;
  EXPECT_TRUE(isAtomicWriteTemporary(".run-ab.entry.graphsafe-4242-0-123456.tmp", pid));
  EXPECT_EQ(pid, 4242);
  EXPECT_FALSE(isAtomicWriteTemporary("run-ab.entry", pid));
  EXPECT_FALSE(isAtomicWriteTemporary(".x.graphsafe--0-1.tmp", pid));
  EXPECT_FALSE(isAtomicWriteTemporary(".x.graphsafe-12.tmp", pid));
  EXPECT_FALSE(isAtomicWriteTemporary(".x.tmp", pid));
}

TEST(AtomicWriteTest, ALinkLoopIsAnErrorNotAHang) {
  testing::TempTree tree;
  fs::create_symlink("b", tree.root() / "a");
  fs::create_symlink("a", tree.root() / "b");
  std::string error;
  EXPECT_FALSE(writeFileAtomically(tree.path("a"), "x", error));
  EXPECT_NE(error.find("symbolic links"), std::string::npos) << error;
}

TEST(AtomicWriteTest, ADirectoryIsRefused) {
  testing::TempTree tree;
  tree.mkdir("out");
  std::string error;
  EXPECT_FALSE(writeFileAtomically(tree.path("out"), "x", error));
  EXPECT_NE(error.find("directory"), std::string::npos) << error;
  EXPECT_TRUE(fs::is_directory(tree.root() / "out"));
}

TEST(AtomicWriteTest, ADeviceIsWrittenInPlace) {
  std::string error;
  EXPECT_TRUE(writeFileAtomically("/dev/null", "discarded", error)) << error;
  std::optional<FileSnapshot> device = snapshotFile("/dev/null", error);
  ASSERT_TRUE(device) << error;
  EXPECT_TRUE(device->exists);
  EXPECT_FALSE(device->regular);
  EXPECT_TRUE(writeFileAtomically("/dev/null", "discarded", *device, error)) << error;
  struct stat info {};
  ASSERT_EQ(::stat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
}

TEST(AtomicWriteTest, AFailedWriteLeavesTheOriginalAndNoTemporary) {
  testing::TempTree tree;
  tree.write("dir/out.json", "original");
  std::string error;
  // The parent is a file: no temporary can be made, nothing changes.
  EXPECT_FALSE(writeFileAtomically(tree.path("dir/out.json/x"), "new", error));
  EXPECT_EQ(tree.read("dir/out.json"), "original");
  EXPECT_EQ(entriesIn(tree.root() / "dir"), 1u);
}

TEST(AtomicWriteTest, ReadersNeverSeeAPartialFile) {
  testing::TempTree tree;
  std::string path = tree.path("report.json");
  const std::string first(1 << 20, 'a');
  const std::string second(1 << 19, 'b');
  std::string error;
  ASSERT_TRUE(writeFileAtomically(path, first, error));
  std::atomic<bool> done{false};
  std::atomic<int> partial{0};
  std::thread reader([&] {
    while (!done) {
      std::string seen = tree.read("report.json");
      if (seen != first && seen != second) ++partial;
    }
  });
  for (int i = 0; i < 40; ++i) {
    std::string ignored;
    writeFileAtomically(path, i % 2 == 0 ? second : first, ignored);
  }
  done = true;
  reader.join();
  EXPECT_EQ(partial.load(), 0);
  EXPECT_EQ(entriesIn(tree.root()), 1u);
}

TEST(AtomicWriteTest, TheBaselineIsNotWrittenOverAChangeMadeDuringTheRun) {
  testing::TempTree tree;
  std::string path = tree.path("baseline.json");
  tree.write("baseline.json", "{}\n");
  std::string error;
  FileSnapshot before = *snapshotFile(path, error);
  tree.write("baseline.json", "{\"edited\": true}\n");  // while the analysis runs
  Baseline empty = Baseline::fromResult(RunResult{}, path);
  EXPECT_FALSE(empty.write(path, before, error));
  EXPECT_NE(error.find("changed since graphsafe read it"), std::string::npos) << error;
  EXPECT_EQ(tree.read("baseline.json"), "{\"edited\": true}\n");

  FileSnapshot now = *snapshotFile(path, error);
  EXPECT_TRUE(empty.write(path, now, error)) << error;
  EXPECT_NE(tree.read("baseline.json"), "{\"edited\": true}\n");
}

}  // namespace
}  // namespace graphsafe
