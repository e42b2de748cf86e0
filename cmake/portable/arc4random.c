/* GCC 12's static libstdc++ implements std::random_device (which Clang's libraries use) with
 * arc4random, a function glibc has only since 2.36. The portable module and binary carry their
 * own, hidden, so that they load on glibc 2.34 (cmake/PortableLinking.cmake). Same contract as
 * glibc's: a uniformly random 32-bit value from the kernel's generator, never failing. */
#include <stdint.h>
#include <sys/random.h>

__attribute__((visibility("hidden"))) uint32_t arc4random(void) {
  uint32_t value;
  for (;;) {
    ssize_t got = getrandom(&value, sizeof value, 0);
    if (got == (ssize_t)sizeof value) return value;
    /* EINTR: a signal came first; anything else cannot happen for 4 bytes on Linux >= 3.17. */
  }
}
