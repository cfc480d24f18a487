// GC pauses from V8's own callbacks (Isolate::AddGCPrologueCallback /
// AddGCEpilogueCallback): the exact pause of every collection, its kind and
// the heap used when it ended, sent as `gc` lines through the probe's one
// writer the moment the collection ends. Replaces the JS probe's
// PerformanceObserver (delivered later, from an immediate, so lost or late
// when the loop blocks) and its GCProfiler fallback.
//
// JS thread only: install/enable/disable are called from JS, and V8 runs the
// callbacks on the thread that collects. One instance per process (the main
// isolate), never freed: a collection during exit may still call it.
#pragma once

#include <cstdint>

#include "gc_core.h"
#include "line_writer.h"

namespace v8 {
class Isolate;
}

namespace loopdoctor::probe {

class GcHooks {
 public:
  GcHooks(LineWriter* writer, uint64_t t0_ns) : writer_(writer), t0_ns_(t0_ns) {}
  // Adds the callbacks to the current isolate, or removes them: a probe
  // that is not sampling costs V8 nothing per collection. False when there
  // is no isolate on this thread.
  bool enable();
  void disable();
  // V8's callbacks (gc_hooks.cc) land here; `type` is V8's GCType.
  void prologue(int type);
  void epilogue(v8::Isolate* isolate, int type);

 private:

  LineWriter* const writer_;
  const uint64_t t0_ns_;
  v8::Isolate* isolate_ = nullptr;
  bool enabled_ = false;
  GcPauses pauses_;
};

}  // namespace loopdoctor::probe
