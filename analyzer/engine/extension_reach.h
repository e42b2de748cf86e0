#pragma once

#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe {

// Reachability from PyTorch across the include graph: a project header that a PyTorch extension
// unit includes (at any depth) is extension code too, though its own text names no torch header:
// its kernels run inside whatever capture the Python caller began (GS304). Marks such headers'
// models and events (kFlagExtensionCode). A header no extension unit includes is left alone.
void markHeadersOfExtensionUnits(std::vector<FileModel>& models);

}  // namespace graphsafe
