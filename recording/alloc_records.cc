#include "recording/alloc_records.h"

#include <cstdint>

#include "recording/json_fields.h"
#include "recording/records.h"

namespace loopdoctor::recording {

using nlohmann::json;
using namespace fields;

const char* to_string(AllocMode m) { return m == AllocMode::kLive ? "live" : "churn"; }

namespace {

// An id as an integer where it is one (exact_id, records.h).
json node_id(double v) { return exact_id(v) ? json(static_cast<std::int64_t>(v)) : json(v); }

json node_json(const AllocNode& n) {
  json j = {{"id", node_id(n.id)}, {"parent", node_id(n.parent)}, {"fn", n.function}, {"url", n.url},
            {"line", n.line},      {"column", n.column},          {"self", count(n.self)}};
  if (n.kept > 0) j["kept"] = count(n.kept);
  return j;
}

AllocNode decode_node(const json& n) {
  return {num(n, "id"),           num(n, "parent"),         str(n, "fn"), str(n, "url"), position(n, "line"),
          position(n, "column"), num(n, "self"), num(n, "kept")};
}

}  // namespace

json encode(const Alloc& r) {
  json j = record(Type::kAlloc, r.t);
  j["since"] = r.since;
  if (r.kept_since) j["kept_since"] = *r.kept_since;
  j["mode"] = to_string(r.mode);
  j["interval_bytes"] = count(r.interval_bytes);
  j["total_bytes"] = count(r.total_bytes);
  j["dropped_bytes"] = count(r.dropped_bytes);
  j["nodes"] = entries_json(r.nodes, node_json);
  return j;
}

Alloc decode_alloc(const json& r) {
  Alloc a;
  a.t = num(r, "t");
  a.since = num(r, "since");
  a.kept_since = opt_num(r, "kept_since");
  const std::string mode = str(r, "mode");
  a.mode = mode == "live" ? AllocMode::kLive : AllocMode::kChurn;
  a.mode_known = mode == "live" || mode == "churn";
  a.interval_bytes = num(r, "interval_bytes");
  a.total_bytes = num(r, "total_bytes");
  a.dropped_bytes = num(r, "dropped_bytes");
  a.nodes = entries(r, "nodes", decode_node, kMaxAllocNodes);
  return a;
}

json encode(const HeapSnapshot& r) {
  json j = record(Type::kHeapSnapshot, r.t);
  j["path"] = r.path;
  if (!r.error.empty()) {
    j["error"] = r.error;
  } else if (!r.skipped.empty()) {
    j["skipped"] = r.skipped;
  } else {
    j["bytes"] = count(r.bytes);
    j["pause_ms"] = r.pause_ms;
  }
  return j;
}

HeapSnapshot decode_heap_snapshot(const json& r) {
  return {num(r, "t"), str(r, "path"), num(r, "bytes"), num(r, "pause_ms"), str(r, "error"), str(r, "skipped")};
}

}  // namespace loopdoctor::recording
