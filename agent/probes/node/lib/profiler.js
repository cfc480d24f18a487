'use strict';
// The CPU profile: V8's sampling profiler through an inspector session,
// started by the collector's "profile-start" (or, in on-block mode with the
// native probe, by the first blocked loop after it: see config.js),
// stopped at "end" (or after MAX_PROFILE_MS), trimmed, placed on the probe
// clock and sent as one line just before bye.
const { r3 } = require('./state.js');
const { ownWork } = require('./native.js');
const { MAX_PROFILE_MS, MAX_PROFILE_BYTES, MAX_PROFILE_CLOCK_SKEW_MS } = require('./config.js');

// onArmed(on): the profile waits for the first block (true), or no longer.
function createProfiler(state, transport, onArmed = () => {}) {
  const { now } = state;
  const { profileEnabled, profileOnBlock, profileIntervalUs } = state.settings;
  // The inspector session while profiling, the measured start, and the
  // result once stopped (early, at MAX_PROFILE_MS, or at end).
  let session = null;
  let startT = 0;
  let capTimer = null;
  let result = null;   // {profile, t, t_end}
  let armed = false;   // on-block mode: profile-start came, no block yet

  // profile-start. On-block mode needs block stacks to name what blocks
  // until the profile runs, so the JS probe profiles at once.
  function start() {
    if (profileOnBlock && state.native !== null) { armed = true; onArmed(true); } else begin();
  }

  // The loop was blocked (sampler.js): an armed profiler starts now.
  function blocked() {
    if (!armed) return;
    armed = false;
    onArmed(false);
    begin();
  }

  function begin() {
    if (!profileEnabled || session || result || state.finished || !state.connected) return;
    let inspector;
    try { inspector = require('inspector'); } catch (_) { return; }  // node built without it
    let s = null;
    // The start pauses the loop (V8 logs every compiled function: 170 ms in
    // a worker once): the native probe is told, so a block it sees then is
    // the probe's, not native code of the target's (its lines say "probe").
    ownWork(state, true);
    try {
      s = new inspector.Session();
      s.connect();
      session = s;
      const fail = (err) => { if (err && session === s) closeSession(); };
      s.post('Profiler.enable', fail);
      s.post('Profiler.setSamplingInterval', { interval: profileIntervalUs }, fail);
      startT = now();
      s.post('Profiler.start', fail);
      capTimer = setTimeout(() => { try { stop(null); } catch (_) { /* silent */ } }, MAX_PROFILE_MS);
      capTimer.unref();
    } catch (_) {
      if (s) closeSession();
    }
    ownWork(state, false);
  }

  function closeSession() {
    const s = session;
    session = null;
    if (capTimer) { clearTimeout(capTimer); capTimer = null; }
    if (s) { try { s.disconnect(); } catch (_) { /* already gone */ } }
  }

  // The connection is gone: drop any result and stop profiling
  // (disconnecting the session ends V8's profiling too).
  function discard() {
    result = null;
    if (armed) onArmed(false);
    armed = false;
    closeSession();
  }

  // Stops the profiler (if running) and calls done once the result is kept.
  function stop(done) {
    if (armed) onArmed(false);
    armed = false;
    const s = session;
    if (!s) { if (done) done(); return; }
    if (capTimer) { clearTimeout(capTimer); capTimer = null; }
    let called = false;
    const stopT = now();
    try {
      s.post('Profiler.stop', (err, res) => {
        if (called) return;
        called = true;
        try {
          if (!err && res && res.profile) result = keepProfile(res.profile, stopT);
        } catch (_) { result = null; }
        closeSession();
        if (done) done();
      });
    } catch (_) {
      closeSession();
      if (done && !called) { called = true; done(); }
    }
  }

  // Trims the profile to the nodes its samples reach (and their ancestors),
  // and places it on the probe clock: V8 stamps it with CLOCK_MONOTONIC µs,
  // the clock process.hrtime reads, so the start is exact, not a guess.
  function keepProfile(p, stopT) {
    const monoMinusProbe = Number(process.hrtime.bigint()) / 1e6 - now();
    let t = startT, tEnd = stopT;
    if (Number.isFinite(p.startTime) && Number.isFinite(p.endTime)) {
      const t0v8 = p.startTime / 1000 - monoMinusProbe;
      if (Math.abs(t0v8 - startT) <= MAX_PROFILE_CLOCK_SKEW_MS) {
        t = t0v8;
        tEnd = p.endTime / 1000 - monoMinusProbe;
      }
    }
    const nodes = Array.isArray(p.nodes) ? p.nodes : [];
    const samples = Array.isArray(p.samples) ? p.samples : [];
    const parent = new Map();
    for (const n of nodes) {
      if (Array.isArray(n.children)) for (const c of n.children) parent.set(c, n.id);
    }
    const keep = new Set();
    for (const id of new Set(samples)) {
      for (let cur = id; cur !== undefined && !keep.has(cur); cur = parent.get(cur)) keep.add(cur);
    }
    const kept = [];
    for (const n of nodes) {
      if (!keep.has(n.id)) continue;
      const out = { id: n.id, callFrame: n.callFrame, hitCount: n.hitCount };
      // Per-line self samples: the analyzer names the hot line of a function.
      if (Array.isArray(n.positionTicks) && n.positionTicks.length) out.positionTicks = n.positionTicks;
      if (Array.isArray(n.children)) {
        const ch = n.children.filter((c) => keep.has(c));
        if (ch.length) out.children = ch;
      }
      kept.push(out);
    }
    return {
      t: r3(t), t_end: r3(tEnd),
      profile: { nodes: kept, startTime: p.startTime, endTime: p.endTime, samples, timeDeltas: p.timeDeltas },
    };
  }

  // One line, written straight to the socket after what is queued: it is
  // far over the sample queue's bound, and it is the last thing but bye.
  function send() {
    const r = result;
    result = null;
    if (!r || !state.connected || state.disabled || state.socket === null) return;
    let line = JSON.stringify({ type: 'profile', t: r.t, t_end: r.t_end, interval_us: profileIntervalUs, profile: r.profile }) + '\n';
    if (line.length > MAX_PROFILE_BYTES) {
      const mib = (line.length / 1048576).toFixed(1);
      line = JSON.stringify({ type: 'profile', t: r.t, t_end: r.t_end, interval_us: profileIntervalUs,
        error: 'the CPU profile (' + mib + ' MiB) is over the ' + (MAX_PROFILE_BYTES >> 20) +
          ' MiB limit and was not sent; use a longer --profile-interval or a shorter run' }) + '\n';
    }
    transport.writeNow(line);
  }

  return { start, blocked, stop, send, discard };
}

module.exports = { createProfiler };
