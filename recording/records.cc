#include "recording/records.h"

#include <algorithm>
#include <limits>
#include <string_view>

#include "recording/json_fields.h"

namespace loopdoctor::recording {

using nlohmann::json;
using namespace fields;

namespace {

constexpr std::pair<std::string_view, Type> kTypeNames[] = {
    {"sample", Type::kSample},     {"proc", Type::kProc},
    {"gc", Type::kGc},             {"load", Type::kLoad},
    {"meta", Type::kMeta},         {"hello", Type::kHello},
    {"listen", Type::kListen},     {"profile", Type::kProfile},
    {"bye", Type::kBye},           {"load-start", Type::kLoadStart},
    {"load-summary", Type::kLoadSummary}, {"load-end", Type::kLoadEnd},
    {"exit", Type::kExit},         {"interrupt", Type::kInterrupt},
    {"warning", Type::kWarning},   {"block", Type::kBlock},
    {"threads-unsampled", Type::kThreadsUnsampled},
    {"outbound", Type::kOutbound}, {"threadpool", Type::kThreadpool},
    {"process-warnings", Type::kProcessWarnings}, {"detach", Type::kDetach},
    {"alloc", Type::kAlloc},       {"heap-snapshot", Type::kHeapSnapshot}};

}  // namespace

Type type_of(std::string_view type) {
  for (const auto& [name, t] : kTypeNames)  // the hot types first
    if (name == type) return t;
  return Type::kOther;
}

const char* type_name(Type type) {
  for (const auto& [name, t] : kTypeNames)
    if (t == type) return name.data();  // string literals: NUL-terminated
  return "";
}

json with_type(Type type, json fields) {
  fields["type"] = type_name(type);
  return fields;
}

bool is_collector_record(Type type) {
  switch (type) {
    case Type::kProc: case Type::kLoad: case Type::kLoadStart: case Type::kLoadEnd:
    case Type::kExit: case Type::kLoadSummary: case Type::kInterrupt: case Type::kDetach:
      return true;
    default:
      return false;
  }
}

std::string to_line(const json& record) {
  return record.dump(-1, ' ', false, json::error_handler_t::replace);
}

// ---- meta and the collector records (the probe's: probe_messages.cc) -----
json encode(const Meta& r) {
  json j = {{"type", type_name(Type::kMeta)}, {"format", r.format},
            {"loopdoctor_version", r.loopdoctor_version},
            {"command", r.command},    {"start_time", r.start_time},
            {"host", r.host},          {"interval_ms", r.interval_ms},
            {"pid", r.pid}};
  if (r.attach.present) j["attach"] = encode(r.attach);
  if (!r.load.kind.empty()) j["load"] = {{"kind", r.load.kind}, {"listen_timeout_ms", r.load.listen_timeout_ms}};
  return j;
}

Meta decode_meta(const json& r) {
  Meta m;
  // Clamped: a format past int's range still reads as newer than this
  // reader (a warning), where the cast would overflow.
  constexpr double kMaxFormat = std::numeric_limits<int>::max();
  m.format = static_cast<int>(std::clamp(num(r, "format", 0), -kMaxFormat, kMaxFormat));
  m.loopdoctor_version = str(r, "loopdoctor_version");
  m.command = strings(r, "command");
  m.start_time = str(r, "start_time");
  m.host = str(r, "host");
  m.interval_ms = num(r, "interval_ms");
  m.pid = opt_int(r, "pid").value_or(0);
  if (auto a = r.find("attach"); a != r.end() && a->is_object()) {
    m.attach.present = true;
    m.attach.host_pid = opt_int(*a, "host_pid").value_or(0);
    m.attach.ns_pid = opt_int(*a, "ns_pid").value_or(0);
    m.attach.container = flag(*a, "container");
    m.attach.inspector_port = opt_int(*a, "inspector_port").value_or(0);
    m.attach.inspector_was_open = flag(*a, "inspector_was_open");
  }
  if (auto l = r.find("load"); l != r.end() && l->is_object()) {
    m.load.kind = str(*l, "kind");
    m.load.listen_timeout_ms = num(*l, "listen_timeout_ms");
  }
  return m;
}

namespace {

json proc_thread_json(const ProcThread& t) {
  return {{"tid", count(t.tid)}, {"thread", count(t.thread)}, {"cpu_ms", t.cpu_ms}, {"sched_wait_ms", t.sched_wait_ms}};
}

ProcThread decode_proc_thread(const json& t) {
  return {num(t, "tid"), num(t, "thread"), num(t, "cpu_ms"), num(t, "sched_wait_ms")};
}

}  // namespace

json encode(const Proc& r) {
  json j = record(Type::kProc, r.t);
  j["cpu_ms"] = r.cpu_ms;
  j["rss"] = r.rss;
  j["threads"] = count(r.threads);
  j["fds"] = count(r.fds);
  j["ctx_voluntary"] = count(r.ctx_voluntary);
  j["ctx_involuntary"] = count(r.ctx_involuntary);
  if (r.has_io) {
    j["io_read_bytes"] = count(r.io_read_bytes);
    j["io_write_bytes"] = count(r.io_write_bytes);
  }
  if (r.has_sched) {
    j["sched_run_ms"] = r.sched_run_ms;
    j["sched_wait_ms"] = r.sched_wait_ms;
  }
  if (r.has_throttle) {
    j["cg_periods"] = count(r.cg_periods);
    j["cg_throttled"] = count(r.cg_throttled);
    j["cg_throttled_ms"] = r.cg_throttled_ms;
  }
  if (r.cpu_quota_cores > 0) j["cpu_quota_cores"] = r.cpu_quota_cores;
  if (r.mem_limit > 0) j["mem_limit"] = r.mem_limit;
  if (!r.loop_threads.empty()) j["loop_threads"] = entries_json(r.loop_threads, proc_thread_json);
  encode_loop(r.loop, &j);
  return j;
}

Proc decode_proc(const json& r) {
  Proc p;
  p.t = num(r, "t");
  p.cpu_ms = num(r, "cpu_ms");
  p.rss = num(r, "rss");
  p.threads = num(r, "threads");
  p.fds = num(r, "fds");
  p.ctx_voluntary = num(r, "ctx_voluntary");
  p.ctx_involuntary = num(r, "ctx_involuntary");
  p.has_io = r.contains("io_read_bytes") || r.contains("io_write_bytes");
  p.io_read_bytes = num(r, "io_read_bytes");
  p.io_write_bytes = num(r, "io_write_bytes");
  p.has_sched = r.contains("sched_run_ms");
  p.sched_run_ms = num(r, "sched_run_ms");
  p.sched_wait_ms = num(r, "sched_wait_ms");
  p.has_throttle = r.contains("cg_periods");
  p.cg_periods = num(r, "cg_periods");
  p.cg_throttled = num(r, "cg_throttled");
  p.cg_throttled_ms = num(r, "cg_throttled_ms");
  p.cpu_quota_cores = num(r, "cpu_quota_cores");
  p.mem_limit = num(r, "mem_limit");
  p.loop = decode_loop(r);
  p.loop_threads = entries(r, "loop_threads", decode_proc_thread);
  return p;
}

json encode(const LoadConfig& r) {
  return {{"url", r.url},
          {"method", r.method},
          {"connections", r.connections},
          {"threads", r.threads},
          {"pipelining", r.pipelining},
          {"rate", r.rate},
          {"duration_s", r.duration_s},
          {"timeout_s", r.timeout_s}};
}

LoadConfig decode_load_config(const json& c) {
  auto integer = [&](const char* key) { return opt_int(c, key).value_or(0); };
  return {str(c, "url"),        str(c, "method"),   integer("connections"),
          integer("threads"),   integer("pipelining"), num(c, "rate"),
          num(c, "duration_s"), num(c, "timeout_s")};
}

namespace {

std::optional<LoadConfig> config_of(const json& r) {
  auto it = r.find("config");
  if (it == r.end() || !it->is_object()) return std::nullopt;
  return decode_load_config(*it);
}

}  // namespace

json encode(const LoadStart& r) {
  json j = record(Type::kLoadStart, r.t);
  j["kind"] = r.kind;
  j["command"] = r.command;
  if (r.config) j["config"] = encode(*r.config);
  return j;
}

LoadStart decode_load_start(const json& r) {
  return {num(r, "t"), str(r, "kind"), str(r, "command"), config_of(r)};
}

json encode(const LoadSecond& r) {
  json j = with_type(Type::kLoad, encode_fields(r));
  j["t"] = r.t;
  return j;
}

json encode_fields(const LoadSecond& r) {
  json j;
  j["second"] = static_cast<int>(r.second);
  j["interval_s"] = r.interval_s;
  j["requests"] = count(r.requests);
  j["bytes"] = count(r.bytes);
  j["errors"] = count(r.errors);
  j["non_2xx"] = count(r.non_2xx);
  j["latency_ms"] = encode_latency(r.p50, r.p90, r.p99, r.max, std::nullopt);
  return j;
}

LoadSecond decode_load_second(const json& r) {
  LoadSecond l;
  l.t = num(r, "t");
  l.second = num(r, "second");
  l.interval_s = num(r, "interval_s");
  l.requests = num(r, "requests");
  l.bytes = num(r, "bytes");
  l.errors = num(r, "errors");
  l.non_2xx = num(r, "non_2xx");
  const json& lat = obj(r, "latency_ms");
  l.p50 = num(lat, "p50");
  l.p90 = num(lat, "p90");
  l.p99 = num(lat, "p99");
  l.max = num(lat, "max");
  return l;
}

json encode_latency(double p50, double p90, double p99, double max,
                    const std::optional<LoadLatencyDetail>& detail) {
  json j = {{"p50", p50}, {"p90", p90}, {"p99", p99}, {"max", max}};
  if (detail) {
    j["min"] = detail->min;
    j["p2_5"] = detail->p2_5;
    j["p97_5"] = detail->p97_5;
    j["p999"] = detail->p999;
    j["mean"] = detail->mean;
    j["stdev"] = detail->stdev;
  }
  return j;
}

double LoadSummary::non_2xx_by_status() const {
  double n = 0;
  for (const auto& [code, responses] : status)
    if (code.empty() || code[0] != '2') n += responses;
  return n;
}

json encode(const LoadSummary& r) {
  json j = with_type(Type::kLoadSummary, encode_fields(r));
  j["t"] = r.t;
  return j;
}

json encode_fields(const LoadSummary& r) {
  json status = json::object();
  for (const auto& [code, responses] : r.status) status[code] = count(responses);
  const LoadErrors& e = r.errors;
  json j;
  j["requests"] = count(r.requests);
  j["sent"] = count(r.sent);
  j["duration_s"] = r.duration_s;
  j["rps"] = r.rps;
  j["bytes"] = count(r.bytes);
  j["latency_ms"] = encode_latency(r.p50, r.p90, r.p99, r.max, r.latency_detail);
  j["errors"] = {{"connect", count(e.connect)}, {"read", count(e.read)},
                 {"write", count(e.write)},     {"timeout", count(e.timeout)},
                 {"parse", count(e.parse)}};
  j["status"] = std::move(status);
  j["non_2xx"] = count(r.non_2xx);
  if (r.rate) {
    j["rate"] = *r.rate;
    j["rate_not_met"] = r.rate_not_met;
  }
  if (r.config) j["config"] = encode(*r.config);
  return j;
}

namespace {

LoadErrors decode_load_errors(const json& r) {
  LoadErrors e;
  auto it = r.find("errors");
  if (it == r.end()) return e;
  if (it->is_number()) {
    e.unclassified = num(r, "errors");
  } else if (it->is_object()) {
    e.connect = num(*it, "connect");
    e.read = num(*it, "read");
    e.write = num(*it, "write");
    e.timeout = num(*it, "timeout");
    e.parse = num(*it, "parse");
    // Classes this version does not know still count towards the total.
    for (const auto& [k, v] : it->items())
      if (v.is_number() && k != "connect" && k != "read" && k != "write" && k != "timeout" &&
          k != "parse")
        e.unclassified += v.get<double>();
  }
  return e;
}

std::optional<LoadLatencyDetail> decode_latency_detail(const json& lat) {
  if (!lat.contains("mean") && !lat.contains("min")) return std::nullopt;
  return LoadLatencyDetail{num(lat, "min"),  num(lat, "p2_5"), num(lat, "p97_5"),
                           num(lat, "p999"), num(lat, "mean"), num(lat, "stdev")};
}

}  // namespace

LoadSummary decode_load_summary(const json& r) {
  LoadSummary s;
  s.t = num(r, "t");
  s.requests = num(r, "requests");
  s.sent = num(r, "sent");
  s.duration_s = num(r, "duration_s");
  s.rps = num(r, "rps");
  s.bytes = num(r, "bytes");
  const json& lat = obj(r, "latency_ms");
  s.p50 = num(lat, "p50");
  s.p90 = num(lat, "p90");
  s.p99 = num(lat, "p99");
  s.max = num(lat, "max");
  s.latency_detail = decode_latency_detail(lat);
  s.errors = decode_load_errors(r);
  for (const auto& [k, v] : obj(r, "status").items())
    if (v.is_number()) s.status[k] = v.get<double>();
  s.non_2xx = num(r, "non_2xx");
  s.rate = opt_num(r, "rate");
  s.rate_not_met = flag(r, "rate_not_met");
  s.config = config_of(r);
  return s;
}

json encode(const LoadEnd& r) {
  json j = record(Type::kLoadEnd, r.t);
  j["exit_code"] = or_null(r.exit_code);
  if (r.signal) j["signal"] = *r.signal;
  if (r.stopped_by_loopdoctor) j["stopped_by_loopdoctor"] = *r.stopped_by_loopdoctor;
  return j;
}

LoadEnd decode_load_end(const json& r) {
  LoadEnd e;
  e.t = num(r, "t");
  e.exit_code = opt_int(r, "exit_code");
  e.signal = opt_str(r, "signal");
  if (auto it = r.find("stopped_by_loopdoctor"); it != r.end() && it->is_boolean())
    e.stopped_by_loopdoctor = it->get<bool>();
  return e;
}

json encode(const Exit& r) {
  json j = record(Type::kExit, r.t);
  j["code"] = or_null(r.code);
  j["signal"] = or_null(r.signal);
  j["stopped_by_loopdoctor"] = r.stopped_by_loopdoctor;
  encode_loop(r.loop, &j);
  if (!r.oom.empty()) j["oom"] = r.oom;
  if (r.heap_limit_mb > 0) j["heap_limit_mb"] = r.heap_limit_mb;
  return j;
}

Exit decode_exit(const json& r) {
  return {num(r, "t"), opt_int(r, "code"), opt_str(r, "signal"), flag(r, "stopped_by_loopdoctor"),
          decode_loop(r), opt_str(r, "oom").value_or(""), num(r, "heap_limit_mb")};
}

json encode(const Interrupt& r) {
  json j = record(Type::kInterrupt, r.t);
  j["signal"] = r.signal;
  return j;
}

Interrupt decode_interrupt(const json& r) { return {num(r, "t"), str(r, "signal")}; }

json encode(const Detach& r) {
  json j = record(Type::kDetach, r.t);
  if (!r.reason.empty()) j["reason"] = r.reason;
  return j;
}

Detach decode_detach(const json& r) { return {num(r, "t"), str(r, "reason")}; }

json encode(const AttachInfo& r) {
  return {{"host_pid", r.host_pid}, {"ns_pid", r.ns_pid}, {"container", r.container}, {"inspector_port", r.inspector_port},
          {"inspector_was_open", r.inspector_was_open}};
}

json encode(const Warning& r) {
  json j = record(Type::kWarning, r.t);
  j["text"] = r.text;
  return j;
}

Warning decode_warning(const json& r) { return {num(r, "t"), str(r, "text")}; }

}  // namespace loopdoctor::recording
