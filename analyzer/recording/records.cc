#include "analyzer/recording/records.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>

namespace loopdoctor::recording {
namespace {

using nlohmann::json;

double num(const json& j, const char* key, double fallback = 0) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return fallback;
  double v = it->get<double>();
  return std::isfinite(v) ? v : fallback;
}

std::optional<double> opt_num(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  double v = it->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<std::string> opt_str(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<int> opt_int(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int>();
}

bool flag(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

const json& obj(const json& j, const char* key) {
  static const json kEmpty = json::object();
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kEmpty;
}

std::vector<std::string> strings(const json& j, const char* key) {
  std::vector<std::string> out;
  if (auto it = j.find(key); it != j.end() && it->is_array())
    for (const auto& a : *it)
      if (a.is_string()) out.push_back(a.get<std::string>());
  return out;
}

// Counts were always written as JSON integers; keep them so.
json count(double v) { return static_cast<std::uint64_t>(std::max(0.0, v)); }

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json record(Type type, double t) { return {{"type", type_name(type)}, {"t", t}}; }


constexpr std::pair<std::string_view, Type> kTypeNames[] = {
    {"sample", Type::kSample},     {"proc", Type::kProc},
    {"gc", Type::kGc},             {"load", Type::kLoad},
    {"meta", Type::kMeta},         {"hello", Type::kHello},
    {"listen", Type::kListen},     {"profile", Type::kProfile},
    {"bye", Type::kBye},           {"load-start", Type::kLoadStart},
    {"load-summary", Type::kLoadSummary}, {"load-end", Type::kLoadEnd},
    {"exit", Type::kExit},         {"interrupt", Type::kInterrupt},
    {"warning", Type::kWarning}};

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
    case Type::kExit: case Type::kLoadSummary: case Type::kInterrupt:
      return true;
    default:
      return false;
  }
}

std::string to_line(const json& record) {
  return record.dump(-1, ' ', false, json::error_handler_t::replace);
}

// ---- meta ----------------------------------------------------------------
json encode(const Meta& r) {
  return {{"type", type_name(Type::kMeta)}, {"format", r.format},
          {"loopdoctor_version", r.loopdoctor_version},
          {"command", r.command},    {"start_time", r.start_time},
          {"host", r.host},          {"interval_ms", r.interval_ms},
          {"pid", r.pid}};
}

Meta decode_meta(const json& r) {
  Meta m;
  m.format = static_cast<int>(num(r, "format", 0));
  m.loopdoctor_version = str(r, "loopdoctor_version");
  m.command = strings(r, "command");
  m.start_time = str(r, "start_time");
  m.host = str(r, "host");
  m.interval_ms = num(r, "interval_ms");
  m.pid = opt_int(r, "pid").value_or(0);
  return m;
}

// ---- probe messages --------------------------------------------------------
json encode(const Hello& r) {
  json j = record(Type::kHello, r.t);
  j["pid"] = r.pid;
  if (!r.runtime.empty()) j["runtime"] = r.runtime;
  j["versions"] = r.versions;
  j["argv"] = r.argv;
  if (r.interval_ms) j["interval_ms"] = *r.interval_ms;
  j["heap_limit"] = r.heap_limit;
  return j;
}

Hello decode_hello(const json& r) {
  Hello h;
  h.t = num(r, "t");
  h.pid = num(r, "pid");
  h.runtime = str(r, "runtime");
  for (const auto& [k, v] : obj(r, "versions").items())
    if (v.is_string()) h.versions[k] = v.get<std::string>();
  h.argv = strings(r, "argv");
  h.interval_ms = opt_num(r, "interval_ms");
  h.heap_limit = num(r, "heap_limit");
  return h;
}

json encode(const Listen& r) {
  json j = record(Type::kListen, r.t);
  if (r.port) j["port"] = *r.port;
  j["address"] = r.address;
  return j;
}

Listen decode_listen(const json& r) { return {num(r, "t"), opt_int(r, "port"), str(r, "address")}; }

json encode(const Sample& r) {
  const DelayStats& d = r.delay;
  json j = record(Type::kSample, r.t);
  j["interval_ms"] = r.interval;
  j["delay"] = {{"min", d.min}, {"mean", d.mean}, {"max", d.max}, {"p50", d.p50},
                {"p90", d.p90}, {"p99", d.p99},   {"count", d.count}};
  j["elu"] = r.elu;
  j["cpu"] = {{"user_us", r.cpu_user_us}, {"system_us", r.cpu_system_us}};
  j["mem"] = {{"rss", r.rss}, {"heap_used", r.heap_used}, {"heap_total", r.heap_total},
              {"external", r.external}, {"array_buffers", r.array_buffers}};
  json by_type = json::object();
  for (const auto& [k, v] : r.handles_by_type) by_type[k] = v;
  j["handles"] = {{"total", r.handles_total}, {"by_type", by_type}};
  if (r.http.present)
    j["http"] = {{"requests", r.http.requests}, {"responses", r.http.responses},
                 {"inflight", r.http.inflight}, {"latency_mean_ms", r.http.latency_mean_ms},
                 {"latency_max_ms", r.http.latency_max_ms}};
  return j;
}

Sample decode_sample(const json& r, double default_interval_ms) {
  Sample s;
  s.t = num(r, "t");
  s.interval = num(r, "interval_ms", default_interval_ms);
  const json& d = obj(r, "delay");
  s.delay = {num(d, "min"), num(d, "mean"), num(d, "max"), num(d, "p50"),
             num(d, "p90"), num(d, "p99"), num(d, "count")};
  s.elu = std::clamp(num(r, "elu"), 0.0, 1.0);
  const json& c = obj(r, "cpu");
  s.cpu_user_us = num(c, "user_us");
  s.cpu_system_us = num(c, "system_us");
  const json& m = obj(r, "mem");
  s.rss = num(m, "rss");
  s.heap_used = num(m, "heap_used");
  s.heap_total = num(m, "heap_total");
  s.external = num(m, "external");
  s.array_buffers = num(m, "array_buffers");
  const json& h = obj(r, "handles");
  s.handles_total = num(h, "total");
  for (const auto& [k, v] : obj(h, "by_type").items())
    if (v.is_number()) s.handles_by_type[k] = v.get<double>();
  if (auto it = r.find("http"); it != r.end() && it->is_object()) {
    s.http.present = true;
    s.http.requests = num(*it, "requests");
    s.http.responses = num(*it, "responses");
    s.http.inflight = num(*it, "inflight");
    s.http.latency_mean_ms = num(*it, "latency_mean_ms");
    s.http.latency_max_ms = num(*it, "latency_max_ms");
  }
  return s;
}

json encode(const Gc& r) {
  json j = record(Type::kGc, r.t);
  j["kind"] = r.kind;
  j["duration_ms"] = r.duration_ms;
  if (r.heap_after > 0) j["heap_after"] = r.heap_after;
  return j;
}

Gc decode_gc(const json& r) {
  return {num(r, "t"), str(r, "kind"), num(r, "duration_ms"), num(r, "heap_after")};
}

json encode(const Profile& r) {
  json j = record(Type::kProfile, r.t);
  if (!r.profile.is_null()) j["profile"] = r.profile;
  if (r.error) j["error"] = *r.error;
  return j;
}

Profile decode_profile(const json& r) {
  Profile p;
  p.t = num(r, "t");
  if (auto it = r.find("profile"); it != r.end() && it->is_object()) p.profile = *it;
  p.error = opt_str(r, "error");
  return p;
}

json encode(const Bye& r) { return record(Type::kBye, r.t); }
Bye decode_bye(const json& r) { return {num(r, "t")}; }

// ---- collector records -----------------------------------------------------
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
  return p;
}

json encode(const LoadStart& r) {
  json j = record(Type::kLoadStart, r.t);
  j["kind"] = r.kind;
  j["command"] = r.command;
  return j;
}

LoadStart decode_load_start(const json& r) { return {num(r, "t"), str(r, "kind"), str(r, "command")}; }

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
  return j;
}

Exit decode_exit(const json& r) {
  return {num(r, "t"), opt_int(r, "code"), opt_str(r, "signal"), flag(r, "stopped_by_loopdoctor")};
}

json encode(const Interrupt& r) {
  json j = record(Type::kInterrupt, r.t);
  j["signal"] = r.signal;
  return j;
}

Interrupt decode_interrupt(const json& r) { return {num(r, "t"), str(r, "signal")}; }

json encode(const Warning& r) {
  json j = record(Type::kWarning, r.t);
  j["text"] = r.text;
  return j;
}

Warning decode_warning(const json& r) { return {num(r, "t"), str(r, "text")}; }

}  // namespace loopdoctor::recording
