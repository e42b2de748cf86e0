#pragma once

// The Python frontend's model of a snippet, for the tests that check what lowering records.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "analyzer/engine/analysis_settings.h"
#include "analyzer/engine/frontend.h"
#include "analyzer/model/capture_model.h"

namespace graphsafe::testing {

inline FileModel lowerPython(std::string text, std::string path = "sample.py") {
  auto source = std::make_shared<SourceFile>(std::move(path), std::move(text));
  return makePythonFrontend()->analyze(source, AnalysisSettings{});
}

// The function of that qualified name; a test failure (and an empty function) when there is none.
inline const FunctionModel& functionNamed(const FileModel& model, std::string_view qualified) {
  for (const FunctionModel& candidate : model.functions) {
    if (candidate.qualified_name == qualified) return candidate;
  }
  ADD_FAILURE() << "no function " << qualified;
  static const FunctionModel none;
  return none;
}

}  // namespace graphsafe::testing
