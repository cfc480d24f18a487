'use strict';
// loopdoctor's in-process probe for Node.js (>= 18), loaded with
//   NODE_OPTIONS="--require /abs/path/probe.js"
// It streams newline-delimited JSON (see "Probe protocol" in DESIGN.md) to the
// collector over an inherited socket (LOOPDOCTOR_FD) or a Unix socket path
// (LOOPDOCTOR_ENDPOINT). Rules it lives by:
// - it never keeps the target alive: every handle it creates is unref()'d;
// - it never breaks the target: all of its code runs inside try/catch, it adds
//   no 'uncaughtException' or signal listener (those change behaviour), and a
//   socket error, or a part of it that fails to load, silently disables it;
// - it never slows the target much: per-sample work is a few native calls and
//   one hand-built string, costly readings are refreshed every 100 ms, lines
//   are written in batches; when the collector does not keep up, messages are
//   dropped and counted rather than buffered without bound.
// This file is the entry (the path the collector preloads) and the
// lifecycle; the parts live in lib/, which is installed beside it:
//   config.js     limits, LOOPDOCTOR_* settings, environment scrubbing
//   state.js      the one shared state object, the probe clock
//   transport.js  socket, line queue, reconnects, hello/listen/bye, commands
//   sampler.js    delay timer and the sample line (ELU, CPU, memory, handles)
//   gc.js         gc lines
//   http-view.js  diagnostics_channel request view, listen hook
//   profiler.js   CPU profile (inspector)
//   causes.js     outbound calls per destination, threadpool queue wait
//   warnings.js   the target's process warnings (process.on('warning'))
//   native.js     loads the native probe (native/, a watchdog thread) or
//                 says why the JS sampler runs
// lib/ is required by absolute path, so the target's module paths (NODE_PATH,
// its node_modules, its package.json) play no part.

(function loopdoctorProbe() {
  let path, wt;
  try {
    path = require('path');
    wt = require('worker_threads');
  } catch (_) {
    return;
  }
  const lib = (name) => require(path.join(__dirname, 'lib', name));

  // Worker threads run NODE_OPTIONS preloads too. Wherever there is an
  // endpoint to connect to (`run`, the agent) each one with a free slot is a
  // loop of its own, on its own connection (threads.js).
  let settings, worker = null;
  if (!wt.isMainThread) {
    try { worker = lib('threads.js').claimWorker(wt); } catch (_) { return; }
    if (worker === null) return;
    settings = worker.settings;
  } else {
    // Settings first: reading them also scrubs them from process.env, before
    // anything else, so children the target spawns are never probed (outside
    // a run's tree, see config.js passToChildren).
    try {
      settings = lib('config.js').readSettings(process.env, __filename);
    } catch (_) {
      // A broken install: at least keep children off the collector's socket.
      try {
        delete process.env.LOOPDOCTOR_FD;
        delete process.env.LOOPDOCTOR_ENDPOINT;
      } catch (_) { /* never break the target */ }
      return;
    }
    if (settings === null) return;  // no collector named
  }

  let parts;
  try {
    parts = {
      createState: lib('state.js').createState,
      createTransport: lib('transport.js').createTransport,
      createGcObserver: lib('gc.js').createGcObserver,
      createHttpView: lib('http-view.js').createHttpView,
      createSampler: lib('sampler.js').createSampler,
      createProfiler: lib('profiler.js').createProfiler,
      loadNative: lib('native.js').loadNative,
      threads: lib('threads.js'),
    };
  } catch (_) {
    return;  // a part failed to load: the probe stays off, the target runs
  }

  let state = null;
  let transport, sampler, profiler;
  let workers = null;  // threads.js shareWithWorkers: the main thread's, in a tree

  // Last sample, the profile, then bye; sampling stops but the process keeps
  // running. At process exit no callback will run again, so bye goes at once.
  function finish(exiting) {
    if (state.finished) return;
    if (state.connected && state.sampling) sampler.sample(state.now());
    if (workers !== null) workers.flush();
    state.finished = true;
    sampler.stop();
    let byeSent = false;
    const bye = () => {
      if (byeSent) return;
      byeSent = true;
      transport.sendBye();
    };
    profiler.stop(() => { try { profiler.send(); } catch (_) { /* never throw */ } bye(); });
    if (exiting) bye();
  }

  try {
    state = parts.createState(settings);
    const chosen = parts.loadNative(settings, __dirname);
    state.native = chosen.addon;
    state.probeFallback = chosen.fallback;
    const tid = worker !== null ? parts.threads.currentTid() : 0;
    state.identity = () => parts.threads.helloIdentity(settings, tid);
    transport = parts.createTransport(state, {
      connected: () => sampler.start(),
      lost: () => { sampler.stop(); profiler.discard(); },
      end: () => finish(false),
      profileStart: () => profiler.start(),
    });
    const gc = parts.createGcObserver(state, transport.enqueue);
    const httpView = parts.createHttpView(state, transport.send);
    sampler = parts.createSampler(state, transport, gc, httpView, () => profiler.blocked());
    profiler = parts.createProfiler(state, transport, (on) => sampler.watchBlocks(on));

    httpView.install();
    // Outbound calls and the threadpool's queue: the process's, read once,
    // from its main thread.
    if (worker === null) {
      try { lib('causes.js').installCauses(state, transport, process.env); } catch (_) { /* optional part */ }
      try { lib('warnings.js').installWarnings(state, transport, __dirname); } catch (_) { /* optional part */ }
    }
    process.on('exit', (code) => {
      if (settings.treeChild || worker !== null) state.exitCode = code;
      try { if (state.connected && !state.finished) finish(true); } catch (_) { /* never throw */ }
      try { transport.shutdown(); } catch (_) { /* never throw */ }
      if (worker !== null) worker.release();
    });
    if (settings.endpoint) workers = parts.threads.shareWithWorkers(wt, state, transport.send);
    // A worker's hello names its script (threads.js workerName), which Node
    // puts in process.argv[1] only after the preloads: a connection made at
    // once can say hello before it is there. The worker's script runs first.
    if (worker !== null) setImmediate(() => { try { transport.start(); } catch (_) { /* never throw */ } });
    else transport.start();
  } catch (_) {
    if (state !== null) state.disabled = true;
  }
})();
