#pragma once

// A frontend run out of process: each file is analyzed in a child process of its own, with a
// wall-time and an address-space bound, its standard input and output on /dev/null, and its
// model sent back through a pipe (analyzer/model/model_codec.h). A child that crashes (Clang
// overflowing its stack on a macro-built expression), runs out of memory, runs past its time or
// sends a model that does not decode costs only its file: that file gets a notice naming what
// happened and the limit that applied, and the run goes on. clang-tidy runs one process per
// translation unit for the same reason.
//
// The child is forked, not executed anew: it inherits the loaded module, the settings and the
// source, and what files share (the compile database, loaded by Frontend::prepare() in the
// parent first), so nothing but the model crosses the pipe. It runs only the wrapped frontend's
// analyze() and leaves with _exit(), touching none of the parent's other state.

#include <memory>

#include "analyzer/engine/frontend.h"

namespace graphsafe {

// GRAPHSAFE_CXX_IN_PROCESS=1 runs `inner` in the calling process instead (for a debugger).
std::unique_ptr<Frontend> isolateFrontend(std::unique_ptr<Frontend> inner);

}  // namespace graphsafe
