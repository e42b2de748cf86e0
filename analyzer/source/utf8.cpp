#include "analyzer/source/utf8.h"

#include <cstdint>
#include <cstring>

namespace graphsafe {

namespace {

// True when none of the 8 bytes at `p` has its high bit set.
bool eightAscii(const char* p) {
  std::uint64_t word = 0;
  std::memcpy(&word, p, sizeof word);
  return (word & 0x8080808080808080ull) == 0;
}

bool isContinuation(unsigned char byte) {
  return (byte & 0xC0) == 0x80;
}

}  // namespace

std::size_t firstInvalidUtf8(std::string_view text) {
  const char* data = text.data();
  const std::size_t size = text.size();
  std::size_t i = 0;
  while (i < size) {
    // Source code is mostly ASCII: skip it a word at a time.
    while (i + 8 <= size && eightAscii(data + i)) i += 8;
    if (i >= size) break;
    auto lead = static_cast<unsigned char>(data[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    // Table 3-7 of the Unicode standard: the allowed range of the second byte depends on the
    // lead byte; that is what rules out overlongs, surrogates and values past U+10FFFF.
    std::size_t length = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return i;
    }
    if (i + length > size) return i;
    auto second = static_cast<unsigned char>(data[i + 1]);
    if (second < low || second > high) return i;
    for (std::size_t k = 2; k < length; ++k) {
      if (!isContinuation(static_cast<unsigned char>(data[i + k]))) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

}  // namespace graphsafe
