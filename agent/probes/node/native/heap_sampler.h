// Allocation sampling from the addon (lib/alloc.js uses it when the addon
// has it): V8's sampling heap profiler without kSamplingForceGC. Through
// the inspector every live point is read after a forced full collection,
// and a server collected in full every few seconds runs ~50 us a request
// slower at 2000 req/s (bench/probe-overhead); read here, a point costs
// the walk of the samples only, and counts as alive what no collection has
// freed yet. JS thread only; one sampler per isolate (V8's).
#pragma once

#include <node_api.h>

#include <string>

namespace loopdoctor::probe {

// Starts V8's sampler on this thread's isolate, about one allocation in
// every interval_bytes; include_collected keeps the samples of objects the
// collections freed (the churn phase). False when V8 refuses (one runs).
bool heap_sampling_start(double interval_bytes, bool include_collected);

// The profile so far as the inspector's HeapProfiler.SamplingHeapProfile
// ({"head":{"callFrame":{...},"selfSize":N,"children":[...]}}: 0-based
// lineNumber and columnNumber, -1 unknown); "" when not sampling.
std::string heap_sampling_profile();

void heap_sampling_stop();

// Adds allocStart(intervalBytes, includeCollected) -> bool, allocProfile()
// -> JSON text and allocStop() to the addon's exports (lib/alloc.js).
void define_heap_sampler_exports(napi_env env, napi_value exports);

}  // namespace loopdoctor::probe
