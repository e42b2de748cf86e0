// Files the user names as inputs (a configuration, a baseline, SARIF logs to merge) and the
// configuration the search finds: only regular files within a bound are read. A FIFO, a device
// or a directory is refused at once, naming the file, instead of blocking the run forever or
// reading until memory ends; a configuration that cannot be read stops the run instead of being
// passed by for a parent directory's.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>

#include "analyzer/baseline/baseline.h"
#include "analyzer/config/config.h"
#include "analyzer/io/bounded_read.h"
#include "analyzer/output/sarif_merge.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

namespace fs = std::filesystem;
using testing::TempTree;

std::string fifoIn(const TempTree& tree, const std::string& name) {
  const std::string path = tree.path(name);
  EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
  return path;
}

std::string configError(const std::string& path) {
  try {
    loadConfigFile(path);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "(loaded)";
}

TEST(BoundedRead, ReadsARegularFileAndRefusesEverythingElse) {
  TempTree tree;
  tree.write("a.txt", "hello");
  std::string content;
  std::string error;
  ASSERT_TRUE(readRegularFile(tree.path("a.txt"), 5, content, error)) << error;
  EXPECT_EQ(content, "hello");
  EXPECT_FALSE(readRegularFile(tree.path("a.txt"), 4, content, error));
  EXPECT_EQ(error, "too large (5 bytes; the limit is 4 bytes)");
  EXPECT_TRUE(content.empty());
  EXPECT_FALSE(readRegularFile(fifoIn(tree, "f"), 100, content, error));
  EXPECT_EQ(error, "not a regular file (a FIFO)");
  EXPECT_FALSE(readRegularFile("/dev/zero", 100, content, error));
  EXPECT_EQ(error, "not a regular file (a device)");
  EXPECT_FALSE(readRegularFile(tree.path(), 100, content, error));
  EXPECT_EQ(error, "not a regular file (a directory)");
  EXPECT_FALSE(readRegularFile(tree.path("missing"), 100, content, error));
  EXPECT_EQ(error, "cannot read: No such file or directory");
}

TEST(InputFiles, AConfigurationThatIsNotAFileIsAnErrorNamingIt) {
  TempTree tree;
  const auto start = std::chrono::steady_clock::now();
  const std::string fifo = fifoIn(tree, "c.yaml");
  EXPECT_EQ(configError(fifo), fifo + ": not a regular file (a FIFO)");
  EXPECT_EQ(configError("/dev/zero"), "/dev/zero: not a regular file (a device)");
  tree.write("big.yaml", "select: [GS401]\n" + std::string(5u << 20, '#'));
  EXPECT_EQ(configError(tree.path("big.yaml")),
            tree.path("big.yaml") + ": too large (5 MiB; the limit is 4 MiB)");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(InputFiles, TheSearchStopsAtAConfigurationItCannotRead) {
  TempTree tree;
  tree.mkdir(".git");
  tree.write(".graphsafe.yaml", "select: [GS401]\n");
  // A directory named like the configuration, nearer than the real one: found, and an error.
  tree.mkdir("pkg/.graphsafe.yaml");
  tree.write("pkg/a.py", "x = 1\n");
  auto found = findConfigFile(tree.path("pkg"));
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, tree.path("pkg/.graphsafe.yaml"));
  EXPECT_EQ(configError(*found), *found + ": not a regular file (a directory)");
  // A pyproject.toml too large to read may hold [tool.graphsafe]: found, and an error.
  tree.write("lib/pyproject.toml", "[tool.graphsafe]\n" + std::string(5u << 20, '#'));
  found = findConfigFile(tree.path("lib"));
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, tree.path("lib/pyproject.toml"));
  EXPECT_NE(configError(*found).find("too large"), std::string::npos);
  // One without the table is passed by, as before.
  tree.write("app/pyproject.toml", "[project]\nname = \"app\"\n");
  found = findConfigFile(tree.path("app"));
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, tree.path(".graphsafe.yaml"));
}

TEST(InputFiles, ABaselineThatIsNotAFileIsAnErrorNamingIt) {
  TempTree tree;
  std::string error;
  const std::string fifo = fifoIn(tree, "b.json");
  EXPECT_FALSE(Baseline::load(fifo, error));
  EXPECT_EQ(error, fifo + ": cannot use the baseline: not a regular file (a FIFO)");
  EXPECT_FALSE(Baseline::load("/dev/zero", error));
  EXPECT_EQ(error, "/dev/zero: cannot use the baseline: not a regular file (a device)");
  EXPECT_FALSE(Baseline::load(tree.path("none.json"), error));
  EXPECT_EQ(error, tree.path("none.json") +
                       ": cannot use the baseline: cannot read: No such file or directory");
}

TEST(InputFiles, AMergeInputThatIsNotAFileIsAnErrorNamingIt) {
  TempTree tree;
  const std::string fifo = fifoIn(tree, "x.sarif");
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(runMergeCommand({fifo}, "", out, err), 2);
  EXPECT_EQ(err.str(), "graphsafe: error: " + fifo + ": not a regular file (a FIFO)\n");
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
}  // namespace graphsafe
