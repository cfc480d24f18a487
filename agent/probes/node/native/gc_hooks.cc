#include "gc_hooks.h"

#include <uv.h>
#include <v8.h>

namespace loopdoctor::probe {

static_assert(kV8GcScavenge == v8::kGCTypeScavenge);
static_assert(kV8GcMarkSweepCompact == v8::kGCTypeMarkSweepCompact);
static_assert(kV8GcIncrementalMarking == v8::kGCTypeIncrementalMarking);
static_assert(kV8GcProcessWeakCallbacks == v8::kGCTypeProcessWeakCallbacks);

namespace {
void on_prologue(v8::Isolate*, v8::GCType type, v8::GCCallbackFlags, void* data) {
  static_cast<GcHooks*>(data)->prologue(static_cast<int>(type));
}

void on_epilogue(v8::Isolate* isolate, v8::GCType type, v8::GCCallbackFlags, void* data) {
  static_cast<GcHooks*>(data)->epilogue(isolate, static_cast<int>(type));
}
}  // namespace

bool GcHooks::enable() {
  if (enabled_) return true;
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  if (isolate == nullptr || (isolate_ != nullptr && isolate != isolate_)) return false;
  isolate_ = isolate;
  pauses_ = {};
  isolate_->AddGCPrologueCallback(on_prologue, this);
  isolate_->AddGCEpilogueCallback(on_epilogue, this);
  enabled_ = true;
  return true;
}

void GcHooks::disable() {
  if (!enabled_) return;
  isolate_->RemoveGCPrologueCallback(on_prologue, this);
  isolate_->RemoveGCEpilogueCallback(on_epilogue, this);
  enabled_ = false;
}

void GcHooks::prologue(int type) { pauses_.begin(gc_kind(type), uv_hrtime()); }

// GetHeapStatistics walks V8's ~10 spaces and reads their counters: 1.4 us
// a call measured through v8.getHeapStatistics() from JS (an upper bound:
// it adds the binding and a JS array), on a machine where the same
// scavenges took 5-18 ms (0.3-2 ms when idle). Cheap enough for every
// collection to carry heap_after, not only the full ones.
void GcHooks::epilogue(v8::Isolate* isolate, int type) {
  const uint64_t now = uv_hrtime();
  const GcKind k = gc_kind(type);
  uint64_t start = 0, duration = 0;
  if (!pauses_.end(k, now, &start, &duration) || start < t0_ns_) return;
  v8::HeapStatistics hs;
  isolate->GetHeapStatistics(&hs);
  writer_->append(gc_line(static_cast<double>(start - t0_ns_) / 1e6, k,
                          static_cast<double>(duration) / 1e6, hs.used_heap_size()),
                  false);
}

}  // namespace loopdoctor::probe
