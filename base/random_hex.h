// Random names and tokens from the kernel (getrandom(2)). Not
// std::random_device: libstdc++ 12 reads that through arc4random, glibc
// 2.36's, which would raise the minimum glibc of the static release binary
// (README: Install with npm) from 2.35 to 2.36 for two call sites.
#pragma once

#include <cstddef>
#include <string>

namespace loopdoctor::base {

// `bytes` random bytes as 2 * bytes lowercase hex digits. Reads /dev/urandom
// where getrandom(2) is missing (a kernel older than 3.17); throws
// std::system_error when neither gives the bytes (as std::random_device does).
std::string random_hex(std::size_t bytes);

}  // namespace loopdoctor::base
