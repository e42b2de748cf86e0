#pragma once

// Lowered files kept between the runs of a long-lived process (the language server analyzing a
// workspace after every edit): a file is lowered again only when its text, the settings, or, for
// a C++ unit, a project header it included or its compile database changed. Lowering is a pure
// function of those, so a kept model is the model a new lowering would give.
//
// Used from the run's threads at once; a model is copied out, since the engine marks its copy.

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/io/file_stamp.h"
#include "analyzer/model/capture_model.h"

namespace graphsafe {

class LoweringCache {
 public:
  // At most this many files are kept; past it the ones no recent run asked for go first.
  static constexpr std::size_t kMaxFiles = 20'000;

  // The model kept for `source` lowered under settings whose analysisSettingsKey() is
  // `settings_key`, or nullopt. The copy points at `source` (the same text as the one kept).
  std::optional<FileModel> find(const SourceFilePtr& source, const std::string& settings_key);

  // Keeps `model` (lowered from `model.source` under `settings_key`). A C++ unit is kept only
  // when it lists every header it read and none of them changed moments before (a time stamp
  // that cannot tell a later edit apart).
  void keep(const FileModel& model, const std::string& settings_key);

  // Marks the end of a run: files that the last runs did not ask for are dropped once the bound
  // is reached.
  void finishRun();

  // Lowerings saved and models kept, for tests.
  std::uint64_t hits() const;
  std::size_t size() const;

 private:
  struct Dependency {
    std::string path;
    FileStamp stamp;
  };
  struct Entry {
    std::string settings_key;
    std::vector<Dependency> dependencies;  // C++: headers and the compile database
    FileModel model;                       // its `source` is the text it was lowered from
    std::uint64_t last_run = 0;
  };

  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;  // by path
  std::uint64_t run_ = 0;
  std::uint64_t hits_ = 0;
};

}  // namespace graphsafe
