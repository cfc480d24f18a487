// The probe's measures of what is behind an io-bound verdict (README "Probe
// protocol": `outbound`, `threadpool`), one line each per second while
// sampling. Included by records.h; encoders and decoders in cause_records.cc.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace loopdoctor::recording {

// Calls to one destination in the interval (agent/probes/node/lib/outbound.js).
struct OutboundDest {
  std::string dest;    // "host:port"
  std::string client;  // "http" (Node's http client) or "undici" (fetch)
  double calls = 0;    // finished in the interval
  // Request sent -> response finished, ms (after any wait for a pool socket).
  double latency_mean = 0, latency_p50 = 0, latency_p90 = 0, latency_max = 0;
  // The http.Agent's pool, polled every 100 ms; has_pool false for undici.
  bool has_pool = false;
  double sockets_mean = 0, sockets_max = 0;  // open to dest, busy or free
  double waiting_mean = 0, waiting_max = 0;  // requests queued for a socket
  double pool_max = 0;                       // the agent's maxSockets; 0: unlimited
  bool operator==(const OutboundDest&) const = default;
};

struct Outbound {
  double t = 0, interval_ms = 0;
  std::vector<OutboundDest> destinations;  // at most kMaxOutboundDestinations
  double destinations_dropped = 0;         // more than that were active
  bool operator==(const Outbound&) const = default;
};

// Destinations per `outbound` line: the probe's bound and the protocol check's.
inline constexpr std::size_t kMaxOutboundDestinations = 32;

// How long a tiny job queued on libuv's threadpool waited for its callback
// (agent/probes/node/lib/threadpool.js).
struct Threadpool {
  double t = 0, interval_ms = 0;
  double size = 0;    // threads: UV_THREADPOOL_SIZE or 4
  double probes = 0;  // jobs timed (one still queued at the end counts)
  double wait_mean = 0, wait_p50 = 0, wait_max = 0;  // ms
  bool operator==(const Threadpool&) const = default;
};

nlohmann::json encode(const Outbound& r);
nlohmann::json encode(const Threadpool& r);
Outbound decode_outbound(const nlohmann::json& r);
Threadpool decode_threadpool(const nlohmann::json& r);

}  // namespace loopdoctor::recording
