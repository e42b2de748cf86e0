#include "analyzer/lsp/position_encoding.h"

#include <algorithm>

namespace graphsafe::lsp {

namespace {

// Length of the well-formed UTF-8 sequence at `at`, or 1 for a byte that does not start one.
std::size_t sequenceLength(std::string_view text, std::size_t at) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(at);
  std::size_t length = 1;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
  } else {
    return 1;
  }
  if (at + length > text.size()) return 1;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(at + k) & 0xC0) != 0x80) return 1;
  }
  // Overlong forms, surrogates and code points past U+10FFFF.
  if (lead == 0xE0 && byte(at + 1) < 0xA0) return 1;
  if (lead == 0xED && byte(at + 1) >= 0xA0) return 1;
  if (lead == 0xF0 && byte(at + 1) < 0x90) return 1;
  if (lead == 0xF4 && byte(at + 1) >= 0x90) return 1;
  return length;
}

std::uint32_t unitsOf(std::size_t sequence_length, PositionEncoding encoding) {
  switch (encoding) {
    case PositionEncoding::kUtf8:
      return static_cast<std::uint32_t>(sequence_length);
    case PositionEncoding::kUtf16:
      return sequence_length == 4 ? 2 : 1;
    case PositionEncoding::kUtf32:
      return 1;
  }
  return 1;
}

}  // namespace

const char* positionEncodingName(PositionEncoding encoding) {
  switch (encoding) {
    case PositionEncoding::kUtf8:
      return "utf-8";
    case PositionEncoding::kUtf16:
      return "utf-16";
    case PositionEncoding::kUtf32:
      return "utf-32";
  }
  return "utf-16";
}

std::optional<PositionEncoding> parsePositionEncoding(std::string_view name) {
  if (name == "utf-8") return PositionEncoding::kUtf8;
  if (name == "utf-16") return PositionEncoding::kUtf16;
  if (name == "utf-32") return PositionEncoding::kUtf32;
  return std::nullopt;
}

PositionEncoding negotiatePositionEncoding(const std::vector<std::string_view>& offered) {
  if (std::find(offered.begin(), offered.end(), "utf-8") != offered.end()) {
    return PositionEncoding::kUtf8;
  }
  return PositionEncoding::kUtf16;
}

std::uint32_t byteColumn(std::string_view line, std::uint32_t character,
                         PositionEncoding encoding) {
  if (encoding == PositionEncoding::kUtf8) {
    // A byte offset inside a multi-byte character points at the character's start, so that an
    // edit never splits one (the text stays valid UTF-8); only the bytes before it are walked.
    std::size_t limit = std::min<std::size_t>(character, line.size());
    auto continuation = [&](std::size_t i) {
      return (static_cast<unsigned char>(line[i]) & 0xC0) == 0x80;
    };
    if (limit < line.size() && continuation(limit)) {
      for (std::size_t start = limit; start > 0 && limit - start < 3;) {
        --start;
        if (continuation(start)) continue;
        if (start + sequenceLength(line, start) > limit) return static_cast<std::uint32_t>(start);
        break;
      }
    }
    return static_cast<std::uint32_t>(limit);
  }
  std::size_t at = 0;
  std::uint32_t units = 0;
  while (at < line.size()) {
    std::size_t length = sequenceLength(line, at);
    std::uint32_t width = unitsOf(length, encoding);
    // A position inside a surrogate pair points at the character's start.
    if (units + width > character) break;
    units += width;
    at += length;
  }
  return static_cast<std::uint32_t>(at);
}

std::uint32_t unitColumn(std::string_view line, std::uint32_t byte_column,
                         PositionEncoding encoding) {
  std::size_t limit = std::min<std::size_t>(byte_column, line.size());
  if (encoding == PositionEncoding::kUtf8) return static_cast<std::uint32_t>(limit);
  std::size_t at = 0;
  std::uint32_t units = 0;
  while (at < limit) {
    std::size_t length = sequenceLength(line, at);
    units += unitsOf(length, encoding);
    at += length;
  }
  return units;
}

std::uint32_t lineLengthInUnits(std::string_view line, PositionEncoding encoding) {
  return unitColumn(line, static_cast<std::uint32_t>(line.size()), encoding);
}

}  // namespace graphsafe::lsp
