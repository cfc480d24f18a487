// What the load measured, decided once for every output: whether most of
// its requests failed (the run then measured the failures, not the server's
// work) and whether it saturated the server (its req/s is then its capacity
// at this load, its clients' latency the queue for the loop). The rules read
// both (rules.cc: neither run is called healthy plainly); the JSON, the
// Markdown, the terminal and the report format the sentences made here.
#pragma once

#include <optional>
#include <string>

#include "analyzer/timeline/timeline.h"
#include "analyzer/timeline/window_stats.h"

namespace loopdoctor {

struct LoadFailure {
  // failures / attempts >= kLoadFailedShare. Only the built-in load counts
  // failures; with an external one (--on-port) nothing is known: false.
  bool failed = false;
  double attempts = 0;  // complete responses (any status) + the load's errors
  double failures = 0;  // non-2xx responses + the load's errors
  double share = 0;     // failures / attempts
  // What failed most: a status code ("404") or one of the load generator's
  // error classes ("timeout", "connect", "read", "write", "parse").
  std::string top;
  bool top_is_status = false;
  double top_count = 0;
  // The sentence every output shows first, whatever the verdict: "Every
  // response to GET / was 404 Not Found (21307 of 21307 requests) — check
  // the --load path."; "" unless failed.
  std::string text;
  // What the run measured instead, for the verdict's sentence: "the server
  // answering 404", "requests failing (timeout)"; "" unless failed.
  std::string measured;
};

LoadFailure load_failure(const Timeline& tl);

struct Saturation {
  // A load ran, requests reached the loop, it was busy kSaturatedElu of the
  // window or more, and the load did not mostly fail (then the figures are
  // the failures').
  bool saturated = false;
  double elu = 0;        // the loop's mean utilisation over the window
  double rps = 0;        // the clients' (load generator's) req/s, else the server's
  std::optional<double> client_p99_ms;  // with the built-in load
  // "The load saturated the server: its loop was busy 100 % of the time, so
  // 25 req/s is its capacity at this load (50 connections), and the
  // clients' latency (p99 8274 ms) is mostly the wait for it. To measure
  // latency at a chosen rate, run with `--rate R` (req/s) below 25."; ""
  // unless saturated.
  std::string text;
};

Saturation saturation(const Timeline& tl, const WindowStats& st, const LoadFailure& failure);

}  // namespace loopdoctor
