// Bad input, run through the graphsafe binary as CI would run it: every strange file gets a
// clear notice (or is analyzed correctly), the rest of the run completes, and the exit code says
// what happened (0 nothing found, 1 findings, 2 usage error or a file skipped or cut short). The
// corpus is generated here, in a temporary directory, so that nothing large is committed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "analyzer/engine/cuda_frontend_loader.h"
#include "analyzer/engine/cuda_prefilter.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing::TempTree;

// One GS401 finding, at 1-based line 7 (`total.item()`), columns 13-25.
constexpr std::string_view kBug =
    "import torch\n"
    "\n"
    "x = torch.ones(4, device=\"cuda\")\n"
    "graph = torch.cuda.CUDAGraph()\n"
    "with torch.cuda.graph(graph):\n"
    "    total = x.sum()\n"
    "    value = total.item()\n";

std::string quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string repeat(std::string_view part, std::size_t times) {
  std::string text;
  text.reserve(part.size() * times);
  for (std::size_t i = 0; i < times; ++i) text += part;
  return text;
}

struct CheckRun {
  int exit_code = -1;
  json document;  // the JSON output; null when stdout was not JSON
  std::string err;
  double seconds = 0;
};

class BadInputTest : public ::testing::Test {
 protected:
  // `graphsafe check --format json ARGS...` in the tree's root; `prefix` goes before the binary
  // (a user switch, an environment variable).
  CheckRun check(const std::vector<std::string>& args, const std::string& prefix = "") {
    std::string command = "cd " + quote(tree_.path()) + " && " + prefix + " " +
                          quote(GRAPHSAFE_BINARY) + " check --format json";
    for (const std::string& arg : args) command += " " + quote(arg);
    command += " >" + quote(output_.path("stdout")) + " 2>" + quote(output_.path("stderr"));
    auto start = std::chrono::steady_clock::now();
    int status = std::system(command.c_str());
    CheckRun run;
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    run.document = json::parse(output_.read("stdout"), nullptr, /*allow_exceptions=*/false);
    if (run.document.is_discarded()) run.document = nullptr;
    run.err = output_.read("stderr");
    return run;
  }

  // The notices about `path` (as given, relative to the tree's root).
  static std::vector<std::string> notices(const CheckRun& run, const std::string& path) {
    std::vector<std::string> found;
    if (!run.document.is_object()) return found;
    for (const json& notice : run.document["notices"]) {
      if (notice["path"] == path) found.push_back(notice["message"].get<std::string>());
    }
    return found;
  }

  static bool hasNotice(const CheckRun& run, const std::string& path, std::string_view part) {
    for (const std::string& message : notices(run, path)) {
      if (message.find(part) != std::string::npos) return true;
    }
    return false;
  }

  // 1-based lines of the findings of `rule` in `path`.
  static std::vector<int> findings(const CheckRun& run, const std::string& path,
                                   const std::string& rule = "GS401") {
    std::vector<int> lines;
    if (!run.document.is_object()) return lines;
    for (const json& diagnostic : run.document["diagnostics"]) {
      if (diagnostic["path"] == path && diagnostic["rule"] == rule) {
        lines.push_back(diagnostic["range"]["start"]["line"].get<int>());
      }
    }
    return lines;
  }

  // Whether a run skipped a file or analyzed it only in part: then it is incomplete (exit 2,
  // summary.incomplete counts its notices), else its findings decide (exit 1).
  enum class Completeness { kComplete, kIncomplete, kAsTheNoticesSay };

  // The run went on past the bad input: the good file's finding is there, and the exit code is
  // 1, or 2 when the bad input was skipped or cut short (the run is incomplete; the notice says
  // which file, and --allow-incomplete would give 1).
  static void expectRestOfRunCompleted(const CheckRun& run,
                                       Completeness completeness = Completeness::kComplete) {
    bool incomplete = completeness == Completeness::kIncomplete;
    if (completeness == Completeness::kAsTheNoticesSay && run.document.is_object()) {
      for (const json& notice : run.document["notices"]) incomplete |= notice["incomplete"] == true;
    }
    EXPECT_EQ(run.exit_code, incomplete ? 2 : 1) << run.err;
    if (run.document.is_object()) {
      EXPECT_EQ(run.document["summary"]["incomplete"].get<int>() > 0, incomplete)
          << run.document.dump(1);
    }
    EXPECT_EQ(findings(run, "good.py"), std::vector<int>{7}) << run.document.dump(1);
  }

  void writeGood() { tree_.write("good.py", kBug); }

  TempTree tree_;
  TempTree output_;
};

TEST_F(BadInputTest, NotUtf8IsSkippedWithTheByteAndLine) {
  writeGood();
  tree_.write("latin1.py", "# caf\xe9\nx = 1\ny = '\xff\xfe'\n");
  CheckRun run = check({"."});
  expectRestOfRunCompleted(run, Completeness::kIncomplete);
  EXPECT_TRUE(hasNotice(run, "latin1.py", "not valid UTF-8 (invalid byte 0xE9 on line 1"))
      << run.document.dump(1);

  // Alone, a skipped file is not a finding, nor a pass: exit 2, the notice on record, and 0 when
  // the user accepts an incomplete run.
  CheckRun alone = check({"latin1.py"});
  EXPECT_EQ(alone.exit_code, 2) << alone.err;
  EXPECT_EQ(alone.document["summary"]["skipped"], 1);
  EXPECT_EQ(check({"latin1.py", "--allow-incomplete"}).exit_code, 0);
  EXPECT_TRUE(hasNotice(alone, "latin1.py", "not valid UTF-8"));
}

TEST_F(BadInputTest, NulBytesMakeABinaryFile) {
  writeGood();
  tree_.write("blob.py", std::string("import torch\n\0\0\x01\x02", 17));
  CheckRun run = check({"."});
  expectRestOfRunCompleted(run, Completeness::kIncomplete);
  EXPECT_TRUE(hasNotice(run, "blob.py", "binary file (contains NUL bytes)"));
}

TEST_F(BadInputTest, ByteOrderMarkIsAcceptedAndPositionsStayRight) {
  tree_.write("good.py", "\xEF\xBB\xBF" + std::string(kBug));
  CheckRun run = check({"."});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_EQ(findings(run, "good.py"), std::vector<int>{7});
  EXPECT_TRUE(notices(run, "good.py").empty());
  ASSERT_EQ(run.document["diagnostics"].size(), 1u);
  EXPECT_EQ(run.document["diagnostics"][0]["range"]["start"]["column"], 13);
}

TEST_F(BadInputTest, WindowsAndOldMacLineEndings) {
  std::string crlf;
  std::string cr;
  for (char c : kBug) {
    crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    cr += c == '\n' ? '\r' : c;
  }
  tree_.write("crlf.py", crlf);
  tree_.write("cr.py", cr);
  CheckRun run = check({"."});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_EQ(findings(run, "crlf.py"), std::vector<int>{7}) << run.document.dump(1);
  EXPECT_TRUE(notices(run, "crlf.py").empty());
  // A lone CR ends a line for Python; either the finding is found on the same line, or the
  // file gets a notice. Never a finding on a wrong line.
  std::vector<int> cr_lines = findings(run, "cr.py");
  if (cr_lines.empty()) {
    EXPECT_FALSE(notices(run, "cr.py").empty()) << run.document.dump(1);
  } else {
    EXPECT_EQ(cr_lines, std::vector<int>{7}) << run.document.dump(1);
  }
}

TEST_F(BadInputTest, TabsMixedWithSpaces) {
  writeGood();
  // Consistent for the tokenizer of Python 2 (a tab is 8 columns), a TabError for Python 3.
  tree_.write("tabs.py",
              "import torch\n"
              "def step(x):\n"
              "\tif x:\n"
              "        y = x.sum()\n"
              "\treturn x\n"
              "with torch.cuda.graph(torch.cuda.CUDAGraph()):\n"
              "  \ttotal = step(torch.ones(1))\n"
              "\t  value = total.item()\n");
  CheckRun run = check({"."});
  expectRestOfRunCompleted(run);
  EXPECT_TRUE(run.document.is_object());
}

TEST_F(BadInputTest, TenMegabyteFile) {
  writeGood();
  tree_.write("huge.py",
              "import torch\n" + repeat("values = [1, 2, 3]  # padding padding padding padding\n",
                                        (10u << 20) / 54 + 1));
  CheckRun run = check({"."});
  expectRestOfRunCompleted(run, Completeness::kIncomplete);
  EXPECT_TRUE(hasNotice(run, "huge.py", "skipped: 10.0 MB is over the 8.0 MB limit"))
      << run.document.dump(1);

  // With a larger limit it is analyzed, in bounded time.
  CheckRun raised = check({".", "--max-file-size", "16M"});
  expectRestOfRunCompleted(raised);
  EXPECT_TRUE(notices(raised, "huge.py").empty()) << raised.document.dump(1);
  EXPECT_LT(raised.seconds, 120.0);
}

TEST_F(BadInputTest, FiveThousandDeepBracketsAndCalls) {
  writeGood();
  const std::size_t depth = 5000;
  std::string capture = "import torch\nwith torch.cuda.graph(torch.cuda.CUDAGraph()):\n    ";
  tree_.write("brackets.py",
              capture + "y = " + repeat("(", depth) + "x.item()" + repeat(")", depth) + "\n");
  tree_.write("mixed.py",
              capture + "y = " + repeat("[{1: (", depth) + "x" + repeat(")}]", depth) + "\n");
  tree_.write("calls.py",
              capture + "y = " + repeat("f(", depth) + "x.item()" + repeat(")", depth) + "\n");
  tree_.write("methods.py", capture + "y = x" + repeat(".sum()", depth) + ".item()\n");
  tree_.write("unary.py", capture + "y = " + repeat("not ", depth) + repeat("-", depth) + "x\n");
  CheckRun run = check({"."});
  expectRestOfRunCompleted(run, Completeness::kIncomplete);
  for (const char* name : {"brackets.py", "mixed.py", "calls.py", "methods.py", "unary.py"}) {
    // Analyzed (a subtree past the analysis depth is unknown), never a syntax error.
    for (const std::string& message : notices(run, name)) {
      EXPECT_EQ(message.find("syntax error"), std::string::npos) << name << ": " << message;
    }
  }
  EXPECT_EQ(findings(run, "methods.py"), std::vector<int>{3});
}

TEST_F(BadInputTest, FiveThousandDeepIndentation) {
  writeGood();
  // 5,000 nested blocks, one column deeper each: 12.5 MB, so the limit is raised for it.
  std::string text = "import torch\nwith torch.cuda.graph(torch.cuda.CUDAGraph()):\n";
  const std::size_t depth = 5000;
  for (std::size_t level = 1; level <= depth; ++level) {
    text += std::string(level, ' ') + "if x:\n";
  }
  text += std::string(depth + 1, ' ') + "y = x.item()\n";
  tree_.write("indent.py", text);
  CheckRun run = check({".", "--max-file-size", "16M"});
  expectRestOfRunCompleted(run, Completeness::kIncomplete);
  EXPECT_TRUE(run.document.is_object());
}

TEST_F(BadInputTest, SyntaxErrorsAtEveryDepth) {
  writeGood();
  // Nested blocks, each holding a broken line; brackets broken at growing depths.
  std::string blocks = "import torch\nwith torch.cuda.graph(torch.cuda.CUDAGraph()):\n";
  for (std::size_t level = 1; level <= 60; ++level) {
    std::string indent(level * 4, ' ');
    blocks += indent + "x = (1 +\n" + indent + "def broken(:\n" + indent + "for i in range(3):\n";
  }
  blocks += std::string(61 * 4, ' ') + "pass\n";
  tree_.write("blocks.py", blocks);
  for (std::size_t depth : {1u, 10u, 100u, 1000u, 5000u}) {
    tree_.write("open" + std::to_string(depth) + ".py",
                "import torch\ny = " + repeat("(", depth) + "1 +" + repeat(")", depth) + "\n");
    tree_.write("unclosed" + std::to_string(depth) + ".py",
                "import torch\ny = " + repeat("[", depth) + "\nz = x.item()\n");
  }
  CheckRun run = check({"."});
  // A syntax error is a notice, the rest of the file analyzed; a bracket 5,000 deep is past the
  // depth the analysis follows, which the run says is incomplete.
  expectRestOfRunCompleted(run, Completeness::kAsTheNoticesSay);
  EXPECT_TRUE(hasNotice(run, "blocks.py", "syntax error")) << run.document.dump(1);
  for (std::size_t depth : {1u, 10u, 100u, 1000u, 5000u}) {
    EXPECT_TRUE(hasNotice(run, "open" + std::to_string(depth) + ".py", "syntax error"));
    EXPECT_TRUE(hasNotice(run, "unclosed" + std::to_string(depth) + ".py", "syntax error"));
  }
}

TEST_F(BadInputTest, EmptyAndNearlyEmptyFiles) {
  tree_.write("empty.py", "");
  tree_.write("newline.py", "\n");
  tree_.write("bom.py", "\xEF\xBB\xBF");
  tree_.write("spaces.py", "   \t  ");
  tree_.write("comment.py", "# graphsafe: ignore-file[GS4]");
  tree_.write("pkg/__init__.py", "");
  CheckRun run = check({"."});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  ASSERT_TRUE(run.document.is_object());
  EXPECT_TRUE(run.document["notices"].empty()) << run.document.dump(1);
  EXPECT_EQ(run.document["summary"]["files"], 6);
}

TEST_F(BadInputTest, SymbolicLinkLoops) {
  writeGood();
  tree_.mkdir("a");
  fs::create_directory_symlink("../b", tree_.root() / "a" / "to_b");
  tree_.mkdir("b");
  fs::create_directory_symlink("../a", tree_.root() / "b" / "to_a");
  fs::create_directory_symlink(".", tree_.root() / "self");
  fs::create_symlink("loop2.py", tree_.root() / "loop1.py");
  fs::create_symlink("loop1.py", tree_.root() / "loop2.py");
  CheckRun run = check({"."});
  expectRestOfRunCompleted(run);
  EXPECT_TRUE(hasNotice(run, "loop1.py", "symbolic link")) << run.document.dump(1);
  EXPECT_TRUE(hasNotice(run, "loop2.py", "symbolic link"));
  // Named on the command line, a looping link is a path that cannot be used: exit 2.
  CheckRun named = check({"loop1.py"});
  EXPECT_EQ(named.exit_code, 2) << named.err;
  EXPECT_NE(named.err.find("loop1.py"), std::string::npos) << named.err;
}

TEST_F(BadInputTest, UnreadableFilesAndDirectories) {
  writeGood();
  tree_.write("secret.py", kBug);
  tree_.write("private/inner.py", kBug);
  ::chmod(tree_.path("secret.py").c_str(), 0);
  ::chmod(tree_.path("private").c_str(), 0);
  // Root reads through permissions; run as an unprivileged user then, if one can be switched
  // to. The tree must be reachable for that user.
  std::string prefix;
  if (::geteuid() == 0) {
    if (std::system("setpriv --version >/dev/null 2>&1") != 0) {
      GTEST_SKIP() << "running as root without setpriv: permissions cannot make a file "
                      "unreadable here";
    }
    prefix = "setpriv --reuid=65534 --regid=65534 --clear-groups";
    ::chmod(tree_.path().c_str(), 0755);
    ::chmod(tree_.path("good.py").c_str(), 0644);
    ::chmod(output_.path().c_str(), 0777);
  }
  CheckRun run = check({"."}, prefix);
  expectRestOfRunCompleted(run, Completeness::kIncomplete);
  EXPECT_TRUE(hasNotice(run, "secret.py", "cannot read: Permission denied"))
      << run.document.dump(1);
  EXPECT_TRUE(hasNotice(run, "private", "cannot read directory")) << run.document.dump(1);
  // A file that opens but fails on read, whoever reads it: /proc/self/mem at offset 0.
  if (::geteuid() == 0) {
    fs::create_symlink("/proc/self/mem", tree_.root() / "mem.py");
    CheckRun as_root = check({"mem.py", "good.py"});
    expectRestOfRunCompleted(as_root, Completeness::kIncomplete);
    EXPECT_TRUE(hasNotice(as_root, "mem.py", "cannot read")) << as_root.document.dump(1);
  }
  ::chmod(tree_.path("private").c_str(), 0755);  // so that the tree can be removed
}

TEST_F(BadInputTest, SpecialFilesNamedLikeSources) {
  writeGood();
  ASSERT_EQ(::mkfifo(tree_.path("pipe.py").c_str(), 0644), 0);
  CheckRun run = check({"."});
  expectRestOfRunCompleted(run, Completeness::kIncomplete);
  EXPECT_LT(run.seconds, 60.0);  // a FIFO must not block the run
}

TEST_F(BadInputTest, PathsThatVanishMidRun) {
  writeGood();
  // Many files and directories, deleted while graphsafe walks and reads them: each one is
  // analyzed, gets a notice, or was gone before the walk; the run always completes.
  const int count = 400;
  for (int i = 0; i < count; ++i) {
    tree_.write("gone/d" + std::to_string(i % 20) + "/f" + std::to_string(i) + ".py",
                "import torch\n" + repeat("x = torch.ones(1)\n", 200));
  }
  std::atomic<bool> started{false};
  std::thread remover([&] {
    while (!started) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    for (int i = 0; i < count; ++i) {
      std::error_code ec;
      fs::remove(tree_.root() / "gone" / ("d" + std::to_string(i % 20)) /
                     ("f" + std::to_string(i) + ".py"),
                 ec);
      if (i % 20 == 19) fs::remove_all(tree_.root() / "gone" / ("d" + std::to_string(i / 20)), ec);
    }
  });
  started = true;
  CheckRun run = check({".", "-j", "2"});
  remover.join();
  expectRestOfRunCompleted(run, Completeness::kAsTheNoticesSay);
  for (const json& notice : run.document["notices"]) {
    std::string message = notice["message"];
    EXPECT_TRUE(message.find("No such file") != std::string::npos ||
                message.find("no such file") != std::string::npos ||
                message.find("cannot read") != std::string::npos)
        << message;
  }

  // Deterministic: a path named on the command line that does not exist is a usage error.
  CheckRun missing = check({"good.py", "never-there.py"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("never-there.py: no such file or directory"), std::string::npos)
      << missing.err;
}

TEST_F(BadInputTest, CudaFileWithMacrosThatHideBraces) {
  writeGood();
  std::string cuda =
      "#include <cuda_runtime.h>\n"
      "#define BEGIN {\n"
      "#define END }\n"
      "#define LAUNCH(k, s) k<<<1, 32, 0, s>>>\n"
      "#define IF_CAPTURING(s) if (capturing(s)) BEGIN\n"
      "__global__ void add(float* x) BEGIN x[threadIdx.x] += 1; END\n"
      "bool capturing(cudaStream_t s) BEGIN cudaStreamCaptureStatus st;\n"
      "  cudaStreamIsCapturing(s, &st); return st != cudaStreamCaptureStatusNone; END\n"
      "void run(float* x, cudaStream_t s) BEGIN\n"
      "  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
      "  IF_CAPTURING(s) LAUNCH(add, s)(x); END\n"
      "  cudaDeviceSynchronize();\n"
      "  #define HALF }\n"
      "  { HALF\n"
      "END END END\n";
  tree_.write("kernels.cu", cuda);
  EXPECT_TRUE(cudaSourceMayMatter(cuda));
  CheckRun run = check({"."});
  std::string missing;
  if (loadCudaFrontend(missing) != nullptr) {
    expectRestOfRunCompleted(run);
  } else {
    // Without the C++ frontend the C++ file is not analyzed, which fails the run (exit 2); the
    // Python file's finding is still there.
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(findings(run, "good.py"), std::vector<int>{7}) << run.document.dump(1);
  }
  // Either the C++ frontend analyzed it (a compile error in it is not graphsafe's finding) or
  // this build has no C++ frontend and says so once.
  for (const json& notice : run.document["notices"]) {
    std::string message = notice["message"];
    EXPECT_EQ(message.find("internal"), std::string::npos) << message;
  }
}

// UTF-16 and UTF-32 hold NUL bytes, but are not binary: the notice names the encoding, found
// by the byte order mark or, without one, by where the NULs are.
TEST_F(BadInputTest, Utf16AndUtf32FilesNameTheirEncoding) {
  writeGood();
  auto wide = [](std::string_view text, std::size_t unit, bool big, bool bom) {
    std::string out;
    auto put = [&](std::uint32_t code) {
      for (std::size_t i = 0; i < unit; ++i) {
        out += static_cast<char>((code >> (8 * (big ? unit - 1 - i : i))) & 0xFF);
      }
    };
    if (bom) put(0xFEFF);
    for (char c : text) put(static_cast<unsigned char>(c));
    return out;
  };
  tree_.write("le16.py", wide(kBug, 2, false, false));
  tree_.write("be16bom.py", wide(kBug, 2, true, true));
  tree_.write("le32bom.py", wide(kBug, 4, false, true));
  tree_.write("be32.py", wide(kBug, 4, true, false));
  CheckRun run = check({"."});
  expectRestOfRunCompleted(run, Completeness::kIncomplete);
  const std::string utf16 = "skipped: UTF-16 (little-endian) file; graphsafe reads UTF-8";
  EXPECT_EQ(notices(run, "le16.py"), std::vector<std::string>{utf16});
  EXPECT_TRUE(hasNotice(run, "be16bom.py", "UTF-16 (big-endian, with a byte order mark) file"));
  EXPECT_TRUE(hasNotice(run, "le32bom.py", "UTF-32 (little-endian, with a byte order mark) file"));
  EXPECT_TRUE(hasNotice(run, "be32.py", "UTF-32 (big-endian) file"));
}

// tree-sitter-python keeps at most 511 indentation levels (its scanner's state must fit the
// parser's 1,024-byte serialization buffer); nested deeper, the parse fails at a line that is
// not wrong. Such a file gets a notice naming the depth and the limit; 511 levels are parsed.
TEST_F(BadInputTest, IndentationPastTheParsersLimitIsNamed) {
  writeGood();
  auto nested = [](std::size_t depth, std::size_t width) {
    std::string text = "import torch\nx = torch.ones(4, device=\"cuda\")\n"
                       "with torch.cuda.graph(torch.cuda.CUDAGraph()):\n";
    for (std::size_t level = 1; level < depth; ++level) {
      text += std::string(level * width, ' ') + "if True:\n";
    }
    return text + std::string(depth * width, ' ') + "y = x.item()\n";
  };
  tree_.write("deep600.py", nested(600, 1));
  tree_.write("deep600wide.py", nested(600, 4));
  tree_.write("deep511.py", nested(511, 1));
  tree_.write("deep100.py", nested(100, 1));
  tree_.write("deep512.py", nested(512, 1));
  CheckRun run = check({"."});
  expectRestOfRunCompleted(run, Completeness::kIncomplete);
  EXPECT_EQ(notices(run, "deep600.py"),
            std::vector<std::string>{
                "skipped: indentation nested 600 deep, past the parser's limit of 511"})
      << run.document.dump(1);
  EXPECT_TRUE(hasNotice(run, "deep600wide.py", "indentation nested 600 deep"));
  EXPECT_TRUE(hasNotice(run, "deep512.py", "indentation nested 512 deep"));
  // Parsed, but its finding is past the lowering's nesting bound (kMaxNestingDepth syntax
  // nodes): a bound of the analysis, which the notice names instead of missing it silently.
  const auto deep = notices(run, "deep511.py");
  ASSERT_EQ(deep.size(), 1u) << run.document.dump(1);
  EXPECT_NE(deep[0].find("code nested deeper than the analysis follows (256 levels"),
            std::string::npos)
      << deep[0];
  EXPECT_TRUE(notices(run, "deep100.py").empty());
  EXPECT_EQ(findings(run, "deep100.py"), std::vector<int>{103});
}

}  // namespace
}  // namespace graphsafe
