#include "analyzer/cli/callgraph_command.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "analyzer/engine/engine.h"
#include "analyzer/output/output_format.h"
#include "analyzer/program/call_graph.h"

namespace graphsafe {

int runCallGraphCommand(const std::vector<std::string>& paths, std::ostream& out,
                        std::ostream& err) {
  EngineOptions options;
  options.paths = paths;
  if (options.paths.empty()) options.paths.emplace_back(".");
  for (const std::string& path : options.paths) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      err << "graphsafe: error: " << path << ": no such file or directory\n";
      return 2;
    }
  }
  std::vector<Notice> notices;
  std::unique_ptr<ProgramModel> program = buildProgram(options, notices);
  writeNotices(notices, err, false);
  nlohmann::json graph = nlohmann::json::object();
  for (const auto& [caller, callees] : callGraph(*program)) {
    graph[caller] = nlohmann::json(std::vector<std::string>(callees.begin(), callees.end()));
  }
  out << graph.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return 0;
}

}  // namespace graphsafe
