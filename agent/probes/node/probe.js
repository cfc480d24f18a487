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
// This file is the entry the collector preloads; attach.js, beside it, is
// the one `loopdoctor attach` loads into a running process. Both run the
// same lifecycle (lib/lifecycle.js); the parts live in lib/, which is
// installed beside them:
//   config.js     limits, LOOPDOCTOR_* settings (and attach's), environment scrubbing
//   lifecycle.js  builds the parts, connects, finishes; an attached probe's stop
//   state.js      the one shared state object, the probe clock
//   transport.js  socket, line queue, reconnects, hello/listen/bye, commands
//   sampler.js    delay timer and the sample line (ELU, CPU, memory, handles)
//   gc.js         gc lines
//   http-view.js  diagnostics_channel request view, listen hook
//   profiler.js   CPU profile (inspector)
//   alloc.js      allocation sampling by site (inspector), alloc-line.js its line
//   heap-snapshot.js  the heap snapshot --heap-snapshot asks for
//   causes.js     outbound calls per destination, threadpool queue wait
//   warnings.js   the target's process warnings (process.on('warning'))
//   native.js     loads the native probe (native/, a watchdog thread) or
//                 says why the JS sampler runs
//   threads.js    worker threads of a preloaded process, each loop's hello
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

  try {
    lib('lifecycle.js').start(settings, {
      probeDir: __dirname,
      onExit: worker !== null ? worker.release : undefined,
    });
    // attach.js refuses a second probe in this thread.
    Object.defineProperty(globalThis, Symbol.for('loopdoctor.probe.preload'), { value: true, configurable: true });
  } catch (_) {
    // A part failed to load or start: the probe stays off, the target runs.
  }
})();
