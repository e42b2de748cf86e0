#pragma once

// Captures the source begins that the analysis did not see. A capture call in code the
// preprocessor skipped (`#if __CUDACC_VER_MAJOR__ >= 12`, an architecture macro, a definition
// the build passes), or in a function or class Clang could not parse, leaves no region and no
// finding behind: a notice per such call says which, and why, so that "no region" is never
// silent. Plain data in, notices out: testable without parsing anything.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/model/capture_model.h"
#include "analyzer/source/source_file.h"

namespace graphsafe::cuda {

// A block of the main file the preprocessor skipped: from the `#` of the directive whose branch
// was not taken, to the end of the block (byte offsets).
struct SkippedBlock {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
};

// A compiler error in the main file (0-based line), in the order Clang reported it.
struct MainFileError {
  std::int32_t line = 0;
  std::string message;
};

// The byte offsets of the capture-begin calls written in `text` (cudaStreamBeginCapture,
// cudaStreamBeginCaptureToGraph, cuStreamBeginCapture, `.capture_begin(`), outside comments,
// string and character literals and preprocessor directives (a macro that wraps the call is
// counted where it is used, which is where a region's site is).
std::vector<std::uint32_t> writtenCaptureCalls(std::string_view text);

struct LoweredCode {
  std::vector<SourceRange> regions;    // capture region sites
  std::vector<SourceRange> functions;  // bodies of the functions lowered
};

// One notice per written capture call no region starts at.
std::vector<Notice> missedCaptureNotices(const SourceFile& source, const LoweredCode& lowered,
                                         const std::vector<SkippedBlock>& skipped,
                                         const std::vector<MainFileError>& errors);

}  // namespace graphsafe::cuda
