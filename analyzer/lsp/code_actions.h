#pragma once

// Quick fixes for graphsafe's findings: the rule's own fix where it cannot change meaning, and
// "suppress GSxxx on this line" for every finding, which adds the code to the line's
// `graphsafe: ignore[...]` comment or appends one.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/diagnostics/diagnostic.h"
#include "analyzer/lsp/diagnostic_conversion.h"
#include "analyzer/lsp/position_encoding.h"

namespace graphsafe::lsp {

// The edit that suppresses `rule_id` on 0-based `line` of `file`, as a byte range and its
// replacement; nullopt where a comment cannot go (a line continued with a backslash).
std::optional<TextEdit> suppressionEdit(const SourceFile& file, std::uint32_t line,
                                        const std::string& rule_id);

// Which kinds of action a request asks for (its `context.only`; both when it names none).
struct ActionKinds {
  bool quick_fixes = true;  // "quickfix": per finding, where the range touches it
  bool fix_all = true;      // "source.fixAll.graphsafe": every safe fix of the document at once
};
ActionKinds requestedKinds(const nlohmann::json* only);

// The kind of the action that applies every safe fix of a document (editors run it on save
// with `"editor.codeActionsOnSave": {"source.fixAll": ...}`).
inline constexpr const char* kFixAllKind = "source.fixAll.graphsafe";

// The code actions for `diagnostics` (those of the document at `uri`): quick fixes for the ones
// whose ranges touch the byte range [begin, end], and one action applying every fix of the
// document that does not overlap another (the same choice as `graphsafe check --fix`).
nlohmann::json codeActionsFor(const std::string& uri, const std::vector<Diagnostic>& diagnostics,
                              std::uint32_t begin, std::uint32_t end, PositionEncoding encoding,
                              const UriOfPath& uri_of, ActionKinds kinds = {});

}  // namespace graphsafe::lsp
