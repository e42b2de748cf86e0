#pragma once

// Every call of the program, found by the name it calls (`f(...)`, `obj.f(...)`, `F(...)` for
// a class F): where a parameter's type comes from when no call path says (the arguments of
// every call of its function), and who supplied a callable that a capture calls.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analyzer/program/program_index.h"

namespace graphsafe::program {

struct CallSite {
  std::uint32_t file = 0;
  FunctionId function = kNoFunction;  // the caller
  const Event* event = nullptr;       // a kCall event with a call reference
};

class CallSiteIndex {
 public:
  explicit CallSiteIndex(const ProgramIndex& index);

  // Calls whose callee is spelled with this last name.
  const std::vector<CallSite>& named(std::string_view name) const;

 private:
  std::unordered_map<std::string, std::vector<CallSite>> by_name_;
  std::vector<CallSite> none_;
};

// The last name a callee reference spells ("" when it has none).
std::string_view calleeName(const FileModel& file, RefId callee);

}  // namespace graphsafe::program
