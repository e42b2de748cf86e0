#pragma once

// The documents the client has open, as the client sees them: full text, version, language.
// Changes are applied incrementally (ranges in the negotiated position encoding); a range out
// of the document is clamped to it, as the protocol asks.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/lsp/position_encoding.h"
#include "analyzer/source/source_file.h"

namespace graphsafe::lsp {

struct LspPosition {
  std::uint32_t line = 0;
  std::uint32_t character = 0;
};

struct Document {
  std::string uri;
  std::string path;  // the file system path graphsafe analyzes it under
  std::string language_id;
  std::int64_t version = 0;
  SourceFilePtr source;  // the current text
};

// Parses {"line": n, "character": n}; nullopt when missing or not non-negative integers.
std::optional<LspPosition> parsePosition(const nlohmann::json& position);

// Conversions between LSP positions and byte offsets of `file`. `clamped` is set when the
// position lay outside the document (a line past the end, a character past the line's end).
std::uint32_t offsetOf(const SourceFile& file, LspPosition position, PositionEncoding encoding,
                       bool* clamped = nullptr);
LspPosition positionOf(const SourceFile& file, std::uint32_t offset, PositionEncoding encoding);
nlohmann::json rangeJson(const SourceFile& file, std::uint32_t begin, std::uint32_t end,
                         PositionEncoding encoding);

class DocumentStore {
 public:
  // Opens (or replaces) a document. False when the URI is not a file:// URI.
  bool open(const std::string& uri, const std::string& language_id, std::int64_t version,
            std::string text);
  void close(const std::string& uri);

  // Applies `contentChanges` in order. Returns false (changing nothing) when the document is
  // not open or a change is malformed; `warning` says what was clamped or wrong.
  bool change(const std::string& uri, std::int64_t version, const nlohmann::json& changes,
              PositionEncoding encoding, std::string& warning);

  const Document* find(const std::string& uri) const;
  const Document* findByPath(const std::string& path) const;
  const std::map<std::string, Document>& documents() const { return documents_; }

 private:
  std::map<std::string, Document> documents_;
};

}  // namespace graphsafe::lsp
