// The Python frontend: one tree-sitter parse per file, lowered into the capture model.
//
// Syntax errors: tree-sitter recovers from them, so a file with an error is still analyzed and
// gets one notice, at the line ("syntax error; results for this file may be incomplete"), for
// the first error. Only when nothing usable is left (the root itself is an error) or the parse
// was cancelled (it ran past its time or memory budget) is the file skipped: parse_failed is set
// and the notice says why.
#include <time.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>

#include "analyzer/engine/analysis_settings.h"
#include "analyzer/engine/frontend.h"
#include "frontends/python/bracket_balance.h"
#include "frontends/python/declarations.h"
#include "frontends/python/file_lowering.h"
#include "frontends/python/incremental_trees.h"
#include "frontends/python/indent_depth.h"
#include "frontends/python/lexical_imports.h"
#include "frontends/python/module_name.h"
#include "frontends/python/parse_memory.h"
#include "frontends/python/syntax.h"

namespace graphsafe {

namespace {

using python::CursorPool;
using python::Grammar;
using python::SourceText;

struct ParserDeleter {
  void operator()(TSParser* parser) const { ts_parser_delete(parser); }
};
struct TreeDeleter {
  void operator()(TSTree* tree) const { ts_tree_delete(tree); }
};
using TreePtr = std::unique_ptr<TSTree, TreeDeleter>;

// One parser per thread, reused across files.
TSParser* threadParser() {
  thread_local std::unique_ptr<TSParser, ParserDeleter> parser = [] {
    python::installParseMemoryMeter();
    std::unique_ptr<TSParser, ParserDeleter> created(ts_parser_new());
    ts_parser_set_language(created.get(), tree_sitter_python());
    return created;
  }();
  return parser.get();
}

// The parse budget counts this thread's CPU time, not wall time: on a loaded machine a file
// must not be skipped because other processes had the processor.
std::chrono::nanoseconds threadCpuTime() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

struct ParseInput {
  const char* data = nullptr;
  std::uint32_t size = 0;
  std::chrono::nanoseconds deadline{};  // thread CPU time
  std::uint32_t checks = 0;
  const python::ParseMemoryBudget* memory = nullptr;
  bool out_of_memory = false;
};

const char* readInput(void* payload, std::uint32_t byte, TSPoint /*point*/,
                      std::uint32_t* bytes_read) {
  const auto* input = static_cast<const ParseInput*>(payload);
  if (byte >= input->size) {
    *bytes_read = 0;
    return "";
  }
  *bytes_read = input->size - byte;
  return input->data + byte;
}

// Cancels the parse past its deadline or its memory budget: a pathological file must not
// hold a worker forever, nor take the machine's memory.
bool overBudget(TSParseState* state) {
  auto* input = static_cast<ParseInput*>(state->payload);
  if (input->memory->exceeded()) {
    input->out_of_memory = true;
    return true;
  }
  // Reading the CPU clock is a system call: look every 16th time tree-sitter asks.
  return (++input->checks & 15u) == 0 && threadCpuTime() > input->deadline;
}

// Python ends a line at a lone CR too (old Mac files); tree-sitter-python only at LF, and
// would run such a file's lines together. A lone CR becomes LF for the parser: the same length,
// so every byte offset, and so every range, stays valid.
std::string_view withLineFeeds(std::string_view text, std::string& storage) {
  std::size_t cr = text.find('\r');
  while (cr != std::string_view::npos && cr + 1 < text.size() && text[cr + 1] == '\n') {
    cr = text.find('\r', cr + 1);
  }
  if (cr == std::string_view::npos) return text;
  storage.assign(text);
  for (std::size_t i = cr; i < storage.size(); ++i) {
    bool lone = storage[i] == '\r' && (i + 1 == storage.size() || storage[i + 1] != '\n');
    if (lone) storage[i] = '\n';
  }
  return storage;
}

// The tree, or null with `why` saying which budget ran out.
TreePtr parse(const std::string& path, std::string_view original, const AnalysisSettings& settings,
              std::string& why) {
  std::string storage;
  std::string_view text = withLineFeeds(original, storage);
  TSParser* parser = threadParser();
  python::ParseMemoryBudget memory(settings.max_parse_memory_bytes);
  ParseInput input;
  input.data = text.data();
  input.size = static_cast<std::uint32_t>(text.size());
  input.deadline = threadCpuTime() + std::chrono::milliseconds(settings.parse_timeout_ms);
  input.memory = &memory;
  TSInput source{&input, readInput, TSInputEncodingUTF8, nullptr};
  TSParseOptions options{&input, overBudget};
  // The language server reparses an edited document from its previous tree.
  auto& kept = python::IncrementalTrees::instance();
  TreePtr old(settings.reuse_syntax_trees ? kept.editedTreeFor(path, text) : nullptr);
  TreePtr tree(ts_parser_parse_with_options(parser, old.get(), source, options));
  if (settings.reuse_syntax_trees) {
    if (tree) {
      kept.keep(path, text, tree.get());
    } else {
      kept.forget(path);
    }
  }
  if (!tree) {
    ts_parser_reset(parser);  // a cancelled parse must not resume on the next file
    char budget[64];
    if (input.out_of_memory) {
      std::snprintf(budget, sizeof budget, "%zu MB", memory.limit() >> 20);
      why = std::string("skipped: its syntax tree would take more than ") + budget +
            " (a generated or data file?)";
    } else {
      if (settings.parse_timeout_ms < 1000) {
        std::snprintf(budget, sizeof budget, "%u ms", settings.parse_timeout_ms);
      } else {
        std::snprintf(budget, sizeof budget, "%.1f s", settings.parse_timeout_ms / 1000.0);
      }
      why = std::string("skipped: parsing took longer than ") + budget;
    }
  }
  return tree;
}

// Comments are extras that can sit anywhere in the tree; rather than walking every node, look
// at each '#' in the text and keep it when tree-sitter says a comment starts there ('#' inside
// strings is not one).
void collectComments(TSNode root, const SourceFile& source, FileModel& model) {
  const Grammar& g = Grammar::get();
  const std::string& text = source.text();
  std::size_t position = 0;
  while (position < text.size()) {
    const void* hash = std::memchr(text.data() + position, '#', text.size() - position);
    if (hash == nullptr) break;
    position = static_cast<std::size_t>(static_cast<const char*>(hash) - text.data());
    auto begin = static_cast<std::uint32_t>(position);
    TSNode node = ts_node_descendant_for_byte_range(root, begin, begin + 1);
    if (python::is(node, g.comment) && ts_node_start_byte(node) == begin) {
      std::uint32_t end = ts_node_end_byte(node);
      std::uint32_t stop = end;
      while (stop > begin && text[stop - 1] == '\r') --stop;  // CRLF files
      SourcePoint point = source.pointAt(begin);
      model.comments.push_back({point.line, point.column, text.substr(begin, stop - begin)});
      position = end > begin ? end : position + 1;
    } else {
      ++position;
    }
  }
}

// The line of the first ERROR or MISSING node, walking only into subtrees that hold one.
// The first error or missing node, depth first; the root when none is found below it.
TSNode firstErrorNode(TSNode root, CursorPool& pool) {
  TSNode node = root;
  for (int step = 0; step < 100000; ++step) {
    TSNode next{};
    for (python::Children it(pool, node, true); it.valid(); it.next()) {
      TSNode child = it.node();
      if (ts_node_is_error(child) || ts_node_is_missing(child)) return child;
      if (ts_node_has_error(child)) {
        next = child;
        break;
      }
    }
    if (python::isNull(next)) break;
    node = next;
  }
  return node;
}

// Where the first syntax error is, and what it is when that can be said. The parser's recovery
// from a bracket left open swallows the rest of the file into one error, which starts where the
// statement around the bracket starts (often line 1): the bracket itself is the place to fix.
std::pair<std::int32_t, std::string> firstSyntaxError(TSNode root, std::string_view text,
                                                      CursorPool& pool) {
  const TSNode error = firstErrorNode(root, pool);
  auto line = static_cast<std::int32_t>(ts_node_start_point(error).row);
  std::string what = "syntax error";
  std::size_t end = text.size();
  while (end > 0 && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  if (ts_node_end_byte(error) >= end) {
    auto bracket = python::firstBracketProblem(text);
    if (bracket && bracket->line >= line && bracket->message.ends_with("was never closed")) {
      line = bracket->line;
      what += ": " + bracket->message;
    }
  }
  return {line, what};
}

class PythonFrontend final : public Frontend {
 public:
  Language language() const override { return Language::kPython; }
  std::string_view name() const override { return "python"; }

  bool mayMatter(std::string_view text) const override {
    // Only what can hold a capture region: every capture API is torch's (a module that uses
    // one names torch), or a capture_begin() on a graph handed in, or a compile mode that
    // captures. Code a region reaches in other files is lowered through the imports.
    static constexpr std::string_view kNeedles[] = {"torch", "capture_begin", "reduce-overhead",
                                                    "max-autotune", "cudagraphs"};
    for (std::string_view needle : kNeedles) {
      if (text.find(needle) != std::string_view::npos) return true;
    }
    return false;
  }

  std::vector<std::string> importedModules(const SourceFile& file) const override {
    return python::lexicalImports(file.text(), python::moduleNameForPath(file.path()));
  }

  FileModel analyze(const SourceFilePtr& source, const AnalysisSettings& settings) const override {
    FileModel model;
    model.language = Language::kPython;
    model.source = source;
    if (!source) return model;
    try {
      analyzeInto(*source, settings, model);
    } catch (const std::exception& error) {
      // Never let one file take the run down; the model keeps what was built.
      fail(model, *source, -1, std::string("internal error while analyzing: ") + error.what());
    }
    return model;
  }

 private:
  static void fail(FileModel& model, const SourceFile& source, std::int32_t line,
                   std::string message) {
    model.parse_failed = true;
    model.regions.clear();
    model.notices.push_back({source.path(), line, std::move(message)});
  }

  static void analyzeInto(const SourceFile& source, const AnalysisSettings& settings,
                          FileModel& model) {
    python::ModuleName module = python::moduleNameForPath(source.path());
    model.module_name = module.dotted;
    const std::string& text = source.text();
    if (text.size() > settings.max_file_bytes || text.size() > UINT32_MAX / 2) {
      fail(model, source, -1,
           "file is larger than the " + std::to_string(settings.max_file_bytes) +
               "-byte limit; skipped");
      return;
    }
    // Past the parser's indentation limit the parse fails where the file is not wrong: say so.
    if (std::size_t depth = python::indentDepthPastParserLimit(text); depth > 0) {
      fail(model, source, -1,
           "skipped: indentation nested " + std::to_string(depth) +
               " deep, past the parser's limit of " + std::to_string(python::kParserIndentLimit));
      return;
    }
    std::string why;
    TreePtr tree = parse(source.path(), text, settings, why);
    if (!tree) {
      fail(model, source, -1, why);
      return;
    }
    TSNode root = ts_tree_root_node(tree.get());
    CursorPool pool;
    if (ts_node_has_error(root)) {
      auto [line, what] = firstSyntaxError(root, text, pool);
      if (ts_node_is_error(root) || ts_node_symbol(root) != Grammar::get().module) {
        fail(model, source, line, what + "; the file could not be analyzed");
        return;
      }
      // The rest of the file is analyzed from the tree tree-sitter recovered: the notice does
      // not make the run incomplete (tree-sitter-python rejects some valid code, such as
      // `return *a, *(None,) * n`, and a linter reports real syntax errors anyway).
      model.notices.push_back(
          {source.path(), line, what + "; results for this file may be incomplete"});
    }
    collectComments(root, source, model);

    SourceText source_text(source);
    python::FileIndex index;
    index.module = std::move(module);
    python::collectDeclarations(root, pool, source_text, index, model);
    python::resolveClassBases(pool, source_text, index);
    python::FileLowering lowering(root, source_text, pool, index, model, settings);
    lowering.run();
    if (lowering.nesting_cut_line >= 0) {
      model.notices.push_back(
          {source.path(), lowering.nesting_cut_line,
           "code nested deeper than the analysis follows (" +
               std::to_string(python::kMaxNestingDepth) +
               " levels of statements and expressions) was not analyzed; findings in it are "
               "missed",
           /*incomplete=*/true});
    }
  }
};

}  // namespace

std::unique_ptr<Frontend> makePythonFrontend() {
  return std::make_unique<PythonFrontend>();
}

}  // namespace graphsafe
