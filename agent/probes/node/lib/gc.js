'use strict';
// GC pauses: one "gc" line per collection, while sampling. With the native
// probe they come from V8's GC callbacks in the addon (native/gc_hooks.h:
// the exact pause and the heap after every collection, sent as it ends);
// otherwise, and described below, from a PerformanceObserver. A full (major) collection's line also carries
// `heap_after`, the heap used the moment it ended: the live heap is only
// visible right after a full collection, and the next sample can come
// hundreds of milliseconds later on a blocked loop, by which time the heap
// holds that much new garbage (measured: post-GC readings of one steady
// server spread 46-92 MB through the next sample, which read as a leak).
const { PerformanceObserver, performance } = require('perf_hooks');
const v8 = require('v8');
const { r3 } = require('./state.js');
const { GC_PROFILER_MAX_PENDING, HEAP_AFTER_MAX_LAG_MS, GC_PROFILER_IDLE_MS } = require('./config.js');

const GC_KINDS = { 1: 'minor', 4: 'major', 8: 'incremental', 16: 'weak' };

// The heap a full collection left, from one of two sources:
// - read when the observer hears of the collection, if it hears soon enough
//   (HEAP_AFTER_MAX_LAG_MS): on a loop that is not stalling this is
//   practically always, and costs one v8.getHeapStatistics() per full
//   collection;
// - from v8.GCProfiler, which V8 fills as each collection ends, whatever the
//   loop is doing. It costs ~30 us for every collection, minor ones
//   included (a JSON record of every heap space, parsed at the harvest),
//   ~0.3-0.5 % of a hello-world server's CPU at ~100 scavenges/s, so it runs
//   only once the observer has been late (the loop stalls: exactly when the
//   first source fails), until it has been on time for GC_PROFILER_IDLE_MS.
//   The stall that turns it on loses its own full collections' heap_after
//   (the analyser then takes the next sample's heap); later ones have it.
function createHeapAfterMajor() {
  const GCProfiler = typeof v8.GCProfiler === 'function' ? v8.GCProfiler : null;  // Node >= 18.15
  let profiler = null;
  let pending = 0;
  let lastLateT = -Infinity;

  function startProfiler() {
    if (profiler || !GCProfiler) return;
    try { profiler = new GCProfiler(); profiler.start(); } catch (_) { profiler = null; }
    pending = 0;
  }

  function stop() {
    if (!profiler) return;
    try { profiler.stop(); } catch (_) { /* gone */ }
    profiler = null;
  }

  // Heap used after each full collection since the last harvest, oldest first.
  function harvest() {
    pending = 0;
    if (!profiler) return [];
    let stats;
    try {
      const r = profiler.stop();
      profiler.start();
      stats = r && r.statistics;
    } catch (_) { stop(); return []; }
    const out = [];
    if (!Array.isArray(stats)) return out;
    for (let i = 0; i < stats.length; i++) {
      const s = stats[i];
      if (s && s.gcType === 'MarkSweepCompact' && s.afterGC && s.afterGC.heapStatistics) {
        out.push(s.afterGC.heapStatistics.usedHeapSize);
      }
    }
    return out;
  }

  // Called with each observer batch (its entries, the kinds found, how many
  // are major): fills heapAfter[i] for the batch's full collections where it
  // is known (undefined elsewhere).
  function forBatch(entries, kinds, majors, heapAfter) {
    const t = performance.now();
    // Late if the oldest of the batch was: the loop stalled after it (the
    // newest can be a scavenge V8 ran between the stall and the delivery).
    const first = entries[0];
    const late = t - (first.startTime + first.duration) > HEAP_AFTER_MAX_LAG_MS;
    if (late) lastLateT = t;
    let fromProfiler = [];
    if (profiler) {
      pending += entries.length;
      if (majors > 0) fromProfiler = harvest();
      else if (pending > GC_PROFILER_MAX_PENDING) harvest();
    }
    // The profiler and the observer see the same collections in the same
    // order, the profiler only those since it started; align from the end,
    // since a collection during the harvest itself is in the observer's
    // next batch but not in the profiler's.
    let k = fromProfiler.length - majors;
    let readNow;
    for (let i = 0; i < entries.length; i++) {
      if (kinds[i] !== 'major') continue;
      if (k >= 0 && k < fromProfiler.length) {
        heapAfter[i] = fromProfiler[k];
      } else if (t - (entries[i].startTime + entries[i].duration) <= HEAP_AFTER_MAX_LAG_MS) {
        // Only the newest major can be this recent; one reading serves.
        if (readNow === undefined) readNow = v8.getHeapStatistics().used_heap_size;
        heapAfter[i] = readNow;
      }
      k++;
    }
    if (late) startProfiler();
    else if (profiler && t - lastLateT > GC_PROFILER_IDLE_MS) stop();
  }

  return { stop, forBatch };
}

function createGcObserver(state, enqueue) {
  const t0 = state.t0;
  let observer = null;
  let nativeOn = false;  // the addon's V8 callbacks send the gc lines
  const heapAfter = createHeapAfterMajor();

  function onEntries(list) {
    try {
      if (!state.finished) emit(list.getEntries());
    } catch (_) { /* never throw */ }
  }

  function emit(entries) {
    try {
      if (!state.connected || entries.length === 0) return;
      const kinds = new Array(entries.length);
      let majors = 0;
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i];
        const kindNum = e.detail ? e.detail.kind : e.kind;  // .kind before Node 16
        kinds[i] = GC_KINDS[kindNum] || 'minor';
        if (kinds[i] === 'major') majors++;
      }
      const after = new Array(entries.length);
      heapAfter.forBatch(entries, kinds, majors, after);
      let out = '';
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i];
        out += '{"type":"gc","t":' + r3(e.startTime - t0) + ',"kind":"' + kinds[i] +
          '","duration_ms":' + r3(e.duration);
        if (after[i] !== undefined) out += ',"heap_after":' + after[i];
        out += '}\n';
      }
      if (out) enqueue(out);
    } catch (_) { /* never throw */ }
  }

  // The addon's callbacks when it has them (state.native is settled by the
  // time sampling starts); the observer when they are not there or refuse.
  function startNative() {
    const native = state.native;
    if (native === null || typeof native.gc !== 'function') return false;
    try { nativeOn = native.gc(true) === true; } catch (_) { nativeOn = false; }
    return nativeOn;
  }

  function start() {
    if (observer || nativeOn || startNative()) return;
    try {
      observer = new PerformanceObserver(onEntries);
      observer.observe({ entryTypes: ['gc'] });
    } catch (_) { observer = null; }
  }

  // Entries the observer holds but has not delivered yet go out before it is
  // dropped: Node delivers them from an immediate, which never runs once the
  // process exits (process.exit() from an immediate queued before Node's).
  // Collections whose entries Node itself has not made yet (its native
  // immediate, unref'd, does not run at exit either) are lost.
  function stop() {
    if (nativeOn) {
      try { state.native.gc(false); } catch (_) { /* gone */ }
      nativeOn = false;
    }
    if (observer) {
      try { emit(observer.takeRecords()); observer.disconnect(); } catch (_) { /* gone */ }
      observer = null;
    }
    heapAfter.stop();
  }

  return { start, stop };
}

module.exports = { createGcObserver };
