// GC pauses from V8's prologue/epilogue callbacks, the pure part: the kind
// of a collection from V8's GCType bits, the pause of each kind (the
// callbacks of a weak-callback pass can run inside a full collection's, so
// each kind keeps its own start), and the protocol's `gc` line. No V8 here:
// gc_hooks.cc checks that these numbers are V8's.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace loopdoctor::probe {

// v8::GCType (v8-callbacks.h). Bit 1 is kGCTypeMinorMarkCompact in V8 11
// (Node 20) and kGCTypeMinorMarkSweep from V8 12 (Node 22): same bit, two names.
inline constexpr int kV8GcScavenge = 1 << 0;
inline constexpr int kV8GcMinorMark = 1 << 1;
inline constexpr int kV8GcMarkSweepCompact = 1 << 2;
inline constexpr int kV8GcIncrementalMarking = 1 << 3;
inline constexpr int kV8GcProcessWeakCallbacks = 1 << 4;

enum class GcKind { kMinor, kMajor, kIncremental, kWeak, kCount };

// The kind of a callback's GCType (one bit set); kCount for anything else.
GcKind gc_kind(int v8_gc_type);
// The protocol's name: minor|major|incremental|weak (as the JS probe's).
const char* gc_kind_name(GcKind k);

// Pauses, prologue to epilogue, per kind. JS thread only (V8 calls both
// callbacks on the thread that collects).
class GcPauses {
 public:
  void begin(GcKind k, uint64_t now_ns);
  // The pause's start (ns) and length, or false for an epilogue without
  // its prologue (the hooks were installed in between).
  bool end(GcKind k, uint64_t now_ns, uint64_t* start_ns, uint64_t* duration_ns);

 private:
  std::array<uint64_t, static_cast<std::size_t>(GcKind::kCount)> start_ns_{};
};

// One `gc` line with its newline: t and duration_ms in ms (three decimals),
// heap_after (bytes) only when non-zero.
std::string gc_line(double t_ms, GcKind k, double duration_ms, uint64_t heap_after);

}  // namespace loopdoctor::probe
