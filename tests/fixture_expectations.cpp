#include "tests/fixture_expectations.h"

#include <string_view>

namespace graphsafe::testing {

namespace {

void parseCodes(std::string_view codes, std::uint32_t line, bool known_miss,
                std::vector<Expectation>& out) {
  std::size_t i = 0;
  while (i < codes.size()) {
    while (i < codes.size() && (codes[i] == ' ' || codes[i] == ',')) ++i;
    if (i + 2 > codes.size() || codes.substr(i, 2) != "GS") return;
    std::size_t end = i + 2;
    while (end < codes.size() && codes[end] >= '0' && codes[end] <= '9') ++end;
    Expectation expectation{line, std::string(codes.substr(i, end - i)), -1, known_miss};
    if (codes.substr(end).starts_with("@col=")) {
      end += 5;
      std::int32_t column = 0;
      while (end < codes.size() && codes[end] >= '0' && codes[end] <= '9') {
        column = column * 10 + (codes[end++] - '0');
      }
      expectation.column = column;
    }
    out.push_back(std::move(expectation));
    i = end;
  }
}

}  // namespace

std::vector<Expectation> parseExpectations(const std::string& text) {
  std::vector<Expectation> out;
  std::uint32_t line = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view content(text.data() + start, end - start);
    for (auto [marker, known_miss] : {std::pair{std::string_view("todo-expect:"), true},
                                      std::pair{std::string_view("expect:"), false}}) {
      std::size_t at = content.find(marker);
      if (at == std::string_view::npos) continue;
      // The marker must sit in a comment: `# expect:` or `// expect:`.
      std::string_view before = content.substr(0, at);
      while (!before.empty() && before.back() == ' ') before.remove_suffix(1);
      if (!(before.ends_with("#") || before.ends_with("//"))) continue;
      if (!known_miss && at >= 5 && content.substr(at - 5, 5) == "todo-") continue;
      parseCodes(content.substr(at + marker.size()), line, known_miss, out);
    }
    ++line;
    start = end + 1;
  }
  return out;
}

std::vector<std::string> parseFixtureSelect(const std::string& text) {
  std::vector<std::string> codes;
  constexpr std::string_view kMarker = "fixture: select=";
  std::size_t at = text.find(kMarker);
  if (at == std::string::npos || at > 2048) return codes;
  std::size_t end = text.find('\n', at);
  std::string_view list = std::string_view(text).substr(
      at + kMarker.size(), (end == std::string::npos ? text.size() : end) - at - kMarker.size());
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    std::string_view code = list.substr(0, comma);
    while (!code.empty() && code.front() == ' ') code.remove_prefix(1);
    while (!code.empty() && (code.back() == ' ' || code.back() == '\r')) code.remove_suffix(1);
    if (!code.empty()) codes.emplace_back(code);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return codes;
}

}  // namespace graphsafe::testing
