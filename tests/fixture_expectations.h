#pragma once

// Inline expectations of fixture files, clang-tidy lit-test style:
//   x.item()  # expect: GS401            this line must get exactly a GS401
//   f(a, b)   # expect: GS103, GS103     two findings of the same rule on this line
//   y = z     # expect: GS203@col=5      ...and it must start at column 5 (1-based)
//   keep(y)   # todo-expect: GS203       a known miss: must NOT fire yet (fails once it does,
//                                        so the annotation gets promoted)
// The C++ forms use `//` instead of `#`.

#include <cstdint>
#include <string>
#include <vector>

namespace graphsafe::testing {

struct Expectation {
  std::uint32_t line = 0;  // 0-based
  std::string rule_id;
  std::int32_t column = -1;  // 1-based, -1 = any
  bool known_miss = false;
};

std::vector<Expectation> parseExpectations(const std::string& text);

// `# fixture: select=GS2,GS401` in a fixture's first lines limits the rules it runs (IDs or
// prefixes), for fixtures about one rule whose code would also trip another. Default: every rule.
std::vector<std::string> parseFixtureSelect(const std::string& text);

}  // namespace graphsafe::testing
