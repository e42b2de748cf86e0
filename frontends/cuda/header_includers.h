#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace graphsafe::cuda {

// Which translation unit of a compile database includes a header, the way clangd infers a
// header's flags: the header is parsed with the command of a unit that includes it (directly, or
// through other project headers), not with the command of a file whose name looks alike. Built
// once per database from a lexical scan of the units and the project headers they reach
// (`#include "x.h"` from the including file's directory, then -iquote and -I; `<x.h>` from -I);
// headers found under -isystem or -idirafter are not followed. Each file is read once.
class HeaderIncluders {
 public:
  // A database entry: its source file (absolute), and its parsing flags (keepParsingFlags:
  // absolute paths, separate arguments for -isystem and the like, joined for -I).
  struct Unit {
    std::string file;
    std::vector<std::string> flags;
  };

  struct Includer {
    std::size_t unit = 0;  // index into the units given
    // The unit is reachable from PyTorch: it or a project header it reaches includes a torch
    // header or registers operators; never for a unit-test program (extension_code.h).
    bool extension = false;
  };

  explicit HeaderIncluders(std::vector<Unit> units);

  // The unit that reaches `header` (absolute, lexically normal) at the fewest includes deep, the
  // first such unit by path; nullopt when none does.
  std::optional<Includer> find(const std::string& header);

  const std::string& unitFile(std::size_t unit) const;

 private:
  struct File {
    std::size_t unit = 0;               // the unit that reached it first
    std::vector<std::size_t> includes;  // files it includes, as indexes into files_
    bool extension_here = false;        // its own text includes torch or registers operators
    int reaches_extension = -1;         // memo: -1 unknown, 0 no, 1 yes
  };

  void build();
  bool reachesExtension(std::size_t file, int depth);

  std::vector<Unit> units_;
  std::vector<File> files_;
  std::vector<std::string> paths_;  // per file
  std::unordered_map<std::string, std::size_t> index_;
  std::vector<bool> test_program_;  // per unit
  bool built_ = false;
};

}  // namespace graphsafe::cuda
