'use strict';
// One unref'd timer for every part of the probe that reads or sends
// something slowly: the handover to the native sampler, the causes' gauges
// and lines, the warnings line, the count of unsampled workers. Each part
// had a timer of its own, and an idle server's loop woke ~35 times a second
// for them (each wake ~0.15 ms of the main thread's CPU on this VM: 6.7 ms
// a second idle, and at 2000 req/s most of the ~5 us per request the native
// probe added). The timer runs every SLOW_REFRESH_MS while some part asks
// for it (fast(): a pool to watch, a canary that waits), every
// SLOW_IDLE_REFRESH_MS otherwise: each tick runs cold code (~150 us here),
// so a quiet server pays for one a second, not ten.
const { performance } = require('perf_hooks');
const { SLOW_REFRESH_MS, SLOW_IDLE_REFRESH_MS } = require('./config.js');

function createSlowTick() {
  const parts = [];
  const wantFast = new Set();
  let timer = null;
  let periodMs = SLOW_IDLE_REFRESH_MS;
  let since = 0;  // the last tick, or the timer's start when later
  let late = 0;   // how late the tick running now came

  function run() {
    const now = performance.now();
    late = Math.max(0, now - since - periodMs);
    since = now;
    for (let i = 0; i < parts.length; i++) {
      try { parts[i](); } catch (_) { /* never throw */ }
    }
  }

  function arm() {
    if (timer !== null) clearInterval(timer);
    timer = setInterval(run, periodMs);
    timer.unref();
    since = performance.now();
  }

  // Calls fn every periodMs (from the next tick) until the returned
  // function is called; the timer runs while any part is added.
  function add(fn) {
    parts.push(fn);
    if (timer === null) arm();
    return () => {
      const i = parts.indexOf(fn);
      if (i >= 0) parts.splice(i, 1);
      if (parts.length === 0 && timer !== null) { clearInterval(timer); timer = null; }
    };
  }

  // Part `key` needs the tick every SLOW_REFRESH_MS (on), or no longer.
  // The period changes at once (the next tick comes one new period on).
  function fast(key, on) {
    if (on === wantFast.has(key)) return;
    if (on) wantFast.add(key); else wantFast.delete(key);
    const want = wantFast.size > 0 ? SLOW_REFRESH_MS : SLOW_IDLE_REFRESH_MS;
    if (want === periodMs) return;
    periodMs = want;
    if (timer !== null) arm();
  }

  // The probe detaches: every part and the timer go.
  function stop() {
    parts.length = 0;
    wantFast.clear();
    if (timer !== null) { clearInterval(timer); timer = null; }
  }

  return {
    add,
    fast,
    stop,
    get periodMs() { return periodMs; },
    // In a part: how much later than its period the tick came, in ms (a
    // loop blocked across the tick's due time makes it late).
    lateMs: () => late,
  };
}

module.exports = { createSlowTick };
