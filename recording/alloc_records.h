// The probe's allocation sampling (docs/contracts.md "Memory by site:
// allocation sampling"): `alloc` lines, each a phase's flattened V8
// sampling-heap-profile tree, and the answer to a heap snapshot request.
// Included by records.h; encoders and decoders in alloc_records.cc.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace loopdoctor::recording {

// One frame of V8's allocation tree with the bytes sampled in it.
struct AllocNode {
  double id = 0;
  double parent = 0;      // 0: a child of the tree's root
  std::string function;   // "fn": V8's name; "" for an anonymous function
  std::string url;        // a path, file:// URL or node: URL; "" for native
  int line = 0, column = 0;  // where the function is defined, 1-based; 0: unknown
  double self = 0;        // V8's estimate of the bytes allocated in this frame itself
  // Of `self`, the bytes sampled before the line's `kept_since` and still
  // alive: what survived the collections since (0 on lines without it).
  double kept = 0;
  bool operator==(const AllocNode&) const = default;
};

// What an `alloc` line's bytes are: everything allocated in the phase (those
// the collections freed included), or what of it is still alive at `t`.
enum class AllocMode { kChurn, kLive };

struct Alloc {
  double t = 0;      // end of the phase (churn) or the point (live), probe clock
  double since = 0;  // the phase's start, probe clock
  // A live point after the phase's first: that earlier point's time, which
  // the nodes' `kept` bytes were sampled before. Absent from older probes'
  // lines and from a phase's first point.
  std::optional<double> kept_since;
  AllocMode mode = AllocMode::kChurn;  // an unknown mode reads as churn
  bool mode_known = false;  // "mode" was "churn" or "live": a line of another is not read
  double interval_bytes = 0;
  double total_bytes = 0;    // every node's `self` before the smallest were dropped
  double dropped_bytes = 0;  // the dropped nodes' bytes
  std::vector<AllocNode> nodes;  // at most kMaxAllocNodes
  bool operator==(const Alloc&) const = default;
};

// Nodes read from one line: the line is under the protocol's 1 MiB and a
// node takes at least ~60 bytes of it, so a line with more is damaged or
// hostile, not a bigger tree.
inline constexpr std::size_t kMaxAllocNodes = 20000;

// The answer to `heap-snapshot-take`: the file written, or why not.
struct HeapSnapshot {
  double t = 0;
  std::string path;
  double bytes = 0;
  double pause_ms = 0;  // how long the process stood still while V8 wrote it
  std::string error;    // "" when written
  std::string skipped;  // --heap-snapshot=on-growth: why none was taken ("" when it was, or failed)
  bool operator==(const HeapSnapshot&) const = default;
};

const char* to_string(AllocMode m);  // "churn", "live"

nlohmann::json encode(const Alloc& r);
Alloc decode_alloc(const nlohmann::json& r);
nlohmann::json encode(const HeapSnapshot& r);
HeapSnapshot decode_heap_snapshot(const nlohmann::json& r);

}  // namespace loopdoctor::recording
