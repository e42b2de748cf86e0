// Writes into a tree a stranger filled (a pull request's checkout) follow no symbolic link out
// of it: a link planted at a report's or baseline's path is replaced, a directory link out of
// the tree refuses the write, and --fix edits a linked file only when it is the tree's own.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <iterator>
#include <string>

#include "analyzer/io/atomic_write.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

namespace fs = std::filesystem;

mode_t modeOf(const fs::path& path) {
  struct stat info {};
  EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
  return info.st_mode;
}

// A checkout (`repo/`) next to the user's own files (`home/`).
struct Checkout {
  testing::TempTree tree;
  Checkout() {
    tree.mkdir("repo");
    tree.write("home/bin/tool", "#!/bin/sh\necho the user's tool\n");
    ::chmod(tree.path("home/bin/tool").c_str(), 0755);
  }
  std::string repo(const std::string& relative = "") const {
    return relative.empty() ? tree.path("repo") : tree.path("repo/" + relative);
  }
  LinkBoundary boundary(bool edit_link_targets = false) const {
    return {{repo()}, edit_link_targets};
  }
};

TEST(LinkBoundaryTest, AReportOverALinkOutOfTheTreeReplacesTheLink) {
  Checkout checkout;
  fs::create_symlink("../home/bin/tool", checkout.repo("report.txt"));
  std::string error;
  ASSERT_TRUE(writeFileAtomically(checkout.repo("report.txt"), "a;touch X #.py:1:1: error\n", error,
                                  checkout.boundary()))
      << error;
  // The user's executable is as it was; the report is a new file, not executable.
  EXPECT_EQ(checkout.tree.read("home/bin/tool"), "#!/bin/sh\necho the user's tool\n");
  EXPECT_EQ(modeOf(checkout.tree.path("home/bin/tool")) & 0777, 0755u);
  EXPECT_TRUE(S_ISREG(modeOf(checkout.repo("report.txt"))));
  EXPECT_EQ(modeOf(checkout.repo("report.txt")) & 0111, 0u);
  EXPECT_EQ(checkout.tree.read("repo/report.txt"), "a;touch X #.py:1:1: error\n");
}

TEST(LinkBoundaryTest, WithoutTheBoundaryTheSameLinkIsFollowed) {
  // The control: the defect the boundary closes.
  Checkout checkout;
  fs::create_symlink("../home/bin/tool", checkout.repo("report.txt"));
  std::string error;
  ASSERT_TRUE(writeFileAtomically(checkout.repo("report.txt"), "report\n", error)) << error;
  EXPECT_EQ(checkout.tree.read("home/bin/tool"), "report\n");
}

TEST(LinkBoundaryTest, ADirectoryLinkOutOfTheTreeRefusesTheWrite) {
  Checkout checkout;
  fs::create_symlink("../home/bin", checkout.repo("out"));
  std::string error;
  EXPECT_FALSE(
      writeFileAtomically(checkout.repo("out/tool"), "report\n", error, checkout.boundary()));
  EXPECT_NE(error.find("leads out of"), std::string::npos) << error;
  EXPECT_EQ(checkout.tree.read("home/bin/tool"), "#!/bin/sh\necho the user's tool\n");
  // Nothing was made there either, not even a temporary file.
  EXPECT_EQ(std::distance(fs::directory_iterator(checkout.tree.root() / "home/bin"),
                          fs::directory_iterator()),
            1);
}

TEST(LinkBoundaryTest, LinksThatStayInsideTheTreeAreFollowed) {
  Checkout checkout;
  checkout.tree.mkdir("repo/build/reports");
  fs::create_symlink("build/reports", checkout.repo("reports"));
  std::string error;
  ASSERT_TRUE(
      writeFileAtomically(checkout.repo("reports/r.sarif"), "{}\n", error, checkout.boundary()))
      << error;
  EXPECT_EQ(checkout.tree.read("repo/build/reports/r.sarif"), "{}\n");
}

TEST(LinkBoundaryTest, AFixEditsALinkedSourceFileOnlyWhenItIsTheTreesOwn) {
  Checkout checkout;
  checkout.tree.write("repo/src/model.py", "x = 1\n");
  fs::create_symlink("src/model.py", checkout.repo("model.py"));
  fs::create_symlink("../home/bin/tool", checkout.repo("tool.py"));
  std::string error;
  ASSERT_TRUE(writeFileAtomically(checkout.repo("model.py"), "x = 2\n", error,
                                  checkout.boundary(/*edit_link_targets=*/true)))
      << error;
  EXPECT_TRUE(fs::is_symlink(checkout.repo("model.py")));
  EXPECT_EQ(checkout.tree.read("repo/src/model.py"), "x = 2\n");

  EXPECT_FALSE(writeFileAtomically(checkout.repo("tool.py"), "x = 2\n", error,
                                   checkout.boundary(/*edit_link_targets=*/true)));
  EXPECT_NE(error.find("outside"), std::string::npos) << error;
  EXPECT_TRUE(fs::is_symlink(checkout.repo("tool.py")));
  EXPECT_EQ(checkout.tree.read("home/bin/tool"), "#!/bin/sh\necho the user's tool\n");
}

TEST(LinkBoundaryTest, ALinkToADeviceIsWrittenThrough) {
  Checkout checkout;
  fs::create_symlink("/dev/null", checkout.repo("out.txt"));
  std::string error;
  std::optional<FileSnapshot> before =
      snapshotFile(checkout.repo("out.txt"), error, checkout.boundary());
  ASSERT_TRUE(before) << error;
  EXPECT_TRUE(before->exists);
  EXPECT_FALSE(before->regular);
  ASSERT_TRUE(
      writeFileAtomically(checkout.repo("out.txt"), "gone\n", *before, error, checkout.boundary()))
      << error;
  EXPECT_TRUE(fs::is_symlink(checkout.repo("out.txt")));
}

TEST(LinkBoundaryTest, ASnapshotSeesALinkItWouldReplaceAsNoFile) {
  // The baseline's check "unchanged since the run began" holds for a planted link: the write
  // replaces it, so there was no file of the user's there.
  Checkout checkout;
  fs::create_symlink("../home/bin/tool", checkout.repo("baseline.json"));
  std::string error;
  std::optional<FileSnapshot> before =
      snapshotFile(checkout.repo("baseline.json"), error, checkout.boundary());
  ASSERT_TRUE(before) << error;
  EXPECT_FALSE(before->exists);
  ASSERT_TRUE(writeFileAtomically(checkout.repo("baseline.json"), "{}\n", *before, error,
                                  checkout.boundary()))
      << error;
  EXPECT_EQ(checkout.tree.read("home/bin/tool"), "#!/bin/sh\necho the user's tool\n");
}

TEST(LinkBoundaryTest, PathsOutsideEveryRootAreTheUsers) {
  Checkout checkout;
  fs::create_symlink("bin/tool", checkout.tree.path("home/tool-link"));
  std::string error;
  ASSERT_TRUE(writeFileAtomically(checkout.tree.path("home/tool-link"), "new\n", error,
                                  checkout.boundary()))
      << error;
  EXPECT_EQ(checkout.tree.read("home/bin/tool"), "new\n");
  EXPECT_EQ(modeOf(checkout.tree.path("home/bin/tool")) & 0777, 0755u);
}

TEST(LinkBoundaryTest, ARootOfSlashBoundsNothing) {
  testing::TempTree tree;
  tree.write("real.txt", "old");
  fs::create_symlink("real.txt", tree.root() / "link.txt");
  std::string error;
  ASSERT_TRUE(writeFileAtomically(tree.path("link.txt"), "new", error, LinkBoundary{{"/"}}))
      << error;
  EXPECT_EQ(tree.read("real.txt"), "new");
}

TEST(LinkBoundaryTest, LeavesBoundarySaysWhetherADirectoryIsTheTreesOwn) {
  Checkout checkout;
  checkout.tree.mkdir("repo/.graphsafe_cache");
  checkout.tree.mkdir("home/.ssh");
  fs::create_symlink("../home/.ssh", checkout.repo("planted"));
  fs::create_symlink(".graphsafe_cache", checkout.repo("inner"));
  const LinkBoundary boundary = checkout.boundary();
  EXPECT_FALSE(leavesBoundary(checkout.repo(".graphsafe_cache"), boundary));
  EXPECT_FALSE(leavesBoundary(checkout.repo("not-made-yet/cache"), boundary));
  EXPECT_TRUE(leavesBoundary(checkout.repo("planted"), boundary));
  EXPECT_TRUE(leavesBoundary(checkout.repo("planted/cache"), boundary));
  EXPECT_FALSE(leavesBoundary(checkout.repo("inner"), boundary));
  EXPECT_FALSE(leavesBoundary(checkout.tree.path("home/.ssh"), boundary));  // not in a root
}

}  // namespace
}  // namespace graphsafe
