'use strict';
// GC pauses: one "gc" line per collection, from a PerformanceObserver that
// runs only while sampling. A full (major) collection's line also carries
// `heap_after`, the heap used the moment it ended, from v8.GCProfiler: the
// live heap is only visible right after a full collection, and the next
// sample can come hundreds of milliseconds later on a blocked loop, by which
// time the heap holds that much new garbage (measured: post-GC readings of one
// steady server spread 46-92 MB through the next sample, which read as a leak).
const { PerformanceObserver } = require('perf_hooks');
const { r3 } = require('./state.js');
const { GC_PROFILER_MAX_PENDING } = require('./config.js');

const GC_KINDS = { 1: 'minor', 4: 'major', 8: 'incremental', 16: 'weak' };

// Heap used after each full collection, from a GCProfiler kept running and
// harvested only when the observer has seen a full collection (or when enough
// other collections are pending that its buffer should be emptied).
function createHeapAfterMajor() {
  let GCProfiler;
  try { GCProfiler = require('v8').GCProfiler; } catch (_) { GCProfiler = null; }
  if (typeof GCProfiler !== 'function') return null;  // Node < 18.15
  let profiler = null;
  let pending = 0;

  function start() {
    if (profiler) return;
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

  // Called with each observer batch: returns the post-GC heap of its majors
  // (oldest first) when it has any, else [] after counting the batch.
  function forBatch(majors, total) {
    pending += total;
    if (majors > 0) return harvest();
    if (pending > GC_PROFILER_MAX_PENDING) harvest();
    return [];
  }

  return { start, stop, forBatch };
}

function createGcObserver(state, enqueue) {
  const t0 = state.t0;
  let observer = null;
  const heapAfter = createHeapAfterMajor();

  function onEntries(list) {
    try {
      if (!state.connected || state.finished) return;
      const entries = list.getEntries();
      const kinds = new Array(entries.length);
      let majors = 0;
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i];
        const kindNum = e.detail ? e.detail.kind : e.kind;  // .kind before Node 16
        kinds[i] = GC_KINDS[kindNum] || 'minor';
        if (kinds[i] === 'major') majors++;
      }
      // The profiler and the observer see the same collections in the same
      // order; align from the end, since a collection during the harvest
      // itself is in the observer's next batch but not in the profiler's.
      const after = heapAfter ? heapAfter.forBatch(majors, entries.length) : [];
      let k = after.length - majors;
      let out = '';
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i];
        out += '{"type":"gc","t":' + r3(e.startTime - t0) + ',"kind":"' + kinds[i] +
          '","duration_ms":' + r3(e.duration);
        if (kinds[i] === 'major') {
          if (k >= 0 && k < after.length) out += ',"heap_after":' + after[k];
          k++;
        }
        out += '}\n';
      }
      if (out) enqueue(out);
    } catch (_) { /* never throw */ }
  }

  function start() {
    if (observer) return;
    try {
      observer = new PerformanceObserver(onEntries);
      observer.observe({ entryTypes: ['gc'] });
      if (heapAfter) heapAfter.start();
    } catch (_) { observer = null; }
  }

  function stop() {
    if (observer) { try { observer.disconnect(); } catch (_) { /* gone */ } observer = null; }
    if (heapAfter) heapAfter.stop();
  }

  return { start, stop };
}

module.exports = { createGcObserver };
