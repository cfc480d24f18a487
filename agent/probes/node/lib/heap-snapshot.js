'use strict';
// The heap snapshot `--heap-snapshot` asks for ({"type":"heap-snapshot-take",
// "path":P[,"when":"on-growth"]}): written at "end", after the last
// allocation line and before bye (lifecycle.js), and answered with a
// `heap-snapshot` line (docs/contracts.md "Memory by site"). It pauses the
// process while V8 walks and writes the whole heap, so it is never taken
// unasked, and its pause is measured and sent.
const fs = require('fs');
const { performance } = require('perf_hooks');
const { r3 } = require('./state.js');
const { ownWork } = require('./native.js');
const { HEAP_SNAPSHOT_MIN_GROWTH_BYTES, MAX_SNAPSHOT_PATH_BYTES } = require('./config.js');

// liveGrowth(): alloc.js's {first, last} sampled live bytes, or null.
function createHeapSnapshot(state, transport, liveGrowth) {
  let wanted = null;  // {path, onGrowth}

  // The collector's heap-snapshot-take: remembered until end.
  function request(msg) {
    const path = msg && msg.path;
    if (typeof path !== 'string' || path === '' || Buffer.byteLength(path) > MAX_SNAPSHOT_PATH_BYTES || path.includes('\0')) {
      answer({ error: 'heap-snapshot-take needs a file path (a string of at most ' + MAX_SNAPSHOT_PATH_BYTES + ' bytes)' });
      return;
    }
    wanted = { path, onGrowth: msg.when === 'on-growth' };
  }

  // At end: writes the snapshot asked for, if any, and answers.
  function take() {
    const w = wanted;
    wanted = null;
    if (w === null) return;
    if (w.onGrowth) {
      const why = noGrowth();
      if (why !== '') { answer({ path: w.path, skipped: why }); return; }
    }
    let pauseMs = 0, bytes = 0;
    ownWork(state, true);
    try {
      const t0 = performance.now();
      require('v8').writeHeapSnapshot(w.path);
      pauseMs = performance.now() - t0;
      bytes = fs.statSync(w.path).size;
    } catch (e) {
      ownWork(state, false);
      answer({ path: w.path, error: String(e && e.message ? e.message : e).split('\n')[0] });
      return;
    }
    ownWork(state, false);
    answer({ path: w.path, bytes, pause_ms: r3(pauseMs) });
  }

  // '' when the live heap grew past HEAP_SNAPSHOT_MIN_GROWTH_BYTES over
  // the live phase, else why no snapshot was taken.
  function noGrowth() {
    const g = liveGrowth();
    if (g === null) return 'no live points of allocation sampling to judge growth by';
    const grew = g.last - g.first;
    if (grew > HEAP_SNAPSHOT_MIN_GROWTH_BYTES) return '';
    return 'the sampled live heap grew ' + (grew / 1048576).toFixed(1) + ' MiB, not over ' +
      (HEAP_SNAPSHOT_MIN_GROWTH_BYTES / 1048576) + ' MiB';
  }

  function answer(fields) {
    if (!state.connected || state.disabled) return;
    transport.send(JSON.stringify(Object.assign({ type: 'heap-snapshot', t: r3(state.now()) }, fields)) + '\n');
  }

  return { request, take };
}

module.exports = { createHeapSnapshot };
