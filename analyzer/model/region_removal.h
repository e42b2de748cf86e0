#pragma once

#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe {

// Removes the regions marked in `dead` (indexed like file.regions). A removed region hands its
// events and outputs to the region that was open around it (CaptureRegion::parent), and every
// index into file.regions is renumbered. Used by the frontend (a capture_begin never ended) and
// by the program model (a region the types do not confirm).
void dropRegions(FileModel& file, const std::vector<bool>& dead);

}  // namespace graphsafe
