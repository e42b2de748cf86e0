#pragma once

// C++ translation units' models kept in the cache directory (`unit-<hash>.entry`), one entry per
// unit: a run the result cache cannot answer (a Python file changed, one header changed) parses
// again only the units whose own text, project headers, compile database or settings changed,
// and takes the others' models from their entries. An unchanged tree so costs no Clang parse,
// and a changed header reruns exactly the units that included it.
//
// An entry's key is the settings the frontends read (analysisSettingsKey()), the graphsafe binary
// and the C++ frontend module (size and modification time of each: a rebuilt one may lower
// differently), the working directory (which relative paths mean) and the unit's path, and the
// entry file is named by all of it; it records the unit's content hash and, as the result cache
// does, its headers and compile database (cache_files.h). System headers and the CUDA toolkit are
// not recorded; the toolkit's path is in the key. A model is stored only when it lists every
// header it read and did not fail to parse.
//
// Used from the run's threads at once: each unit has its own entry file.

#include <optional>
#include <string>

#include "analyzer/model/capture_model.h"

namespace graphsafe {

class UnitCache {
 public:
  // The first line of a unit entry; raised when the entry's shape changes.
  static constexpr const char* kEntryMagic = "graphsafe-unit-cache 2";

  // `directory`: the result cache's; `key`: analysisSettingsKey() of the run's settings.
  UnitCache(std::string directory, std::string key);

  // The model kept for `source` (a C++ unit), pointing at `source`, or nullopt.
  std::optional<FileModel> load(const SourceFilePtr& source) const;

  // Keeps `model`, lowered from `model.source`. Failures are silent.
  void store(const FileModel& model) const;

 private:
  std::string unitKey(const std::string& unit) const;
  std::string entryPath(const std::string& unit) const;

  std::string directory_;
  std::string key_;
  std::string cwd_;
  std::int64_t started_ns_;
};

}  // namespace graphsafe
