#pragma once

#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe {

// Reachability from PyTorch across the include graph: a project header that a PyTorch extension
// unit includes (at any depth) is extension code too, though its own text names no torch header:
// its kernels run inside whatever capture the Python caller began (GS304). Marks such headers'
// models and events (kFlagExtensionCode). A header no extension unit includes is left alone.
void markHeadersOfExtensionUnits(std::vector<FileModel>& models);

// Reachability from PyTorch through operator registration: a function a unit registers
// (TORCH_LIBRARY's `m.def`/`m.impl`, pybind11's `def`) runs when Python calls the op, so it is
// extension code wherever it is defined, and so is every function it calls (in its file, or by
// qualified name in another), though their files include no torch header. Marks those
// functions' events (kFlagExtensionCode).
void markRegisteredOperators(std::vector<FileModel>& models);

}  // namespace graphsafe
