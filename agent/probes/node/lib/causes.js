'use strict';
// What is behind an io-bound verdict, measured in the target: outbound
// calls per destination (outbound.js) and the threadpool's queue
// (threadpool.js). The probe's slow tick (slow-tick.js) reads their gauges
// and, every CAUSES_INTERVAL_MS while sampling, queues one `outbound` and one
// `threadpool` line (docs/contracts.md, "Probe protocol"). It ticks every
// SLOW_REFRESH_MS while there is something to watch: a destination called
// in this interval (its pool's gauges), or a canary that waited (the pool's
// queue); a server doing neither is looked at once a second.
const { createOutbound } = require('./outbound.js');
const { createThreadpool } = require('./threadpool.js');

// Aggregates per second: enough calls per line for percentiles, few lines.
const CAUSES_INTERVAL_MS = 1000;

// Returns the removal of both (a detaching probe).
function installCauses(state, transport, env) {
  const outbound = createOutbound(state);
  // Attached, the pool is looked at only once the application is seen
  // using it (threadpool.js poolInUse).
  const threadpool = createThreadpool(state, env, { onlyInUse: state.settings.attached === true });
  const uninstallOutbound = outbound.install();
  let lastT = -1;

  function tick() {
    try {
      if (state.finished) { remove(); return; }
      if (!state.sampling || !state.connected) { lastT = -1; state.slowTick.fast('causes', false); return; }
      outbound.poll();
      threadpool.poll(state.slowTick.periodMs);
      state.slowTick.fast('causes', outbound.busy() || threadpool.busy());
      const t = state.now();
      if (lastT < 0) { lastT = t; outbound.take(t, 0); threadpool.take(t, 0); return; }
      if (t - lastT < CAUSES_INTERVAL_MS) return;
      const lines = outbound.take(t, t - lastT) + threadpool.take(t, t - lastT);
      lastT = t;
      if (lines !== '') transport.enqueue(lines);
    } catch (_) { /* never throw */ }
  }

  const remove = state.slowTick.add(tick);
  return () => {
    remove();
    state.slowTick.fast('causes', false);
    uninstallOutbound();
  };
}

module.exports = { installCauses, CAUSES_INTERVAL_MS };
