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

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
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
#include "frontends/cuda/regular_files.h"
#include "frontends/cuda/region_builder.h"

namespace graphsafe::cuda {

namespace {

constexpr std::size_t kMaxCompilerNotices = 20;

// What the compiler said about the analyzed code. Not graphsafe's findings: reported only with
// show_compiler_errors, except when nothing could be parsed at all.
class CollectingDiagnostics : public clang::DiagnosticConsumer {
 public:
  struct Entry {
    std::int32_t line = -1;  // 0-based, in the main file; -1 elsewhere
    std::string message;
  };

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error) return;
    // Counted where the user's flags can help: errors in the project's code, not in system
    // headers (where the built-in declarations meet Clang's CUDA wrappers).
    if (!info.hasSourceManager() || !info.getLocation().isValid() ||
        !info.getSourceManager().isInSystemHeader(
            info.getSourceManager().getFileLoc(info.getLocation()))) {
      ++errors_;
    }
    if (entries_.size() >= kMaxCompilerNotices) return;
    llvm::SmallString<256> text;
    info.FormatDiagnostic(text);
    Entry entry;
    entry.message = std::string(text);
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      const clang::SourceManager& sources = info.getSourceManager();
      clang::SourceLocation location = sources.getFileLoc(info.getLocation());
      if (sources.isWrittenInMainFile(location)) {
        entry.line = static_cast<std::int32_t>(sources.getSpellingLineNumber(location)) - 1;
      } else {
        entry.message += " (in " + sources.getFilename(location).str() + ")";
      }
    }
    entries_.push_back(std::move(entry));
  }

  const std::vector<Entry>& entries() const { return entries_; }
  std::uint32_t errors() const { return errors_; }

 private:
  std::vector<Entry> entries_;
  std::uint32_t errors_ = 0;
};

// A missing header degrades the AST instead of stopping the parse: the include is skipped and
// remembered.
class IncludeRecovery : public clang::PPCallbacks {
 public:
  explicit IncludeRecovery(std::vector<std::string>& missing) : missing_(missing) {}
  bool FileNotFound(llvm::StringRef file_name) override {
    if (missing_.size() < kMaxCompilerNotices) missing_.push_back(file_name.str());
    return true;
  }

 private:
  std::vector<std::string>& missing_;
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

class LoweringAction : public clang::ASTFrontendAction {
 public:
  LoweringAction(const SourceFile& source, const AnalysisSettings& settings,
                 RawTranslationUnit& unit, bool& built, std::vector<std::string>& missing,
                 IncludeGraph::Facts& includes)
      : source_(source),
        settings_(settings),
        unit_(unit),
        built_(built),
        missing_(missing),
        includes_(includes) {}

 protected:
  bool BeginSourceFileAction(clang::CompilerInstance& compiler) override {
    compiler.getFrontendOpts().SkipFunctionBodies = skipSystemBodies();
    clang::Preprocessor& preprocessor = compiler.getPreprocessor();
    preprocessor.addPPCallbacks(std::make_unique<IncludeRecovery>(missing_));
    preprocessor.addPPCallbacks(std::make_unique<IncludeGraph>(includes_));
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
  std::vector<std::string>& missing_;
  IncludeGraph::Facts& includes_;
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

    auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    memory->addFile(path, 0, llvm::MemoryBuffer::getMemBuffer(source->text(), path, false));
    if (!command.toolkit.found()) addHeaders(*memory, kBuiltinCudaDir, builtinCudaHeaders());
    addHeaders(*memory, kBuiltinTorchDir, builtinTorchHeaders());
    if (command.toolkit.needs_texture_shim) {
      addHeaders(*memory, kTextureShimDir, {{"texture_fetch_functions.h", "#pragma once\n"}});
    }
    auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
        regularFilesOnly(llvm::vfs::createPhysicalFileSystem()));
    overlay->pushOverlay(memory);
    if (!command.directory.empty()) (void)overlay->setCurrentWorkingDirectory(command.directory);

    auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), overlay);
    RawTranslationUnit unit;
    unit.extension_code = isExtensionCode(source->text()) && !isTestProgram(source->text());
    bool built = false;
    std::vector<std::string> missing;
    IncludeGraph::Facts includes;
    CollectingDiagnostics diagnostics;
    clang::tooling::ToolInvocation invocation(
        command.arguments,
        std::make_unique<LoweringAction>(*source, settings, unit, built, missing, includes),
        files.get());
    invocation.setDiagnosticConsumer(&diagnostics);
    invocation.run();

    if (!built) {
      std::string reason = diagnostics.entries().empty() ? std::string("the compiler gave up")
                                                         : diagnostics.entries().front().message;
      return failed(source, "could not parse this C++ file: " + reason);
    }
    if (settings.show_compiler_errors) {
      for (const std::string& header : missing) {
        unit.notices.push_back({source->path(), -1, "compiler: header not found: " + header});
      }
      for (const auto& entry : diagnostics.entries()) {
        unit.notices.push_back({source->path(), entry.line, "compiler: " + entry.message});
      }
    }
    // The lowering marked its events by the file's own text; the unit may get torch through a
    // project header, which only the preprocessor saw (events are flagged when they are built).
    unit.extension_code =
        (unit.extension_code || includes.includes_torch) && !isTestProgram(source->text());
    FileModel model = buildFileModel(std::move(unit), source, settings);
    model.includes = std::move(includes.headers);
    model.includes_complete = includes.complete;
    model.compile_database = command.database;
    model.compiler_errors = diagnostics.errors() + static_cast<std::uint32_t>(missing.size());
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
