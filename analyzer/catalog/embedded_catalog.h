#pragma once

#include <string_view>
#include <vector>

namespace graphsafe {

struct EmbeddedFile {
  std::string_view name;
  std::string_view content;
};

// The rules/**/*.yaml files, embedded at build time (cmake/EmbedCatalog.cmake).
const std::vector<EmbeddedFile>& embeddedCatalogFiles();

// The newest runtime-probe/results/*.json, embedded at build time; empty when there is none.
EmbeddedFile embeddedProbeResults();

}  // namespace graphsafe
