// The list of every check in this build, in catalog order. One line per check: an explicit list
// reads better than static self-registration and cannot be dropped by the linker.
#include "analyzer/engine/check.h"

namespace graphsafe {

std::unique_ptr<Check> makeTensorBranchCheck();
std::unique_ptr<Check> makeHostSyncCheck();

std::vector<std::unique_ptr<Check>> makeAllChecks() {
  std::vector<std::unique_ptr<Check>> checks;
  checks.push_back(makeTensorBranchCheck());
  checks.push_back(makeHostSyncCheck());
  return checks;
}

}  // namespace graphsafe
