#pragma once

// LSP positions count characters in the negotiated encoding: UTF-8 bytes, UTF-16 code units
// (the protocol's default) or UTF-32 code points. graphsafe counts bytes; these convert one
// line's column between the two. Bytes that are not valid UTF-8 count as one unit each.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace graphsafe::lsp {

enum class PositionEncoding { kUtf8, kUtf16, kUtf32 };

const char* positionEncodingName(PositionEncoding encoding);  // "utf-8", "utf-16", "utf-32"
std::optional<PositionEncoding> parsePositionEncoding(std::string_view name);

// The client's offer, in its order of preference; graphsafe takes utf-8 when offered (no
// conversion), else utf-16, which every client supports.
PositionEncoding negotiatePositionEncoding(const std::vector<std::string_view>& offered);

// The byte column of `character` units into `line`; past the end clamps to the line's length,
// and a column inside a character (a UTF-8 byte offset inside a multi-byte sequence, a UTF-16
// offset between the halves of a surrogate pair) to the character's start.
std::uint32_t byteColumn(std::string_view line, std::uint32_t character, PositionEncoding encoding);

// The number of units in the first `byte_column` bytes of `line` (clamped to the line).
std::uint32_t unitColumn(std::string_view line, std::uint32_t byte_column,
                         PositionEncoding encoding);

// The units in all of `line`.
std::uint32_t lineLengthInUnits(std::string_view line, PositionEncoding encoding);

}  // namespace graphsafe::lsp
