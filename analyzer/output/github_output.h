#pragma once

#include <string>
#include <string_view>

namespace graphsafe {

// The escaping of GitHub workflow commands: a command's message escapes `%`, CR and LF; its
// properties (`file=...,title=...`) escape `:` and `,` as well.
std::string escapeWorkflowData(std::string_view text);
std::string escapeWorkflowProperty(std::string_view text);

}  // namespace graphsafe
