#pragma once

// A FileModel as bytes, and back: how a frontend that runs in another process (the CUDA C++
// frontend, isolated so that a translation unit that crashes Clang costs only itself) hands
// its model to the analysis. The encoding is private to one build of graphsafe: it starts with
// a version, and a model from another version, or bytes cut short, do not decode.

#include <optional>
#include <string>
#include <string_view>

#include "analyzer/model/capture_model.h"

namespace graphsafe {

// Everything but `source`, which the receiving side already holds.
std::string encodeFileModel(const FileModel& model);

// The model `bytes` encode, its `source` set to `source`; nullopt (and `error` says why) when
// the bytes are not a whole model of this version.
std::optional<FileModel> decodeFileModel(std::string_view bytes, SourceFilePtr source,
                                         std::string& error);

}  // namespace graphsafe
