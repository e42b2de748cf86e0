#include "frontends/cuda/nvcc_flag_filter.h"

#include <algorithm>
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

namespace {

// A -D/-U value that would end the predefines' line: Clang writes `-DX=v` as `#define X v` on a
// line of its own, so a line break in `v` starts a directive of the database's choosing.
bool injectsDirectives(std::string_view value) {
  return std::any_of(value.begin(), value.end(), [](char c) {
    auto byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && c != '\t') || byte == 0x7f;
  });
}

// The architecture spellings of one flag's value: `sm_80`, `compute_90a`,
// `arch=compute_80,code=[sm_80,compute_80]` (nvcc's -gencode): each `compute_NN` or `sm_NN`
// named as the virtual architecture (`arch=`), or the whole value when it is one.
void collectArchs(std::string_view value, std::vector<std::string>& archs) {
  std::string_view arch = value;
  if (std::size_t at = value.find("arch="); at != std::string_view::npos) {
    arch = value.substr(at + 5);
    arch = arch.substr(0, arch.find_first_of(",]"));
  }
  for (std::string_view prefix : {"compute_", "sm_", "lto_"}) {
    if (!arch.starts_with(prefix)) continue;
    std::string spelled = "sm_" + std::string(arch.substr(prefix.size()));
    if (gpuArchNumber(spelled) > 0) archs.push_back(std::move(spelled));
    return;
  }
}

// Flags that name a GPU architecture, joined (`-arch=sm_80`) or as the next argument.
bool archFlag(const std::vector<std::string>& command, std::size_t& i, std::string_view& value) {
  std::string_view arg = command[i];
  for (std::string_view flag : {"-arch", "--gpu-architecture", "-gencode", "--generate-code",
                                "--cuda-gpu-arch", "--offload-arch"}) {
    if (!arg.starts_with(flag)) continue;
    std::string_view rest = arg.substr(flag.size());
    if (rest.empty()) {
      if (i + 1 >= command.size()) return false;
      value = command[++i];
      return true;
    }
    if (rest.front() != '=') continue;
    value = rest.substr(1);
    return true;
  }
  return false;
}

}  // namespace

int gpuArchNumber(std::string_view arch) {
  if (!arch.starts_with("sm_")) return 0;
  int number = 0;
  std::size_t digits = 0;
  for (std::size_t i = 3; i < arch.size() && arch[i] >= '0' && arch[i] <= '9' && digits < 4;
       ++i, ++digits) {
    number = number * 10 + (arch[i] - '0');
  }
  return digits == 0 ? 0 : number;
}

ParsingFlags keepParsingFlags(const std::vector<std::string>& command,
                              const std::string& directory) {
  ParsingFlags result;
  for (std::size_t i = 1; i < command.size(); ++i) {
    std::size_t at = i;
    if (std::string_view arch; archFlag(command, i, arch)) {
      collectArchs(arch, result.gpu_archs);
      continue;
    }
    i = at;
    MatchedFlag matched = matchValueFlag(command, i);
    if (matched.flag == nullptr) {
      if (dropsNextArgument(command[at])) ++i;
      continue;
    }
    const PathFlag& flag = *matched.flag;
    if (flag.canonical.empty()) continue;
    if (injectsDirectives(matched.value)) {
      const bool macro = flag.canonical == "-D" || flag.canonical == "-U";
      std::string shown(flag.canonical);
      if (shown.back() == '=') shown.pop_back();
      std::string_view name =
          macro ? matched.value.substr(0, matched.value.find_first_of("=(")) : std::string_view();
      for (char c : name.substr(0, 64)) {
        shown.push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c);
      }
      result.rejected.push_back(std::move(shown));
      continue;
    }
    pushFlag(result.flags, flag.canonical,
             flag.is_path ? absolute(matched.value, directory) : std::string(matched.value));
  }
  std::sort(result.gpu_archs.begin(), result.gpu_archs.end(),
            [](const std::string& a, const std::string& b) {
              int x = gpuArchNumber(a);
              int y = gpuArchNumber(b);
              return x != y ? x < y : a < b;
            });
  result.gpu_archs.erase(std::unique(result.gpu_archs.begin(), result.gpu_archs.end()),
                         result.gpu_archs.end());
  return result;
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
