#include "analyzer/io/json_bytes.h"

#include <stdexcept>

#include "analyzer/source/utf8.h"

namespace graphsafe {

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool isUtf8(std::string_view bytes) {
  return firstInvalidUtf8(bytes) == std::string_view::npos;
}

std::string bytesToHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (char c : bytes) {
    auto byte = static_cast<unsigned char>(c);
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 15];
  }
  return hex;
}

std::optional<std::string> bytesFromHex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string bytes;
  bytes.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    int high = hexDigit(hex[i]);
    int low = hexDigit(hex[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    bytes += static_cast<char>(high * 16 + low);
  }
  return bytes;
}

nlohmann::json bytesToJson(const std::string& bytes) {
  if (isUtf8(bytes)) return bytes;
  return {{"bytes", bytesToHex(bytes)}};
}

std::string bytesFromJson(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  std::optional<std::string> bytes = bytesFromHex(value.at("bytes").get<std::string>());
  if (!bytes) {
    throw std::invalid_argument("\"bytes\" is not hex");
  }
  return *bytes;
}

}  // namespace graphsafe
