// The CUDA C++ frontend: parses one file with Clang (host side), lowers it into the capture
// model. Built as its own shared module (libgraphsafe_cuda.so) with one exported entry point, so
// a run over Python files never loads the Clang libraries (analyzer/engine/cuda_frontend_loader).

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/FileManager.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "analyzer/engine/analysis_settings.h"
#include "analyzer/engine/cuda_frontend_loader.h"
#include "analyzer/engine/cuda_prefilter.h"
#include "analyzer/engine/frontend.h"
#include "frontends/cuda/ast_lowering.h"
#include "frontends/cuda/builtin_cuda_declarations.h"
#include "frontends/cuda/builtin_torch_declarations.h"
#include "frontends/cuda/compile_flags.h"
#include "frontends/cuda/extension_code.h"
#include "frontends/cuda/include_graph.h"
#include "frontends/cuda/missed_captures.h"
#include "frontends/cuda/project_tree.h"
#include "frontends/cuda/region_builder.h"
#include "frontends/cuda/regular_files.h"

namespace graphsafe::cuda {

namespace {

// --show-compiler-errors lists this many errors of a file (docs/cuda.md); the rest are counted.
constexpr std::size_t kMaxCompilerNotices = 20;
// Main-file errors kept to explain a capture that was not analyzed (missed_captures.h).
constexpr std::size_t kMaxMainFileErrors = 1000;

// What the compiler said about the analyzed code. Not graphsafe's findings: reported only with
// show_compiler_errors, except when nothing could be parsed at all. Errors inside system
// headers (where the built-in declarations meet Clang's CUDA wrappers) are neither counted nor
// shown; every other error is counted, and the same errors are listed, the first
// kMaxCompilerNotices of them quoted. An error inside a file outside the project's tree is
// summarized by file (how many, where), never quoted: its message could carry that file's text.
class CollectingDiagnostics : public clang::DiagnosticConsumer {
 public:
  struct Entry {
    std::int32_t line = -1;  // 0-based, in the main file; -1 elsewhere
    std::string message;
  };

  explicit CollectingDiagnostics(std::filesystem::path tree) : tree_(std::move(tree)) {}

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error) return;
    const bool located = info.hasSourceManager() && info.getLocation().isValid();
    clang::SourceLocation location;
    if (located) {
      location = info.getSourceManager().getFileLoc(info.getLocation());
      if (info.getSourceManager().isInSystemHeader(location)) return;
    }
    ++errors_;
    llvm::SmallString<256> text;
    Entry entry;
    if (located) {
      const clang::SourceManager& sources = info.getSourceManager();
      if (sources.isWrittenInMainFile(location)) {
        entry.line = static_cast<std::int32_t>(sources.getSpellingLineNumber(location)) - 1;
        if (main_file_errors_.size() < kMaxMainFileErrors) {
          info.FormatDiagnostic(text);
          main_file_errors_.push_back({entry.line, std::string(text)});
        }
      } else {
        std::string file = sources.getFilename(location).str();
        if (!isUnder(file, tree_)) {
          ++outside_[file];
          return;
        }
        entry.message = " (in " + file + ")";
      }
    }
    if (first_.size() >= kMaxCompilerNotices) return;
    if (text.empty()) info.FormatDiagnostic(text);
    entry.message = std::string(text) + entry.message;
    first_.push_back(std::move(entry));
  }

  // The errors as notices: the first ones quoted, those outside the tree one line per file, and
  // how many more there were.
  std::vector<Entry> entries() const {
    std::vector<Entry> out = first_;
    std::uint32_t shown = static_cast<std::uint32_t>(first_.size());
    for (const auto& [file, count] : outside_) {
      out.push_back({-1, std::to_string(count) + (count == 1 ? " error" : " errors") + " in " +
                             file + ", outside the project's tree (not quoted)"});
      shown += count;
    }
    if (errors_ > shown) {
      out.push_back({-1, std::to_string(errors_ - shown) + " more of the " +
                             std::to_string(errors_) + " errors not shown (the first " +
                             std::to_string(kMaxCompilerNotices) + " are)"});
    }
    return out;
  }
  std::string firstMessage() const { return first_.empty() ? "" : first_.front().message; }
  const std::vector<MainFileError>& mainFileErrors() const { return main_file_errors_; }
  std::uint32_t errors() const { return errors_; }

 private:
  std::filesystem::path tree_;
  std::vector<Entry> first_;
  std::map<std::string, std::uint32_t> outside_;
  std::vector<MainFileError> main_file_errors_;
  std::uint32_t errors_ = 0;
};

// A missing header degrades the AST instead of stopping the parse: the include is skipped and
// remembered (the first ones by name, all of them counted).
class IncludeRecovery : public clang::PPCallbacks {
 public:
  IncludeRecovery(std::vector<std::string>& missing, std::uint32_t& count)
      : missing_(missing), count_(count) {}
  bool FileNotFound(llvm::StringRef file_name) override {
    ++count_;
    if (missing_.size() < kMaxCompilerNotices) missing_.push_back(file_name.str());
    return true;
  }

 private:
  std::vector<std::string>& missing_;
  std::uint32_t& count_;
};

// The blocks of the main file the preprocessor skipped (`#if` branches not taken).
class SkippedBlocks : public clang::PPCallbacks {
 public:
  SkippedBlocks(const clang::SourceManager& sources, std::vector<SkippedBlock>& out)
      : sources_(sources), out_(out) {}
  void SourceRangeSkipped(clang::SourceRange range, clang::SourceLocation /*endif*/) override {
    if (!range.getBegin().isFileID() || !sources_.isWrittenInMainFile(range.getBegin())) return;
    out_.push_back({sources_.getFileOffset(range.getBegin()),
                    sources_.getFileOffset(sources_.getFileLoc(range.getEnd()))});
  }

 private:
  const clang::SourceManager& sources_;
  std::vector<SkippedBlock>& out_;
};

// Comments of the main file, for suppression comments.
class CommentCollector : public clang::CommentHandler {
 public:
  CommentCollector(const SourceFile& source, std::vector<SourceComment>& out)
      : source_(source), out_(out) {}

  bool HandleComment(clang::Preprocessor& preprocessor, clang::SourceRange range) override {
    const clang::SourceManager& sources = preprocessor.getSourceManager();
    clang::SourceLocation begin = range.getBegin();
    if (!begin.isFileID() || !sources.isWrittenInMainFile(begin)) return false;
    unsigned from = sources.getFileOffset(begin);
    unsigned to = sources.getFileOffset(range.getEnd());
    if (to < from || to > source_.text().size()) return false;
    SourcePoint point = source_.pointAt(from);
    out_.push_back({point.line, point.column, source_.text().substr(from, to - from)});
    return false;
  }

 private:
  const SourceFile& source_;
  std::vector<SourceComment>& out_;
};

// GRAPHSAFE_CUDA_SKIP_BODIES=off parses the bodies in system headers too (for measuring what
// skipping them saves: bench/cuda_frontend.sh).
bool skipSystemBodies() {
  const char* setting = std::getenv("GRAPHSAFE_CUDA_SKIP_BODIES");
  return setting == nullptr || std::string_view(setting) != "off";
}

class LoweringConsumer : public clang::ASTConsumer {
 public:
  LoweringConsumer(clang::CompilerInstance& compiler, const SourceFile& source,
                   const AnalysisSettings& settings, RawTranslationUnit& unit, bool& built)
      : compiler_(compiler), source_(source), settings_(settings), unit_(unit), built_(built) {}

  void HandleTranslationUnit(clang::ASTContext& context) override {
    LoweringOptions options;
    options.extra_sync_apis = settings_.extra_sync_apis;
    options.capture_flags = settings_.capture_flags;
    options.per_thread_default_stream =
        compiler_.getPreprocessor().isMacroDefined("CUDA_API_PER_THREAD_DEFAULT_STREAM");
    lowerTranslationUnit(context, source_, options, unit_);
    built_ = true;
  }

  // Bodies in system headers (the standard library, the toolkit, -isystem paths such as
  // libtorch's) are never read: lowering follows the project's own functions only. Clang still
  // parses what it must (constexpr and deduced-return functions).
  bool shouldSkipFunctionBody(clang::Decl* decl) override {
    const clang::SourceManager& sources = compiler_.getSourceManager();
    return sources.isInSystemHeader(sources.getExpansionLoc(decl->getLocation()));
  }

 private:
  clang::CompilerInstance& compiler_;
  const SourceFile& source_;
  const AnalysisSettings& settings_;
  RawTranslationUnit& unit_;
  bool& built_;
};

// What the preprocessor saw of a unit, besides the AST.
struct PreprocessorFacts {
  std::vector<std::string> missing;  // headers not found, the first kMaxCompilerNotices
  std::uint32_t missing_count = 0;
  IncludeGraph::Facts includes;
  std::vector<SkippedBlock> skipped;
};

class LoweringAction : public clang::ASTFrontendAction {
 public:
  LoweringAction(const SourceFile& source, const AnalysisSettings& settings,
                 RawTranslationUnit& unit, bool& built, PreprocessorFacts& facts)
      : source_(source), settings_(settings), unit_(unit), built_(built), facts_(facts) {}

 protected:
  bool BeginSourceFileAction(clang::CompilerInstance& compiler) override {
    compiler.getFrontendOpts().SkipFunctionBodies = skipSystemBodies();
    clang::Preprocessor& preprocessor = compiler.getPreprocessor();
    preprocessor.addPPCallbacks(
        std::make_unique<IncludeRecovery>(facts_.missing, facts_.missing_count));
    preprocessor.addPPCallbacks(std::make_unique<IncludeGraph>(facts_.includes));
    preprocessor.addPPCallbacks(
        std::make_unique<SkippedBlocks>(compiler.getSourceManager(), facts_.skipped));
    comments_ = std::make_unique<CommentCollector>(source_, unit_.comments);
    preprocessor.addCommentHandler(comments_.get());
    return true;
  }

  void EndSourceFileAction() override {
    if (comments_) {
      getCompilerInstance().getPreprocessor().removeCommentHandler(comments_.get());
    }
  }

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& compiler,
                                                        llvm::StringRef /*file*/) override {
    return std::make_unique<LoweringConsumer>(compiler, source_, settings_, unit_, built_);
  }

 private:
  const SourceFile& source_;
  const AnalysisSettings& settings_;
  RawTranslationUnit& unit_;
  bool& built_;
  PreprocessorFacts& facts_;
  std::unique_ptr<CommentCollector> comments_;
};

void addHeaders(llvm::vfs::InMemoryFileSystem& memory, std::string_view directory,
                const std::vector<VirtualHeader>& headers) {
  for (const VirtualHeader& header : headers) {
    std::string path = std::string(directory) + "/" + std::string(header.name);
    memory.addFile(path, 0, llvm::MemoryBuffer::getMemBuffer(header.text, path, false));
  }
}

std::string absolutePath(const std::string& path) {
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(path, error);
  if (error) return path;
  return absolute.lexically_normal().string();
}

class CudaFrontend final : public Frontend {
 public:
  Language language() const override { return Language::kCuda; }
  std::string_view name() const override { return "cuda"; }
  // GRAPHSAFE_CUDA_PREFILTER=off parses every C++ file (for measuring what the filter saves).
  bool mayMatter(std::string_view text) const override {
    return !prefilter_ || cudaSourceMayMatter(text);
  }

  // The compile database and the toolkit are loaded once, then shared by every file's child.
  void prepare(const SourceFile& source, const AnalysisSettings& settings) const override {
    try {
      (void)compileCommandFor(absolutePath(source.path()), source.text(), settings);
    } catch (...) {
      // analyze() meets the same problem and reports it.
    }
  }

  FileModel analyze(const SourceFilePtr& source, const AnalysisSettings& settings) const override {
    try {
      return analyzeOrThrow(source, settings);
    } catch (const std::bad_alloc&) {
      throw;  // the memory bound: the process that runs this file says so (isolated_frontend.h)
    } catch (const std::exception& error) {
      return failed(source, std::string("could not analyze this C++ file: ") + error.what());
    } catch (...) {
      return failed(source, "could not analyze this C++ file");
    }
  }

 private:
  static bool prefilterEnabled() {
    const char* setting = std::getenv("GRAPHSAFE_CUDA_PREFILTER");
    return setting == nullptr || std::string_view(setting) != "off";
  }

  const bool prefilter_ = prefilterEnabled();

  // GRAPHSAFE_CUDA_PRINT_COMMAND=1 writes each unit's Clang command to standard error, one line:
  // `graphsafe-cuda-command`, the directory, then the arguments, separated by tabs (for timing
  // Clang with the same flags: bench/cuda_frontend.sh units).
  static void printCommand(const CompileCommand& command) {
    const char* setting = std::getenv("GRAPHSAFE_CUDA_PRINT_COMMAND");
    if (setting == nullptr || std::string_view(setting) != "1") return;
    std::string line = "graphsafe-cuda-command\t" + command.directory;
    for (const std::string& argument : command.arguments) line += "\t" + argument;
    line += "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
  }

  static FileModel failed(const SourceFilePtr& source, std::string message) {
    FileModel model;
    model.language = Language::kCuda;
    model.source = source;
    model.parse_failed = true;
    model.notices.push_back({source->path(), -1, std::move(message)});
    return model;
  }

  static FileModel analyzeOrThrow(const SourceFilePtr& source, const AnalysisSettings& settings) {
    const std::string path = absolutePath(source->path());
    CompileCommand command = compileCommandFor(path, source->text(), settings);

    printCommand(command);
    auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    memory->addFile(path, 0, llvm::MemoryBuffer::getMemBuffer(source->text(), path, false));
    if (!command.toolkit.found()) addHeaders(*memory, kBuiltinCudaDir, builtinCudaHeaders());
    addHeaders(*memory, kBuiltinTorchDir, builtinTorchHeaders());
    addHeaders(*memory, kTextureShimDir, {{"nvcc_view.h", kNvccViewText}});
    if (command.toolkit.needs_texture_shim) {
      addHeaders(*memory, kTextureShimDir, {{"texture_fetch_functions.h", "#pragma once\n"}});
    }
    auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
        regularFilesOnly(llvm::vfs::createPhysicalFileSystem()));
    overlay->pushOverlay(memory);
    if (!command.directory.empty()) (void)overlay->setCurrentWorkingDirectory(command.directory);

    auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), overlay);
    RawTranslationUnit unit;
    const bool test_program = isTestProgram(source->text());
    unit.extension_code =
        (isExtensionCode(source->text()) || command.includer_extension) && !test_program;
    bool built = false;
    PreprocessorFacts facts;
    CollectingDiagnostics diagnostics(projectTreeOf(path));
    clang::tooling::ToolInvocation invocation(
        command.arguments, std::make_unique<LoweringAction>(*source, settings, unit, built, facts),
        files.get());
    invocation.setDiagnosticConsumer(&diagnostics);
    invocation.run();

    if (!built) {
      std::string reason = diagnostics.firstMessage();
      if (reason.empty()) {
        std::vector<CollectingDiagnostics::Entry> entries = diagnostics.entries();
        reason = entries.empty() ? std::string("the compiler gave up") : entries.front().message;
      }
      return failed(source, "could not parse this C++ file: " + reason);
    }
    for (std::string& notice : command.notices) {
      unit.notices.push_back({source->path(), -1, std::move(notice)});
    }
    for (std::string& notice : command.run_notices)
      unit.notices.push_back({"", -1, std::move(notice)});
    // What the built-in declarations leave out, said once per run: the host code that needs it
    // parses with errors, and what that code calls may not be followed.
    if (!command.toolkit.found() &&
        std::any_of(facts.missing.begin(), facts.missing.end(),
                    [](const std::string& header) { return isToolkitOnlyHeader(header); })) {
      unit.notices.push_back(
          {"", -1,
           "some files include CUDA toolkit headers the built-in declarations do not provide "
           "(Thrust, CUB, libcu++, the fp16/fp8 and vector type headers, cooperative_groups.h): "
           "the code that needs them parses with errors, and what it calls may not be followed "
           "(--cuda-path names a toolkit; --show-compiler-errors lists the headers per file)"});
    }
    if (settings.show_compiler_errors) {
      for (const std::string& header : facts.missing) {
        unit.notices.push_back({source->path(), -1, "compiler: header not found: " + header});
      }
      if (facts.missing_count > facts.missing.size()) {
        unit.notices.push_back(
            {source->path(), -1,
             "compiler: " + std::to_string(facts.missing_count - facts.missing.size()) +
                 " more of the " + std::to_string(facts.missing_count) +
                 " headers not found not shown (the first " + std::to_string(kMaxCompilerNotices) +
                 " are)"});
      }
      for (const auto& entry : diagnostics.entries()) {
        unit.notices.push_back({source->path(), entry.line, "compiler: " + entry.message});
      }
    }
    // The lowering marked its events by the file's own text; the unit may get torch through a
    // project header, which only the preprocessor saw (events are flagged when they are built).
    unit.extension_code = (unit.extension_code || facts.includes.includes_torch) && !test_program;
    LoweredCode lowered;
    for (const RawFunction& function : unit.functions)
      lowered.functions.push_back(function.model.body);
    FileModel model = buildFileModel(std::move(unit), source, settings);
    for (const CaptureRegion& region : model.regions) lowered.regions.push_back(region.site);
    for (Notice& notice :
         missedCaptureNotices(*source, lowered, facts.skipped, diagnostics.mainFileErrors())) {
      model.notices.push_back(std::move(notice));
    }
    // A header whose flags came from a unit that includes it is that unit's code.
    if (command.includer_extension && !test_program && !facts.includes.includes_torch &&
        !isExtensionCode(source->text())) {
      model.extension_includer = command.includer;
    }
    if (command.borrowed == CompileCommand::Borrowed::kIncluder)
      model.flags_from = command.includer;
    model.includes = std::move(facts.includes.headers);
    model.includes_complete = facts.includes.complete;
    model.compile_database = command.database;
    model.compiler_errors = diagnostics.errors() + facts.missing_count;
    return model;
  }
};

}  // namespace

}  // namespace graphsafe::cuda

// The module's one entry point (see analyzer/engine/cuda_frontend_loader.cpp): null when the
// caller was built with other model types than this module.
extern "C" __attribute__((visibility("default"))) graphsafe::Frontend*
graphsafe_create_cuda_frontend(std::uint64_t abi) {
  if (abi != graphsafe::cudaFrontendAbi()) return nullptr;
  return new graphsafe::cuda::CudaFrontend();
}
