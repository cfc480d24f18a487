// The probe's messages as far as loopdoctor reads them (DESIGN.md "Probe
// protocol"): decoders for the timeline and the agent, encoders for tests and
// for a native probe to come. The JS probe writes these lines itself.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "recording/json_fields.h"
#include "recording/records.h"

namespace loopdoctor::recording {

using nlohmann::json;
using namespace fields;

LoopRef decode_loop(const json& r) { return {num(r, "pid"), num(r, "thread")}; }

Envelope decode_envelope(const json& r) {
  auto type = r.find("type");
  if (type == r.end() || !type->is_string()) return {Type::kOther, opt_num(r, "t")};
  return {type_of(type->get_ref<const std::string&>()), opt_num(r, "t")};
}

namespace {

// An id as an integer where it is one (exact_id, records.h).
json id(double v) { return exact_id(v) ? json(static_cast<std::int64_t>(v)) : json(v); }

}  // namespace

void encode_loop(const LoopRef& loop, json* r) {
  if (loop.pid != 0) (*r)["pid"] = id(loop.pid);
  if (loop.thread != 0) (*r)["thread"] = id(loop.thread);
}

json encode(const Hello& r) {
  json j = record(Type::kHello, r.t);
  j["pid"] = r.pid;
  if (!r.runtime.empty()) j["runtime"] = r.runtime;
  j["versions"] = r.versions;
  j["argv"] = r.argv;
  if (r.interval_ms) j["interval_ms"] = *r.interval_ms;
  j["heap_limit"] = r.heap_limit;
  if (!r.probe.empty()) j["probe"] = r.probe;
  if (!r.probe_fallback.empty()) j["probe_fallback"] = r.probe_fallback;
  if (r.thread != 0) j["thread"] = r.thread;
  if (!r.thread_name.empty()) j["thread_name"] = r.thread_name;
  if (r.tid != 0) j["tid"] = r.tid;
  if (r.parent_pid != 0) j["parent_pid"] = r.parent_pid;
  if (!r.process_name.empty()) j["process_name"] = r.process_name;
  if (!r.job.empty()) j["job"] = r.job;
  if (r.attached) j["attached"] = true;
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
  h.probe = str(r, "probe");
  h.probe_fallback = str(r, "probe_fallback");
  h.thread = num(r, "thread");
  h.thread_name = str(r, "thread_name");
  h.tid = num(r, "tid");
  h.parent_pid = num(r, "parent_pid");
  h.process_name = str(r, "process_name");
  h.job = str(r, "job");
  h.attached = flag(r, "attached");
  return h;
}

json encode(const Listen& r) {
  json j = record(Type::kListen, r.t);
  if (r.port) j["port"] = *r.port;
  j["address"] = r.address;
  encode_loop(r.loop, &j);
  return j;
}

Listen decode_listen(const json& r) {
  return {num(r, "t"), opt_int(r, "port"), str(r, "address"), decode_loop(r)};
}

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
  if (r.spaces.present)
    j["spaces"] = {{"new", r.spaces.new_space}, {"old", r.spaces.old_space}, {"code", r.spaces.code},
                   {"large_object", r.spaces.large_object}};
  json by_type = json::object();
  for (const auto& [k, v] : r.handles_by_type) by_type[k] = v;
  j["handles"] = {{"total", r.handles_total}, {"by_type", by_type}};
  if (r.http.present)
    j["http"] = {{"requests", r.http.requests}, {"responses", r.http.responses},
                 {"inflight", r.http.inflight}, {"latency_mean_ms", r.http.latency_mean_ms},
                 {"latency_max_ms", r.http.latency_max_ms}};
  if (r.dropped > 0) j["dropped"] = count(r.dropped);
  encode_loop(r.loop, &j);
  return j;
}

namespace {

// The sample's `spaces`; read inside `mem` too, where a probe that groups
// it with the other heap figures puts it (the top-level one wins).
HeapSpaces decode_spaces(const json& r, const json& mem) {
  for (const json* o : {&r, &mem})
    if (auto it = o->find("spaces"); it != o->end() && it->is_object())
      return {true, num(*it, "new"), num(*it, "old"), num(*it, "code"), num(*it, "large_object")};
  return {};
}

}  // namespace

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
  s.spaces = decode_spaces(r, m);
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
  s.loop = decode_loop(r);
  s.dropped = num(r, "dropped");
  return s;
}

json encode(const Gc& r) {
  json j = record(Type::kGc, r.t);
  j["kind"] = r.kind;
  j["duration_ms"] = r.duration_ms;
  if (r.heap_after > 0) j["heap_after"] = r.heap_after;
  encode_loop(r.loop, &j);
  return j;
}

Gc decode_gc(const json& r) {
  return {num(r, "t"), str(r, "kind"), num(r, "duration_ms"), num(r, "heap_after"), decode_loop(r)};
}

namespace {

json frame_json(const BlockFrame& f) {
  return {{"function", f.function}, {"url", f.url}, {"line", f.line}, {"column", f.column}};
}

BlockFrame decode_frame(const json& f) {
  return {str(f, "function"), str(f, "url"), position(f, "line"), position(f, "column")};
}

}  // namespace

json encode(const Block& r) {
  json j = record(Type::kBlock, r.t);
  j["start"] = r.start;
  j["duration_ms"] = r.duration_ms;
  j["frames"] = entries_json(r.frames, frame_json);
  j["in"] = r.in_native ? "native" : "js";
  if (r.wait_ms >= 0) j["wait_ms"] = r.wait_ms;
  if (r.by_profile) j["by"] = "profile";
  if (r.probe) j["probe"] = true;
  encode_loop(r.loop, &j);
  return j;
}

Block decode_block(const json& r) {
  Block b;
  b.t = num(r, "t");
  b.start = num(r, "start");
  b.duration_ms = num(r, "duration_ms");
  b.in_native = str(r, "in") == "native";
  b.wait_ms = std::max(-1.0, num(r, "wait_ms", -1));
  b.by_profile = str(r, "by") == "profile";
  b.probe = flag(r, "probe");
  b.frames = entries(r, "frames", decode_frame);
  b.loop = decode_loop(r);
  return b;
}

json encode(const Profile& r) {
  json j = record(Type::kProfile, r.t);
  if (!r.profile.is_null()) j["profile"] = r.profile;
  if (r.error) j["error"] = *r.error;
  encode_loop(r.loop, &j);
  return j;
}

Profile decode_profile(const json& r) {
  Profile p;
  p.t = num(r, "t");
  if (auto it = r.find("profile"); it != r.end() && it->is_object()) p.profile = *it;
  p.error = opt_str(r, "error");
  p.loop = decode_loop(r);
  return p;
}

json encode(const Bye& r) {
  json j = record(Type::kBye, r.t);
  if (r.exit_code) j["exit_code"] = *r.exit_code;
  return j;
}

Bye decode_bye(const json& r) { return {num(r, "t"), opt_int(r, "exit_code")}; }

json encode(const ThreadsUnsampled& r) {
  json j = record(Type::kThreadsUnsampled, r.t);
  j["count"] = count(r.count);
  j["limit"] = count(r.limit);
  encode_loop(r.loop, &j);
  return j;
}

ThreadsUnsampled decode_threads_unsampled(const json& r) {
  return {num(r, "t"), num(r, "count"), num(r, "limit"), decode_loop(r)};
}

}  // namespace loopdoctor::recording
