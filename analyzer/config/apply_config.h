#pragma once

#include "analyzer/config/config.h"
#include "analyzer/engine/engine.h"

namespace graphsafe {

// Merges a configuration into options that already hold the command line's flags.
// Rule selection follows Ruff: a --select on the command line replaces the configuration's
// select and ignore (the command line's --ignore still applies); without one, the
// configuration's select is used and its ignore is added to the command line's. Every other
// key adds to what the options hold: exclude patterns (rebased onto the current directory),
// per-file ignores, capture entry points and extra sync APIs; severity overrides fill in what
// the options do not already set.
void applyConfig(const Config& config, EngineOptions& options);

}  // namespace graphsafe
