#include "frontends/cuda/compile_flags.h"

#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/JSONCompilationDatabase.h>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "frontends/cuda/nvcc_flag_filter.h"
#include "frontends/cuda/resource_dir.h"

namespace graphsafe::cuda {

namespace {

namespace fs = std::filesystem;
using clang::tooling::CompilationDatabase;

// Databases are loaded once per directory and shared by every file and thread; a directory
// without one is remembered too, so walking up stays cheap.
class DatabaseCache {
 public:
  static DatabaseCache& instance() {
    static DatabaseCache cache;
    return cache;
  }

  // The database for `file`: in `directory` when given, else the nearest one above the file,
  // up to the repository's root (a directory holding .git).
  // `found` is set to the compile_commands.json it came from.
  std::vector<clang::tooling::CompileCommand> commandsFor(const std::string& file,
                                                          const std::string& directory,
                                                          std::string& found) {
    std::lock_guard lock(mutex_);
    const CompilationDatabase* database = nullptr;
    std::string from;
    if (!directory.empty()) {
      database = load(directory);
      from = directory;
    } else {
      for (fs::path dir = fs::path(file).parent_path(); !dir.empty(); dir = dir.parent_path()) {
        from = dir.string();
        database = load(from);
        if (database == nullptr) {
          from = (dir / "build").string();
          database = load(from);
        }
        // The repository's root is as far as the search goes, as for the configuration: a
        // database above it belongs to another project.
        std::error_code ec;
        if (database != nullptr || dir == dir.root_path() || fs::exists(dir / ".git", ec)) break;
      }
    }
    if (database == nullptr) return {};
    found = (fs::path(from) / "compile_commands.json").string();
    return database->getCompileCommands(file);
  }

 private:
  const CompilationDatabase* load(const std::string& directory) {
    auto it = loaded_.find(directory);
    if (it != loaded_.end()) return it->second.get();
    std::unique_ptr<CompilationDatabase> database;
    std::error_code error;
    fs::path json = fs::path(directory) / "compile_commands.json";
    if (fs::is_regular_file(json, error)) {
      std::string message;
      auto loaded = clang::tooling::JSONCompilationDatabase::loadFromFile(
          json.string(), message, clang::tooling::JSONCommandLineSyntax::AutoDetect);
      if (loaded) database = clang::tooling::inferMissingCompileCommands(std::move(loaded));
    }
    return loaded_.emplace(directory, std::move(database)).first->second.get();
  }

  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<CompilationDatabase>> loaded_;
};

bool hasExtension(std::string_view path, std::initializer_list<std::string_view> extensions) {
  for (std::string_view extension : extensions) {
    if (path.size() > extension.size() && path.ends_with(extension)) return true;
  }
  return false;
}

bool compilesAsCuda(const std::vector<std::string>& command) {
  if (command.empty()) return false;
  if (fs::path(command.front()).filename().string().find("nvcc") != std::string::npos) {
    return true;
  }
  for (std::size_t i = 0; i + 1 < command.size(); ++i) {
    if (command[i] == "-x" && (command[i + 1] == "cu" || command[i + 1] == "cuda")) return true;
  }
  return false;
}

}  // namespace

bool parseAsCuda(std::string_view path, std::string_view text) {
  if (hasExtension(path, {".cu", ".cuh"})) return true;
  return text.find("<<<") != std::string_view::npos ||
         text.find("__global__") != std::string_view::npos;
}

CompileCommand compileCommandFor(const std::string& absolute_path, std::string_view text,
                                 const AnalysisSettings& settings) {
  CompileCommand result;
  result.toolkit = findCudaToolkit(settings);
  result.cuda = parseAsCuda(absolute_path, text);
  result.directory = fs::path(absolute_path).parent_path().string();

  std::vector<std::string> flags;
  std::string database;
  auto commands =
      DatabaseCache::instance().commandsFor(absolute_path, settings.compile_commands_dir, database);
  result.database = database;  // even without an entry for the file: adding one changes flags
  if (!commands.empty()) {
    const auto& command = commands.front();
    result.from_database = true;
    result.directory = command.Directory;
    result.cuda = result.cuda || compilesAsCuda(command.CommandLine);
    flags = keepParsingFlags(command.CommandLine, command.Directory);
  }
  bool has_standard = false;
  for (const std::string& flag : flags) has_standard = has_standard || flag.starts_with("-std=");

  std::vector<std::string>& args = result.arguments;
  args.emplace_back("clang++");
  args.insert(args.end(), settings.extra_args_before.begin(), settings.extra_args_before.end());
  if (result.cuda) {
    args.insert(args.end(), {"-x", "cuda", "--cuda-host-only", "-nocudalib"});
    if (result.toolkit.found()) {
      args.push_back("--cuda-path=" + result.toolkit.root);
      if (result.toolkit.needs_texture_shim) {
        args.insert(args.end(), {"-idirafter", std::string(kTextureShimDir)});
      }
    } else {
      args.insert(args.end(), {"-nocudainc", "-isystem", std::string(kBuiltinCudaDir), "-include",
                               "cuda_runtime.h"});
    }
  } else {
    args.insert(args.end(), {"-x", "c++"});
    if (result.toolkit.found()) {
      args.insert(args.end(), {"-isystem", result.toolkit.root + "/include"});
    } else {
      args.insert(args.end(), {"-isystem", std::string(kBuiltinCudaDir)});
    }
  }
  if (result.toolkit.found() && result.toolkit.has_cccl) {
    args.insert(args.end(), {"-isystem", result.toolkit.root + "/include/cccl"});
  }
  if (!has_standard) args.emplace_back("-std=c++17");
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), settings.extra_args.begin(), settings.extra_args.end());
  args.insert(args.end(), {"-idirafter", std::string(kBuiltinTorchDir)});
  args.insert(args.end(), {"-resource-dir=" + clangResourceDir(), "-fsyntax-only", "-w",
                           "-ferror-limit=0", "-Wno-unknown-cuda-version", "-fno-color-diagnostics",
                           "-fno-caret-diagnostics"});
  args.push_back(absolute_path);
  return result;
}

}  // namespace graphsafe::cuda
