// What is behind an io-bound verdict: the probe's `outbound` and
// `threadpool` lines over the analysis window, weighed against the server's
// own response time. Pure functions of the timeline; attach_causes (below)
// gives each issue its cause, an io-bound one io_cause's.
#pragma once

#include <string>
#include <vector>

#include "analyzer/attribution/profile_attribution.h"
#include "analyzer/verdicts/cause.h"
#include "analyzer/diagnosis.h"
#include "analyzer/timeline/timeline.h"
#include "analyzer/timeline/warning_summary.h"
#include "analyzer/timeline/window_stats.h"

namespace loopdoctor {

// One destination's calls over the window.
struct DestinationStats {
  std::string dest, client;
  double calls = 0;
  double latency_mean_ms = 0;  // call-weighted
  double latency_p50_ms = 0;   // median of the intervals' p50s, call-weighted
  bool has_pool = false;
  double sockets_mean = 0, sockets_max = 0, waiting_mean = 0, waiting_max = 0, pool_max = 0;
  std::string driver;  // "pg 8.23.1" when the probe read the driver's pool
  // The window's time the destination's `outbound` lines cover (each line
  // its interval, clipped at the window's start): what its calls' time on
  // the wire is a share of.
  double covered_ms = 0;
};
std::vector<DestinationStats> destination_stats(const Timeline& tl, const Window& w);

struct ThreadpoolStats {
  bool present = false;
  double size = 0;
  double wait_p50_ms = 0, wait_max_ms = 0;  // median of the intervals' p50s; the largest max
  // Requests in flight that hold a pool thread and show as active resources
  // (mean per sample): fs callbacks and promises, dns.lookup. Crypto and
  // zlib jobs are not listed by Node, so they cannot be counted.
  double fs_requests = 0, dns_lookups = 0;
};
ThreadpoolStats threadpool_stats(const Timeline& tl, const Window& w);

// The cause of an io-bound issue, with the evidence behind it appended to
// `evidence`; kNone when nothing the probe measured explains the wait.
// Checked in order: a pool that is full (its queue measured, then one whose
// queue publishes nothing, by its connections' busy share), an upstream
// that is slow (its time is measured on the wire, so neither includes the
// other), a threadpool that queues (its measure also holds the loop's
// delay, so it comes last).
Cause io_cause(const Timeline& tl, const Window& w, const WindowStats& st, std::vector<Evidence>* evidence);

// What attach_causes reads: the loop's timeline, window and statistics,
// its CPU profile's attribution and the process's warnings.
struct CauseInputs {
  const Timeline& tl;
  const Window& window;
  const WindowStats& stats;
  const profile::Attribution& attribution;
  const std::vector<WarningSummary>& warnings;
};

// Each issue's cause, attached in this one place once the loop's evidence,
// profile and block stacks are in: io-bound, what the requests waited on (a
// pool, the threadpool, an upstream: io_cause); cpu-starved, its quota or
// the run queue (starved_cause); blocked-loop, a listener Node warned about
// or the kind of work its top hotspot does (listener_leak_cause,
// blocking_kind_cause); gc-pressure, a listener piling up. An issue with a
// cause keeps it; the cause's evidence joins the issue's.
void attach_causes(const CauseInputs& in, Diagnosis* dx);

}  // namespace loopdoctor
