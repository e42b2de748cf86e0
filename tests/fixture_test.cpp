// The fixture runner: every file under fixtures/ carries its expectations inline, and the runner
// checks both ways: each expected finding is reported on its line (and column, when given), and
// no line without an expectation gets one. A file directly under fixtures/<lang>/ is analyzed
// alone; a directory under it is analyzed as one program (for calls across files).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "analyzer/engine/cuda_frontend_loader.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/file_walker.h"
#include "tests/fixture_expectations.h"

namespace graphsafe::testing {
namespace {

namespace fs = std::filesystem;

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

bool isSourceFile(const fs::path& path) {
  return isPythonPath(path.string()) || isCudaPath(path.string());
}

// One test case per fixture file or fixture directory.
std::vector<std::string> fixtureUnits() {
  std::vector<std::string> units;
  for (const char* language : {"python", "cuda"}) {
    fs::path root = fs::path(GRAPHSAFE_SOURCE_DIR) / "fixtures" / language;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(root, error)) {
      if (entry.is_directory() || isSourceFile(entry.path())) {
        units.push_back(fs::relative(entry.path(), GRAPHSAFE_SOURCE_DIR).string());
      }
    }
  }
  std::sort(units.begin(), units.end());
  return units;
}

std::string describe(const Diagnostic& d) {
  std::ostringstream out;
  out << d.path() << ":" << d.range.start.line + 1 << ":" << d.range.start.column + 1 << ": "
      << d.rule_id << " " << d.message;
  return out.str();
}

class FixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureTest, FindingsMatchInlineExpectations) {
  fs::path unit = fs::path(GRAPHSAFE_SOURCE_DIR) / GetParam();
  std::vector<fs::path> files;
  if (fs::is_directory(unit)) {
    for (const auto& entry : fs::recursive_directory_iterator(unit)) {
      if (entry.is_regular_file() && isSourceFile(entry.path())) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(unit);
  }

  // A build without the C++ frontend (-DGRAPHSAFE_CUDA_FRONTEND=OFF) cannot check C++ fixtures.
  bool has_cuda = std::any_of(files.begin(), files.end(),
                              [](const fs::path& file) { return isCudaPath(file.string()); });
  if (std::string error; has_cuda && loadCudaFrontend(error) == nullptr) GTEST_SKIP() << error;

  std::vector<SourceFilePtr> sources;
  for (const fs::path& file : files) {
    sources.push_back(std::make_shared<SourceFile>(file.string(), readFile(file)));
  }
  EngineOptions options;
  options.jobs = 1;
  for (const SourceFilePtr& source : sources) {
    std::vector<std::string> select = parseFixtureSelect(source->text());
    options.selection.select.insert(options.selection.select.end(), select.begin(), select.end());
  }
  RunResult result = analyzeSources(sources, options);

  std::size_t expectation_count = 0;
  for (const SourceFilePtr& source : sources) {
    // (line, rule) -> findings still unmatched
    std::map<std::pair<std::uint32_t, std::string>, std::vector<const Diagnostic*>> reported;
    for (const Diagnostic& d : result.diagnostics) {
      if (d.path() == source->path()) reported[{d.range.start.line, d.rule_id}].push_back(&d);
    }
    for (const Expectation& expected : parseExpectations(source->text())) {
      ++expectation_count;
      auto& found = reported[{expected.line, expected.rule_id}];
      std::string where = source->path() + ":" + std::to_string(expected.line + 1);
      if (expected.known_miss) {
        EXPECT_TRUE(found.empty()) << where << ": " << expected.rule_id
                                   << " is marked todo-expect but now fires; promote it to "
                                      "`expect:`";
        continue;
      }
      if (found.empty()) {
        ADD_FAILURE() << where << ": expected " << expected.rule_id << ", not reported";
        continue;
      }
      if (expected.column >= 0) {
        EXPECT_EQ(static_cast<std::int32_t>(found.front()->range.start.column) + 1,
                  expected.column)
            << where << ": " << expected.rule_id << " reported at another column";
      }
      found.erase(found.begin());
    }
    for (const auto& [key, unmatched] : reported) {
      for (const Diagnostic* d : unmatched) ADD_FAILURE() << "unexpected: " << describe(*d);
    }
  }
  for (const Notice& notice : result.notices) {
    ADD_FAILURE() << "unexpected notice: " << notice.path << ":" << notice.line + 1 << ": "
                  << notice.message;
  }
  // A fixture with no expectation at all still counts: near-miss files assert silence.
  RecordProperty("expectations", static_cast<int>(expectation_count));
}

std::string testName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureTest, ::testing::ValuesIn(fixtureUnits()), testName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FixtureTest);

TEST(FixtureExpectations, ParsesEveryForm) {
  auto parsed = parseExpectations(
      "a.item()  # expect: GS401\n"
      "b  # expect: GS103, GS103\n"
      "c  // expect: GS301@col=5\n"
      "d  # todo-expect: GS203\n"
      "e = 'expect: GS401'\n");
  ASSERT_EQ(parsed.size(), 5u);
  EXPECT_EQ(parsed[0].rule_id, "GS401");
  EXPECT_EQ(parsed[0].line, 0u);
  EXPECT_EQ(parsed[2].line, 1u);
  EXPECT_EQ(parsed[3].column, 5);
  EXPECT_TRUE(parsed[4].known_miss);
  EXPECT_FALSE(parsed[0].known_miss);
}

TEST(FixtureExpectations, ParsesSelectDirective) {
  auto codes = parseFixtureSelect("# fixture: select=GS2, GS401\nx = 1\n");
  ASSERT_EQ(codes.size(), 2u);
  EXPECT_EQ(codes[0], "GS2");
  EXPECT_EQ(codes[1], "GS401");
  EXPECT_TRUE(parseFixtureSelect("x = 1\n").empty());
}

}  // namespace
}  // namespace graphsafe::testing
