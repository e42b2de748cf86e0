#pragma once

#include <cstddef>
#include <string_view>

namespace graphsafe {

// The byte offset of the first byte that does not start a well-formed UTF-8 sequence
// (overlong forms, surrogates and code points past U+10FFFF are ill-formed), or
// std::string_view::npos when all of `text` is valid.
std::size_t firstInvalidUtf8(std::string_view text);

}  // namespace graphsafe
