#pragma once

// graphsafe's findings as LSP Diagnostic objects: the rule ID as `code`, its page as
// `codeDescription`, severity, source "graphsafe", and the capture site and each call on the
// path as `relatedInformation`.

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "analyzer/diagnostics/diagnostic.h"
#include "analyzer/lsp/position_encoding.h"
#include "analyzer/model/capture_model.h"

namespace graphsafe::lsp {

// The URI a client knows a path by (the URI it opened a document with, when it did).
using UriOfPath = std::function<std::string(const std::string& path)>;

// LSP DiagnosticSeverity: 1 error, 2 warning, 3 information, 4 hint.
int lspSeverity(Severity severity);

nlohmann::json toLspDiagnostic(const Diagnostic& diagnostic, PositionEncoding encoding,
                               const UriOfPath& uri_of);

// An input notice about an open document (it does not parse, is not UTF-8, ...) as an
// information diagnostic on its line (the first line when it is about the whole file).
nlohmann::json noticeToLspDiagnostic(const Notice& notice, const SourceFile& file,
                                     PositionEncoding encoding);

}  // namespace graphsafe::lsp
