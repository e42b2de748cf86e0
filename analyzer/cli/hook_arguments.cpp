#include "analyzer/cli/hook_arguments.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace graphsafe {

namespace {

bool namesExistingPath(const std::string& argument) {
  std::error_code ec;
  // symlink_status: a staged symbolic link is a file pre-commit names, dangling or not.
  return std::filesystem::exists(std::filesystem::symlink_status(argument, ec));
}

}  // namespace

std::vector<std::string> hookArguments(const std::vector<std::string>& arguments) {
  if (arguments.empty() || arguments.front() != "check") return arguments;
  auto end_of_options = std::find(arguments.begin(), arguments.end(), "--");
  if (std::find(arguments.begin(), end_of_options, "--pre-commit") == end_of_options) {
    return arguments;
  }
  std::vector<std::string> options;
  std::vector<std::string> paths;
  bool flag_seen = false;
  for (auto it = arguments.begin(); it != end_of_options; ++it) {
    bool option_like = it->size() > 1 && it->front() == '-';
    bool the_flag = !flag_seen && *it == "--pre-commit";
    flag_seen = flag_seen || the_flag;
    if (option_like && !the_flag && namesExistingPath(*it)) {
      paths.push_back(*it);
    } else {
      options.push_back(*it);
    }
  }
  if (paths.empty()) return arguments;
  options.push_back("--");
  options.insert(options.end(), paths.begin(), paths.end());
  if (end_of_options != arguments.end()) {
    options.insert(options.end(), end_of_options + 1, arguments.end());
  }
  return options;
}

}  // namespace graphsafe
