#pragma once

// The regions report (--show-regions, the JSON output's `regions`): every capture site, the
// functions its captured work reaches, and each call under it the analysis could not follow,
// with why (an attribute of unknown type, a parameter no call passes anything known to, a name
// not found in the analyzed files).

#include <vector>

#include "analyzer/engine/engine.h"
#include "analyzer/program/program_model.h"

namespace graphsafe {

std::vector<RegionSummary> reportRegions(const ProgramModel& program);

// "graph context", "capture_begin/capture_end", ... as the report and the JSON output name it.
const char* regionKindName(RegionKind kind);

}  // namespace graphsafe
