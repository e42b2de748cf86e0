#include "frontends/python/lexical_imports.h"

#include <algorithm>

namespace graphsafe::python {

namespace {

// Files with more import statements than this are generated: the rest are not read.
constexpr std::size_t kMaxImports = 4096;

bool isNameChar(char c) {
  return c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || static_cast<unsigned char>(c) >= 0x80;
}

void skipSpace(std::string_view text, std::size_t& i) {
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\\' ||
                             text[i] == '(' || text[i] == '\r')) {
    ++i;
  }
}

std::string_view readName(std::string_view text, std::size_t& i) {
  std::size_t start = i;
  while (i < text.size() && isNameChar(text[i])) ++i;
  return text.substr(start, i - start);
}

bool startsWord(std::string_view text, std::size_t i, std::string_view word) {
  return text.substr(i, word.size()) == word && i + word.size() < text.size() &&
         (text[i + word.size()] == ' ' || text[i + word.size()] == '\t' ||
          text[i + word.size()] == '(' || text[i + word.size()] == '\\');
}

void addWithPackages(std::string name, std::vector<std::string>& out) {
  while (!name.empty() && name.back() == '.') name.pop_back();
  if (name.empty()) return;
  for (std::size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1)) {
    out.push_back(name.substr(0, dot));
  }
  out.push_back(std::move(name));
}

}  // namespace

std::vector<std::string> lexicalImports(std::string_view text, const ModuleName& module) {
  std::vector<std::string> out;
  std::size_t statements = 0;
  std::size_t line = 0;
  while (line < text.size() && statements < kMaxImports) {
    std::size_t end = text.find('\n', line);
    if (end == std::string_view::npos) end = text.size();
    std::size_t i = line;
    while (i < end && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (startsWord(text, i, "import")) {
      ++statements;
      i += 6;
      // import a.b as c, d
      while (i < end) {
        skipSpace(text, i);
        std::string_view name = readName(text, i);
        if (name.empty()) break;
        addWithPackages(std::string(name), out);
        while (i < end && text[i] != ',' && text[i] != '#') ++i;
        if (i >= end || text[i] != ',') break;
        ++i;
      }
    } else if (startsWord(text, i, "from")) {
      ++statements;
      i += 4;
      skipSpace(text, i);
      int level = 0;
      while (i < end && text[i] == '.') {
        ++level;
        ++i;
      }
      std::string base(readName(text, i));
      if (level > 0) {
        std::string package = relativeImportBase(module, level);
        base = package.empty() ? base : (base.empty() ? package : package + "." + base);
      }
      if (!base.empty()) addWithPackages(base, out);
      skipSpace(text, i);
      if (startsWord(text, i, "import")) {
        i += 6;
        // The imported names may be submodules; a parenthesized list may span lines.
        const bool parenthesized = text.find('(', i) < end;
        std::size_t stop = parenthesized ? std::min(text.find(')', i), text.size()) : end;
        while (i < stop) {
          while (i < stop && !isNameChar(text[i])) ++i;
          std::string_view name = readName(text, i);
          if (name.empty() || name == "as") continue;
          if (name != "*") {
            // `from . import helpers` outside any package: helpers is a module beside it.
            out.push_back(base.empty() ? std::string(name) : base + "." + std::string(name));
          }
          // `x as y`: skip the alias.
          std::size_t after = i;
          while (after < stop && (text[after] == ' ' || text[after] == '\t')) ++after;
          if (text.substr(after, 3) == "as " || text.substr(after, 3) == "as\t") {
            i = after + 3;
            while (i < stop && (text[i] == ' ' || text[i] == '\t')) ++i;
            readName(text, i);
          }
        }
        if (parenthesized) end = std::max(end, stop);
      }
    }
    line = end + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace graphsafe::python
