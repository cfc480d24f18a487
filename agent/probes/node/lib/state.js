'use strict';
// The probe's shared state: one object handed to every part. Each field has
// one writer (named beside it); the others only read it. Parts keep their
// private working values (buffers, timers, counters) to themselves.
const { performance } = require('perf_hooks');
const { createSlowTick } = require('./slow-tick.js');

// Protocol numbers carry at most three decimals (µs for times in ms).
function r3(x) {
  return Math.round(x * 1000) / 1000;
}

function createState(settings) {
  // Probe time: ms since the probe started (the "t" of every message). A
  // worker thread counts from its process's probe start (clockOriginMs,
  // absolute), so the loops of one process share one clock.
  const t0 = settings.clockOriginMs !== undefined
    ? settings.clockOriginMs - performance.timeOrigin
    : performance.now();
  return {
    settings,        // from config.readSettings(); read-only
    t0,              // performance.now() at probe time 0
    now: () => performance.now() - t0,
    // Written by transport.js.
    socket: null,
    connected: false,
    disabled: false, // socket error (fd mode) or fatal probe error
    dropped: 0,      // lines dropped because the collector did not keep up
    // Written by probe.js finish(): 'end' received or process exiting, bye sent.
    finished: false,
    // Written by sampler.js: the sample timer runs (the HTTP view counts only then).
    sampling: false,
    // Written by http-view.js (listen hook): listen messages, re-sent by
    // transport.js on every (re)connect.
    listens: [],
    // Set by probe.js before anything starts: the native addon (null: the JS
    // sampler runs) and, on a fallback, why.
    native: null,
    probeFallback: null,
    // Set by probe.js: the fields a hello adds for a worker thread or a
    // child process (threads.js helloIdentity), and the exit code bye
    // carries for them (process 'exit').
    identity: () => ({}),
    exitCode: undefined,
    // The one timer of the probe's slow parts (slow-tick.js): each adds
    // itself and removes itself when done.
    slowTick: createSlowTick(),
  };
}

module.exports = { createState, r3 };
