#include "agent/exporter/metrics.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>

#include "agent/exporter/process_loops.h"
#include "agent/exporter/cause_metrics.h"
#include "base/units.h"

namespace loopdoctor::exporter {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Labels = std::vector<ClientMetric::Label>;

using base::kMsPerS;


class Families {
 public:
  MetricFamily& get(const char* name, const char* help, MetricType type) {
    auto it = index_.find(name);
    if (it != index_.end()) return families_[it->second];
    index_.emplace(name, families_.size());
    families_.push_back({name, help, type, {}});
    return families_.back();
  }

  void value(const char* name, const char* help, MetricType type, Labels labels, double v) {
    ClientMetric m;
    m.label = std::move(labels);
    switch (type) {
      case MetricType::Counter: m.counter.value = v; break;
      case MetricType::Gauge: m.gauge.value = v; break;
      default: m.untyped.value = v; break;
    }
    get(name, help, type).metric.push_back(std::move(m));
  }

  std::vector<MetricFamily> take() { return std::move(families_); }

 private:
  std::vector<MetricFamily> families_;
  std::map<std::string, std::size_t> index_;
};

Labels with(Labels base, const char* name, std::string value) {
  base.push_back({name, std::move(value)});
  return base;
}

void add_lag(Families& f, const Labels& l, const LagSinceScrape& lag) {
  const auto g = MetricType::Gauge;
  f.value("nodejs_eventloop_lag_seconds", "Lag of event loop in seconds (mean since the last scrape).",
          g, l, lag.mean_ms / kMsPerS);
  f.value("nodejs_eventloop_lag_min_seconds", "The minimum recorded event loop delay.", g, l,
          lag.min_ms / kMsPerS);
  f.value("nodejs_eventloop_lag_max_seconds", "The maximum recorded event loop delay.", g, l,
          lag.max_ms / kMsPerS);
  f.value("nodejs_eventloop_lag_mean_seconds", "The mean of the recorded event loop delays.", g, l,
          lag.mean_ms / kMsPerS);
  f.value("nodejs_eventloop_lag_p50_seconds", "The 50th percentile of the recorded event loop delays.",
          g, l, lag.p50_ms / kMsPerS);
  f.value("nodejs_eventloop_lag_p90_seconds", "The 90th percentile of the recorded event loop delays.",
          g, l, lag.p90_ms / kMsPerS);
  f.value("nodejs_eventloop_lag_p99_seconds", "The 99th percentile of the recorded event loop delays.",
          g, l, lag.p99_ms / kMsPerS);
}

void add_gc(Families& f, const Labels& l, const std::map<std::string, GcHistogram>& by_kind) {
  for (const auto& [kind, h] : by_kind) {
    ClientMetric m;
    m.label = with(l, "kind", kind);
    m.histogram.sample_count = static_cast<std::uint64_t>(h.count);
    m.histogram.sample_sum = h.sum_seconds;
    for (std::size_t i = 0; i < kGcBucketsSeconds.size(); ++i)
      m.histogram.bucket.push_back({static_cast<std::uint64_t>(h.cumulative[i]), kGcBucketsSeconds[i]});
    m.histogram.bucket.push_back({static_cast<std::uint64_t>(h.count),
                                  std::numeric_limits<double>::infinity()});
    f.get("nodejs_gc_duration_seconds", "Garbage collection duration by kind, one of minor, major, "
                                        "incremental or weakcb.",
          MetricType::Histogram)
        .metric.push_back(std::move(m));
  }
}

// Only a probe that can see blocks has the series (the native one, or one
// that sent a block line): 0 from the JS probe would read as "never blocked".
// No function label: a function name per series is unbounded cardinality;
// /report/<pid> names the functions.
void add_blocks(Families& f, const Labels& l, const ProcessState& p) {
  const BlockCounter& b = p.counters().blocks();
  if (p.id.probe != "native" && b.blocks_total == 0) return;
  const auto c = MetricType::Counter;
  f.value("loopdoctor_eventloop_blocks_total",
          "Blocks of the event loop the native probe saw (no turn for its block threshold).", c, l,
          b.blocks_total);
  f.value("loopdoctor_eventloop_blocked_seconds_total",
          "Time the event loop spent in those blocks, in seconds.", c, l, b.blocked_ms_total / kMsPerS);
}

void add_node_version(Families& f, const Labels& l, const ProcessIdentity& id) {
  auto it = id.versions.find("node");
  if (it == id.versions.end()) return;
  std::string v = it->second;
  if (!v.empty() && v[0] == 'v') v.erase(0, 1);
  std::string parts[3];
  std::istringstream in(v);
  for (auto& p : parts) std::getline(in, p, '.');
  Labels vl = with(l, "version", "v" + v);
  vl = with(vl, "major", parts[0]);
  vl = with(vl, "minor", parts[1]);
  vl = with(vl, "patch", parts[2]);
  f.value("nodejs_version_info", "Node.js version info.", MetricType::Gauge, vl, 1);
}

// The series of one loop (a main thread's or a worker's), labelled with
// its thread: delay, heap, handles and utilisation are each loop's own.
void add_loop(Families& f, const Labels& l, ProcessState& p) {
  const auto g = MetricType::Gauge;
  add_lag(f, l, p.counters().take_lag());
  p.settle_folded();
  const ProbeSample& s = p.counters().latest();
  f.value("nodejs_heap_size_total_bytes", "Process heap size from Node.js in bytes.", g, l, s.heap_total);
  f.value("nodejs_heap_size_used_bytes", "Process heap size used from Node.js in bytes.", g, l, s.heap_used);
  f.value("nodejs_external_memory_bytes", "Node.js external memory size in bytes.", g, l, s.external);
  for (const auto& [type, n] : s.handles_by_type)
    f.value("nodejs_active_handles", "Number of active libuv handles grouped by handle type.", g,
            with(l, "type", type), n);
  // prom-client's name and type: a gauge despite the `_total` suffix, so
  // its dashboards, Grafana's type hints and OpenMetrics/OTLP conversions
  // treat it as prom-client's. promtool's suffix lint flags the name; the
  // tests accept that one finding (tests/agent/exporter/lib.sh promtool_check).
  f.value("nodejs_active_handles_total", "Total number of active handles.", g, l, s.handles_total);
  f.value("loopdoctor_eventloop_utilization",
          "Share of the last probe interval the event loop was busy (0..1).", g, l, s.elu);
}

// The process's own series (no thread label): from its main thread's probe,
// whose samples carry the process's CPU and RSS, or from /proc when attached.
void add_process_wide(Families& f, const Labels& l, const ProcessState& p) {
  const auto g = MetricType::Gauge, c = MetricType::Counter;
  const ProcessCounters& counters = p.counters();
  const bool have_proc = !p.window().proc().empty();
  if (p.has_probe && counters.have_sample()) {
    f.value("process_resident_memory_bytes", "Resident memory size in bytes.", g, l, counters.latest().rss);
    f.value("process_cpu_user_seconds_total", "Total user CPU time spent in seconds.", c, l,
            counters.cpu_user_seconds());
    f.value("process_cpu_system_seconds_total", "Total system CPU time spent in seconds.", c, l,
            counters.cpu_system_seconds());
  } else if (!p.has_probe && have_proc) {
    f.value("process_resident_memory_bytes", "Resident memory size in bytes.", g, l, counters.proc_rss());
    f.value("process_open_fds", "Number of open file descriptors.", g, l, counters.proc_fds());
  }
  if (p.has_probe ? counters.have_sample() : have_proc)
    f.value("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", c, l,
            counters.cpu_total_seconds());
  if (p.id.start_time_s > 0)
    f.value("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", g,
            l, p.id.start_time_s);
  add_node_version(f, l, p.id);
}

// Every verdict is exported as its own series (1 for the current verdict, 0
// for the others) so `loopdoctor_diagnosis{kind="blocked-loop"} == 1` is a
// plain PromQL condition and the series set stays stable.
void add_diagnosis(Families& f, const Labels& l, const VerdictState& verdict) {
  for (const VerdictInfo& vi : kVerdicts) {
    const Verdict v = vi.kind;
    f.value("loopdoctor_diagnosis",
            "1 for the verdict of the loop's rolling analysis window, 0 for the other kinds.",
            MetricType::Gauge, with(l, "kind", to_string(v)),
            verdict.analysed && verdict.verdict == v ? 1 : 0);
  }
  if (verdict.analysed && verdict.heap_growth_bytes_per_s)
    f.value("loopdoctor_heap_growth_bytes_per_second",
            "Growth of the live JS heap over the loop's rolling analysis window: the slope of the heap "
            "used after full collections (else of its troughs); negative when it shrank.",
            MetricType::Gauge, l, *verdict.heap_growth_bytes_per_s);
}

// `folded`: the process's workers without series of their own (main thread's
// entry only).
void add_process(Families& f, ProcessState& p, double folded) {
  const auto g = MetricType::Gauge, c = MetricType::Counter;
  const Labels pl = {{"pid", std::to_string(p.id.pid)}, {"job", p.id.job}};
  if (!p.has_probe) {
    add_process_wide(f, pl, p);
    add_diagnosis(f, pl, p.verdict);
    return;
  }
  const Labels l = with(pl, "thread", thread_label(p.id.thread));
  if (p.counters().have_sample()) add_loop(f, l, p);
  if (p.id.thread == 0) {
    add_process_wide(f, pl, p);
    f.value("loopdoctor_threads_folded",
            "Worker threads of the process without series of their own: past the agent's limit of "
            "loops per process (folded into thread=\"other\") or not sampled by the probe.",
            g, pl, folded);
  }
  add_gc(f, l, p.counters().gc_by_kind());
  add_blocks(f, l, p);
  f.value("loopdoctor_probe_connected", "1 while the probe is connected to this agent.", g, l,
          p.connected ? 1 : 0);
  f.value("loopdoctor_probe_dropped_samples_total",
          "Samples the probe dropped because the agent was slow or gone.", c, l,
          p.counters().dropped_total());
  // The folded workers are not analysed (the analyzer folds them too).
  if (p.id.thread != kFoldedThread) add_diagnosis(f, l, p.verdict);
}

}  // namespace

std::vector<MetricFamily> collect_metrics(ProcessTable& table) {
  Families f;
  std::lock_guard lock(table.mutex());
  std::map<ProcessTable::Id, double> folded;  // main thread's entry -> its folded workers
  for (const auto& [key, g] : group_loops(table))
    if (g.main) folded[g.main] = threads_folded(table, g);
  for (auto& [id, p] : table.all()) add_process(f, *p, folded.count(id) ? folded[id] : 0);
  AgentCounters& a = table.counters;
  a.scrapes += 1;
  f.value("loopdoctor_agent_processes", "Processes the agent currently exports.", MetricType::Gauge, {},
          static_cast<double>(table.all().size()));
  f.value("loopdoctor_agent_probe_connections_total", "Probe connections accepted.",
          MetricType::Counter, {}, a.connections_accepted);
  f.value("loopdoctor_agent_probe_connections_rejected_total",
          "Probe connections refused because the agent holds its maximum.", MetricType::Counter, {},
          a.connections_rejected);
  f.value("loopdoctor_agent_probe_protocol_errors_total",
          "Probes disconnected for a malformed, oversized or flooding message.", MetricType::Counter,
          {}, a.probes_disconnected_for_protocol);
  std::vector<MetricFamily> out = f.take();
  append_cause_families(table, &out);
  return out;
}

std::string render_metrics(ProcessTable& table) { return serialize_text(collect_metrics(table)); }

namespace {

void append_double(std::string* out, double v) {
  if (std::isnan(v)) {
    *out += "NaN";
  } else if (std::isinf(v)) {
    *out += v > 0 ? "+Inf" : "-Inf";
  } else {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out->append(buf, ec == std::errc() ? end : buf);
  }
}

// HELP text escapes backslash and newline; label values also the quote.
void append_escaped(std::string* out, const std::string& s, bool quote) {
  for (char c : s) {
    if (c == '\\') *out += "\\\\";
    else if (c == '\n') *out += "\\n";
    else if (quote && c == '"') *out += "\\\"";
    else *out += c;
  }
}

void append_series(std::string* out, const std::string& name, const char* suffix,
                   const std::vector<ClientMetric::Label>& labels, const char* le, double le_value,
                   double value) {
  *out += name;
  *out += suffix;
  if (!labels.empty() || le) {
    *out += '{';
    bool first = true;
    for (const auto& l : labels) {
      if (!first) *out += ',';
      first = false;
      *out += l.name;
      *out += "=\"";
      append_escaped(out, l.value, true);
      *out += '"';
    }
    if (le) {
      if (!first) *out += ',';
      *out += "le=\"";
      append_double(out, le_value);
      *out += '"';
    }
    *out += '}';
  }
  *out += ' ';
  append_double(out, value);
  *out += '\n';
}

const char* type_name(MetricType t) {
  switch (t) {
    case MetricType::Counter: return "counter";
    case MetricType::Gauge: return "gauge";
    case MetricType::Histogram: return "histogram";
    case MetricType::Summary: return "summary";
    default: return "untyped";
  }
}

}  // namespace

std::string serialize_text(const std::vector<MetricFamily>& families) {
  // About 70 bytes a series; one allocation for a typical scrape.
  constexpr std::size_t kBytesPerSeriesGuess = 80;
  std::size_t series = 0;
  for (const auto& f : families) series += f.metric.size() * (f.type == MetricType::Histogram ? 9 : 1);
  std::string out;
  out.reserve(series * kBytesPerSeriesGuess + families.size() * 120);
  for (const auto& f : families) {
    out += "# HELP ";
    out += f.name;
    out += ' ';
    append_escaped(&out, f.help, false);
    out += "\n# TYPE ";
    out += f.name;
    out += ' ';
    out += type_name(f.type);
    out += '\n';
    for (const auto& m : f.metric) {
      switch (f.type) {
        case MetricType::Counter: append_series(&out, f.name, "", m.label, nullptr, 0, m.counter.value); break;
        case MetricType::Gauge: append_series(&out, f.name, "", m.label, nullptr, 0, m.gauge.value); break;
        case MetricType::Histogram:
          for (const auto& b : m.histogram.bucket)
            append_series(&out, f.name, "_bucket", m.label, "le", b.upper_bound,
                          static_cast<double>(b.cumulative_count));
          append_series(&out, f.name, "_sum", m.label, nullptr, 0, m.histogram.sample_sum);
          append_series(&out, f.name, "_count", m.label, nullptr, 0,
                        static_cast<double>(m.histogram.sample_count));
          break;
        default: append_series(&out, f.name, "", m.label, nullptr, 0, m.untyped.value); break;
      }
    }
  }
  return out;
}

}  // namespace loopdoctor::exporter
