#pragma once

// The files of a program, numbered: every function and class of every file has a dense id,
// and every Python file is a module that a dotted name finds, packages with and without
// __init__.py alike.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe::program {

inline constexpr std::uint32_t kNoId = 0xffffffffu;

class ProgramIndex {
 public:
  explicit ProgramIndex(const std::vector<FileModel>& files);

  const std::vector<FileModel>& files() const { return files_; }
  const FileModel& file(std::uint32_t index) const { return files_[index]; }
  std::uint32_t fileIndex(const FileModel& file) const {
    return static_cast<std::uint32_t>(&file - files_.data());
  }

  // Functions: id = offset of the file + the function's index in it.
  std::uint32_t functionId(std::uint32_t file, FunctionId function) const {
    return function_offsets_[file] + function;
  }
  std::uint32_t functionFile(std::uint32_t id) const;
  FunctionId functionIndex(std::uint32_t id) const {
    return id - function_offsets_[functionFile(id)];
  }
  const FunctionModel& function(std::uint32_t id) const {
    std::uint32_t file = functionFile(id);
    return files_[file].functions[id - function_offsets_[file]];
  }
  std::size_t functionCount() const { return function_offsets_.back(); }

  // Classes, numbered the same way.
  std::uint32_t classId(std::uint32_t file, std::int32_t index) const {
    return class_offsets_[file] + static_cast<std::uint32_t>(index);
  }
  std::uint32_t classFile(std::uint32_t id) const;
  const ClassModel& classModel(std::uint32_t id) const {
    std::uint32_t file = classFile(id);
    return files_[file].classes[id - class_offsets_[file]];
  }
  std::size_t classCount() const { return class_offsets_.back(); }

  // The Python file that is module `dotted`, seen from `from` (kNoId: none). An exact module
  // name wins; otherwise the files whose path ends in the name's components (a package laid
  // out without __init__.py, a tree analyzed from above its import root). When several
  // match, the one nearest to `from` in the directory tree.
  std::uint32_t moduleFile(std::string_view dotted, std::uint32_t from) const;
  // Is `dotted` a package (a directory of modules) of the program, or a prefix of one?
  bool isPackage(std::string_view dotted) const;
  // The C++ functions defined under a fully qualified name (`ns::Class::method`), in file
  // order: a call lowering could not resolve in its own translation unit (the callee is only
  // declared there) runs one of them.
  const std::vector<std::uint32_t>& cppFunctions(std::string_view qualified) const;

 private:
  std::uint32_t nearest(const std::vector<std::uint32_t>& candidates, std::uint32_t from) const;

  const std::vector<FileModel>& files_;
  std::vector<std::uint32_t> function_offsets_;  // one past the last: the total
  std::vector<std::uint32_t> class_offsets_;
  std::unordered_map<std::string, std::vector<std::uint32_t>> exact_;
  std::unordered_map<std::string, std::vector<std::uint32_t>> suffixes_;
  std::unordered_map<std::string, bool> packages_;
  std::unordered_map<std::string, std::vector<std::uint32_t>> cpp_functions_;
};

}  // namespace graphsafe::program
