'use strict';
// One unref'd timer, every SLOW_REFRESH_MS, for every part of the probe that
// reads or sends something slowly: the handover to the native sampler, the
// causes' gauges and lines, the warnings line, the count of unsampled
// workers. Each part had a timer of its own, and an idle server's loop woke
// ~35 times a second for them (each wake ~0.15 ms of the main thread's CPU
// on this VM: 6.7 ms a second idle, and at 2000 req/s most of the ~5 us per
// request the native probe added); one timer wakes it 10 times.
const { SLOW_REFRESH_MS } = require('./config.js');

function createSlowTick() {
  const parts = [];
  let timer = null;

  function run() {
    for (let i = 0; i < parts.length; i++) {
      try { parts[i](); } catch (_) { /* never throw */ }
    }
  }

  // Calls fn every SLOW_REFRESH_MS (from the next tick) until the returned
  // function is called; the timer runs while any part is added.
  function add(fn) {
    parts.push(fn);
    if (timer === null) {
      timer = setInterval(run, SLOW_REFRESH_MS);
      timer.unref();
    }
    return () => {
      const i = parts.indexOf(fn);
      if (i >= 0) parts.splice(i, 1);
      if (parts.length === 0 && timer !== null) { clearInterval(timer); timer = null; }
    };
  }

  return { add, periodMs: SLOW_REFRESH_MS };
}

module.exports = { createSlowTick };
