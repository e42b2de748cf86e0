#include "frontends/cuda/header_includers.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "frontends/cuda/extension_code.h"

namespace graphsafe::cuda {

namespace {

namespace fs = std::filesystem;

// A project reaches fewer files than this; past it, the rest are not scanned (a header not
// reached by then is parsed with interpolated flags instead).
constexpr std::size_t kMaxFiles = 50'000;
constexpr std::streamsize kMaxFileBytes = 4 << 20;
constexpr int kMaxDepth = 64;

std::string readSource(const std::string& path) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return "";
  std::ifstream in(path, std::ios::binary);
  std::string text(static_cast<std::size_t>(kMaxFileBytes), '\0');
  in.read(text.data(), kMaxFileBytes);
  text.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return text;
}

bool isFile(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

// The include directories of a unit's flags, in search order.
struct SearchPath {
  std::vector<std::string> quoted;  // -iquote, then -I
  std::vector<std::string> angled;  // -I
};

SearchPath searchPathOf(const std::vector<std::string>& flags) {
  SearchPath path;
  std::vector<std::string> quote_only;
  for (std::size_t i = 0; i < flags.size(); ++i) {
    const std::string& flag = flags[i];
    if (flag == "-iquote" && i + 1 < flags.size()) {
      quote_only.push_back(flags[++i]);
    } else if (flag.size() > 2 && flag.starts_with("-I")) {
      path.angled.push_back(flag.substr(2));
    }
  }
  path.quoted = std::move(quote_only);
  path.quoted.insert(path.quoted.end(), path.angled.begin(), path.angled.end());
  return path;
}

std::string found(const fs::path& candidate) {
  return isFile(candidate) ? candidate.lexically_normal().string() : std::string();
}

std::string resolve(std::string_view name, bool angled, const fs::path& directory,
                    const SearchPath& search) {
  fs::path spelled{std::string(name)};
  if (spelled.is_absolute()) return found(spelled);
  if (!angled) {
    if (std::string path = found(directory / spelled); !path.empty()) return path;
  }
  for (const std::string& dir : angled ? search.angled : search.quoted) {
    if (std::string path = found(fs::path(dir) / spelled); !path.empty()) return path;
  }
  return "";
}

}  // namespace

HeaderIncluders::HeaderIncluders(std::vector<Unit> units) : units_(std::move(units)) {
  for (Unit& unit : units_) unit.file = fs::path(unit.file).lexically_normal().string();
  std::sort(units_.begin(), units_.end(),
            [](const Unit& a, const Unit& b) { return a.file < b.file; });
  // One entry per file (a database may list a file twice): unit i is file i below.
  units_.erase(std::unique(units_.begin(), units_.end(),
                           [](const Unit& a, const Unit& b) { return a.file == b.file; }),
               units_.end());
}

void HeaderIncluders::build() {
  built_ = true;
  std::vector<SearchPath> search;
  search.reserve(units_.size());
  std::deque<std::size_t> pending;
  auto add = [&](const std::string& path, std::size_t unit) {
    auto [it, inserted] = index_.emplace(path, files_.size());
    if (inserted) {
      File file;
      file.unit = unit;
      files_.push_back(std::move(file));
      paths_.push_back(path);
      pending.push_back(it->second);
    }
    return it->second;
  };
  for (std::size_t u = 0; u < units_.size(); ++u) {
    search.push_back(searchPathOf(units_[u].flags));
    test_program_.push_back(false);
    add(units_[u].file, u);
  }
  // Breadth first: the units, then what they include, and so on, so that a header is
  // attributed to a unit that includes it the fewest levels deep.
  for (std::size_t scanned = 0; !pending.empty() && scanned < kMaxFiles; ++scanned) {
    const std::size_t f = pending.front();
    pending.pop_front();
    const std::string text = readSource(paths_[f]);
    if (text.empty()) continue;
    const std::size_t unit = files_[f].unit;
    if (f < units_.size()) test_program_[f] = isTestProgram(text);
    bool extension = isExtensionCode(text);
    std::vector<std::size_t> includes;
    const fs::path directory = fs::path(paths_[f]).parent_path();
    forEachInclude(text, [&](std::string_view name, bool angled) {
      if (isTorchHeader(name)) {
        extension = true;
        return false;
      }
      std::string path = resolve(name, angled, directory, search[unit]);
      if (!path.empty() && files_.size() < kMaxFiles) includes.push_back(add(path, unit));
      return false;
    });
    files_[f].extension_here = extension;
    files_[f].includes = std::move(includes);
  }
}

bool HeaderIncluders::reachesExtension(std::size_t file, int depth) {
  File& entry = files_[file];
  if (entry.reaches_extension >= 0) return entry.reaches_extension == 1;
  if (entry.extension_here) {
    entry.reaches_extension = 1;
    return true;
  }
  if (depth > kMaxDepth) return false;
  entry.reaches_extension = 0;  // while it is decided: an include cycle adds nothing
  for (std::size_t i = 0; i < files_[file].includes.size(); ++i) {
    if (reachesExtension(files_[file].includes[i], depth + 1)) {
      files_[file].reaches_extension = 1;
      return true;
    }
  }
  return false;
}

std::optional<HeaderIncluders::Includer> HeaderIncluders::find(const std::string& header) {
  if (!built_) build();
  auto it = index_.find(fs::path(header).lexically_normal().string());
  if (it == index_.end() || it->second < units_.size()) return std::nullopt;
  Includer includer;
  includer.unit = files_[it->second].unit;
  includer.extension = !test_program_[includer.unit] && reachesExtension(includer.unit, 0);
  return includer;
}

const std::string& HeaderIncluders::unitFile(std::size_t unit) const {
  return units_[unit].file;
}

}  // namespace graphsafe::cuda
