#include "analyzer/model/literal_key.h"

#include <cctype>

namespace graphsafe {

namespace {

std::optional<std::string> integerKey(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  std::string digits;
  for (char c : text) {
    if (c == '_') continue;
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return std::nullopt;
    digits.push_back(c);
  }
  if (digits.empty()) return std::nullopt;
  std::size_t first = digits.find_first_not_of('0');
  digits = first == std::string::npos ? "0" : digits.substr(first);
  return "i:" + std::string(negative && digits != "0" ? "-" : "") + digits;
}

std::optional<std::string> stringLiteralKey(std::string_view text) {
  // Only u/r prefixes keep the characters as written; b and f change what the literal is.
  while (!text.empty() && (text.front() == 'u' || text.front() == 'U' || text.front() == 'r' ||
                           text.front() == 'R')) {
    text.remove_prefix(1);
  }
  for (std::string_view quote : {"\"\"\"", "'''", "\"", "'"}) {
    if (text.size() >= 2 * quote.size() && text.starts_with(quote) && text.ends_with(quote)) {
      std::string_view inner = text.substr(quote.size(), text.size() - 2 * quote.size());
      if (inner.find('\\') != std::string_view::npos) return std::nullopt;
      return stringKey(inner);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> literalKey(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
    text.remove_suffix(1);
  }
  if (text == "None" || text == "True" || text == "False") return std::string(text);
  if (text.empty()) return std::nullopt;
  if (text.back() == '"' || text.back() == '\'') return stringLiteralKey(text);
  return integerKey(text);
}

std::string stringKey(std::string_view characters) {
  return "s:" + std::string(characters);
}

bool keysComparable(std::string_view a, std::string_view b) {
  auto numeric = [](std::string_view key) {
    return key.starts_with("i:") || key == "True" || key == "False";
  };
  return a == b || !numeric(a) || !numeric(b) || a.starts_with("i:") == b.starts_with("i:");
}

bool literalTruthy(std::string_view key) {
  return !(key == "None" || key == "False" || key == "i:0" || key == "s:");
}

}  // namespace graphsafe
