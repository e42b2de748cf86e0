#include "analyzer/lsp/document_store.h"

#include <algorithm>
#include <limits>

#include "analyzer/lsp/file_uri.h"

namespace graphsafe::lsp {

namespace {

std::optional<std::uint32_t> nonNegative(const nlohmann::json& value) {
  if (value.is_number_unsigned()) {
    auto number = value.get<std::uint64_t>();
    if (number > std::numeric_limits<std::uint32_t>::max()) {
      return std::numeric_limits<std::uint32_t>::max();
    }
    return static_cast<std::uint32_t>(number);
  }
  if (value.is_number_integer()) {
    auto number = value.get<std::int64_t>();
    if (number < 0) return std::nullopt;
    return static_cast<std::uint32_t>(
        std::min<std::int64_t>(number, std::numeric_limits<std::uint32_t>::max()));
  }
  return std::nullopt;
}

}  // namespace

std::optional<LspPosition> parsePosition(const nlohmann::json& position) {
  if (!position.is_object()) return std::nullopt;
  auto line = position.find("line");
  auto character = position.find("character");
  if (line == position.end() || character == position.end()) return std::nullopt;
  auto line_number = nonNegative(*line);
  auto column = nonNegative(*character);
  if (!line_number || !column) return std::nullopt;
  return LspPosition{*line_number, *column};
}

std::uint32_t offsetOf(const SourceFile& file, LspPosition position, PositionEncoding encoding,
                       bool* clamped) {
  if (clamped != nullptr) *clamped = false;
  if (position.line >= file.lineCount()) {
    if (clamped != nullptr) *clamped = true;
    return static_cast<std::uint32_t>(file.text().size());
  }
  std::string_view line = file.line(position.line);
  std::uint32_t start = file.offsetAt({position.line, 0});
  if (clamped != nullptr && position.character > lineLengthInUnits(line, encoding)) {
    *clamped = true;
  }
  return start + byteColumn(line, position.character, encoding);
}

LspPosition positionOf(const SourceFile& file, std::uint32_t offset, PositionEncoding encoding) {
  SourcePoint point = file.pointAt(offset);
  return {point.line, unitColumn(file.line(point.line), point.column, encoding)};
}

nlohmann::json rangeJson(const SourceFile& file, std::uint32_t begin, std::uint32_t end,
                         PositionEncoding encoding) {
  LspPosition start = positionOf(file, begin, encoding);
  LspPosition stop = positionOf(file, std::max(begin, end), encoding);
  return {{"start", {{"line", start.line}, {"character", start.character}}},
          {"end", {{"line", stop.line}, {"character", stop.character}}}};
}

bool DocumentStore::open(const std::string& uri, const std::string& language_id,
                         std::int64_t version, std::string text) {
  std::optional<std::string> path = pathFromUri(uri);
  if (!path) return false;
  Document document;
  document.uri = uri;
  document.path = *path;
  document.language_id = language_id;
  document.version = version;
  document.source = std::make_shared<const SourceFile>(*path, std::move(text));
  documents_[uri] = std::move(document);
  return true;
}

void DocumentStore::close(const std::string& uri) {
  documents_.erase(uri);
}

bool DocumentStore::change(const std::string& uri, std::int64_t version,
                           const nlohmann::json& changes, PositionEncoding encoding,
                           std::string& warning) {
  auto it = documents_.find(uri);
  if (it == documents_.end()) {
    warning = "didChange for a document that is not open: " + uri;
    return false;
  }
  if (!changes.is_array()) {
    warning = "didChange without a contentChanges array";
    return false;
  }
  // Each change applies to the text the previous one produced.
  SourceFilePtr current = it->second.source;
  for (const nlohmann::json& change : changes) {
    if (!change.is_object() || !change.contains("text") || !change["text"].is_string()) {
      warning = "a content change without text";
      return false;
    }
    const std::string& text = change["text"].get_ref<const std::string&>();
    auto range = change.find("range");
    if (range == change.end() || range->is_null()) {
      current = std::make_shared<const SourceFile>(it->second.path, text);
      continue;
    }
    std::optional<LspPosition> start =
        range->is_object() ? parsePosition(range->value("start", nlohmann::json())) : std::nullopt;
    std::optional<LspPosition> stop =
        range->is_object() ? parsePosition(range->value("end", nlohmann::json())) : std::nullopt;
    if (!start || !stop) {
      warning = "a content change with a malformed range";
      return false;
    }
    bool start_clamped = false;
    bool stop_clamped = false;
    std::uint32_t begin = offsetOf(*current, *start, encoding, &start_clamped);
    std::uint32_t end = offsetOf(*current, *stop, encoding, &stop_clamped);
    if (start_clamped || stop_clamped) {
      warning = "a content change's range lies outside the document; clamped to it";
    }
    if (end < begin) std::swap(begin, end);
    std::string updated = current->text();
    updated.replace(begin, end - begin, text);
    current = std::make_shared<const SourceFile>(it->second.path, std::move(updated));
  }
  it->second.source = std::move(current);
  it->second.version = version;
  return true;
}

const Document* DocumentStore::find(const std::string& uri) const {
  auto it = documents_.find(uri);
  return it == documents_.end() ? nullptr : &it->second;
}

const Document* DocumentStore::findByPath(const std::string& path) const {
  for (const auto& [uri, document] : documents_) {
    if (document.path == path) return &document;
  }
  return nullptr;
}

}  // namespace graphsafe::lsp
