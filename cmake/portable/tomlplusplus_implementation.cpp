// toml++'s implementation, compiled once from the distribution's headers into a static library
// (Debian ships the compiled toml++ only as a shared object). Built as the packaged library is:
// without assertions and without optimizer assumptions, so that a malformed file such as `[{`
// is a parse error. With NDEBUG unset, toml++'s TOML_ASSERT_ASSUME is TOML_ASSERT, which is
// defined here to nothing (with NDEBUG set it would be an optimizer assumption under clang).
#undef NDEBUG
#define TOML_ASSERT(expr) static_assert(true)
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
