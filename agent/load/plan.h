// What every worker of one run shares, fixed before the first connection
// opens and only read afterwards (so threads share it without locks).
#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace loopdoctor::load {

struct Plan {
  sockaddr_storage addr{};  // resolved once; never per connection
  std::string batch;        // `pipelining` copies of the encoded request
  std::size_t request_len = 0;
  int pipelining = 1;
  bool head = false;  // HEAD responses have no body
  std::uint64_t timeout_ns = 0;
  std::uint64_t start_ns = 0;  // common origin of seconds and of the rate schedule
  std::uint64_t end_ns = 0;    // 0: no time limit
  // Constant-rate mode: each connection sends one request every interval_ns;
  // connection i's first one is due at start_ns + i * rate_step_ns, spreading
  // the sends evenly (wrk2's schedule). Both 0 in closed-loop mode.
  std::uint64_t interval_ns = 0;
  std::uint64_t rate_step_ns = 0;
};

// One worker's part of the run.
struct Share {
  int first_connection = 0;  // global index of its first connection
  int connections = 0;
  std::uint64_t budget = 0;  // requests to attempt; 0: unlimited
};

}  // namespace loopdoctor::load
