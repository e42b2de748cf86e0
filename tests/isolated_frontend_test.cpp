// A frontend run out of process: the model crosses a pipe intact, and a child that crashes, runs
// out of memory or past its time costs only its own file. The C++ frontend runs this way; the
// reproductions at the end are inputs that once killed or hung a whole run.
#include "analyzer/engine/isolated_frontend.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "analyzer/engine/analysis_settings.h"
#include "analyzer/engine/cuda_frontend_loader.h"
#include "analyzer/engine/engine.h"
#include "analyzer/engine/frontend.h"
#include "analyzer/model/model_codec.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

SourceFilePtr source(const std::string& path, std::string text) {
  return std::make_shared<const SourceFile>(path, std::move(text));
}

constexpr const char* kPythonCapture =
    "import torch\n"
    "class Runner:\n"
    "    def __init__(self, n):\n"
    "        self.n = n\n"
    "    def step(self, x, lr: float):\n"
    "        if x.sum() > 0:\n"
    "            x.mul_(lr)\n"
    "        return x\n"
    "g = torch.cuda.CUDAGraph()\n"
    "x = torch.ones(4, device='cuda')\n"
    "r = Runner(3)\n"
    "with torch.cuda.graph(g):\n"
    "    y = r.step(x, 0.5)\n"
    "    print(x.item())\n";

FileModel lowerPython(const std::string& text) {
  auto frontend = makePythonFrontend();
  return frontend->analyze(source("m.py", text), AnalysisSettings{});
}

TEST(ModelCodec, RoundTripsAModelByteForByte) {
  FileModel model = lowerPython(kPythonCapture);
  ASSERT_FALSE(model.functions.empty());
  ASSERT_FALSE(model.regions.empty());
  ASSERT_FALSE(model.references.empty());
  const std::string bytes = encodeFileModel(model);
  std::string error;
  auto decoded = decodeFileModel(bytes, model.source, error);
  ASSERT_TRUE(decoded) << error;
  EXPECT_EQ(encodeFileModel(*decoded), bytes);
  EXPECT_EQ(decoded->source, model.source);
  EXPECT_EQ(decoded->functions.size(), model.functions.size());
  EXPECT_EQ(decoded->functions.back().qualified_name, model.functions.back().qualified_name);
  EXPECT_EQ(decoded->regions.front().span, model.regions.front().span);
  EXPECT_EQ(decoded->classes.size(), model.classes.size());
}

TEST(ModelCodec, SignedAndWideValuesSurvive) {
  FileModel model;
  model.functions.emplace_back();
  model.functions[0].class_index = -7;
  model.functions[0].literal_params = ~std::uint64_t{0};
  model.functions[0].parent = kNoFunction;
  model.regions.emplace_back();
  model.regions[0].tuple_index = std::numeric_limits<std::int32_t>::min();
  model.notices.push_back({"caf\xe9.cu", -1, std::string("nul\0byte", 8)});
  std::string error;
  auto decoded = decodeFileModel(encodeFileModel(model), nullptr, error);
  ASSERT_TRUE(decoded) << error;
  EXPECT_EQ(decoded->functions[0].class_index, -7);
  EXPECT_EQ(decoded->functions[0].literal_params, ~std::uint64_t{0});
  EXPECT_EQ(decoded->functions[0].parent, kNoFunction);
  EXPECT_EQ(decoded->regions[0].tuple_index, std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(decoded->notices[0].path, "caf\xe9.cu");
  EXPECT_EQ(decoded->notices[0].message.size(), 8u);
}

TEST(ModelCodec, RefusesBytesCutShortOrFromAnotherVersion) {
  const std::string bytes = encodeFileModel(lowerPython(kPythonCapture));
  std::string error;
  for (std::size_t cut = 0; cut < bytes.size(); cut += 1 + cut / 8) {
    EXPECT_FALSE(decodeFileModel(std::string_view(bytes).substr(0, cut), nullptr, error))
        << "cut at " << cut;
  }
  EXPECT_FALSE(decodeFileModel(bytes + "x", nullptr, error));
  EXPECT_NE(error.find("corrupt"), std::string::npos);
  std::string other = bytes;
  other[1] = 'X';
  EXPECT_FALSE(decodeFileModel(other, nullptr, error));
  EXPECT_NE(error.find("version"), std::string::npos);
  // A count far larger than the bytes left allocates nothing.
  std::string huge = bytes.substr(0, 20) + std::string(9, '\xff') + '\x01';
  EXPECT_FALSE(decodeFileModel(huge, nullptr, error));
}

// A stand-in for Clang: does what it is told in analyze(), in the child.
class StandIn final : public Frontend {
 public:
  enum class Act { kLower, kAbort, kSleep, kExhaustMemory, kExit };
  explicit StandIn(Act act) : act_(act) {}
  Language language() const override { return Language::kCuda; }
  std::string_view name() const override { return "stand-in"; }
  bool mayMatter(std::string_view) const override { return true; }
  FileModel analyze(const SourceFilePtr& file, const AnalysisSettings&) const override {
    switch (act_) {
      case Act::kLower:
        break;
      case Act::kAbort:
        std::abort();
      case Act::kSleep:
        std::this_thread::sleep_for(std::chrono::seconds(30));
        break;
      case Act::kExhaustMemory: {
        std::vector<std::unique_ptr<char[]>> blocks;
        for (int i = 0; i < 1024; ++i) {
          blocks.emplace_back(new char[std::size_t{16} << 20]);
          blocks.back()[0] = 1;
        }
        break;
      }
      case Act::kExit:
        ::_exit(3);
    }
    FileModel model = lowerPython(kPythonCapture);
    model.language = Language::kCuda;
    model.source = file;
    model.notices.push_back({file->path(), 2, "lowered in the child"});
    return model;
  }

 private:
  Act act_;
};

FileModel runIsolated(StandIn::Act act, const AnalysisSettings& settings = {}) {
  auto frontend = isolateFrontend(std::make_unique<StandIn>(act));
  return frontend->analyze(source("k.cu", "int x;\n"), settings);
}

std::string onlyNotice(const FileModel& model) {
  return model.notices.size() == 1 ? model.notices[0].message
                                   : "(" + std::to_string(model.notices.size()) + " notices)";
}

TEST(IsolatedFrontend, TheChildsModelComesBackWhole) {
  FileModel model = runIsolated(StandIn::Act::kLower);
  EXPECT_FALSE(model.parse_failed);
  ASSERT_EQ(model.notices.size(), 1u);
  EXPECT_EQ(model.notices[0].message, "lowered in the child");
  EXPECT_EQ(model.source->path(), "k.cu");
  EXPECT_EQ(
      encodeFileModel(model), encodeFileModel([] {
        FileModel direct =
            StandIn(StandIn::Act::kLower).analyze(source("k.cu", "int x;\n"), AnalysisSettings{});
        return direct;
      }()));
}

TEST(IsolatedFrontend, ACrashCostsOnlyItsFile) {
  FileModel model = runIsolated(StandIn::Act::kAbort);
  EXPECT_TRUE(model.parse_failed);
  EXPECT_EQ(model.language, Language::kCuda);
  EXPECT_NE(onlyNotice(model).find("crashed on this file (SIGABRT)"), std::string::npos)
      << onlyNotice(model);
  EXPECT_EQ(model.notices[0].path, "k.cu");
}

TEST(IsolatedFrontend, AnUnexpectedExitIsNamed) {
  FileModel model = runIsolated(StandIn::Act::kExit);
  EXPECT_TRUE(model.parse_failed);
  EXPECT_NE(onlyNotice(model).find("with status 3"), std::string::npos) << onlyNotice(model);
}

TEST(IsolatedFrontend, ATimeLimitStopsTheChild) {
  AnalysisSettings settings;
  settings.cxx_timeout_ms = 300;
  const auto start = std::chrono::steady_clock::now();
  FileModel model = runIsolated(StandIn::Act::kSleep, settings);
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(model.parse_failed);
  EXPECT_NE(onlyNotice(model).find("stopped after 0.3 s"), std::string::npos) << onlyNotice(model);
  EXPECT_NE(onlyNotice(model).find("cxx-timeout"), std::string::npos);
  // The stand-in sleeps 30 s: the notice came from the bound, not from the child finishing.
  EXPECT_LT(waited, std::chrono::seconds(20));
}

#if !defined(__SANITIZE_ADDRESS__)
// (AddressSanitizer reserves its shadow memory up front and reports an exhausted bound itself.)
TEST(IsolatedFrontend, AMemoryLimitStopsTheChild) {
  AnalysisSettings settings;
  settings.cxx_memory_bytes = std::size_t{256} << 20;
  FileModel model = runIsolated(StandIn::Act::kExhaustMemory, settings);
  EXPECT_TRUE(model.parse_failed);
  EXPECT_NE(onlyNotice(model).find("ran out of memory at 256 MiB"), std::string::npos)
      << onlyNotice(model);
  EXPECT_NE(onlyNotice(model).find("cxx-memory"), std::string::npos);
}
#endif

#if !defined(__SANITIZE_ADDRESS__)
// (AddressSanitizer's allocator may be locked by another thread at the fork; the C++ frontend,
// the only user of these children, is not part of the sanitizer build.)
TEST(IsolatedFrontend, ManyChildrenAtOnceDoNotWaitOnEachOther) {
  auto frontend = isolateFrontend(std::make_unique<StandIn>(StandIn::Act::kLower));
  std::vector<FileModel> models(16);
  std::vector<std::jthread> threads;
  for (std::size_t t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (std::size_t i = t; i < models.size(); i += 4) {
        models[i] = frontend->analyze(source("k" + std::to_string(i) + ".cu", "int x;\n"),
                                      AnalysisSettings{});
      }
    });
  }
  threads.clear();
  for (std::size_t i = 0; i < models.size(); ++i) {
    EXPECT_FALSE(models[i].parse_failed) << i;
    EXPECT_EQ(models[i].source->path(), "k" + std::to_string(i) + ".cu");
  }
}
#endif

// The reproductions, through the real C++ frontend.
class CxxFrontendReproduction : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    if (loadCudaFrontend(error) == nullptr) GTEST_SKIP() << error;
  }

  RunResult run(const std::vector<SourceFilePtr>& sources, const AnalysisSettings& settings = {}) {
    EngineOptions options;
    options.jobs = 2;
    options.settings = settings;
    options.settings.cuda_path = "none";
    return analyzeSources(sources, options);
  }

  static std::vector<std::string> noticesFor(const RunResult& result, const std::string& path) {
    std::vector<std::string> messages;
    for (const Notice& notice : result.notices) {
      if (notice.path == path) messages.push_back(notice.message);
    }
    return messages;
  }

  static bool hasFinding(const RunResult& result, const std::string& path) {
    for (const Diagnostic& diagnostic : result.diagnostics) {
      if (diagnostic.path() == path) return true;
    }
    return false;
  }

  testing::TempTree tree_;
};

constexpr const char* kPythonHazard =
    "import torch\n"
    "g = torch.cuda.CUDAGraph()\n"
    "x = torch.ones(4, device='cuda')\n"
    "with torch.cuda.graph(g):\n"
    "    y = x.item()\n";

TEST_F(CxxFrontendReproduction, AnExpressionThatOverflowsClangsStackCostsOnlyItsFile) {
  std::string sum = "int x = 0; int y = ";
  for (int i = 0; i < 65536; ++i) sum += "x+";
  sum += "0;\n";
  const std::string cu = tree_.path("p.cu");
  RunResult result = run({source(tree_.path("a.py"), kPythonHazard),
                          source(cu,
                                 "#include <cuda_runtime.h>\n"
                                 "void f(cudaStream_t s) { cudaStreamSynchronize(s); }\n" +
                                     sum)});
  EXPECT_TRUE(hasFinding(result, tree_.path("a.py")));
  // Clang either survives it or its child dies; the run goes on and says which.
  for (const std::string& notice : noticesFor(result, cu)) {
    EXPECT_NE(notice.find("this file"), std::string::npos) << notice;
  }
}

TEST_F(CxxFrontendReproduction, DoublingMacrosEndInANoticeNotTheRun) {
  std::string text = "#include <cuda_runtime.h>\n#define A0 ;\n";
  for (int i = 1; i <= 40; ++i) {
    text += "#define A" + std::to_string(i) + " A" + std::to_string(i - 1) + " A" +
            std::to_string(i - 1) + "\n";
  }
  text += "void f(cudaStream_t s) { cudaStreamSynchronize(s); A40 }\n";
  const std::string cu = tree_.path("m.cu");
  AnalysisSettings settings;
  settings.cxx_timeout_ms = 20'000;
  settings.cxx_memory_bytes = std::size_t{1} << 30;
  RunResult result = run({source(tree_.path("a.py"), kPythonHazard), source(cu, text)}, settings);
  EXPECT_TRUE(hasFinding(result, tree_.path("a.py")));
  const auto notices = noticesFor(result, cu);
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_TRUE(notices[0].find("memory") != std::string::npos ||
              notices[0].find("stopped after") != std::string::npos)
      << notices[0];
}

TEST_F(CxxFrontendReproduction, AnIncludeOfADeviceIsNotRead) {
  // Standard input is a pipe nobody writes to: reading it would block the run for good.
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const int saved = ::dup(0);
  ::dup2(pipe_fds[0], 0);
  const std::string cu = tree_.path("d.cu");
  AnalysisSettings settings;
  settings.show_compiler_errors = true;
  RunResult result =
      run({source(cu,
                  "#include </dev/stdin>\n#include </dev/zero>\n#include <cuda_runtime.h>\n"
                  "void f(cudaStream_t s) { cudaDeviceSynchronize(); }\n")},
          settings);
  ::dup2(saved, 0);
  ::close(saved);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  const auto notices = noticesFor(result, cu);
  bool named = false;
  for (const std::string& notice : notices) {
    named = named || notice.find("/dev/stdin") != std::string::npos;
    EXPECT_EQ(notice.find("stopped after"), std::string::npos) << notice;
  }
  EXPECT_TRUE(named) << "the include of /dev/stdin is reported as not found";
}

TEST_F(CxxFrontendReproduction, SlowConstantEvaluationIsBoundedByTheTimeLimit) {
  std::string text =
      "#include <cuda_runtime.h>\n"
      "constexpr long loop(long n) { long s = 0; for (long i = 0; i < n; ++i) s += i % 7; "
      "return s; }\n";
  for (int i = 0; i < 200; ++i) {
    text +=
        "constexpr long v" + std::to_string(i) + " = loop(100000 + " + std::to_string(i) + ");\n";
  }
  text += "void f(cudaStream_t s) { cudaDeviceSynchronize(); }\n";
  const std::string cu = tree_.path("c.cu");
  AnalysisSettings settings;
  settings.cxx_timeout_ms = 1000;
  RunResult result = run({source(tree_.path("a.py"), kPythonHazard), source(cu, text)}, settings);
  EXPECT_TRUE(hasFinding(result, tree_.path("a.py")));
  const auto notices = noticesFor(result, cu);
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("stopped after 1 s"), std::string::npos) << notices[0];
}

}  // namespace
}  // namespace graphsafe
