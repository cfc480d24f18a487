'use strict';
// Allocation sampling: V8's sampling heap profiler, read from the native
// addon when it is there (native/heap_sampler.h: no forced collection per
// read), else through an inspector session of its own (as the CPU profile,
// profiler.js), in phases, each sent as an `alloc` line (alloc-line.js;
// docs/contracts.md "Memory by site"):
// - churn: every sampled allocation, those the collections freed included
//   (V8's includeObjectsCollectedByMajorGC/MinorGC): what is allocated
//   where, whether it lives or not;
// - live: the allocations sampled since the phase began that are still
//   alive, a point at a time: the sites whose live bytes grow.
// Under a collector, its "alloc-start" (sent when the load starts) begins
// a churn phase, then one live phase to the end, whose last point goes at
// "end", before bye. With the agent's endpoint alone nothing says
// alloc-start: the probe starts at once, and its live phases last a minute
// each, a churn phase before each.
// The main thread's heap only: a worker thread's probe samples none (its
// heap is its own isolate; the analysis reads the process's main heap).
// Everything here is best effort: an error, or a Node without the
// inspector, leaves the target without alloc lines, and nothing else.
const { allocLine, lastOrdinal } = require('./alloc-line.js');
const { ownWork } = require('./native.js');
const {
  ALLOC_CHURN_MS, ALLOC_LIVE_POINT_MS, ALLOC_AGENT_CHURN_MS, ALLOC_AGENT_LIVE_POINT_MS,
  ALLOC_AGENT_LIVE_PHASE_MS, ALLOC_MAX_PAUSE_SHARE, MAX_ALLOC_LINE_BYTES, MAX_BUFFERED_BYTES,
} = require('./config.js');
const { performance } = require('perf_hooks');

const COLLECTOR_SCHEDULE = { churnMs: ALLOC_CHURN_MS, pointMs: ALLOC_LIVE_POINT_MS, liveMs: Infinity };
const AGENT_SCHEDULE = { churnMs: ALLOC_AGENT_CHURN_MS, pointMs: ALLOC_AGENT_LIVE_POINT_MS, liveMs: ALLOC_AGENT_LIVE_PHASE_MS };

function createAllocSampler(state, transport) {
  const { now, settings } = state;
  const enabled = settings.allocEnabled !== false && settings.worker !== true;
  const intervalBytes = settings.allocIntervalBytes;
  let session = null;
  let schedule = COLLECTOR_SCHEDULE;
  let phase = null;      // 'churn' | 'live' | null
  let since = 0;         // the phase's start, probe ms
  let timer = null;
  // The current live phase's first and last points' sampled live bytes
  // (heap-snapshot.js's on-growth).
  let liveFirst = null, liveLast = null;
  // The current live phase's last point: its probe time and the highest
  // sample ordinal it saw (alloc-line.js's keep), null before its first.
  let lastPoint = null;
  // How long the last profile read held the loop (its forced collection).
  let lastReadMs = 0;

  // The collector's alloc-start: a churn phase, then live to the end.
  function start() {
    schedule = COLLECTOR_SCHEDULE;
    begin();
  }

  // Connected. The agent's endpoint alone sends no alloc-start: start now.
  function connected() {
    if (settings.oneShot) return;
    schedule = AGENT_SCHEDULE;
    begin();
  }

  // The addon's sampler when it has one (no forced collection per read:
  // native/heap_sampler.h), else an inspector session of our own.
  function begin() {
    if (!enabled || state.finished || !state.connected) return;
    closeSession();
    const native = state.native;
    if (native !== null && typeof native.allocStart === 'function') {
      session = nativeSession(native);
    } else {
      let inspector;
      try { inspector = require('inspector'); } catch (_) { return; }  // node built without it
      try {
        const s = new inspector.Session();
        s.connect();
        session = s;
      } catch (_) {
        session = null;
        return;
      }
    }
    startPhase('churn');
  }

  function startPhase(mode) {
    const s = session;
    if (s === null) return;
    const params = { samplingInterval: intervalBytes };
    if (mode === 'churn') {
      params.includeObjectsCollectedByMajorGC = true;
      params.includeObjectsCollectedByMinorGC = true;
    }
    own(() => {
      try {
        s.post('HeapProfiler.startSampling', params, (err) => { if (err && session === s) closeSession(); });
      } catch (_) {
        closeSession();
      }
    });
    if (session !== s) return;
    phase = mode;
    since = now();
    if (mode === 'live') liveFirst = liveLast = lastPoint = null;
    arm(mode === 'churn' ? schedule.churnMs : schedule.pointMs, mode === 'churn' ? endChurn : livePoint);
  }

  // Runs fn as the probe's own work (native.js ownWork): reading and
  // sending a profile costs the loop milliseconds on a large heap. The
  // addon keeps one flag, so nested calls (a phase started from a
  // profile's callback) mark it once.
  let ownDepth = 0;
  function own(fn) {
    if (ownDepth++ === 0) ownWork(state, true);
    try { fn(); } finally { if (--ownDepth === 0) ownWork(state, false); }
  }

  function arm(ms, fn) {
    clearTimer();
    timer = setTimeout(() => { try { fn(); } catch (_) { /* never throw */ } }, ms);
    timer.unref();
  }

  function clearTimer() {
    if (timer) { clearTimeout(timer); timer = null; }
  }

  // The churn phase is over: its profile, then the live phase.
  function endChurn() {
    take('HeapProfiler.stopSampling', true, (ok) => { if (ok) startPhase('live'); });
  }

  // A live point; the next one when due, or later if reading this one
  // paused the loop more than ALLOC_MAX_PAUSE_SHARE allows. The agent's
  // live phase ends after ALLOC_AGENT_LIVE_PHASE_MS and a churn phase
  // begins again (stopping forgets the samples).
  function livePoint() {
    take('HeapProfiler.getSamplingProfile', true, (ok) => {
      if (!ok) return;
      const next = Math.max(schedule.pointMs, lastReadMs / ALLOC_MAX_PAUSE_SHARE);
      if (now() - since < schedule.liveMs - next / 2) arm(next, livePoint);
      else take('HeapProfiler.stopSampling', false, (stopped) => { if (stopped) startPhase('churn'); });
    });
  }

  // Reads the profile with `method` and, if `send`, sends it as the current
  // phase's line; then(ok) once, ok false when the session went or failed
  // (it is closed then).
  function take(method, send, then) {
    const s = session;
    if (s === null) { then(false); return; }
    const mode = phase;
    let called = false;
    const t0 = performance.now();
    const done = (err, res) => {
      if (called) return;
      called = true;
      lastReadMs = performance.now() - t0;
      if (send && !err && res && res.profile) {
        own(() => { try { sendLine(res.profile, mode, now()); } catch (_) { /* never throw */ } });
      }
      if (method === 'HeapProfiler.stopSampling' && session === s) phase = null;
      if (err && session === s) closeSession();
      // The inspector may call back outside any of the probe's try blocks.
      try { then(!err && session === s); } catch (_) { /* never throw */ }
    };
    own(() => { try { s.post(method, done); } catch (e) { done(e); } });
  }

  function sendLine(profile, mode, t) {
    if (!state.connected || state.disabled) return;
    const keep = mode === 'live' ? lastPoint : null;
    const { line, total } = allocLine(profile, mode, since, t, intervalBytes, MAX_ALLOC_LINE_BYTES, lastReadMs, keep);
    if (mode === 'live') {
      if (liveFirst === null) liveFirst = total;
      liveLast = total;
      lastPoint = { t, upto: Math.max(lastOrdinal(profile), keep === null ? 0 : keep.upto) };
    }
    // Over the sample queue's bound: straight to the socket, after what is
    // queued, unless the collector has not read the last one yet.
    const socket = state.socket;
    if (state.native === null && (socket === null || socket.writableLength > MAX_BUFFERED_BYTES)) {
      state.dropped++;
      return;
    }
    transport.writeNow(line);
  }

  // At the collector's end (or the process's exit): the phase's last line,
  // sampling stops; done() once it is out. Sent before the heap snapshot
  // and bye (lifecycle.js).
  function stop(done) {
    clearTimer();
    const end = () => { closeSession(); if (done) done(); };
    if (session === null || phase === null) { end(); return; }
    take(phase === 'live' ? 'HeapProfiler.getSamplingProfile' : 'HeapProfiler.stopSampling', true, end);
  }

  // The connection is gone (or the probe detaches): sampling stops.
  function discard() {
    clearTimer();
    closeSession();
  }

  function closeSession() {
    const s = session;
    session = null;
    phase = null;
    clearTimer();
    if (s === null) return;
    try { s.post('HeapProfiler.stopSampling', () => {}); } catch (_) { /* gone */ }
    try { s.disconnect(); } catch (_) { /* already gone */ }
  }

  // {first, last}: the current (or last) live phase's first and last
  // points' sampled live bytes; null before a live point.
  function liveGrowth() {
    return liveFirst === null ? null : { first: liveFirst, last: liveLast };
  }

  return { start, connected, stop, discard, liveGrowth };
}

// The addon's sampler behind the three HeapProfiler methods alloc.js posts
// to an inspector session, answered at once as the inspector does for
// this thread's own session.
function nativeSession(native) {
  let on = false;
  function post(method, params, cb) {
    if (typeof params === 'function') { cb = params; params = {}; }
    let err = null, res = {};
    try {
      if (method === 'HeapProfiler.startSampling') {
        on = native.allocStart(params.samplingInterval, params.includeObjectsCollectedByMajorGC === true);
        if (!on) err = new Error('V8 did not start its heap sampler');
      } else if (method === 'HeapProfiler.getSamplingProfile' || method === 'HeapProfiler.stopSampling') {
        const text = on ? native.allocProfile() : '';
        if (method === 'HeapProfiler.stopSampling') { native.allocStop(); on = false; }
        if (text) res = { profile: JSON.parse(text) }; else err = new Error('not sampling');
      } else {
        err = new Error('not the addon\'s: ' + method);
      }
    } catch (e) {
      err = e;
    }
    if (cb) cb(err, res);
  }
  function disconnect() {
    if (on) { try { native.allocStop(); } catch (_) { /* gone */ } on = false; }
  }
  return { post, disconnect };
}

module.exports = { createAllocSampler };
