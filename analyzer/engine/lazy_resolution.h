#pragma once

// Lazy cross-file resolution: a file is lowered only when it may hold a capture (its lexical
// pre-scan says so) or when code reachable from a capture region calls into it. After each round
// of lowering, this says which modules the reachable calls still need; the engine lowers the
// files of those modules and asks again, until nothing new is needed (or a bound is reached).

#include <string>
#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe {

// Walks from every capture region of the lowered files (`lowered[i]` marks models[i]) along
// calls, same-file and across files, and returns the dotted names of the modules those calls
// would need that are not lowered yet: sorted, without duplicates. Names that are no module of
// the run are returned too; the caller keeps those it has files for.
std::vector<std::string> modulesReachedFromRegions(const std::vector<FileModel>& models,
                                                   const std::vector<bool>& lowered);

}  // namespace graphsafe
