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

namespace {

// A value flag at `command[i]`, with its value (joined or the next argument: then `i` moves on).
struct MatchedFlag {
  const PathFlag* flag = nullptr;
  std::string_view value;
};

MatchedFlag matchValueFlag(const std::vector<std::string>& command, std::size_t& i) {
  std::string_view arg = command[i];
  for (const PathFlag& flag : kValueFlags) {
    if (!arg.starts_with(flag.spelling)) continue;
    std::string_view rest = arg.substr(flag.spelling.size());
    if (rest.empty()) {
      if (i + 1 >= command.size()) return {};
      return {&flag, command[++i]};
    }
    if (rest.front() == '=') return {&flag, rest.substr(1)};
    if (flag.spelling.size() == 2 || flag.spelling == "-isystem" || flag.spelling == "-iquote" ||
        flag.spelling == "-idirafter") {
      return {&flag, rest};  // -Idir, -DX=1, -isystemdir
    }
    // A longer flag that merely starts the same (-include vs -includeX): try the others.
  }
  return {};
}

// The flag with `text` as its value, in the form Clang takes it.
void pushFlag(std::vector<std::string>& out, std::string_view canonical, std::string text) {
  if (canonical.back() == '=' || canonical.size() == 2) {
    out.push_back(std::string(canonical) + text);
  } else {
    out.emplace_back(canonical);
    out.push_back(std::move(text));
  }
}

}  // namespace

std::vector<std::string> keepParsingFlags(const std::vector<std::string>& command,
                                          const std::string& directory) {
  std::vector<std::string> kept;
  for (std::size_t i = 1; i < command.size(); ++i) {
    std::size_t at = i;
    MatchedFlag matched = matchValueFlag(command, i);
    if (matched.flag == nullptr) {
      if (dropsNextArgument(command[at])) ++i;
      continue;
    }
    const PathFlag& flag = *matched.flag;
    if (flag.canonical.empty()) continue;
    pushFlag(kept, flag.canonical,
             flag.is_path ? absolute(matched.value, directory) : std::string(matched.value));
  }
  return kept;
}

std::vector<std::string> withAbsolutePaths(const std::vector<std::string>& args,
                                           const std::string& directory) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::size_t at = i;
    MatchedFlag matched = matchValueFlag(args, i);
    if (matched.flag == nullptr || !matched.flag->is_path) {
      out.insert(out.end(), args.begin() + static_cast<std::ptrdiff_t>(at),
                 args.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      continue;
    }
    pushFlag(out, matched.flag->canonical, absolute(matched.value, directory));
  }
  return out;
}

}  // namespace graphsafe::cuda
