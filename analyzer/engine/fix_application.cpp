#include "analyzer/engine/fix_application.h"

#include <algorithm>
#include <map>

#include "analyzer/io/atomic_write.h"
#include "analyzer/output/output_common.h"

namespace graphsafe {

namespace {

constexpr std::uint32_t kContext = 3;

bool before(const TextEdit& a, const TextEdit& b) {
  return a.range.begin != b.range.begin ? a.range.begin < b.range.begin : a.range.end < b.range.end;
}

// The byte offset of each line's start, and one past the end.
std::vector<std::size_t> lineStarts(std::string_view text) {
  std::vector<std::size_t> starts{0};
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') starts.push_back(i + 1);
  }
  if (starts.back() != text.size()) starts.push_back(text.size());
  return starts;
}

// The lines of `text` (each with its newline, the last one perhaps without).
std::vector<std::string_view> linesOf(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

void writeLine(std::string& out, char mark, std::string_view line) {
  out += mark;
  out += line;
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

// Edits whose lines touch, as one change: old lines [first, last] become `after`.
struct Change {
  std::uint32_t first = 0;
  std::uint32_t last = 0;
  std::vector<TextEdit> edits;
};

}  // namespace

std::vector<FileFix> collectFixes(const RunResult& result) {
  std::map<std::string, FileFix> by_path;
  for (std::size_t i = 0; i < result.diagnostics.size(); ++i) {
    const Diagnostic& diagnostic = result.diagnostics[i];
    if (!diagnostic.fix || !diagnostic.file || diagnostic.fix->edits.empty()) continue;
    FileFix& file = by_path[diagnostic.path()];
    file.file = diagnostic.file;
    std::vector<TextEdit> edits = diagnostic.fix->edits;
    std::sort(edits.begin(), edits.end(), before);
    // A fix is taken whole or not at all: none of its edits may overlap an edit taken.
    const std::size_t size = file.file->text().size();
    bool fits = true;
    for (const TextEdit& edit : edits) {
      fits = fits && edit.range.begin <= edit.range.end && edit.range.end <= size;
      for (const TextEdit& taken : file.edits) {
        const bool apart =
            edit.range.end < taken.range.begin || edit.range.begin > taken.range.end ||
            (edit.range.begin == edit.range.end && taken.range.begin == taken.range.end &&
             edit.range.begin != taken.range.begin);
        fits = fits && apart;
      }
    }
    if (!fits) continue;
    file.edits.insert(file.edits.end(), edits.begin(), edits.end());
    std::sort(file.edits.begin(), file.edits.end(), before);
    file.diagnostics.push_back(i);
  }
  std::vector<FileFix> files;
  for (auto& [path, file] : by_path) {
    if (!file.edits.empty()) files.push_back(std::move(file));
  }
  return files;
}

std::string applyEdits(std::string_view text, const std::vector<TextEdit>& edits) {
  std::string out;
  out.reserve(text.size() + 64);
  std::size_t at = 0;
  for (const TextEdit& edit : edits) {
    out.append(text.substr(at, edit.range.begin - at));
    out += edit.replacement;
    at = edit.range.end;
  }
  out.append(text.substr(at));
  return out;
}

std::string unifiedDiff(const std::string& path, std::string_view text,
                        const std::vector<TextEdit>& edits) {
  if (edits.empty()) return {};
  const std::vector<std::string_view> lines = linesOf(text);
  const std::vector<std::size_t> starts = lineStarts(text);
  const auto line_count = static_cast<std::uint32_t>(lines.size());
  auto lineOf = [&](std::size_t offset) {
    auto it = std::upper_bound(starts.begin(), starts.end(), offset);
    return static_cast<std::uint32_t>(std::max<std::ptrdiff_t>(0, it - starts.begin() - 1));
  };
  std::vector<Change> changes;
  for (const TextEdit& edit : edits) {
    const std::uint32_t first = std::min(lineOf(edit.range.begin), line_count - 1);
    // An edit that ends at a line's start touches only the lines before it.
    std::uint32_t last = lineOf(edit.range.end);
    if (edit.range.end > edit.range.begin && edit.range.end == starts[last]) --last;
    last = std::min(std::max(last, first), line_count - 1);
    if (!changes.empty() && first <= changes.back().last) {
      changes.back().last = std::max(changes.back().last, last);
      changes.back().edits.push_back(edit);
    } else {
      changes.push_back({first, last, {edit}});
    }
  }
  // Relative paths as git spells them (`patch -p1` applies them); absolute ones as they are.
  const std::string shown = printableName(path);
  const bool relative = !path.empty() && path.front() != '/';
  std::string out = "--- " + std::string(relative ? "a/" : "") + shown + "\n+++ " +
                    std::string(relative ? "b/" : "") + shown + "\n";
  std::int64_t shift = 0;  // new line number minus old, before the hunk
  for (std::size_t c = 0; c < changes.size();) {
    // The changes whose contexts meet make one hunk.
    std::size_t end = c + 1;
    while (end < changes.size() && changes[end].first <= changes[end - 1].last + 2 * kContext + 1) {
      ++end;
    }
    const std::uint32_t from = changes[c].first > kContext ? changes[c].first - kContext : 0;
    const std::uint32_t to = std::min(line_count - 1, changes[end - 1].last + kContext);
    std::string body;
    std::uint32_t old_count = 0;
    std::uint32_t new_count = 0;
    std::uint32_t line = from;
    for (std::size_t k = c; k < end; ++k) {
      const Change& change = changes[k];
      for (; line < change.first; ++line, ++old_count, ++new_count) {
        writeLine(body, ' ', lines[line]);
      }
      const std::size_t span_begin = starts[change.first];
      const std::size_t span_end = starts[change.last + 1];
      std::vector<TextEdit> local = change.edits;
      for (TextEdit& edit : local) {
        edit.range.begin -= static_cast<std::uint32_t>(span_begin);
        edit.range.end -= static_cast<std::uint32_t>(span_begin);
      }
      const std::string after = applyEdits(text.substr(span_begin, span_end - span_begin), local);
      for (; line <= change.last; ++line, ++old_count) writeLine(body, '-', lines[line]);
      for (std::string_view added : linesOf(after)) {
        writeLine(body, '+', added);
        ++new_count;
      }
    }
    for (; line <= to; ++line, ++old_count, ++new_count) writeLine(body, ' ', lines[line]);
    const std::int64_t old_start = old_count == 0 ? from : from + 1;
    const std::int64_t new_start = new_count == 0 ? from + shift : from + 1 + shift;
    out += "@@ -" + std::to_string(old_start) + "," + std::to_string(old_count) + " +" +
           std::to_string(new_start) + "," + std::to_string(new_count) + " @@\n" + body;
    shift += static_cast<std::int64_t>(new_count) - static_cast<std::int64_t>(old_count);
    c = end;
  }
  return out;
}

std::size_t writeFixes(RunResult& result, std::ostream& err, std::size_t& files,
                       const std::vector<std::string>& trees) {
  files = 0;
  // A source file may be a link; the file it names is edited only when it is the project's.
  const LinkBoundary boundary{trees, /*edit_link_targets=*/true};
  std::vector<bool> fixed(result.diagnostics.size(), false);
  std::size_t count = 0;
  for (const FileFix& file : collectFixes(result)) {
    const std::string& path = file.file->path();
    std::string error;
    auto now = snapshotFile(path, error, boundary);
    if (!now && !error.empty()) {
      err << "graphsafe: not fixed: " << printableName(error) << "\n";
      continue;
    }
    // The file must still be the text the fixes were computed from.
    if (!now || !now->exists || !now->regular ||
        now->content_hash != contentHash(file.file->text()) ||
        now->size != file.file->text().size()) {
      err << "graphsafe: " << printableName(path)
          << ": not fixed: the file changed since it was analyzed\n";
      continue;
    }
    if (!writeFileAtomically(path, applyEdits(file.file->text(), file.edits), *now, error,
                             boundary)) {
      err << "graphsafe: not fixed: " << printableName(error) << "\n";
      continue;
    }
    ++files;
    for (std::size_t index : file.diagnostics) fixed[index] = true;
    count += file.diagnostics.size();
  }
  std::vector<Diagnostic> kept;
  for (std::size_t i = 0; i < result.diagnostics.size(); ++i) {
    if (!fixed[i]) kept.push_back(std::move(result.diagnostics[i]));
  }
  result.diagnostics = std::move(kept);
  return count;
}

}  // namespace graphsafe
