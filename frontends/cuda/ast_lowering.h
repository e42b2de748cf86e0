#pragma once

#include <string>
#include <vector>

#include "analyzer/source/source_file.h"
#include "frontends/cuda/raw_model.h"

namespace clang {
class ASTContext;
}  // namespace clang

namespace graphsafe::cuda {

struct LoweringOptions {
  // Compiled with per-thread default streams (CUDA_API_PER_THREAD_DEFAULT_STREAM): stream 0
  // means the calling thread's default stream, not the legacy one.
  bool per_thread_default_stream = false;
  // Calls the configuration declares host-synchronizing (AnalysisSettings::extra_sync_apis).
  std::vector<std::string> extra_sync_apis;
  // Names that hold or return "is the stream being captured?" (AnalysisSettings::capture_flags):
  // `ns::Runner::capturing_`, `g_capturing`, `ns::is_capturing` (a function), or `.capturing_`
  // / `.is_capturing` (a member or method of any object).
  std::vector<std::string> capture_flags;
};

// Walks the host-side AST of the main file and collects, per function definition, what the
// capture model needs (raw_model.h). Must run while the AST is alive (inside the consumer):
// nothing it returns points into the AST. Template patterns are walked, instantiations are not,
// so a hazard in a template is reported once, at the template. Device code is skipped.
void lowerTranslationUnit(clang::ASTContext& context, const SourceFile& source,
                          const LoweringOptions& options, RawTranslationUnit& unit);

}  // namespace graphsafe::cuda
