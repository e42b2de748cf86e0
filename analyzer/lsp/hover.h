#pragma once

// Hover: over a finding's range, the finding and its rule's page; over a rule code in a
// suppression comment (`# graphsafe: ignore[GS401]`, `# noqa: GS401`, `// NOLINT(GS301)`),
// that rule's page.

#include <nlohmann/json.hpp>
#include <vector>

#include "analyzer/diagnostics/diagnostic.h"
#include "analyzer/lsp/position_encoding.h"

namespace graphsafe::lsp {

// The Hover result at byte `offset` of `file`, or null when there is nothing to show.
nlohmann::json hoverAt(const SourceFile& file, const std::vector<Diagnostic>& diagnostics,
                       std::uint32_t offset, bool markdown, PositionEncoding encoding);

}  // namespace graphsafe::lsp
