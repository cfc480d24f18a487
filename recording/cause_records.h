// The probe's measures of what is behind an io-bound verdict (docs/contracts.md "Probe
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
  std::string client;  // "http" (Node's http client), "undici" (fetch), "net" / "tls" (a raw TCP / TLS client)
  double calls = 0;    // finished in the interval
  // Request sent -> response finished, ms (after any wait for a pool socket).
  double latency_mean = 0, latency_p50 = 0, latency_p90 = 0, latency_max = 0;
  // The client's pool (sockets open to dest; waiting: not for "net"), polled
  // while calls go out; has_pool false when the line had none.
  bool has_pool = false;
  double sockets_mean = 0, sockets_max = 0;  // open to dest, busy or free
  double waiting_mean = 0, waiting_max = 0;  // requests queued for a socket
  double pool_max = 0;                       // the agent's maxSockets, a driver pool's max; 0: unlimited
  // A raw client's driver whose pool the probe read ("pg 8.23.1"): its
  // waiting and pool_max are then the driver pool's; "" otherwise.
  std::string driver;
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

// The target's process warnings seen in the interval
// (agent/probes/node/lib/warnings.js): each distinct one with its count.
struct WarningFrame {
  std::string function, url;  // url as the stack names it: a path or file:// URL
  double line = 0, column = 0;  // 1-based; 0: no frame
  bool operator==(const WarningFrame&) const = default;
};
struct ProcessWarning {
  std::string name;     // "MaxListenersExceededWarning", "DeprecationWarning", ...
  std::string message;  // at most kMaxWarningMessageBytes
  std::string code;     // "DEP0005"; "" when it has none
  double count = 0;     // times in the interval
  double first_t = 0;   // the first of them, probe clock
  // The first frame of the warning's stack outside node's own code: for a
  // MaxListenersExceededWarning, the line that adds the listener.
  WarningFrame frame;
  bool operator==(const ProcessWarning&) const = default;
};
struct ProcessWarnings {
  double t = 0, interval_ms = 0;
  std::vector<ProcessWarning> warnings;  // at most kMaxWarningsPerLine
  double dropped = 0;  // warnings past the probe's bound of distinct kinds
  bool operator==(const ProcessWarnings&) const = default;
};

// The probe's bounds (warnings.js MAX_KINDS, MAX_*_CHARS) as the protocol
// check applies them: the probe cuts UTF-16 characters, the check counts
// bytes, and one character is at most 4 bytes of UTF-8.
inline constexpr std::size_t kMaxWarningsPerLine = 16;
inline constexpr std::size_t kMaxWarningNameBytes = 64 * 4;
inline constexpr std::size_t kMaxWarningMessageBytes = 512 * 4;
inline constexpr std::size_t kMaxWarningUrlBytes = 1024 * 4;

nlohmann::json encode(const Outbound& r);
nlohmann::json encode(const Threadpool& r);
Outbound decode_outbound(const nlohmann::json& r);
Threadpool decode_threadpool(const nlohmann::json& r);
nlohmann::json encode(const ProcessWarnings& r);
ProcessWarnings decode_process_warnings(const nlohmann::json& r);

}  // namespace loopdoctor::recording
