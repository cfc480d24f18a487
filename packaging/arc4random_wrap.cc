// The release binary only (-DLOOPDOCTOR_STATIC=ON, linked with
// --wrap=arc4random): libstdc++ 12's std::random_device, which Boost.Beast
// seeds its WebSocket masks from (agent/attach/inspector_client.cc), calls
// arc4random, new in glibc 2.36. Linked statically, that one reference would
// make 2.36 the minimum glibc instead of 2.35 (Ubuntu 22.04). The same
// bytes from getrandom(2) (glibc 2.25) instead.
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

extern "C" std::uint32_t __wrap_arc4random() {
  std::uint32_t v;
  for (;;) {
    ssize_t r = ::getrandom(&v, sizeof v, 0);
    if (r == static_cast<ssize_t>(sizeof v)) return v;
    // arc4random cannot fail; neither may this (glibc's aborts too).
    if (r < 0 && errno != EINTR) std::abort();
  }
}
