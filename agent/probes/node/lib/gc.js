'use strict';
// GC pauses: one "gc" line per collection, from a PerformanceObserver that
// runs only while sampling.
const { PerformanceObserver } = require('perf_hooks');
const { r3 } = require('./state.js');

const GC_KINDS = { 1: 'minor', 4: 'major', 8: 'incremental', 16: 'weak' };

function createGcObserver(state, enqueue) {
  const t0 = state.t0;
  let observer = null;

  function onEntries(list) {
    try {
      if (!state.connected || state.finished) return;
      const entries = list.getEntries();
      let out = '';
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i];
        const kindNum = e.detail ? e.detail.kind : e.kind;  // .kind before Node 16
        const kind = GC_KINDS[kindNum] || 'minor';
        out += '{"type":"gc","t":' + r3(e.startTime - t0) + ',"kind":"' + kind +
          '","duration_ms":' + r3(e.duration) + '}\n';
      }
      if (out) enqueue(out);
    } catch (_) { /* never throw */ }
  }

  function start() {
    if (observer) return;
    try {
      observer = new PerformanceObserver(onEntries);
      observer.observe({ entryTypes: ['gc'] });
    } catch (_) { observer = null; }
  }

  function stop() {
    if (observer) { try { observer.disconnect(); } catch (_) { /* gone */ } observer = null; }
  }

  return { start, stop };
}

module.exports = { createGcObserver };
