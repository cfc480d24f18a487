'use strict';
// Every loop of a run's tree: the main thread hands its worker
// threads what they need to probe themselves (worker_threads environment
// data, which each Worker copies when it is created, nested ones included),
// a worker claims one of MAX_SAMPLED_THREADS slots, and each probed loop
// names itself in its hello (thread, thread_name, tid; parent_pid and
// process_name for a child process).
const path = require('path');
const fs = require('fs');
const { performance } = require('perf_hooks');
const { r3 } = require('./state.js');
const { MAX_SAMPLED_THREADS, WORKER_DATA_KEY } = require('./config.js');

// Slots of the counters shared by every thread of the process.
const SAMPLED = 0;    // workers being sampled now
const UNSAMPLED = 1;  // workers started while MAX_SAMPLED_THREADS were

// Main thread, in a run's tree: hands the settings and the counters to
// every worker created from now on; sends threads-unsampled (via `send`)
// each time the count of workers left out grows, and once more at the end
// (flush(), before bye: a short-lived process's workers may all come and go
// between two slow ticks, and their count would never be said). Returns
// { stop, flush }.
function shareWithWorkers(wt, state, send) {
  const counters = new Int32Array(new SharedArrayBuffer(8));
  const settings = Object.assign({}, state.settings, { fdText: undefined });
  // Workers put their `t` on this process's probe clock (absolute ms).
  const clockOriginMs = performance.timeOrigin + state.t0;
  wt.setEnvironmentData(WORKER_DATA_KEY, { settings, counters, clockOriginMs });
  let reported = 0;
  const flush = () => {
    const n = Atomics.load(counters, UNSAMPLED);
    if (n <= reported || !state.connected) return;
    reported = n;
    send('{"type":"threads-unsampled","t":' + r3(state.now()) + ',"count":' + n +
         ',"limit":' + MAX_SAMPLED_THREADS + '}\n');
  };
  // Polled on the probe's slow tick (an Atomics.load).
  return { stop: state.slowTick.add(flush), flush };
}

// Worker thread: its settings when the main thread shared them and a slot
// is free (null: not probed); release() gives the slot back at its exit.
function claimWorker(wt) {
  let data;
  try { data = wt.getEnvironmentData(WORKER_DATA_KEY); } catch (_) { return null; }
  if (!data || !data.settings || !(data.counters instanceof Int32Array)) return null;
  const { counters } = data;
  if (Atomics.add(counters, SAMPLED, 1) >= MAX_SAMPLED_THREADS) {
    Atomics.sub(counters, SAMPLED, 1);
    Atomics.add(counters, UNSAMPLED, 1);
    return null;
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    Atomics.sub(counters, SAMPLED, 1);
  };
  const settings = Object.assign({}, data.settings, {
    worker: true, threadId: wt.threadId, clockOriginMs: data.clockOriginMs,
  });
  return { settings, release };
}

// The OS id of the calling thread: /proc/thread-self is a link to
// <pid>/task/<tid>. 0 when unknown.
function currentTid() {
  try {
    const m = /task\/(\d+)$/.exec(fs.readlinkSync('/proc/thread-self'));
    return m ? Number(m[1]) : 0;
  } catch (_) {
    return 0;
  }
}

// A worker's script as a readable name: by hello time (after the preload)
// Node has put it in process.argv[1].
function workerName(threadId) {
  const script = process.argv[1];
  return 'worker ' + threadId + (script ? ' (' + path.basename(script) + ')' : '');
}

// A child process's name: its cluster worker id when it is one, else its
// script. Node reads NODE_UNIQUE_ID (and removes it) before preloads run;
// cluster.worker carries it from then on.
function processName(env) {
  let id = Number(env.NODE_UNIQUE_ID);
  try {
    const cluster = require('cluster');
    if (cluster.isWorker && cluster.worker) id = cluster.worker.id;
  } catch (_) { /* keep the variable's */ }
  if (Number.isInteger(id) && id > 0) return 'cluster worker ' + id;
  return process.argv[1] ? path.basename(process.argv[1]) : path.basename(process.execPath);
}

// The fields a hello adds for a loop other than the first process's main
// thread (an empty object there, so its hello is as before).
function helloIdentity(settings, tid) {
  const out = {};
  if (settings.treeChild) {
    out.parent_pid = process.ppid;
    out.process_name = processName(process.env);
  }
  if (settings.worker) {
    out.thread = settings.threadId;
    out.thread_name = workerName(settings.threadId);
    if (tid > 0) out.tid = tid;
  }
  return out;
}

module.exports = { shareWithWorkers, claimWorker, currentTid, helloIdentity };
