// The native probe's reconnect schedule in agent mode: the JS transport's.
#include <catch2/catch.hpp>

#include "reconnect_backoff.h"

using namespace loopdoctor::probe;

namespace {
constexpr uint64_t kMs = 1'000'000;
}

TEST_CASE("reconnects try at once then back off from 100 ms doubling to 5 s and reset on success") {
  ReconnectBackoff b(100 * kMs, 5000 * kMs);
  CHECK(b.due(0));  // the first try at once
  uint64_t now = 1000 * kMs;
  const uint64_t expected_ms[] = {100, 200, 400, 800, 1600, 3200, 5000, 5000};
  for (uint64_t wait_ms : expected_ms) {
    b.failed(now);
    CHECK_FALSE(b.due(now + wait_ms * kMs - 1));
    CHECK(b.due(now + wait_ms * kMs));
    now += wait_ms * kMs;
  }
  b.connected();
  b.failed(now);  // the connection is lost later: from 100 ms again
  CHECK_FALSE(b.due(now + 99 * kMs));
  CHECK(b.due(now + 100 * kMs));
}
