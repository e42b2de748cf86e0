#pragma once

// Byte strings in graphsafe's own JSON files (the baseline, the result cache). A file name on
// Linux is bytes, not text: `caf\xe9.py` (Latin-1) is a valid name that is not UTF-8, and JSON
// cannot hold it as a string. Text that is UTF-8 stays a JSON string, so files stay readable and
// older files load; other bytes are kept exactly, as lowercase hex.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace graphsafe {

bool isUtf8(std::string_view bytes);

// The value of one hex digit (either case), or -1.
int hexDigit(char c);

// Two lowercase hex digits a byte; and back, nullopt for anything else.
std::string bytesToHex(std::string_view bytes);
std::optional<std::string> bytesFromHex(std::string_view hex);

// `bytes` as a JSON string when it is UTF-8, else as {"bytes": "<hex>"}.
nlohmann::json bytesToJson(const std::string& bytes);
// The inverse: a string, or an object {"bytes": "<hex>"}; throws (nlohmann::json::exception,
// std::invalid_argument: both std::exception) for anything else.
std::string bytesFromJson(const nlohmann::json& value);

}  // namespace graphsafe
