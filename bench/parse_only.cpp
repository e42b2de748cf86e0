// graphsafe_parse_bench: the baselines of bench/run, on the same files graphsafe reads.
//
//   graphsafe_parse_bench parse FILE...   tree-sitter-python parse of every file, nothing else
//   graphsafe_parse_bench read FILE...    read every byte of every file into memory
//   (FILE may be @LIST: one path per line)
//
// Prints one JSON object: files, bytes, lines, and the seconds spent in the loop (wall). The
// parse uses the same grammar and parser library graphsafe links, one parser reused across
// files, as graphsafe's Python frontend does; each tree is deleted right away.
#include <tree_sitter/api.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

extern "C" const TSLanguage* tree_sitter_python();

namespace {

std::vector<std::string> expandArguments(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) {
    std::string argument = argv[i];
    if (!argument.starts_with("@")) {
      files.push_back(argument);
      continue;
    }
    std::ifstream list(argument.substr(1));
    for (std::string line; std::getline(list, line);) {
      if (!line.empty()) files.push_back(line);
    }
  }
  return files;
}

bool readFile(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  text = std::move(buffer).str();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (argc < 3 || (mode != "parse" && mode != "read")) {
    std::cerr << "usage: graphsafe_parse_bench parse|read FILE... (or @LIST)\n";
    return 2;
  }
  std::vector<std::string> files = expandArguments(argc, argv);
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_python());

  auto start = std::chrono::steady_clock::now();
  std::size_t bytes = 0;
  std::size_t lines = 0;
  std::size_t nodes = 0;
  std::string text;
  for (const std::string& path : files) {
    if (!readFile(path, text)) continue;
    bytes += text.size();
    for (char c : text) lines += c == '\n' ? 1 : 0;
    if (mode == "parse") {
      TSTree* tree =
          ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size()));
      if (tree != nullptr) {
        nodes += ts_node_child_count(ts_tree_root_node(tree));
        ts_tree_delete(tree);
      }
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ts_parser_delete(parser);
  std::printf(
      "{\"files\": %zu, \"bytes\": %zu, \"lines\": %zu, \"top_level_nodes\": %zu, "
      "\"seconds\": %.6f}\n",
      files.size(), bytes, lines, nodes, seconds);
  return 0;
}
