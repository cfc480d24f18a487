// Seeded synthetic recordings for analyser tests: each scenario writes the
// records a collector would, so tests go through the real timeline builder.
#pragma once

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

namespace loopdoctor::testing {

struct Scenario {
  double seconds = 10;
  double interval_ms = 10;
  bool probe = true;
  bool load = true;
  // per-interval behaviour
  double delay_base_ms = 0.5;    // typical excess delay
  double stall_ms = 0;           // when >0, one stall per stall_every intervals
  int stall_every = 1;
  double elu = 0.3;
  double cpu_cores = 0.3;
  double gc_minor_ms_per_s = 5;  // minor pause time per second
  double gc_major_ms_per_s = 0;
  double heap_start = 20e6, heap_growth_per_s = 0, heap_churn = 5e6;
  // When >= 0, major collections carry heap_after (the probe's post-GC heap):
  // heap_after_base plus this growth per second of load, the first one
  // heap_after_warmup lower (a cache still filling).
  double heap_after_growth_per_s = -1;
  double heap_after_base = 30e6, heap_after_warmup = 0;
  double rps = 500, inflight = 2, latency_ms = 2;
  double heap_limit = 4e9;
  double mem_limit = 0;  // the memory cgroup's limit in proc records; 0: none
  // When >= 0, proc records carry the loop thread's schedstat: it ran
  // cpu_cores of the time and waited this share in a run queue.
  double sched_wait_share = -1;
  // When >= 0, proc records carry the cpu cgroup's throttling: this share of
  // its 100 ms periods throttled, under a quota of quota_cores.
  double throttled_share = -1;
  double quota_cores = 0.1;
  unsigned seed = 42;
};

inline std::vector<nlohmann::json> make_recording(const Scenario& sc) {
  using nlohmann::json;
  std::mt19937 rng(sc.seed);
  std::uniform_real_distribution<double> jitter(0.8, 1.2);
  std::vector<json> out;
  out.push_back({{"type", "meta"}, {"format", 1}, {"command", {"node", "server.js"}}});
  // The probe clock starts 40 ms after the run's clock: rt - t = 40.
  const double off = 40;
  if (sc.probe) {
    out.push_back({{"type", "hello"}, {"t", 0}, {"rt", off}, {"pid", 1234}, {"runtime", "node"},
                   {"versions", {{"node", "20.0.0"}}}, {"interval_ms", sc.interval_ms},
                   {"heap_limit", sc.heap_limit}});
    out.push_back({{"type", "listen"}, {"t", 50}, {"rt", 50 + off}, {"port", 8080}});
  }
  const double load_start = 200, load_end = load_start + sc.seconds * 1000;
  if (sc.load) out.push_back({{"type", "load-start"}, {"t", load_start}, {"kind", "on-port"}});
  double cpu_ms = 0;
  int i = 0;
  double gc_minor_debt = 0, gc_major_debt = 0;
  bool first_major = true;
  for (double t = 100; t < load_end + 200; ++i) {
    const bool in_load = !sc.load || (t >= load_start && t < load_end);
    const double k = in_load ? 1.0 : 0.05;
    double delay = sc.delay_base_ms * jitter(rng);
    double interval = sc.interval_ms;
    if (in_load && sc.stall_ms > 0 && i % sc.stall_every == 0) {
      delay = sc.stall_ms * jitter(rng);
      interval += delay;
    }
    t += interval;  // a sample is stamped at the end of its (possibly stalled) interval
    const double pt = t - off;  // probe clock
    cpu_ms += sc.cpu_cores * k * interval;
    nlohmann::json proc = {{"type", "proc"}, {"t", t}, {"cpu_ms", cpu_ms}, {"rss", 80e6},
                           {"threads", 7}, {"fds", 20}};
    if (sc.mem_limit > 0) proc["mem_limit"] = sc.mem_limit;
    if (sc.sched_wait_share >= 0) {
      proc["sched_run_ms"] = cpu_ms;
      proc["sched_wait_ms"] = sc.sched_wait_share * t;
    }
    if (sc.throttled_share >= 0) {
      const double periods = std::floor(t / 100);
      proc["cg_periods"] = periods;
      proc["cg_throttled"] = std::floor(periods * sc.throttled_share);
      proc["cg_throttled_ms"] = periods * sc.throttled_share * 60;
      proc["cpu_quota_cores"] = sc.quota_cores;
    }
    out.push_back(std::move(proc));
    if (!sc.probe) continue;
    const double secs = (t - load_start) / 1000.0;
    const double heap = sc.heap_start + std::max(0.0, secs) * sc.heap_growth_per_s +
                        sc.heap_churn * (i % 10) / 10.0;
    out.push_back({{"type", "sample"}, {"t", pt}, {"rt", pt + off + 0.3}, {"interval_ms", interval},
                   {"delay", {{"min", 0}, {"mean", delay / 2}, {"max", delay}, {"p50", delay / 2},
                              {"p90", delay * 0.9}, {"p99", delay}, {"count", 1}}},
                   {"elu", sc.elu * k},
                   {"cpu", {{"user_us", sc.cpu_cores * k * interval * 900},
                            {"system_us", sc.cpu_cores * k * interval * 100}}},
                   {"mem", {{"rss", 80e6}, {"heap_used", heap}, {"heap_total", heap * 1.3},
                            {"external", 1e6}, {"array_buffers", 1e5}}},
                   {"handles", {{"total", 3 + sc.inflight * k}, {"by_type", {{"TCPSocketWrap", sc.inflight * k}}}}},
                   {"http", {{"requests", sc.rps * k * interval / 1000},
                             {"responses", sc.rps * k * interval / 1000},
                             {"inflight", sc.inflight * k}, {"latency_mean_ms", sc.latency_ms},
                             {"latency_max_ms", sc.latency_ms * 2}}}});
    if (in_load) {
      gc_minor_debt += sc.gc_minor_ms_per_s * interval / 1000;
      gc_major_debt += sc.gc_major_ms_per_s * interval / 1000;
      if (gc_minor_debt >= 2) {
        out.push_back({{"type", "gc"}, {"t", pt - 1}, {"rt", pt + off}, {"kind", "minor"},
                       {"duration_ms", gc_minor_debt}});
        gc_minor_debt = 0;
      }
      if (gc_major_debt >= 20) {
        json gc = {{"type", "gc"}, {"t", pt - 1}, {"rt", pt + off}, {"kind", "major"},
                   {"duration_ms", gc_major_debt}};
        if (sc.heap_after_growth_per_s >= 0)
          gc["heap_after"] = sc.heap_after_base + secs * sc.heap_after_growth_per_s -
                             (first_major ? sc.heap_after_warmup : 0);
        first_major = false;
        out.push_back(gc);
        gc_major_debt = 0;
      }
    }
  }
  if (sc.load) out.push_back({{"type", "load-end"}, {"t", load_end}});
  out.push_back({{"type", "exit"}, {"t", load_end + 300}, {"code", nullptr}, {"signal", "SIGINT"},
                 {"stopped_by_loopdoctor", true}});
  return out;
}

// The built-in load's records on a recording made with `load` on: its
// load-start says which load ran (GET `path`, `connections`), and a
// load-summary before load-end counts the responses by status and the
// errors by class, with the clients' latency p99 and req/s.
struct ClientView {
  std::map<std::string, double> status = {{"200", 5000}};
  double timeouts = 0, connect_errors = 0;
  double p99_ms = 20, rps = 500;
  std::string path = "/";
  int connections = 50;
  double rate = 0;  // --rate, req/s; 0: as fast as it goes
  bool rate_not_met = false;
};

inline std::vector<nlohmann::json> with_client_view(std::vector<nlohmann::json> recs, const ClientView& c) {
  using nlohmann::json;
  double responses = 0, non_2xx = 0;
  json status = json::object();
  for (const auto& [code, n] : c.status) {
    status[code] = n;
    responses += n;
    if (code[0] != '2') non_2xx += n;
  }
  const std::string url = "http://127.0.0.1:8080" + c.path;
  const json config = {{"url", url},       {"method", "GET"}, {"connections", c.connections},
                       {"threads", 1},     {"pipelining", 1}, {"rate", c.rate},
                       {"duration_s", 10}, {"timeout_s", 10}};
  std::vector<json> out;
  for (auto& r : recs) {
    if (r["type"] == "load-start") {
      r["kind"] = "builtin", r["command"] = url, r["config"] = config;
    } else if (r["type"] == "load-end") {
      out.push_back({{"type", "load-summary"}, {"t", r["t"]}, {"requests", responses}, {"sent", responses},
                     {"duration_s", 10}, {"rps", c.rps}, {"bytes", responses * 100},
                     {"latency_ms", {{"p50", c.p99_ms / 4}, {"p90", c.p99_ms / 2}, {"p99", c.p99_ms},
                                     {"max", c.p99_ms * 1.2}}},
                     {"errors", {{"connect", c.connect_errors}, {"read", 0}, {"write", 0},
                                 {"timeout", c.timeouts}, {"parse", 0}}},
                     {"status", status}, {"non_2xx", non_2xx}, {"config", config}});
      if (c.rate > 0) out.back()["rate"] = c.rate, out.back()["rate_not_met"] = c.rate_not_met;
    }
    out.push_back(std::move(r));
  }
  return out;
}

// The recording's target exit made its own: it ended by itself `after_s`
// into the load, with `code` or `signal`.
inline std::vector<nlohmann::json> ended_by_itself(std::vector<nlohmann::json> recs, double after_s,
                                                   std::optional<int> code, std::optional<std::string> signal) {
  double load_start = 0;
  for (const auto& r : recs)
    if (r["type"] == "load-start") load_start = r["t"].get<double>();
  for (auto& r : recs)
    if (r["type"] == "exit") {
      r["t"] = load_start + after_s * 1000;
      r["code"] = code ? nlohmann::json(*code) : nlohmann::json(nullptr);
      r["signal"] = signal ? nlohmann::json(*signal) : nlohmann::json(nullptr);
      r["stopped_by_loopdoctor"] = false;
    }
  return recs;
}

// A server the load saturated with cheap requests (0.4 ms of CPU each, a
// queue of them ahead of every callback): healthy, its capacity said.
// (35 ms a request at the same figures is a blocked loop: rules.cc.)
inline Scenario saturated_healthy() {
  Scenario s;
  s.elu = 0.99, s.cpu_cores = 0.99, s.delay_base_ms = 35, s.rps = 2500, s.latency_ms = 35, s.inflight = 1;
  return s;
}
inline ClientView saturated_clients() {
  ClientView c;
  c.rps = 2500, c.p99_ms = 8274;
  return c;
}

}  // namespace loopdoctor::testing
