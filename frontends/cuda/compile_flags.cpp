#include "frontends/cuda/compile_flags.h"

#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/JSONCompilationDatabase.h>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "frontends/cuda/header_includers.h"
#include "frontends/cuda/nvcc_flag_filter.h"
#include "frontends/cuda/resource_dir.h"

namespace graphsafe::cuda {

namespace {

namespace fs = std::filesystem;
using clang::tooling::CompilationDatabase;

bool hasExtension(std::string_view path, std::initializer_list<std::string_view> extensions);

// A file a compile command does not compile on its own: anything but a C, C++ or CUDA source.
bool isHeaderPath(std::string_view path) {
  return !hasExtension(path, {".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".cu", ".cp"});
}

// What the database says about one file.
struct Lookup {
  std::optional<clang::tooling::CompileCommand> command;
  std::string database;  // the compile_commands.json consulted, "" when none was found
  CompileCommand::Borrowed borrowed = CompileCommand::Borrowed::kNo;
  std::string includer;
  bool includer_extension = false;
};

// Databases are loaded once per directory and shared by every file and thread; a directory
// without one is remembered too, so walking up stays cheap.
class DatabaseCache {
 public:
  static DatabaseCache& instance() {
    static DatabaseCache cache;
    return cache;
  }

  // The database for `file`: in `directory` when given, else the nearest one above the file,
  // up to the repository's root (a directory holding .git); then the file's own entry, else a
  // unit that includes it (a header), else the entry interpolation finds most similar.
  Lookup lookup(const std::string& file, const std::string& directory) {
    std::lock_guard lock(mutex_);
    Loaded* database = nullptr;
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
    Lookup result;
    if (database == nullptr) return result;
    result.database = (fs::path(from) / "compile_commands.json").string();
    if (auto exact = database->exact->getCompileCommands(file); !exact.empty()) {
      result.command = std::move(exact.front());
      return result;
    }
    if (isHeaderPath(file)) {
      if (!database->includers) database->includers = makeIncluders(*database->exact);
      if (auto includer = database->includers->find(file)) {
        const std::string& unit = database->includers->unitFile(includer->unit);
        if (auto commands = database->exact->getCompileCommands(unit); !commands.empty()) {
          result.command = std::move(commands.front());
          result.borrowed = CompileCommand::Borrowed::kIncluder;
          result.includer = unit;
          result.includer_extension = includer->extension;
          return result;
        }
      }
    }
    if (auto inferred = database->interpolating->getCompileCommands(file); !inferred.empty()) {
      result.command = std::move(inferred.front());
      result.borrowed = CompileCommand::Borrowed::kInterpolated;
    }
    return result;
  }

 private:
  struct Loaded {
    std::unique_ptr<CompilationDatabase> interpolating;  // owns `exact`
    const CompilationDatabase* exact = nullptr;
    std::unique_ptr<HeaderIncluders> includers;  // made when a header is first asked about
  };

  static std::unique_ptr<HeaderIncluders> makeIncluders(const CompilationDatabase& database) {
    std::vector<HeaderIncluders::Unit> units;
    for (const clang::tooling::CompileCommand& command : database.getAllCompileCommands()) {
      fs::path file(command.Filename);
      if (file.is_relative()) file = fs::path(command.Directory) / file;
      units.push_back(
          {file.string(), keepParsingFlags(command.CommandLine, command.Directory).flags});
    }
    return std::make_unique<HeaderIncluders>(std::move(units));
  }

  Loaded* load(const std::string& directory) {
    auto it = loaded_.find(directory);
    if (it != loaded_.end()) return it->second.get();
    std::unique_ptr<Loaded> database;
    std::error_code error;
    fs::path json = fs::path(directory) / "compile_commands.json";
    if (fs::is_regular_file(json, error)) {
      std::string message;
      auto exact = clang::tooling::JSONCompilationDatabase::loadFromFile(
          json.string(), message, clang::tooling::JSONCommandLineSyntax::AutoDetect);
      if (exact) {
        database = std::make_unique<Loaded>();
        database->exact = exact.get();
        database->interpolating = clang::tooling::inferMissingCompileCommands(std::move(exact));
      }
    }
    return loaded_.emplace(directory, std::move(database)).first->second.get();
  }

  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Loaded>> loaded_;
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

namespace {

// A header that tests nvcc's macros (`#if __CUDACC_VER_MAJOR__ >= 12`, `#ifdef __CUDACC__`) is
// written for the .cu units that include it: what it keeps for nvcc is read in nvcc's view.
bool writtenForNvcc(std::string_view path, std::string_view text) {
  return isHeaderPath(path) && text.find("__CUDACC") != std::string_view::npos;
}

}  // namespace

namespace {

// The file a database entry compiles, for naming it in a notice: its own, the includer's, or
// the one interpolation borrowed from ("inferred from src/x.cu").
std::string entryName(const clang::tooling::CompileCommand& command, const Lookup& lookup,
                      const std::string& file) {
  if (lookup.borrowed == CompileCommand::Borrowed::kIncluder) return lookup.includer;
  if (lookup.borrowed == CompileCommand::Borrowed::kInterpolated) {
    constexpr std::string_view kFrom = "inferred from ";
    if (std::size_t at = command.Heuristic.find(kFrom); at != std::string::npos) {
      return command.Heuristic.substr(at + kFrom.size());
    }
  }
  return command.Filename.empty() ? file : command.Filename;
}

// The directory of an include flag (`-Idir`, `-isystem dir`, `-idirafter dir`) at `flags[i]`,
// or "": the number of arguments it takes is `width`.
std::string includeDirectory(const std::vector<std::string>& flags, std::size_t i,
                             std::size_t& width) {
  const std::string& flag = flags[i];
  width = 1;
  if (flag.size() > 2 && flag.starts_with("-I")) return flag.substr(2);
  if ((flag == "-isystem" || flag == "-idirafter") && i + 1 < flags.size()) {
    width = 2;
    return flags[i + 1];
  }
  return "";
}

bool holdsCudaRuntime(const std::string& directory) {
  std::error_code error;
  return fs::is_regular_file(fs::path(directory) / "cuda_runtime.h", error);
}

// The toolkit root of an include directory: `root/include`, or `root/targets/<arch>/include`.
std::string toolkitRootOf(const std::string& include) {
  fs::path dir = fs::path(include).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();
  fs::path root = dir.parent_path();
  if (root.parent_path().filename() == "targets") root = root.parent_path().parent_path();
  return root.string();
}

// The build's own toolkit: a database include directory that holds cuda_runtime.h. When no
// toolkit was found otherwise, that one is used; when the built-in declarations were asked for,
// the directory is left out: the built-ins and the toolkit's headers do not mix (the toolkit's
// cuda_runtime.h redeclares what the built-ins declare, and kernel launches no longer resolve).
void takeTheBuildsToolkit(std::vector<std::string>& flags, CompileCommand& result,
                          const AnalysisSettings& settings) {
  for (std::size_t i = 0; i < flags.size();) {
    std::size_t width = 1;
    std::string directory = includeDirectory(flags, i, width);
    if (directory.empty() || !holdsCudaRuntime(directory) || result.toolkit.found()) {
      i += width;
      continue;
    }
    if (!builtinDeclarationsForced(settings)) {
      CudaToolkit toolkit = cudaToolkitAt(toolkitRootOf(directory));
      if (toolkit.found()) {
        result.toolkit = toolkit;
        i += width;
        continue;
      }
    }
    result.run_notices.push_back(
        "the compile database names the CUDA toolkit's include directory " + directory +
        ", which was left out: the analysis uses its built-in declarations (--cuda-path none), "
        "and the two do not mix (give --cuda-path that toolkit's root to parse with it)");
    flags.erase(flags.begin() + static_cast<std::ptrdiff_t>(i),
                flags.begin() + static_cast<std::ptrdiff_t>(i + width));
  }
}

// What nvcc defines for the toolkit in a CUDA compilation, host pass included: __CUDACC__ (the
// toolkit's headers define it themselves through Clang's wrapper), __NVCC__, the compiler's
// version, and the architectures the command builds for (__CUDA_ARCH_LIST__, as nvcc 11.5 and
// later define it: `800,900`).
void addNvccMacros(const CompileCommand& command, std::vector<std::string>& args) {
  const bool toolkit = command.toolkit.found();
  const int major = toolkit ? command.toolkit.major : kBuiltinCudaMajor;
  const int minor = toolkit ? command.toolkit.minor : kBuiltinCudaMinor;
  const int build = toolkit ? command.toolkit.build : 0;
  if (!toolkit) args.emplace_back("-D__CUDACC__");
  args.emplace_back("-D__NVCC__");
  if (major > 0) {
    args.push_back("-D__CUDACC_VER_MAJOR__=" + std::to_string(major));
    args.push_back("-D__CUDACC_VER_MINOR__=" + std::to_string(minor));
    args.push_back("-D__CUDACC_VER_BUILD__=" + std::to_string(build));
  }
  std::vector<int> archs;
  for (const std::string& arch : command.gpu_archs) archs.push_back(gpuArchNumber(arch) * 10);
  archs.erase(std::unique(archs.begin(), archs.end()), archs.end());
  if (archs.empty()) return;
  std::string list;
  for (int arch : archs) list += (list.empty() ? "" : ",") + std::to_string(arch);
  args.push_back("-D__CUDA_ARCH_LIST__=" + list);
}

}  // namespace

CompileCommand compileCommandFor(const std::string& absolute_path, std::string_view text,
                                 const AnalysisSettings& settings) {
  CompileCommand result;
  result.toolkit = findCudaToolkit(settings);
  result.cuda = parseAsCuda(absolute_path, text);
  result.directory = fs::path(absolute_path).parent_path().string();

  std::vector<std::string> flags;
  Lookup lookup = DatabaseCache::instance().lookup(absolute_path, settings.compile_commands_dir);
  result.database =
      lookup.database;  // even without an entry for the file: adding one changes flags
  if (lookup.command) {
    const auto& command = *lookup.command;
    result.from_database = true;
    result.directory = command.Directory;
    result.borrowed = lookup.borrowed;
    result.includer = lookup.includer;
    result.includer_extension = lookup.includer_extension;
    // A command borrowed by similarity says nothing about this file's language; its own, or the
    // one of a unit that includes it, does.
    const bool borrowed = lookup.borrowed == CompileCommand::Borrowed::kInterpolated;
    result.cuda = result.cuda || (!borrowed && compilesAsCuda(command.CommandLine)) ||
                  (!lookup.includer.empty() && hasExtension(lookup.includer, {".cu"}));
    ParsingFlags parsing = keepParsingFlags(command.CommandLine, command.Directory);
    flags = std::move(parsing.flags);
    result.gpu_archs = std::move(parsing.gpu_archs);
    for (const std::string& rejected : parsing.rejected) {
      result.notices.push_back("the compile database entry for " +
                               entryName(command, lookup, absolute_path) + " has `" + rejected +
                               "` with a line break or another control character in its value, "
                               "which would insert preprocessor directives: the flag was left out");
    }
    takeTheBuildsToolkit(flags, result, settings);
  }
  // Without the command of a unit that includes it, a header is read as the units it was
  // written for; with one, as that unit is compiled (a .cpp unit's host compiler defines none of
  // nvcc's macros).
  if (lookup.borrowed != CompileCommand::Borrowed::kIncluder &&
      writtenForNvcc(absolute_path, text)) {
    result.cuda = true;
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
  if (result.cuda) {
    addNvccMacros(result, args);
    args.insert(args.end(), {"-include", std::string(kNvccViewHeader)});
  }
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
