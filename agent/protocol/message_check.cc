#include "agent/protocol/message_check.h"

#include <cmath>
#include <initializer_list>

#include "agent/protocol/block_limits.h"
// The bounds of `outbound` and `process-warnings` lines, shared with their decoders
// (header-only: the protocol library links no recording code).
#include "recording/alloc_records.h"
#include "recording/cause_records.h"

namespace loopdoctor::protocol {
namespace {

using nlohmann::json;

// A number field's problem, or "" when absent or a finite number.
std::string check_number(const json& parent, const char* key, const std::string& where) {
  auto it = parent.find(key);
  if (it == parent.end() || it->is_null()) return "";
  if (!it->is_number()) return where + key + " is a " + it->type_name() + ", expected a number";
  if (!std::isfinite(it->get<double>())) return where + key + " is not a finite number";
  return "";
}

std::string check_numbers(const json& parent, std::initializer_list<const char*> keys,
                          const std::string& where) {
  for (const char* k : keys)
    if (auto e = check_number(parent, k, where); !e.empty()) return e;
  return "";
}

// An optional object field: its problem, or "" (and *out set when present).
std::string check_object(const json& parent, const char* key, const std::string& where,
                         const json** out) {
  *out = nullptr;
  auto it = parent.find(key);
  if (it == parent.end() || it->is_null()) return "";
  if (!it->is_object()) return where + key + " is a " + it->type_name() + ", expected an object";
  *out = &*it;
  return "";
}

std::string check_string(const json& parent, const char* key, const std::string& where,
                         std::size_t max_bytes) {
  auto it = parent.find(key);
  if (it == parent.end() || it->is_null()) return "";
  if (!it->is_string()) return where + key + " is a " + it->type_name() + ", expected a string";
  if (it->get_ref<const std::string&>().size() > max_bytes)
    return where + key + " is longer than " + std::to_string(max_bytes) + " bytes";
  return "";
}

std::string check_hello(const json& m, const LabelBounds& bounds) {
  const std::string w = "hello field ";
  auto pid = m.find("pid");
  if (pid == m.end() || !pid->is_number_integer() || pid->get<long long>() <= 0 ||
      pid->get<long long>() > (1LL << 31))
    return "hello has no pid, or it is not a positive integer";
  for (const char* k : {"runtime", "job"})
    if (auto e = check_string(m, k, w, bounds.max_label_bytes); !e.empty()) return e;
  if (auto e = check_numbers(m, {"interval_ms", "heap_limit", "v"}, w); !e.empty()) return e;
  if (auto it = m.find("argv"); it != m.end() && !it->is_null()) {
    if (!it->is_array()) return w + "argv is a " + std::string(it->type_name()) + ", expected an array";
    for (const auto& a : *it)
      if (!a.is_string()) return w + "argv holds a " + std::string(a.type_name()) + ", expected strings";
  }
  const json* versions = nullptr;
  if (auto e = check_object(m, "versions", w, &versions); !e.empty()) return e;
  return "";
}

std::string check_sample(const json& m, const LabelBounds& bounds) {
  const std::string w = "sample field ";
  if (auto e = check_numbers(m, {"elu", "interval_ms", "dropped"}, w); !e.empty()) return e;
  const json* o = nullptr;
  if (auto e = check_object(m, "delay", w, &o); !e.empty()) return e;
  if (o) {
    if (auto e = check_numbers(*o, {"min", "mean", "max", "p50", "p90", "p99", "count"}, w + "delay.");
        !e.empty())
      return e;
  }
  if (auto e = check_object(m, "cpu", w, &o); !e.empty()) return e;
  if (o) {
    if (auto e = check_numbers(*o, {"user_us", "system_us"}, w + "cpu."); !e.empty()) return e;
  }
  if (auto e = check_object(m, "mem", w, &o); !e.empty()) return e;
  if (o) {
    if (auto e = check_numbers(*o, {"rss", "heap_used", "heap_total", "external", "array_buffers"},
                               w + "mem.");
        !e.empty())
      return e;
  }
  if (auto e = check_object(m, "http", w, &o); !e.empty()) return e;
  if (o) {
    if (auto e = check_numbers(*o, {"requests", "responses", "inflight", "latency_mean_ms",
                                    "latency_max_ms"},
                               w + "http.");
        !e.empty())
      return e;
  }
  if (auto e = check_object(m, "handles", w, &o); !e.empty()) return e;
  if (o) {
    if (auto e = check_number(*o, "total", w + "handles."); !e.empty()) return e;
    const json* by_type = nullptr;
    if (auto e = check_object(*o, "by_type", w + "handles.", &by_type); !e.empty()) return e;
    if (by_type) {
      // Each type becomes a series; an unbounded set is a cardinality attack.
      if (by_type->size() > bounds.max_handle_types)
        return w + "handles.by_type has " + std::to_string(by_type->size()) +
               " types, over the limit of " + std::to_string(bounds.max_handle_types);
      for (const auto& [k, v] : by_type->items()) {
        if (k.size() > bounds.max_label_bytes)
          return w + "handles.by_type has a type name over " +
                 std::to_string(bounds.max_label_bytes) + " bytes";
        if (!v.is_number())
          return w + "handles.by_type." + k + " is a " + v.type_name() + ", expected a number";
      }
    }
  }
  return "";
}

std::string check_gc(const json& m, const LabelBounds& bounds) {
  if (auto e = check_string(m, "kind", "gc field ", bounds.max_label_bytes); !e.empty()) return e;
  return check_numbers(m, {"duration_ms", "heap_after"}, "gc field ");
}

// A field that must be there: "" when present (its type is checked apart).
std::string check_present(const json& m, std::initializer_list<const char*> keys, const std::string& where) {
  for (const char* k : keys)
    if (auto it = m.find(k); it == m.end() || it->is_null()) return where + k + " is missing";
  return "";
}

// A list field that must be there: an array of at most `max` objects, each
// checked by `check_entry(entry, where)`, `where` naming it ("outbound field
// destinations[3]."). `entries` is what the limit message counts ("frames").
template <class CheckEntry>
std::string check_entries(const json& m, const char* key, const std::string& where, std::size_t max,
                          const char* entries, CheckEntry check_entry) {
  auto it = m.find(key);
  if (it == m.end() || it->is_null()) return where + key + " is missing";
  if (!it->is_array()) return where + key + " is a " + std::string(it->type_name()) + ", expected an array";
  if (it->size() > max)
    return where + key + " has " + std::to_string(it->size()) + " " + entries + ", over the limit of " +
           std::to_string(max);
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& e = (*it)[i];
    const std::string at = where + key + "[" + std::to_string(i) + "]";
    if (!e.is_object()) return at + " is a " + e.type_name() + ", expected an object";
    if (auto err = check_entry(e, at + "."); !err.empty()) return err;
  }
  return "";
}

// A stack frame {function, url, line, column}: a block's or a warning's.
std::string check_frame(const json& f, const std::string& w, std::size_t max_function_bytes,
                        std::size_t max_url_bytes) {
  if (auto e = check_string(f, "function", w, max_function_bytes); !e.empty()) return e;
  if (auto e = check_string(f, "url", w, max_url_bytes); !e.empty()) return e;
  return check_numbers(f, {"line", "column"}, w);
}

// `block` (native probe): the stack of a loop blocked since `start`; "by"
// names who took it ("profile"), a short word.
constexpr std::size_t kMaxBlockByBytes = 16;
// `block` (native probe): the stack of a loop blocked since `start`.
std::string check_block(const json& m) {
  const std::string w = "block field ";
  if (auto e = check_present(m, {"start", "duration_ms", "frames", "in"}, w); !e.empty()) return e;
  if (auto e = check_numbers(m, {"start", "duration_ms", "wait_ms"}, w); !e.empty()) return e;
  if (auto e = check_string(m, "by", w, kMaxBlockByBytes); !e.empty()) return e;
  const json& in = m["in"];
  if (!in.is_string() || (in != "js" && in != "native"))
    return w + "in is " + in.dump() + ", expected \"js\" or \"native\"";
  return check_entries(m, "frames", w, kMaxBlockFrames, "frames", [](const json& f, const std::string& at) {
    return check_frame(f, at, kMaxBlockStringBytes, kMaxBlockStringBytes);
  });
}

// A host:port; a longer one is damage, not a destination.
constexpr std::size_t kMaxDestBytes = 256;

std::string check_destination(const json& d, const std::string& w, const LabelBounds& bounds) {
  if (auto e = check_string(d, "dest", w, kMaxDestBytes); !e.empty()) return e;
  if (auto e = check_string(d, "client", w, bounds.max_label_bytes); !e.empty()) return e;
  if (auto e = check_string(d, "driver", w, bounds.max_label_bytes); !e.empty()) return e;
  if (auto e = check_numbers(d, {"calls", "pool_max"}, w); !e.empty()) return e;
  for (const char* k : {"latency_ms", "sockets", "waiting"}) {
    const json* o = nullptr;
    if (auto e = check_object(d, k, w, &o); !e.empty()) return e;
    if (o) {
      if (auto e = check_numbers(*o, {"mean", "p50", "p90", "max"}, w + k + "."); !e.empty()) return e;
    }
  }
  return "";
}

// `outbound`: calls per destination, at most kMaxOutboundDestinations of them.
std::string check_outbound(const json& m, const LabelBounds& bounds) {
  const std::string w = "outbound field ";
  if (auto e = check_numbers(m, {"interval_ms", "destinations_dropped"}, w); !e.empty()) return e;
  return check_entries(m, "destinations", w, recording::kMaxOutboundDestinations, "entries",
                       [&](const json& d, const std::string& at) { return check_destination(d, at, bounds); });
}

std::string check_threadpool(const json& m) {
  const std::string w = "threadpool field ";
  if (auto e = check_numbers(m, {"interval_ms", "size", "probes"}, w); !e.empty()) return e;
  const json* o = nullptr;
  if (auto e = check_object(m, "wait_ms", w, &o); !e.empty()) return e;
  return o ? check_numbers(*o, {"mean", "p50", "max"}, w + "wait_ms.") : "";
}

std::string check_warning_entry(const json& e, const std::string& w) {
  for (const char* k : {"name", "code"})
    if (auto err = check_string(e, k, w, recording::kMaxWarningNameBytes); !err.empty()) return err;
  if (auto err = check_string(e, "message", w, recording::kMaxWarningMessageBytes); !err.empty()) return err;
  if (auto err = check_numbers(e, {"count", "first_t"}, w); !err.empty()) return err;
  const json* f = nullptr;
  if (auto err = check_object(e, "frame", w, &f); !err.empty() || !f) return err;
  return check_frame(*f, w + "frame.", recording::kMaxWarningNameBytes, recording::kMaxWarningUrlBytes);
}

// `process-warnings`: the target's warnings in the interval, at most
// kMaxWarningsPerLine of them, each string bounded.
std::string check_process_warnings(const json& m) {
  const std::string w = "process-warnings field ";
  if (auto e = check_numbers(m, {"interval_ms", "dropped"}, w); !e.empty()) return e;
  return check_entries(m, "warnings", w, recording::kMaxWarningsPerLine, "entries", check_warning_entry);
}

// `alloc` (allocation sampling, docs/contracts.md "Memory by site"): a
// phase's flattened allocation tree. A name or URL is the probe's, uncut
// (a deep node_modules path, an eval'd function's name): PATH_MAX bounds it.
constexpr std::size_t kMaxAllocModeBytes = 16;
constexpr std::size_t kMaxAllocStringBytes = 4096;

std::string check_alloc(const json& m) {
  const std::string w = "alloc field ";
  if (auto e = check_present(m, {"since", "mode", "nodes"}, w); !e.empty()) return e;
  if (auto e = check_numbers(m, {"since", "kept_since", "interval_bytes", "total_bytes", "dropped_bytes", "read_ms"}, w);
      !e.empty())
    return e;
  if (auto e = check_string(m, "mode", w, kMaxAllocModeBytes); !e.empty()) return e;
  return check_entries(m, "nodes", w, recording::kMaxAllocNodes, "nodes", [](const json& n, const std::string& at) {
    if (auto e = check_string(n, "fn", at, kMaxAllocStringBytes); !e.empty()) return e;
    if (auto e = check_string(n, "url", at, kMaxAllocStringBytes); !e.empty()) return e;
    return check_numbers(n, {"id", "parent", "line", "column", "self", "kept"}, at);
  });
}

}  // namespace

std::string check_message(const json& m, const LabelBounds& bounds) {
  if (!m.is_object()) return std::string("a message is a JSON ") + m.type_name() + ", expected an object";
  auto type = m.find("type");
  if (type == m.end() || !type->is_string()) return "a message has no string \"type\"";
  if (auto e = check_number(m, "t", "field "); !e.empty()) return e;
  const auto& t = type->get_ref<const std::string&>();
  if (t == "hello") return check_hello(m, bounds);
  if (t == "sample") return check_sample(m, bounds);
  if (t == "gc") return check_gc(m, bounds);
  if (t == "block") return check_block(m);
  if (t == "outbound") return check_outbound(m, bounds);
  if (t == "threadpool") return check_threadpool(m);
  if (t == "process-warnings") return check_process_warnings(m);
  if (t == "alloc") return check_alloc(m);
  return "";
}

}  // namespace loopdoctor::protocol
