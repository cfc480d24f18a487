#include "analyzer/verdicts/causes.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "analyzer/thresholds.h"

namespace loopdoctor {
namespace {

using namespace thresholds;

// The median of values weighted by counts; 0 when the weights sum to 0.
double weighted_median(std::vector<std::pair<double, double>> v) {
  std::sort(v.begin(), v.end());
  double total = 0;
  for (const auto& [value, weight] : v) total += weight;
  double run = 0;
  for (const auto& [value, weight] : v) {
    run += weight;
    if (run >= total / 2 && total > 0) return value;
  }
  return 0;
}

struct DestAcc {
  DestinationStats s;
  double latency_sum = 0, sockets_sum = 0, waiting_sum = 0, pool_intervals = 0;
  std::vector<std::pair<double, double>> p50s;
};

void add(DestAcc& a, const recording::OutboundDest& d) {
  a.s.dest = d.dest, a.s.client = d.client;
  a.s.calls += d.calls;
  a.latency_sum += d.latency_mean * d.calls;
  a.p50s.emplace_back(d.latency_p50, d.calls);
  if (!d.has_pool) return;
  a.s.has_pool = true;
  a.pool_intervals += 1;
  a.sockets_sum += d.sockets_mean, a.waiting_sum += d.waiting_mean;
  a.s.sockets_max = std::max(a.s.sockets_max, d.sockets_max);
  a.s.waiting_max = std::max(a.s.waiting_max, d.waiting_max);
  a.s.pool_max = d.pool_max;
  if (!d.driver.empty()) a.s.driver = d.driver;
}

}  // namespace

std::vector<DestinationStats> destination_stats(const Timeline& tl, const Window& w) {
  std::map<std::string, DestAcc> acc;
  for (const auto& o : tl.outbound) {
    if (!w.contains(o.t)) continue;
    const double covered = std::min(o.interval_ms, o.t - w.start);
    for (const auto& d : o.destinations) {
      DestAcc& a = acc[d.client + " " + d.dest];
      add(a, d);
      a.s.covered_ms += covered;
    }
  }
  std::vector<DestinationStats> out;
  for (auto& [name, a] : acc) {
    if (a.s.calls > 0) a.s.latency_mean_ms = a.latency_sum / a.s.calls;
    a.s.latency_p50_ms = weighted_median(std::move(a.p50s));
    if (a.pool_intervals > 0) {
      a.s.sockets_mean = a.sockets_sum / a.pool_intervals;
      a.s.waiting_mean = a.waiting_sum / a.pool_intervals;
    }
    out.push_back(std::move(a.s));
  }
  // The busiest destination first.
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.calls > b.calls; });
  return out;
}

ThreadpoolStats threadpool_stats(const Timeline& tl, const Window& w) {
  ThreadpoolStats s;
  std::vector<std::pair<double, double>> p50s;
  for (const auto& p : tl.threadpool) {
    if (!w.contains(p.t) || p.probes <= 0) continue;
    s.present = true;
    s.size = p.size;
    p50s.emplace_back(p.wait_p50, 1);
    s.wait_max_ms = std::max(s.wait_max_ms, p.wait_max);
  }
  s.wait_p50_ms = weighted_median(std::move(p50s));
  double n = 0;
  for (const auto& smp : tl.samples) {
    if (!w.contains(smp.t)) continue;
    n += 1;
    for (const char* fs : {"FSReqCallback", "FSReqPromise"})
      if (auto it = smp.handles_by_type.find(fs); it != smp.handles_by_type.end()) s.fs_requests += it->second;
    if (auto it = smp.handles_by_type.find("GetAddrInfoReqWrap"); it != smp.handles_by_type.end())
      s.dns_lookups += it->second;
  }
  if (n > 0) s.fs_requests /= n, s.dns_lookups /= n;
  return s;
}

namespace {

// How a destination reads in advice: a raw TCP or TLS one (outbound.js,
// client "net" or "tls") is a driver's own protocol, whose address alone the user may not
// place.
std::string dest_named(const DestinationStats& d) {
  if (d.client == "net") return fmt::format("`{}` (plain TCP: a database's or cache's driver)", d.dest);
  if (d.client == "tls") return fmt::format("`{}` (TLS: a database's or cache's driver)", d.dest);
  return fmt::format("`{}`", d.dest);
}

std::string pool_name(const DestinationStats& d) {
  return d.client == "http" ? "http.Agent maxSockets" : "its client's connection limit";
}

// A driver's pool the probe read (driver-pools.js): its queue and size are
// the driver's own, and it is named, as the user configures it.
Cause driver_pool_cause(const DestinationStats& d, const WindowStats& st) {
  const double n = d.sockets_max, size = d.pool_max > 0 ? d.pool_max : n;
  return {CauseKind::kConnectionPool, d.dest,
          fmt::format("{}'s Pool: {:.0f} connections, {:.0f} queries waiting for one, {:.0f} requests in flight",
                      d.driver, n, d.waiting_mean, st.http_inflight_mean),
          fmt::format("The {} Pool to `{}` is full: its {:.0f} connections stay busy while {:.0f} queries wait in "
                      "its queue for one. Raise the Pool's `max` ({:.0f} now) if the database can take more at "
                      "once (PostgreSQL's `max_connections`, less the other clients'), make the query faster, or "
                      "send it fewer (cache, batch).",
                      d.driver, d.dest, n, d.waiting_mean, size)};
}

Cause pool_cause(const DestinationStats& d, const WindowStats& st, std::vector<Evidence>* ev) {
  const double n = d.sockets_max;
  if (!d.has_pool || n <= 0 || d.sockets_mean < kPoolSocketsSteady * n || d.waiting_mean < kPoolMinWaiting ||
      st.http_inflight_mean < kPoolInflightFactor * n)
    return {};
  ev->push_back({"outbound_pool_waiting", d.waiting_mean, kPoolMinWaiting,
                 fmt::format("{:.1f} requests waited on average for one of the {:.0f} sockets to {} "
                             "(the server held {:.1f} in flight)",
                             d.waiting_mean, n, d.dest, st.http_inflight_mean)});
  if (!d.driver.empty()) return driver_pool_cause(d, st);
  return {CauseKind::kConnectionPool, d.dest,
          fmt::format("{:.0f} sockets, {:.0f} requests waiting for one, {:.0f} in flight", n, d.waiting_mean,
                      st.http_inflight_mean),
          fmt::format("The pool to `{}` is full: {:.0f} sockets stay busy while {:.0f} requests queue for "
                      "one. Raise its size ({} is {:.0f}; the DB pool's `max`, undici's `connections`) "
                      "if {} can take more at once, or send it fewer calls (cache, batch).",
                      d.dest, n, d.waiting_mean, pool_name(d), d.pool_max > 0 ? d.pool_max : n, d.dest)};
}

// A pool whose queue no probe source shows (its `waiting` is never more
// than 0): a raw TCP driver's, undici's own (fetch's waits come from its
// timing entries). By Little's law its connections were busy calls x their
// time on the wire over the time its lines cover; all of them busy while the server held
// many more requests than connections means the rest waited for one.
Cause busy_pool_cause(const DestinationStats& d, const WindowStats& st, std::vector<Evidence>* ev) {
  const double n = d.sockets_mean;
  if (d.client == "http" || !d.has_pool || d.waiting_max > 0 || n <= 0 || d.covered_ms <= 0 ||
      d.sockets_mean < kPoolSocketsSteady * d.sockets_max || st.http_inflight_mean < kPoolInflightFactor * n)
    return {};
  // Connections carrying a call, on average (a call's time can include its
  // wait in a client's own queue: at most all of them).
  const double busy = std::min(d.calls * d.latency_mean_ms / d.covered_ms, n);
  const double share = busy / n;
  if (share < kPoolBusyShare) return {};
  const double waiting = std::max(0.0, st.http_inflight_mean - busy);
  const bool driver = d.client == "net" || d.client == "tls";
  const std::string queue = driver ? "the driver's pool" : "undici's pool";
  const std::string size = driver ? "the driver's pool size (pg's `max`, mysql2's `connectionLimit`)"
                                  : "the `connections` of the undici Agent or Pool";
  ev->push_back({"outbound_pool_busy_share", share, kPoolBusyShare,
                 fmt::format("The {:.0f} connections to {} carried calls {:.0f} % of the time ({:.0f} calls of "
                             "{:.1f} ms) while the server held {:.1f} requests in flight: about {:.0f} waited "
                             "in {}, whose queue publishes nothing",
                             n, d.dest, share * 100, d.calls, d.latency_mean_ms, st.http_inflight_mean, waiting,
                             queue)});
  return {CauseKind::kConnectionPool, d.dest,
          fmt::format("{:.0f} connections busy {:.0f} %, about {:.0f} requests waiting for one, {:.0f} in flight",
                      n, share * 100, waiting, st.http_inflight_mean),
          fmt::format("The pool to {} is full: its {:.0f} connections stay busy while about {:.0f} requests "
                      "queue in {}. Raise {} if {} can take more at once, or send it fewer calls (cache, "
                      "batch).",
                      dest_named(d), n, waiting, queue, size, d.dest)};
}

std::string pool_holders(const ThreadpoolStats& tp) {
  std::string s;
  if (tp.fs_requests >= 1) s += fmt::format("{:.0f} fs requests", tp.fs_requests);
  if (tp.dns_lookups >= 1) s += fmt::format("{}{:.0f} dns.lookup calls", s.empty() ? "" : " and ", tp.dns_lookups);
  return s.empty() ? "crypto or zlib work (Node does not list those jobs)" : s + " in flight on average";
}

Cause threadpool_cause(const ThreadpoolStats& tp, const WindowStats& st, std::vector<Evidence>* ev) {
  // The job's callback also waits for the loop, as every callback does.
  const double loop_ms = st.delay_p50_ms;
  if (!tp.present || tp.wait_p50_ms - loop_ms < kThreadpoolWaitMs ||
      tp.wait_p50_ms < kThreadpoolOverLoopDelay * loop_ms)
    return {};
  const std::string holders = pool_holders(tp);
  ev->push_back({"threadpool_wait_ms", tp.wait_p50_ms, kThreadpoolWaitMs,
                 fmt::format("A job queued on libuv's threadpool of {:.0f} threads waited {:.0f} ms (p50, "
                             "max {:.0f} ms; the loop's own delay p50 {:.1f} ms) for a thread; held by {}",
                             tp.size, tp.wait_p50_ms, tp.wait_max_ms, loop_ms, holders)});
  return {CauseKind::kThreadpool, fmt::format("{:.0f} threads", tp.size),
          fmt::format("a job waited {:.0f} ms (p50) for a thread; held by {}", tp.wait_p50_ms, holders),
          fmt::format("libuv's threadpool ({:.0f} threads) is full: every fs call, dns.lookup, async "
                      "crypto and zlib job queues behind {}. Raise `UV_THREADPOOL_SIZE` (set in the "
                      "environment before node starts; up to 1024) to what that work can use, or take "
                      "work off the pool: dns.resolve or an IP instead of dns.lookup, fewer concurrent "
                      "fs calls (a queue or streams), crypto in worker threads.",
                      tp.size, holders)};
}

Cause upstream_cause(const DestinationStats& d, const WindowStats& st, std::vector<Evidence>* ev) {
  const double requests = st.http_requests;
  if (requests <= 0 || st.http_latency_mean_ms <= 0 || d.calls <= 0) return {};
  // Outbound time per request: calls per request times the time of a call.
  const double per_request = d.calls / requests * d.latency_mean_ms;
  const double share = per_request / st.http_latency_mean_ms;
  if (share < kUpstreamShare) return {};
  ev->push_back({"upstream_share", std::min(share, 1.0), kUpstreamShare,
                 fmt::format("Calls to {} took {:.0f} ms of each request's {:.0f} ms ({:.0f} calls, p50 "
                             "{:.0f} ms)",
                             d.dest, per_request, st.http_latency_mean_ms, d.calls, d.latency_p50_ms)});
  return {CauseKind::kUpstream, d.dest,
          fmt::format("p50 {:.0f} ms of {:.0f} ms per request", d.latency_p50_ms, st.http_latency_mean_ms),
          fmt::format("{} answers in {:.0f} ms (p50), most of each request's {:.0f} ms: make it faster "
                      "(its own profile), cache its answers, call it in parallel rather than in turn, or "
                      "set a timeout so a slow answer does not hold the request.",
                      dest_named(d), d.latency_p50_ms, st.http_latency_mean_ms)};
}

}  // namespace

Cause io_cause(const Timeline& tl, const Window& w, const WindowStats& st, std::vector<Evidence>* evidence) {
  const std::vector<DestinationStats> dests = destination_stats(tl, w);
  for (const auto& d : dests)
    if (Cause c = pool_cause(d, st, evidence); c.present()) return c;
  for (const auto& d : dests)
    if (Cause c = busy_pool_cause(d, st, evidence); c.present()) return c;
  for (const auto& d : dests)
    if (Cause c = upstream_cause(d, st, evidence); c.present()) return c;
  return threadpool_cause(threadpool_stats(tl, w), st, evidence);
}

}  // namespace loopdoctor
