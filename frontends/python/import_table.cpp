#include "frontends/python/import_table.h"

namespace graphsafe::python {

namespace {

// The dotted name of a dotted_name node, without any whitespace or comments inside it.
std::string dottedText(CursorPool& pool, const SourceText& text, TSNode node) {
  const Grammar& g = Grammar::get();
  if (is(node, g.identifier)) return std::string(text.of(node));
  std::string out;
  for (Children it(pool, node); it.valid(); it.next()) {
    if (!is(it.node(), g.identifier)) continue;
    if (!out.empty()) out.push_back('.');
    out += text.of(it.node());
  }
  return out;
}

// The first component of a dotted name: what `import a.b.c` binds.
std::string_view firstIdentifier(CursorPool& pool, const SourceText& text, TSNode node) {
  const Grammar& g = Grammar::get();
  if (is(node, g.identifier)) return text.of(node);
  TSNode first = firstNamedChild(pool, node);
  return isNull(first) ? std::string_view{} : text.of(first);
}

std::string joinDotted(const std::string& base, const std::string& name) {
  if (base.empty()) return name;
  if (name.empty()) return base;
  return base + "." + name;
}

}  // namespace

void ImportTable::read(TSNode statement, CursorPool& pool, const SourceText& text,
                       const ModuleName& module) {
  const Grammar& g = Grammar::get();
  if (is(statement, g.import_statement)) {
    for (Children it(pool, statement); it.valid(); it.next()) {
      if (it.field() != g.f_name) continue;
      TSNode name = it.node();
      if (is(name, g.aliased_import)) {
        TSNode dotted = field(name, g.f_name);
        TSNode alias = field(name, g.f_alias);
        if (isNull(dotted) || isNull(alias)) continue;
        add(text.of(alias), dottedText(pool, text, dotted));
      } else {
        std::string_view first = firstIdentifier(pool, text, name);
        if (!first.empty()) add(first, std::string(first));
      }
    }
    return;
  }
  if (!is(statement, g.import_from_statement)) return;

  TSNode source = field(statement, g.f_module_name);
  if (isNull(source)) return;
  std::string base;
  if (is(source, g.relative_import)) {
    int level = 0;
    std::string tail;
    for (Children it(pool, source); it.valid(); it.next()) {
      if (is(it.node(), g.import_prefix)) {
        for (char c : text.of(it.node())) level += c == '.' ? 1 : 0;
      } else if (is(it.node(), g.dotted_name)) {
        tail = dottedText(pool, text, it.node());
      }
    }
    base = joinDotted(relativeImportBase(module, level), tail);
  } else {
    base = dottedText(pool, text, source);
  }
  for (Children it(pool, statement); it.valid(); it.next()) {
    if (is(it.node(), g.wildcard_import)) {
      // from m import *: the names are m's; best effort, resolved across files by the engine.
      if (!base.empty()) star_modules_.push_back(base);
      continue;
    }
    if (it.field() != g.f_name) continue;
    TSNode name = it.node();
    if (is(name, g.aliased_import)) {
      TSNode dotted = field(name, g.f_name);
      TSNode alias = field(name, g.f_alias);
      if (isNull(dotted) || isNull(alias)) continue;
      add(text.of(alias), joinDotted(base, dottedText(pool, text, dotted)));
    } else {
      std::string imported = dottedText(pool, text, name);
      if (!imported.empty()) add(text.of(name), joinDotted(base, imported));
    }
  }
}

}  // namespace graphsafe::python
