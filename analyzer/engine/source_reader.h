#pragma once

#include <string>
#include <vector>

#include "analyzer/engine/analysis_settings.h"
#include "analyzer/model/capture_model.h"

namespace graphsafe {

// Reads one file for analysis. Returns null and adds a one-line notice when the file cannot
// be analyzed: unreadable, vanished, UTF-16 or UTF-32 (the notice names which, found by the
// byte order mark or the NUL bytes' pattern), binary (NUL bytes), not UTF-8, or over the size
// limit.
// A UTF-8 BOM is accepted and kept (columns stay byte-accurate).
SourceFilePtr readSource(const std::string& path, const AnalysisSettings& settings,
                         std::vector<Notice>& notices);

// The same checks for text already in memory (LSP buffers); empty string when it is fine.
std::string checkSourceText(const std::string& text, const AnalysisSettings& settings);

}  // namespace graphsafe
