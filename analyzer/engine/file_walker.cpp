#include "analyzer/engine/file_walker.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <filesystem>
#include <memory>
#include <set>
#include <string_view>
#include <utility>

#include "analyzer/engine/ignore_rules.h"
#include "analyzer/io/bounded_read.h"

namespace graphsafe {

namespace fs = std::filesystem;

namespace {

constexpr std::array<std::string_view, 2> kPythonExtensions = {".py", ".pyi"};
constexpr std::array<std::string_view, 11> kCudaExtensions = {
    ".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c++", ".h", ".hpp", ".hh", ".hxx", ".inl"};

// Directories that hold no code of the project, by name: version control, caches, and
// installed packages. Build outputs are not guessed by name (`build*` and `dist` are real source
// packages often enough: `turbomind/builders/`, `mylib/dist/`): a build tree is skipped when a
// .gitignore says so, or by what it holds (a CMake build tree's CMakeCache.txt).
constexpr std::array<std::string_view, 18> kSkippedDirectories = {
    // version control
    ".git", ".hg", ".svn", ".bzr", ".jj", "_darcs",
    // caches
    "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".pytype", ".graphsafe_cache",
    ".ipynb_checkpoints",
    // test environments and installed packages
    ".tox", ".nox", "node_modules", "site-packages", "__pypackages__"};

std::string_view extensionOf(std::string_view path) {
  std::size_t slash = path.find_last_of('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  std::size_t dot = name.find_last_of('.');
  if (dot == std::string_view::npos || dot == 0) return {};
  return name.substr(dot);
}

bool handledPath(const std::string& path) {
  return isPythonPath(path) || isCudaPath(path);
}

bool pathExists(const fs::path& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec));
}

bool isVirtualenv(const fs::path& dir, std::string_view name) {
  if (pathExists(dir / "pyvenv.cfg")) return true;
  return (name == ".venv" || name == "venv" || name == "env") &&
         pathExists(dir / "bin" / "activate");
}

bool skippedDirectory(const fs::path& dir, std::string_view name) {
  if (std::find(kSkippedDirectories.begin(), kSkippedDirectories.end(), name) !=
      kSkippedDirectories.end()) {
    return true;
  }
  return isVirtualenv(dir, name) || pathExists(dir / "CMakeCache.txt");
}

// The user's spelling, normalized lexically: "./a.py" -> "a.py", "src/" -> "src".
std::string normalizeUserPath(const std::string& path) {
  if (path.empty()) return ".";
  std::string normal = fs::path(path).lexically_normal().generic_string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  if (normal.empty()) return ".";
  return normal;
}

std::string joinPath(const std::string& dir, const std::string& name) {
  if (dir == ".") return name;
  if (!dir.empty() && dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

std::string absolutePath(const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) return path;
  std::string normal = absolute.lexically_normal().generic_string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal;
}

// `path` relative to `base` when it lies inside it (both absolute and normalized).
bool relativeInside(const std::string& base, const std::string& path, std::string_view& out) {
  if (base == "/") {
    if (path.size() <= 1 || path.front() != '/') return false;
    out = std::string_view(path).substr(1);
    return true;
  }
  if (path.size() <= base.size() + 1 || !path.starts_with(base) || path[base.size()] != '/') {
    return false;
  }
  out = std::string_view(path).substr(base.size() + 1);
  return true;
}

// An ignore file (or the `exclude` option, `file` empty) with more patterns to glob-match than
// IgnoreRules applies, said once.
Notice tooManyGlobs(const std::string& file, const IgnoreRules& rules) {
  return {file, -1,
          std::string(file.empty() ? "the exclude patterns were" : "this ignore file was") +
              " not applied: a path would be matched against " +
              std::to_string(rules.globPatterns()) + " of its patterns one by one, more than the " +
              std::to_string(IgnoreRules::kMaxGlobPatterns) +
              " graphsafe tries; the files they would exclude are analyzed"};
}

// Nobody writes an ignore file this large; one that is is not read past it.
constexpr std::size_t kMaxIgnoreFileBytes = std::size_t{16} << 20;

std::shared_ptr<const IgnoreRules> loadIgnoreFile(const fs::path& file, const std::string& base,
                                                  std::vector<Notice>& notices) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return nullptr;
  std::string text;
  std::string error;
  if (!readRegularFile(file.string(), kMaxIgnoreFileBytes, text, error)) {
    notices.push_back({file.string(), -1, "this ignore file was not applied: " + error});
    return nullptr;
  }
  auto rules = std::make_shared<const IgnoreRules>(IgnoreRules::parse(text, base));
  if (rules->tooManyGlobs()) notices.push_back(tooManyGlobs(file.string(), *rules));
  return rules->empty() ? nullptr : rules;
}

using RuleStack = std::vector<std::shared_ptr<const IgnoreRules>>;

// The .gitignore files above a walked root, up to its repository's top (the directory holding
// .git), outermost first, after the repository's .git/info/exclude. Outside a repository git
// reads no parent .gitignore, and neither do we.
// The repository a walk's root lies in (the nearest directory holding .git, the root itself
// included), or "" when it lies in none.
std::string repositoryOf(const std::string& root_absolute) {
  fs::path dir = fs::path(root_absolute);
  while (true) {
    if (pathExists(dir / ".git")) return dir.generic_string();
    if (!dir.has_relative_path()) return {};
    dir = dir.parent_path();
  }
}

RuleStack parentIgnoreRules(const std::string& root_absolute, std::vector<Notice>& notices) {
  std::vector<std::string> chain;  // root's parents, innermost first
  fs::path dir = fs::path(root_absolute);
  std::string top;
  if (pathExists(dir / ".git")) top = root_absolute;
  // The depth of a path bounds this loop: parent_path() shortens it every step.
  while (top.empty() && dir.has_relative_path()) {
    dir = dir.parent_path();
    chain.push_back(dir.generic_string());
    if (pathExists(dir / ".git")) top = dir.generic_string();
  }
  RuleStack stack;
  if (top.empty()) return stack;
  if (auto rules = loadIgnoreFile(fs::path(top) / ".git" / "info" / "exclude", top, notices)) {
    stack.push_back(std::move(rules));
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if (auto rules = loadIgnoreFile(fs::path(*it) / ".gitignore", *it, notices)) {
      stack.push_back(std::move(rules));
    }
  }
  return stack;
}

struct DirectoryId {
  dev_t device = 0;
  ino_t inode = 0;
  friend auto operator<=>(const DirectoryId&, const DirectoryId&) = default;
};

bool directoryId(const std::string& path, DirectoryId& id) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return false;
  id = {info.st_dev, info.st_ino};
  return true;
}

// One directory waiting to be read.
struct Frame {
  std::string display;   // the user's spelling
  std::string absolute;  // lexical absolute path, for matching ignore patterns
  RuleStack rules;       // .gitignore files that apply inside, outermost first
  DirectoryId id;
  std::size_t parent = 0;  // index in the frame list; the root is its own parent
  bool root = false;
};

class Walker {
 public:
  Walker(const std::vector<std::string>& exclude, std::vector<Notice>& notices,
         std::vector<std::string>& files)
      : notices_(notices), files_(files) {
    std::string text;
    for (const std::string& pattern : exclude) text += pattern + "\n";
    excludes_ = IgnoreRules::parse(text, absolutePath("."));
    if (excludes_.tooManyGlobs()) notices_.push_back(tooManyGlobs("", excludes_));
  }

  // --force-exclude: whether `exclude` excludes a path named on the command line, itself or
  // through one of its directories (a file cannot be re-included under an excluded directory).
  // The .gitignore files do not apply to named paths.
  bool excludedByName(const std::string& path, bool is_dir) const {
    std::string absolute = absolutePath(path);
    std::string_view relative;
    if (relativeInside(excludes_.base(), absolute, relative)) {
      return excludedSegments(relative, is_dir);
    }
    if (absolute == excludes_.base()) return false;
    // Outside the patterns' directory only unanchored patterns can match its name, as in a walk.
    std::string_view name = std::string_view(absolute).substr(absolute.find_last_of('/') + 1);
    return !name.empty() &&
           excludes_.match(name, is_dir, /*basename_only=*/true) == IgnoreRules::Verdict::kIgnore;
  }

  void walk(const std::string& root) {
    frames_.clear();
    visited_.clear();
    Frame first;
    first.display = root;
    first.absolute = absolutePath(root);
    first.rules = parentIgnoreRules(first.absolute, notices_);
    first.root = true;
    if (!directoryId(root, first.id)) {
      notices_.push_back({root, -1,
                          "cannot read directory: " + std::generic_category().message(errno),
                          /*incomplete=*/true});
      return;
    }
    visited_.insert(first.id);
    std::error_code ec;
    root_canonical_ = fs::canonical(root, ec).generic_string();
    // Links are followed only to directories inside this: the repository, or the root itself
    // outside one. A link to /proc or to another checkout is not part of the project.
    const std::string repository = repositoryOf(first.absolute);
    bound_canonical_ =
        repository.empty() ? root_canonical_ : fs::canonical(repository, ec).generic_string();
    if (ec) bound_canonical_ = root_canonical_;
    frames_.push_back(std::move(first));
    std::vector<std::size_t> pending = {0};
    // An explicit stack: the depth of the tree never becomes the depth of our call stack.
    while (!pending.empty() && !stopped()) {
      std::size_t index = pending.back();
      pending.pop_back();
      readDirectory(index, pending);
    }
  }

  // A bound on the walk (0: none): past this many files, or eight times as many directories,
  // it stops, and stopped() says so.
  void limit(std::size_t max_files) { max_files_ = max_files; }
  bool stopped() const {
    return max_files_ != 0 && (files_.size() > max_files_ || directories_ > 8 * max_files_);
  }

 private:
  bool ignored(const Frame& frame, const std::string& absolute, bool is_dir) const {
    std::string_view relative;
    if (relativeInside(excludes_.base(), absolute, relative)) {
      auto verdict = excludes_.match(relative, is_dir);
      if (verdict != IgnoreRules::Verdict::kNone) return verdict == IgnoreRules::Verdict::kIgnore;
    } else {
      std::string_view name = std::string_view(absolute).substr(absolute.find_last_of('/') + 1);
      auto verdict = excludes_.match(name, is_dir, /*basename_only=*/true);
      if (verdict != IgnoreRules::Verdict::kNone) return verdict == IgnoreRules::Verdict::kIgnore;
    }
    // Deeper .gitignore files take precedence over those above them.
    for (auto it = frame.rules.rbegin(); it != frame.rules.rend(); ++it) {
      if (!relativeInside((*it)->base(), absolute, relative)) continue;
      auto verdict = (*it)->match(relative, is_dir);
      if (verdict != IgnoreRules::Verdict::kNone) return verdict == IgnoreRules::Verdict::kIgnore;
    }
    return false;
  }

  // `relative`'s directories from the top down, then `relative` itself, against `exclude`.
  bool excludedSegments(std::string_view relative, bool is_dir) const {
    for (std::size_t slash = relative.find('/'); slash != std::string_view::npos;
         slash = relative.find('/', slash + 1)) {
      if (excludes_.match(relative.substr(0, slash), true) == IgnoreRules::Verdict::kIgnore) {
        return true;
      }
    }
    return excludes_.match(relative, is_dir) == IgnoreRules::Verdict::kIgnore;
  }

  enum class LinkKind { kLoop, kInsideRoot, kInsideRepository, kOutside };

  // A symbolic link to a directory: a loop when it points at a directory we are inside of;
  // redundant when it points inside the walked root; followed when it points elsewhere in the
  // repository; not followed out of it.
  LinkKind classifyLink(std::size_t index, const std::string& link, const DirectoryId& id,
                        std::string& target) const {
    if (isAncestor(index, id)) return LinkKind::kLoop;
    std::error_code ec;
    target = fs::canonical(link, ec).generic_string();
    if (ec || root_canonical_.empty()) return LinkKind::kOutside;
    auto inside = [](const std::string& path, const std::string& dir) {
      return path == dir ||
             (path.starts_with(dir) && (dir.ends_with('/') || path[dir.size()] == '/'));
    };
    if (inside(root_canonical_, target)) return LinkKind::kLoop;  // the root's own ancestor
    if (inside(target, root_canonical_)) return LinkKind::kInsideRoot;
    if (inside(target, bound_canonical_)) return LinkKind::kInsideRepository;
    return LinkKind::kOutside;
  }

  // Whether a link to a file leads inside the repository (the walked root outside one).
  bool linkStaysInside(const std::string& link, std::string& target) const {
    std::error_code ec;
    target = fs::canonical(link, ec).generic_string();
    if (ec || bound_canonical_.empty()) return false;
    return target.starts_with(bound_canonical_) &&
           (bound_canonical_.ends_with('/') || target[bound_canonical_.size()] == '/');
  }

  bool isAncestor(std::size_t index, const DirectoryId& id) const {
    // Frames form a tree through `parent`; walking up ends at the root, which is its own parent.
    while (true) {
      if (frames_[index].id == id) return true;
      if (frames_[index].root) return false;
      index = frames_[index].parent;
    }
  }

  void readDirectory(std::size_t index, std::vector<std::size_t>& pending) {
    ++directories_;
    std::vector<std::string> names;
    {
      std::error_code ec;
      fs::directory_iterator it(frames_[index].display, ec);
      if (ec) {
        notices_.push_back({frames_[index].display, -1, "cannot read directory: " + ec.message(),
                            /*incomplete=*/true});
        return;
      }
      for (; it != fs::directory_iterator(); it.increment(ec)) {
        names.push_back(it->path().filename().string());
      }
      if (ec) {
        notices_.push_back({frames_[index].display, -1, "cannot read directory: " + ec.message(),
                            /*incomplete=*/true});
      }
    }
    std::sort(names.begin(), names.end());

    Frame& frame = frames_[index];
    RuleStack rules = frame.rules;
    // A repository nested inside the walk starts over with its own ignore files.
    if (!frame.root && std::binary_search(names.begin(), names.end(), ".git")) rules.clear();
    if (std::binary_search(names.begin(), names.end(), ".gitignore")) {
      if (auto own =
              loadIgnoreFile(fs::path(frame.display) / ".gitignore", frame.absolute, notices_)) {
        rules.push_back(std::move(own));
      }
    }
    frame.rules = rules;
    const std::string display = frame.display;
    const std::string absolute = frame.absolute;

    for (const std::string& name : names) {
      std::string child = joinPath(display, name);
      std::string child_absolute = absolute == "/" ? "/" + name : absolute + "/" + name;
      std::error_code ec;
      fs::file_status link = fs::symlink_status(child, ec);
      if (ec) continue;  // vanished since the listing
      fs::file_status target = link;
      if (fs::is_symlink(link)) {
        target = fs::status(child, ec);
        if (ec || !fs::exists(target)) {
          if (handledPath(child) && !ignored(frames_[index], child_absolute, false)) {
            notices_.push_back({child, -1, "skipped: broken symbolic link"});
          }
          continue;
        }
      }
      if (fs::is_directory(target)) {
        if (skippedDirectory(child, name)) continue;
        if (ignored(frames_[index], child_absolute, true)) continue;
        DirectoryId id;
        if (!directoryId(child, id)) continue;
        if (fs::is_symlink(link)) {
          std::string points_at;
          switch (classifyLink(index, child, id, points_at)) {
            case LinkKind::kLoop:
              notices_.push_back({child, -1, "skipped: symbolic link loop"});
              continue;
            case LinkKind::kInsideRoot:
              continue;  // walked under its own name
            case LinkKind::kInsideRepository:
              break;
            case LinkKind::kOutside:
              notices_.push_back({child, -1,
                                  "skipped: symbolic link to " + points_at +
                                      ", outside the project (name that directory to analyze it)"});
              continue;
          }
        }
        if (!visited_.insert(id).second) continue;  // another path to a directory walked
        Frame next;
        next.display = child;
        next.absolute = child_absolute;
        next.rules = rules;
        next.id = id;
        next.parent = index;
        frames_.push_back(std::move(next));
        pending.push_back(frames_.size() - 1);
      } else if (handledPath(child) && !ignored(frames_[index], child_absolute, false)) {
        if (fs::is_symlink(link)) {
          std::string points_at;
          if (!linkStaysInside(child, points_at)) {
            notices_.push_back({child, -1,
                                "skipped: symbolic link to " + points_at +
                                    ", outside the project (name that file to analyze it)"});
            continue;
          }
        }
        files_.push_back(child);
      }
    }
  }

  IgnoreRules excludes_;
  std::vector<Notice>& notices_;
  std::vector<std::string>& files_;
  std::vector<Frame> frames_;
  std::set<DirectoryId> visited_;
  std::string root_canonical_;
  std::string bound_canonical_;
  std::size_t max_files_ = 0;
  std::size_t directories_ = 0;
};

}  // namespace

bool isPythonPath(const std::string& path) {
  std::string_view extension = extensionOf(path);
  return std::find(kPythonExtensions.begin(), kPythonExtensions.end(), extension) !=
         kPythonExtensions.end();
}

bool isCudaPath(const std::string& path) {
  std::string_view extension = extensionOf(path);
  return std::find(kCudaExtensions.begin(), kCudaExtensions.end(), extension) !=
         kCudaExtensions.end();
}

std::vector<std::string> analyzedTrees(const std::vector<std::string>& paths) {
  std::vector<std::string> trees = {absolutePath(".")};
  auto add = [&](std::string tree) {
    if (!tree.empty() && std::find(trees.begin(), trees.end(), tree) == trees.end()) {
      trees.push_back(std::move(tree));
    }
  };
  add(repositoryOf(trees.front()));
  for (const std::string& given : paths) {
    std::string absolute = absolutePath(normalizeUserPath(given));
    std::error_code ec;
    if (!fs::is_directory(absolute, ec)) absolute = fs::path(absolute).parent_path().string();
    add(absolute);
    add(repositoryOf(absolute));
  }
  return trees;
}

std::vector<std::string> collectFiles(const std::vector<std::string>& paths,
                                      const std::vector<std::string>& exclude,
                                      std::vector<Notice>& notices, bool force_exclude,
                                      std::size_t max_files, bool* stopped) {
  std::vector<std::string> files;
  Walker walker(exclude, notices, files);
  walker.limit(max_files);
  if (stopped != nullptr) *stopped = false;
  for (const std::string& given : paths) {
    if (walker.stopped()) {
      if (stopped != nullptr) *stopped = true;
      return {};
    }
    std::string path = normalizeUserPath(given);
    std::error_code ec;
    fs::file_status status = fs::status(path, ec);
    if (!fs::exists(status)) {
      std::error_code link_ec;
      if (fs::is_symlink(fs::symlink_status(path, link_ec))) {
        notices.push_back({path, -1, "broken symbolic link"});
      } else if (ec && ec != std::errc::no_such_file_or_directory) {
        notices.push_back({path, -1, "cannot access: " + ec.message(), /*incomplete=*/true});
      } else {
        notices.push_back({path, -1, "no such file or directory"});
      }
      continue;
    }
    bool is_dir = fs::is_directory(status);
    if (force_exclude && walker.excludedByName(path, is_dir)) continue;
    if (is_dir) {
      walker.walk(path);
    } else if (handledPath(path)) {
      files.push_back(path);  // named explicitly: analyzed whatever the ignore files say
    } else {
      notices.push_back({path, -1, "skipped: not a Python or C++/CUDA source file"});
    }
  }
  if (walker.stopped()) {
    if (stopped != nullptr) *stopped = true;
    return {};
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

}  // namespace graphsafe
