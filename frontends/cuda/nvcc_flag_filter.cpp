#include "frontends/cuda/nvcc_flag_filter.h"

#include <array>
#include <filesystem>
#include <string_view>

namespace graphsafe::cuda {

namespace {

struct PathFlag {
  std::string_view spelling;   // as written
  std::string_view canonical;  // what Clang gets
  bool is_path;                // its value is a path to make absolute
};

// Flags that take a value, joined (-Idir, --include-path=dir) or as the next argument.
constexpr std::array<PathFlag, 19> kValueFlags = {{
    {"-isystem", "-isystem", true},
    {"-idirafter", "-idirafter", true},
    {"-iquote", "-iquote", true},
    {"-include", "-include", true},
    {"-imacros", "-imacros", true},
    {"--include-path", "-I", true},
    {"--system-include", "-isystem", true},
    {"--pre-include", "-include", true},
    {"--define-macro", "-D", false},
    {"--undefine-macro", "-U", false},
    {"-I", "-I", true},
    {"-D", "-D", false},
    {"-U", "-U", false},
    {"--std", "-std=", false},
    {"-std", "-std=", false},
    {"-isysroot", "-isysroot", true},
    {"--sysroot", "--sysroot=", true},
    {"-cudart", "", false},  // nvcc: takes a value, dropped
    {"-x", "", false},       // the language is graphsafe's choice
}};

std::string absolute(std::string_view path, const std::string& directory) {
  std::filesystem::path value(path);
  if (value.is_absolute() || directory.empty()) return std::string(path);
  return (std::filesystem::path(directory) / value).lexically_normal().string();
}

// nvcc flags that take their value as the next argument and are dropped with it.
bool dropsNextArgument(std::string_view arg) {
  constexpr std::array<std::string_view, 22> kTakesValue = {
      "-o",
      "-MF",
      "-MT",
      "-MQ",
      "-Xcompiler",
      "-Xptxas",
      "-Xlinker",
      "-Xnvlink",
      "-Xarchive",
      "-ccbin",
      "--compiler-bindir",
      "-gencode",
      "--generate-code",
      "-arch",
      "--gpu-architecture",
      "-code",
      "--gpu-code",
      "--options-file",
      "-optf",
      "-maxrregcount",
      "--threads",
      "-t",
  };
  for (std::string_view flag : kTakesValue) {
    if (arg == flag) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> keepParsingFlags(const std::vector<std::string>& command,
                                          const std::string& directory) {
  std::vector<std::string> kept;
  for (std::size_t i = 1; i < command.size(); ++i) {
    std::string_view arg = command[i];
    bool matched = false;
    for (const PathFlag& flag : kValueFlags) {
      if (!arg.starts_with(flag.spelling)) continue;
      std::string_view value;
      std::string_view rest = arg.substr(flag.spelling.size());
      if (rest.empty()) {
        if (i + 1 >= command.size()) break;
        value = command[++i];
      } else if (rest.front() == '=') {
        value = rest.substr(1);
      } else if (flag.spelling.size() == 2 || flag.spelling == "-isystem" ||
                 flag.spelling == "-iquote" || flag.spelling == "-idirafter") {
        value = rest;  // -Idir, -DX=1, -isystemdir
      } else {
        continue;  // a longer flag that merely starts the same (-include vs -includeX)
      }
      matched = true;
      if (flag.canonical.empty()) break;
      std::string text = flag.is_path ? absolute(value, directory) : std::string(value);
      if (flag.canonical.back() == '=') {
        kept.push_back(std::string(flag.canonical) + text);
      } else if (flag.canonical.size() == 2) {
        kept.push_back(std::string(flag.canonical) + text);
      } else {
        kept.emplace_back(flag.canonical);
        kept.push_back(text);
      }
      break;
    }
    if (matched) continue;
    if (dropsNextArgument(arg)) ++i;
  }
  return kept;
}

}  // namespace graphsafe::cuda
