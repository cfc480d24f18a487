'use strict';
// The probe's lifecycle, one for its two entries: probe.js (preloaded with
// NODE_OPTIONS when the target starts) and attach.js (`loopdoctor attach`,
// loaded through the inspector into a process that is already running).
// start() builds the parts on one state and connects; the handle's stop()
// sends what is left and takes every part down again, so an attached probe
// leaves the target as it found it. A preloaded probe is never stopped: it
// lives until the process exits, and at its collector's "end" it only stops
// sampling, as before.
// The inspector runs loopdoctor's evaluates at V8 interrupts, which can come
// in the middle of any JS, the probe's own included (a sample being built,
// the connection being made): a detach taken there would leave that code to
// re-arm what was just removed. So stop() only schedules the detach, which
// runs from the loop at its next turn (an immediate), outside the probe's
// code. Everything else that ends the probe (the collector's "end", the
// connection lost) comes from the loop already.
const { createState } = require('./state.js');
const { createTransport } = require('./transport.js');
const { createGcObserver } = require('./gc.js');
const { createHttpView } = require('./http-view.js');
const { createSampler } = require('./sampler.js');
const { createProfiler } = require('./profiler.js');
const { createAllocSampler } = require('./alloc.js');
const { createHeapSnapshot } = require('./heap-snapshot.js');
const { loadNative } = require('./native.js');
const threads = require('./threads.js');

// settings: config.js readSettings or attachSettings (a worker's from
// threads.js claimWorker, or attach.js, with worker and threadId set).
// opts.probeDir: probe.js's folder (the addon's native/ is beside it, and
// the warnings leave its frames out). opts.onExit(): at process exit, after
// bye (a preloaded worker gives its slot back). opts.onStopped(): once
// stop() took everything down (attach.js clears its global). Returns
// { state, stop() }; throws only if a part fails to build (the caller then
// leaves the probe off).
function start(settings, opts) {
  const attached = settings.attached === true;
  const worker = settings.worker === true;
  const state = createState(settings);
  // Each installed part's removal, run in reverse order by stop().
  const undo = [];
  let transport, sampler, profiler, alloc, snapshot;
  let workers = null;  // threads.js shareWithWorkers (preloaded)
  let stopping = false;  // stop() scheduled the detach
  let stopped = false;

  // Last sample, the CPU profile stopped, the last alloc line, the heap
  // snapshot asked for (the profilers off, so neither records its pause),
  // the profile, then bye, and `then` (attach: the rest goes too); sampling
  // stops. At process exit no callback will run again, so bye goes at once
  // (the inspector answers this thread's own session at once: what it
  // gives goes before).
  function finish(exiting, then) {
    if (state.finished) { if (then) then(); return; }
    if (state.connected && state.sampling) sampler.sample(state.now());
    if (workers !== null) workers.flush();
    state.finished = true;
    sampler.stop();
    let byeSent = false;
    const bye = () => {
      if (byeSent) return;
      byeSent = true;
      transport.sendBye();
      if (then) then();
    };
    const rest = () => {
      try { snapshot.take(); } catch (_) { /* never throw */ }
      try { profiler.send(); } catch (_) { /* never throw */ }
      bye();
    };
    profiler.stop(() => {
      try { alloc.stop(rest); } catch (_) { rest(); }
    });
    if (exiting) bye();
  }

  // Attach mode: everything the probe made goes (see the header). The
  // socket closes once what was queued is written (transport.close()).
  function teardown() {
    if (stopped) return;
    stopped = true;
    state.finished = true;
    for (let i = undo.length - 1; i >= 0; i--) {
      try { undo[i](); } catch (_) { /* never throw */ }
    }
    try { transport.close(); } catch (_) { /* never throw */ }
    state.slowTick.stop();
    if (opts.onStopped) opts.onStopped();
  }

  // The detach, from the loop: bye first when connected.
  function stopNow() {
    if (stopped) return;
    stopping = true;
    try {
      if (state.connected && !state.finished) finish(false, teardown);
    } catch (_) { /* the parts go all the same */ }
    teardown();  // done already when finish ended with it
  }

  // Detach, at the loop's next turn (see the header); unref()'d: a process
  // that exits first sends bye from its exit listener.
  function stop() {
    if (stopping || stopped) return;
    stopping = true;
    setImmediate(stopNow).unref();
  }

  try {
    const chosen = loadNative(settings, opts.probeDir);
    state.native = chosen.addon;
    state.probeFallback = chosen.fallback;
    const tid = worker ? threads.currentTid() : 0;
    state.identity = () => threads.helloIdentity(settings, tid);
    transport = createTransport(state, {
      connected: () => { sampler.start(); alloc.connected(); },
      lost: () => { sampler.stop(); profiler.discard(); alloc.discard(); },
      // Attach mode has one connection: when it ends, the probe goes.
      closed: () => stopNow(),
      end: () => finish(false, attached ? teardown : undefined),
      profileStart: () => profiler.start(),
      allocStart: () => alloc.start(),
      heapSnapshotTake: (msg) => snapshot.request(msg),
    });
    const gc = createGcObserver(state, transport.enqueue);
    const httpView = createHttpView(state, transport.send);
    sampler = createSampler(state, transport, gc, httpView, () => profiler.blocked());
    profiler = createProfiler(state, transport, (on) => sampler.watchBlocks(on));
    alloc = createAllocSampler(state, transport);
    snapshot = createHeapSnapshot(state, transport, alloc.liveGrowth);
    undo.push(() => { sampler.stop(); profiler.discard(); alloc.discard(); });

    undo.push(httpView.install());
    // An attached server listened long ago: its listen lines follow hello.
    if (attached) httpView.addListening();
    // Outbound calls and the threadpool's queue: the process's, read once,
    // from its main thread.
    if (!worker) {
      try { undo.push(require('./causes.js').installCauses(state, transport, process.env)); } catch (_) { /* optional part */ }
      try { undo.push(require('./warnings.js').installWarnings(state, transport, opts.probeDir)); } catch (_) { /* optional part */ }
    }
    const onExit = (code) => {
      // A worker's, a child's or an attached process's bye says how it
      // exited: the collector cannot wait() for it.
      if (settings.treeChild || worker || attached) state.exitCode = code;
      try { if (state.connected && !state.finished) finish(true); } catch (_) { /* never throw */ }
      try { transport.shutdown(); } catch (_) { /* never throw */ }
      if (opts.onExit) opts.onExit();
    };
    process.on('exit', onExit);
    undo.push(() => process.removeListener('exit', onExit));
    // Preloaded, wherever there is an endpoint: its workers probe
    // themselves (threads.js). Attached, loopdoctor attaches each worker.
    if (settings.endpoint && !attached) {
      workers = threads.shareWithWorkers(require('worker_threads'), state, transport.send);
      undo.push(workers.stop);
    }
    // A preloaded worker's hello names its script (threads.js workerName),
    // which Node puts in process.argv[1] only after the preloads: a
    // connection made at once can say hello before it is there. The
    // worker's script runs first. (An attached worker is long past that, or
    // paused before its script until the attach returns: its connection
    // completes after.)
    if (worker && !attached) {
      const immediate = setImmediate(() => { try { transport.start(); } catch (_) { /* never throw */ } });
      undo.push(() => clearImmediate(immediate));
    } else {
      transport.start();
    }
  } catch (e) {
    state.disabled = true;
    if (attached) {
      try { teardown(); } catch (_) { /* never throw */ }
    }
    throw e;
  }
  // stopping(): stop() was called, or the probe is gone.
  return { state, stop, stopping: () => stopping || stopped };
}

module.exports = { start };
