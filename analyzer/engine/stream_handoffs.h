#pragma once

#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe {

// Streams followed through the project's own C++ functions, across files: a parameter receives
// device work when its function launches on it or hands it on to a parameter that does
// (StreamParameterUse, closed over calls), and a call that hands a default stream to such a
// parameter (`launch(args, nullptr)`, `launch(args)` with `cudaStream_t stream = nullptr`) gets
// a kStreamUse event right after it, naming the work the stream reaches: GS301 reports it under
// a capture, GS304 in extension code. Runs on the lowered models before the program is built,
// after extension code is marked (the new events take their file's mark).
void followStreamHandoffs(std::vector<FileModel>& models);

}  // namespace graphsafe
