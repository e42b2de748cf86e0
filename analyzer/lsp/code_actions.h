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

// The code actions for `diagnostics` (those of the document at `uri`) whose ranges touch the
// byte range [begin, end].
nlohmann::json codeActionsFor(const std::string& uri, const std::vector<Diagnostic>& diagnostics,
                              std::uint32_t begin, std::uint32_t end, PositionEncoding encoding,
                              const UriOfPath& uri_of);

}  // namespace graphsafe::lsp
