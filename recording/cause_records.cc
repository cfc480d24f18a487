#include "recording/cause_records.h"

#include "recording/json_fields.h"

namespace loopdoctor::recording {

using nlohmann::json;
using namespace fields;

namespace {

json dest_json(const OutboundDest& d) {
  json j = {{"dest", d.dest},
            {"client", d.client},
            {"calls", d.calls},
            {"latency_ms",
             {{"mean", d.latency_mean}, {"p50", d.latency_p50}, {"p90", d.latency_p90}, {"max", d.latency_max}}}};
  if (d.has_pool) {
    j["sockets"] = {{"mean", d.sockets_mean}, {"max", d.sockets_max}};
    j["waiting"] = {{"mean", d.waiting_mean}, {"max", d.waiting_max}};
    if (d.pool_max > 0) j["pool_max"] = d.pool_max;
    if (!d.driver.empty()) j["driver"] = d.driver;
  }
  return j;
}

OutboundDest decode_dest(const json& j) {
  OutboundDest d;
  d.dest = str(j, "dest");
  d.client = str(j, "client");
  d.calls = num(j, "calls");
  const json& lat = obj(j, "latency_ms");
  d.latency_mean = num(lat, "mean"), d.latency_p50 = num(lat, "p50");
  d.latency_p90 = num(lat, "p90"), d.latency_max = num(lat, "max");
  d.has_pool = j.contains("sockets");
  d.sockets_mean = num(obj(j, "sockets"), "mean"), d.sockets_max = num(obj(j, "sockets"), "max");
  d.waiting_mean = num(obj(j, "waiting"), "mean"), d.waiting_max = num(obj(j, "waiting"), "max");
  d.pool_max = num(j, "pool_max");
  d.driver = str(j, "driver");
  return d;
}

}  // namespace

json encode(const Outbound& r) {
  json j = record(Type::kOutbound, r.t);
  j["interval_ms"] = r.interval_ms;
  j["destinations"] = entries_json(r.destinations, dest_json);
  if (r.destinations_dropped > 0) j["destinations_dropped"] = r.destinations_dropped;
  return j;
}

Outbound decode_outbound(const json& r) {
  return {num(r, "t"), num(r, "interval_ms"), entries(r, "destinations", decode_dest, kMaxOutboundDestinations),
          num(r, "destinations_dropped")};
}

json encode(const Threadpool& r) {
  json j = record(Type::kThreadpool, r.t);
  j["interval_ms"] = r.interval_ms;
  j["size"] = r.size;
  j["probes"] = r.probes;
  j["wait_ms"] = {{"mean", r.wait_mean}, {"p50", r.wait_p50}, {"max", r.wait_max}};
  return j;
}

Threadpool decode_threadpool(const json& r) {
  Threadpool p;
  p.t = num(r, "t");
  p.interval_ms = num(r, "interval_ms");
  p.size = num(r, "size");
  p.probes = num(r, "probes");
  const json& w = obj(r, "wait_ms");
  p.wait_mean = num(w, "mean"), p.wait_p50 = num(w, "p50"), p.wait_max = num(w, "max");
  return p;
}

namespace {

json warning_json(const ProcessWarning& w) {
  json j = {{"name", w.name}, {"message", w.message}, {"count", count(w.count)}, {"first_t", w.first_t}};
  if (!w.code.empty()) j["code"] = w.code;
  if (w.frame.line > 0)
    j["frame"] = {{"function", w.frame.function}, {"url", w.frame.url}, {"line", count(w.frame.line)},
                  {"column", count(w.frame.column)}};
  return j;
}

ProcessWarning decode_warning_entry(const json& j) {
  ProcessWarning w;
  w.name = str(j, "name"), w.message = str(j, "message"), w.code = str(j, "code");
  w.count = num(j, "count"), w.first_t = num(j, "first_t");
  const json& f = obj(j, "frame");
  w.frame = {str(f, "function"), str(f, "url"), num(f, "line"), num(f, "column")};
  return w;
}

}  // namespace

json encode(const ProcessWarnings& r) {
  json j = record(Type::kProcessWarnings, r.t);
  j["interval_ms"] = r.interval_ms;
  j["warnings"] = entries_json(r.warnings, warning_json);
  if (r.dropped > 0) j["dropped"] = count(r.dropped);
  return j;
}

ProcessWarnings decode_process_warnings(const json& r) {
  return {num(r, "t"), num(r, "interval_ms"), entries(r, "warnings", decode_warning_entry, kMaxWarningsPerLine),
          num(r, "dropped")};
}

}  // namespace loopdoctor::recording
