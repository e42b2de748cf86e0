#include "analyzer/engine/file_walker.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

namespace fs = std::filesystem;
using ::graphsafe::testing::ScopedCurrentDirectory;
using ::graphsafe::testing::TempTree;
using Files = std::vector<std::string>;

Files collect(const Files& paths, const Files& exclude = {}) {
  std::vector<Notice> notices;
  return collectFiles(paths, exclude, notices);
}

bool hasNotice(const std::vector<Notice>& notices, const std::string& path,
               const std::string& text) {
  return std::any_of(notices.begin(), notices.end(), [&](const Notice& notice) {
    return notice.path == path && notice.message.find(text) != std::string::npos;
  });
}

TEST(FileWalkerTest, ExtensionsDecideTheFrontend) {
  for (const char* path : {"a.py", "dir/b.pyi"}) EXPECT_TRUE(isPythonPath(path)) << path;
  for (const char* path : {"k.cu", "k.cuh", "a.cpp", "a.cc", "a.cxx", "a.c++", "a.h", "a.hpp",
                           "a.hh", "a.hxx", "a.inl"}) {
    EXPECT_TRUE(isCudaPath(path)) << path;
    EXPECT_FALSE(isPythonPath(path)) << path;
  }
  for (const char* path : {"a.pyc", "a.txt", "py", ".py", "Makefile", "a.c", "dir.py/x"}) {
    EXPECT_FALSE(isPythonPath(path) || isCudaPath(path)) << path;
  }
}

TEST(FileWalkerTest, WalksSortedAndKeepsTheUsersSpelling) {
  TempTree tree;
  tree.write("b.py", "");
  tree.write("a.py", "");
  tree.write("stub.pyi", "");
  tree.write("kernel.cu", "");
  tree.write("include/k.hpp", "");
  tree.write("notes.txt", "");
  tree.write("sub/c.py", "");
  ScopedCurrentDirectory cwd(tree.root());

  EXPECT_EQ(collect({"."}),
            (Files{"a.py", "b.py", "include/k.hpp", "kernel.cu", "stub.pyi", "sub/c.py"}));
  EXPECT_EQ(collect({"./sub/"}), Files{"sub/c.py"});
  EXPECT_EQ(collect({"sub"}), Files{"sub/c.py"});
  EXPECT_EQ(collect({"sub/../sub"}), Files{"sub/c.py"});
  EXPECT_EQ(collect({"./a.py", "a.py", "sub/c.py", "sub"}), (Files{"a.py", "sub/c.py"}));
  EXPECT_EQ(collect({""}).size(), 6u);  // empty = the current directory

  std::string absolute = fs::current_path().generic_string();
  EXPECT_EQ(collect({absolute + "/sub"}), Files{absolute + "/sub/c.py"});

  ScopedCurrentDirectory inside(tree.root() / "sub");
  EXPECT_EQ(collect({".."}).front(), "../a.py");
}

TEST(FileWalkerTest, SkipsVersionControlCachesVirtualenvsAndInstalledPackages) {
  TempTree tree;
  for (const char* dir :
       {".git", ".hg", ".svn", ".bzr", ".jj", "_darcs", "__pycache__", "node_modules", ".tox",
        ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".pytype", ".graphsafe_cache",
        ".ipynb_checkpoints", "__pypackages__", "lib/site-packages"}) {
    tree.write(std::string(dir) + "/x.py", "");
  }
  tree.write("myenv/pyvenv.cfg", "home = /usr/bin\n");
  tree.write("myenv/lib/x.py", "");
  tree.write(".venv/bin/activate", "");
  tree.write(".venv/x.py", "");
  tree.write("env/bin/activate", "");
  tree.write("env/x.py", "");
  tree.write("venv/bin/activate", "");
  tree.write("venv/x.py", "");
  tree.write("cmake-out/CMakeCache.txt", "");  // a CMake build tree, by what it holds
  tree.write("cmake-out/CMakeFiles/CompilerIdCXX/CMakeCXXCompilerId.cpp", "");
  tree.write("environment/env/x.py", "");  // named env, but no bin/activate: real code
  tree.write("src/kept.py", "");
  ScopedCurrentDirectory cwd(tree.root());

  EXPECT_EQ(collect({"."}), (Files{"environment/env/x.py", "src/kept.py"}));
  // A skipped kind of directory named explicitly is walked.
  EXPECT_EQ(collect({"node_modules"}), Files{"node_modules/x.py"});
}

// Build outputs are not guessed by name: real packages are called builders/, build_utils/ or
// dist/. A build directory is skipped when a .gitignore says so.
TEST(FileWalkerTest, DirectoriesNamedBuildOrDistAreAnalyzed) {
  TempTree tree;
  tree.write("pkg/builders/x.py", "");
  tree.write("mylib/dist/y.py", "");
  tree.write("build/gen.py", "");
  tree.write("build-release/gen.py", "");
  tree.write("dist/z.py", "");
  ScopedCurrentDirectory cwd(tree.root());
  EXPECT_EQ(collect({"."}), (Files{"build-release/gen.py", "build/gen.py", "dist/z.py",
                                   "mylib/dist/y.py", "pkg/builders/x.py"}));

  tree.mkdir(".git");
  tree.write(".gitignore", "/build*/\n/dist/\n");
  EXPECT_EQ(collect({"."}), (Files{"mylib/dist/y.py", "pkg/builders/x.py"}));
}

TEST(FileWalkerTest, RespectsGitignoreWithNegationAnchoringAndDirectories) {
  TempTree tree;
  tree.mkdir(".git");
  tree.write(".gitignore",
             "# generated code\n"
             "*.gen.py\n"
             "!important.gen.py\n"
             "/top_only.py\n"
             "logs/\n"
             "data/**\n"
             "excluded_dir/\n"
             "!excluded_dir/keep.py\n"
             "test_[0-9].py\n");
  tree.write("a.gen.py", "");
  tree.write("important.gen.py", "");
  tree.write("top_only.py", "");
  tree.write("sub/top_only.py", "");
  tree.write("sub/deeper/b.gen.py", "");
  tree.write("logs/x.py", "");
  tree.write("logs.py", "");  // `logs/` matches directories only
  tree.write("data/x.py", "");
  tree.write("excluded_dir/keep.py", "");  // a file cannot be re-included under an ignored dir
  tree.write("test_1.py", "");
  tree.write("test_a.py", "");
  tree.write("sub/.gitignore", "/local.py\n!b.gen.py\n");
  tree.write("sub/local.py", "");
  tree.write("sub/deeper/local.py", "");  // `/local.py` is anchored to sub/
  ScopedCurrentDirectory cwd(tree.root());

  EXPECT_EQ(collect({"."}), (Files{"important.gen.py", "logs.py", "sub/deeper/b.gen.py",
                                   "sub/deeper/local.py", "sub/top_only.py", "test_a.py"}));
  // Named explicitly, an ignored file is analyzed anyway.
  EXPECT_EQ(collect({"a.gen.py"}), Files{"a.gen.py"});
}

TEST(FileWalkerTest, ReadsGitignoreFilesAboveTheRootUpToTheRepository) {
  TempTree tree;
  tree.write("repo/.git/info/exclude", "from_info_exclude.py\n");
  tree.write("repo/.gitignore", "ignored_by_top.py\n");
  tree.write("repo/pkg/.gitignore", "ignored_by_pkg.py\n");
  tree.write("repo/pkg/mod/ignored_by_top.py", "");
  tree.write("repo/pkg/mod/ignored_by_pkg.py", "");
  tree.write("repo/pkg/mod/from_info_exclude.py", "");
  tree.write("repo/pkg/mod/kept.py", "");
  // Outside a repository no parent .gitignore applies.
  tree.write("plain/.gitignore", "ignored_by_top.py\n");
  tree.write("plain/pkg/ignored_by_top.py", "");
  ScopedCurrentDirectory cwd(tree.root());

  EXPECT_EQ(collect({"repo/pkg/mod"}), Files{"repo/pkg/mod/kept.py"});
  EXPECT_EQ(collect({"plain/pkg"}), Files{"plain/pkg/ignored_by_top.py"});
  EXPECT_EQ(collect({"plain"}), Files{});
}

TEST(FileWalkerTest, NestedRepositoryStartsOverWithItsOwnIgnoreFiles) {
  TempTree tree;
  tree.mkdir(".git");
  tree.write(".gitignore", "*.gen.py\n");
  tree.write("a.gen.py", "");
  tree.mkdir("vendored/.git");
  tree.write("vendored/b.gen.py", "");
  ScopedCurrentDirectory cwd(tree.root());
  EXPECT_EQ(collect({"."}), Files{"vendored/b.gen.py"});
}

TEST(FileWalkerTest, ExcludePatternsAreRelativeToTheCurrentDirectory) {
  TempTree tree;
  tree.write("vendor/x.py", "");
  tree.write("proto/a_pb2.py", "");
  tree.write("proto/a.py", "");
  tree.write("src/vendor/y.py", "");
  tree.write("src/keep.py", "");
  ScopedCurrentDirectory cwd(tree.root());
  EXPECT_EQ(collect({"."}, {"/vendor/", "*_pb2.py"}),
            (Files{"proto/a.py", "src/keep.py", "src/vendor/y.py"}));
  EXPECT_EQ(collect({"."}, {"vendor"}), (Files{"proto/a.py", "proto/a_pb2.py", "src/keep.py"}));
  EXPECT_EQ(collect({"src"}, {"src/keep.py"}), Files{"src/vendor/y.py"});
  // Explicit files are not excluded.
  EXPECT_EQ(collect({"proto/a_pb2.py"}, {"*_pb2.py"}), Files{"proto/a_pb2.py"});
}

Files collectForced(const Files& paths, const Files& exclude) {
  std::vector<Notice> notices;
  Files files = collectFiles(paths, exclude, notices, /*force_exclude=*/true);
  EXPECT_TRUE(notices.empty());
  return files;
}

// --force-exclude: what pre-commit names is excluded as a walk would exclude it: by the file's
// own name, or by one of its directories.
TEST(FileWalkerTest, ForceExcludeAppliesExcludeToNamedPaths) {
  TempTree tree;
  tree.write("proto/a_pb2.py", "");
  tree.write("proto/a.py", "");
  tree.write("vendor/lib/x.py", "");
  tree.write("src/vendor.py", "");
  tree.write("src/keep.py", "");
  tree.write("third_party/keep/y.py", "");
  ScopedCurrentDirectory cwd(tree.root());

  EXPECT_EQ(collectForced({"proto/a_pb2.py", "proto/a.py"}, {"*_pb2.py"}), Files{"proto/a.py"});
  EXPECT_EQ(collectForced({"./proto/a_pb2.py"}, {"/proto/*_pb2.py"}), Files{});
  // A directory pattern excludes what is under it; `vendor/` matches directories only.
  EXPECT_EQ(collectForced({"vendor/lib/x.py", "src/vendor.py"}, {"vendor/"}),
            Files{"src/vendor.py"});
  EXPECT_EQ(collectForced({"vendor", "src"}, {"vendor/"}), (Files{"src/keep.py", "src/vendor.py"}));
  // Nothing is re-included under an excluded directory, as in git.
  EXPECT_EQ(collectForced({"third_party/keep/y.py"}, {"third_party/", "!third_party/keep/"}),
            Files{});
  EXPECT_EQ(collectForced({"src/keep.py"}, {"src/*", "!src/keep.py"}), Files{"src/keep.py"});
  // An absolute spelling of a file inside the patterns' directory is matched the same way.
  EXPECT_EQ(collectForced({tree.path("proto/a_pb2.py")}, {"/proto/"}), Files{});
  // The .gitignore files still do not apply to named files.
  tree.mkdir(".git");
  tree.write(".gitignore", "keep.py\n");
  EXPECT_EQ(collectForced({"src/keep.py"}, {}), Files{"src/keep.py"});
}

TEST(FileWalkerTest, SymlinkLoopsEndWithANotice) {
  TempTree tree;
  tree.write("pkg/a.py", "");
  tree.write("pkg/sub/b.py", "");
  fs::create_directory_symlink("..", tree.root() / "pkg" / "sub" / "up");
  fs::create_directory_symlink(".", tree.root() / "pkg" / "self");
  fs::create_directory_symlink("sub", tree.root() / "pkg" / "alias");  // inside: redundant
  ScopedCurrentDirectory cwd(tree.root());

  std::vector<Notice> notices;
  Files files = collectFiles({"pkg"}, {}, notices);
  EXPECT_EQ(files, (Files{"pkg/a.py", "pkg/sub/b.py"}));
  EXPECT_TRUE(hasNotice(notices, "pkg/sub/up", "symbolic link loop"));
  EXPECT_TRUE(hasNotice(notices, "pkg/self", "symbolic link loop"));
  EXPECT_FALSE(hasNotice(notices, "pkg/alias", "loop"));

  // A link to an ancestor of the root is a loop too.
  notices.clear();
  files = collectFiles({"pkg/sub"}, {}, notices);
  EXPECT_EQ(files, Files{"pkg/sub/b.py"});
  EXPECT_TRUE(hasNotice(notices, "pkg/sub/up", "symbolic link loop"));
}

TEST(FileWalkerTest, FollowsLinksToDirectoriesElsewhereInTheRepositoryOnly) {
  TempTree tree;
  tree.mkdir(".git");
  tree.write("shared/lib.py", "");
  tree.mkdir("project");
  fs::create_directory_symlink("../shared", tree.root() / "project" / "shared");
  ScopedCurrentDirectory cwd(tree.root());
  EXPECT_EQ(collect({"project"}), Files{"project/shared/lib.py"});

  // Out of the repository (`ln -s /proc proc`, another checkout): a notice, nothing read.
  TempTree elsewhere;
  elsewhere.write("other.py", "");
  fs::create_directory_symlink(elsewhere.root(), tree.root() / "project" / "other");
  fs::create_directory_symlink("/proc", tree.root() / "project" / "proc");
  std::vector<Notice> notices;
  EXPECT_EQ(collectFiles({"project"}, {}, notices), Files{"project/shared/lib.py"});
  EXPECT_TRUE(hasNotice(notices, "project/proc", "symbolic link to /proc, outside the project"));
  EXPECT_TRUE(hasNotice(notices, "project/other", "outside the project"));
  // Named, it is analyzed.
  EXPECT_EQ(collect({"project/other"}), Files{"project/other/other.py"});

  // Outside a repository, the walked directory is the project.
  fs::remove(tree.root() / ".git");
  notices.clear();
  EXPECT_EQ(collectFiles({"project"}, {}, notices), Files{});
  EXPECT_TRUE(hasNotice(notices, "project/shared", "outside the project"));
}

TEST(FileWalkerTest, MissingPathsAndBrokenLinksAreNotices) {
  TempTree tree;
  tree.write("ok.py", "");
  fs::create_symlink("nowhere.py", tree.root() / "dangling.py");
  ScopedCurrentDirectory cwd(tree.root());
  std::vector<Notice> notices;
  Files files = collectFiles({"nope", "./missing.py", "."}, {}, notices);
  EXPECT_EQ(files, Files{"ok.py"});
  EXPECT_TRUE(hasNotice(notices, "nope", "no such file or directory"));
  EXPECT_TRUE(hasNotice(notices, "missing.py", "no such file or directory"));
  EXPECT_TRUE(hasNotice(notices, "dangling.py", "broken symbolic link"));
  for (const Notice& notice : notices) EXPECT_EQ(notice.line, -1);
}

TEST(FileWalkerTest, ExplicitFileOfAnotherKindIsANotice) {
  TempTree tree;
  tree.write("README.md", "");
  ScopedCurrentDirectory cwd(tree.root());
  std::vector<Notice> notices;
  EXPECT_TRUE(collectFiles({"README.md"}, {}, notices).empty());
  EXPECT_TRUE(hasNotice(notices, "README.md", "not a Python or C++/CUDA source"));
}

TEST(FileWalkerTest, UnreadableDirectoryIsANotice) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every directory";
  TempTree tree;
  tree.write("locked/x.py", "");
  tree.write("open/y.py", "");
  ::chmod(tree.path("locked").c_str(), 0);
  ScopedCurrentDirectory cwd(tree.root());
  std::vector<Notice> notices;
  Files files = collectFiles({"."}, {}, notices);
  ::chmod(tree.path("locked").c_str(), 0755);
  EXPECT_EQ(files, Files{"open/y.py"});
  EXPECT_TRUE(hasNotice(notices, "locked", "cannot read directory"));
}

}  // namespace
}  // namespace graphsafe
