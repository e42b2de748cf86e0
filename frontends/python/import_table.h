#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frontends/python/module_name.h"
#include "frontends/python/syntax.h"

namespace graphsafe::python {

// The names a file's imports bind, each to the dotted name it stands for:
//   import torch as t            t  -> torch
//   import torch.cuda as tc      tc -> torch.cuda
//   import pkg.mod               pkg -> pkg
//   from torch.cuda import graph as cg      cg -> torch.cuda.graph
//   from .utils import f  (in package a)    f  -> a.utils.f
// One table per file: imports inside functions count too (a later import of a name wins).
class ImportTable {
 public:
  void add(std::string_view alias, std::string target) { names_[alias] = std::move(target); }
  // The dotted name `alias` stands for, or null.
  const std::string* find(std::string_view alias) const {
    auto it = names_.find(alias);
    return it == names_.end() ? nullptr : &it->second;
  }
  bool empty() const { return names_.empty(); }
  // Every alias and what it stands for, in no particular order.
  const std::unordered_map<std::string_view, std::string>& entries() const { return names_; }
  // The modules of `from m import *`, in source order.
  const std::vector<std::string>& starModules() const { return star_modules_; }

  // Reads one import_statement or import_from_statement.
  void read(TSNode statement, CursorPool& pool, const SourceText& text, const ModuleName& module);

 private:
  std::unordered_map<std::string_view, std::string> names_;
  std::vector<std::string> star_modules_;
};

}  // namespace graphsafe::python
