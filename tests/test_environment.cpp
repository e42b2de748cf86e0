// Every test process keeps the per-user files graphsafe reads and makes (the cache's key, the
// user's configuration: $XDG_CACHE_HOME and $XDG_CONFIG_HOME) in the build tree, so that a
// developer's own configuration cannot change a test's result and no test writes to the home.
#include <cstdlib>

namespace {

[[maybe_unused]] const bool kIsolated = [] {
  ::setenv("XDG_CACHE_HOME", GRAPHSAFE_TEST_HOME "/cache", 1);
  ::setenv("XDG_CONFIG_HOME", GRAPHSAFE_TEST_HOME "/config", 1);
  return true;
}();

}  // namespace
