'use strict';
// libuv's threadpool (fs, dns.lookup, crypto, zlib; UV_THREADPOOL_SIZE
// threads, 4 by default): how long a new job waits for a thread. A one-byte
// crypto.randomFill (a job of about a microsecond on a pool thread) is
// queued, one at a time; the time to its callback is the queue's wait, plus
// the loop's own delay in running the callback (which the sample's delay
// shows). Every CANARY_EVERY_MS while the pool makes it wait, every
// CANARY_QUIET_EVERY_MS once CANARY_QUIET_RUN canaries in a row came back
// within CANARY_QUIET_WAIT_MS: each canary wakes a pool thread and then the
// loop, ~0.1 ms of CPU on this VM, which a server that never queues work
// should not pay ten times a second. async_hooks (init -> before of each
// FSREQCALLBACK, PBKDF2REQUEST, ...) would time every job of the
// application instead, and enabling an init hook makes every promise pay
// for a hook too.
const crypto = require('crypto');
const fs = require('fs');
const { performance } = require('perf_hooks');
const { r3 } = require('./state.js');

const CANARY_EVERY_MS = 100;
// A pool that makes nobody wait is looked at once a second (a first wait
// of a saturated pool is then seen within a second, and its causes line
// is per second anyway). 5 ms: above a free pool's answer plus the loop's
// delay in running the callback at a moderate load (at 1 ms the canary
// stayed at ten a second on a server at 2000 req/s), a quarter of the
// 20 ms wait below which the analyzer names no threadpool cause
// (analyzer/thresholds.h kThreadpoolWaitMs).
const CANARY_QUIET_EVERY_MS = 1000;
const CANARY_QUIET_WAIT_MS = 5;
const CANARY_QUIET_RUN = 3;
// libuv's default and its cap (uv_threadpool_size in src/threadpool.c).
const DEFAULT_POOL_SIZE = 4;
const MAX_POOL_SIZE = 1024;

// Attach mode: the first canary would start libuv's pool in an
// application that never used it, and its threads stay until the process
// exits (libuv never stops them): the probe would leave them behind. So an
// attached probe sends canaries only once the pool is known to run: a
// thread of libuv's named (libuv >= 1.50, Node 22, names its workers), or
// a pending request that runs on the pool among the process's resources
// (Node lists fs and dns.lookup requests; crypto and zlib jobs it does not:
// an attached Node 20 whose pool does only those gets no threadpool line).
const POOL_THREAD_NAME = 'libuv-worker';
const POOL_REQUESTS = new Set(['FSReqCallback', 'FSReqPromise', 'GetAddrInfoReqWrap', 'GetNameInfoReqWrap']);

const NAMES_POOL_THREADS = (() => {
  const [major, minor] = String(process.versions.uv).split('.').map(Number);
  return major > 1 || (major === 1 && minor >= 50);
})();

function poolInUse() {
  try {
    if (process.getActiveResourcesInfo().some((r) => POOL_REQUESTS.has(r))) return true;
  } catch (_) { /* older Node: the threads may tell */ }
  if (!NAMES_POOL_THREADS) return false;
  try {
    for (const tid of fs.readdirSync('/proc/self/task')) {
      if (fs.readFileSync('/proc/self/task/' + tid + '/comm', 'latin1').trim() === POOL_THREAD_NAME) return true;
    }
  } catch (_) { /* no /proc */ }
  return false;
}

function poolSize(env) {
  const n = Math.floor(Number(env.UV_THREADPOOL_SIZE));
  if (!Number.isFinite(n) || n <= 0) return DEFAULT_POOL_SIZE;
  return Math.min(n, MAX_POOL_SIZE);
}

// opts.onlyInUse: no canary until poolInUse() (attach mode, see above).
function createThreadpool(state, env, opts = {}) {
  const size = poolSize(env);
  let poolSeen = !opts.onlyInUse;
  const buf = Buffer.alloc(1);
  let pendingT = -1;  // performance.now() of the canary in flight, -1: none
  let lastT = -Infinity;
  const waits = [];
  let sum = 0, max = 0;

  function record(ms) {
    waits.push(ms);
    sum += ms;
    if (ms > max) max = ms;
  }

  let quiet = 0;      // canaries in a row back within CANARY_QUIET_WAIT_MS

  function onDone() {
    if (pendingT < 0) return;
    const ms = performance.now() - pendingT;
    record(ms);
    quiet = ms < CANARY_QUIET_WAIT_MS ? quiet + 1 : 0;
    pendingT = -1;
  }

  // Whether the pool is being watched closely: a canary in flight or one
  // not yet quiet (causes.js then ticks every SLOW_REFRESH_MS).
  function busy() { return poolSeen && (pendingT >= 0 || quiet < CANARY_QUIET_RUN); }

  // Called at each slow tick (every periodMs); sends a canary when the last
  // came back and the next is due (within half a tick).
  function poll(periodMs) {
    const now = performance.now();
    const every = quiet >= CANARY_QUIET_RUN ? CANARY_QUIET_EVERY_MS : CANARY_EVERY_MS;
    if (pendingT >= 0 || now - lastT < every - periodMs / 2) return;
    if (!poolSeen && !(poolSeen = poolInUse())) { lastT = now; return; }
    lastT = pendingT = now;
    try { crypto.randomFill(buf, onDone); } catch (_) { pendingT = -1; }
  }

  // The interval's line, or '' without a measurement; starts the next. A
  // canary still queued counts with its wait so far: on a saturated pool
  // that is the only figure there is.
  function take(t, intervalMs) {
    let n = waits.length;
    let m = max, total = sum;
    if (pendingT >= 0) {
      const so_far = performance.now() - pendingT;
      if (so_far > m) m = so_far;
      if (n === 0) { n = 1; total = so_far; waits.push(so_far); }
    }
    if (n === 0) return '';
    const sorted = Float64Array.from(waits).sort();
    const p50 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length / 2) - 1)];
    const line = '{"type":"threadpool","t":' + r3(t) + ',"interval_ms":' + r3(intervalMs) +
      ',"size":' + size + ',"probes":' + n + ',"wait_ms":{"mean":' + r3(total / n) +
      ',"p50":' + r3(p50) + ',"max":' + r3(m) + '}}\n';
    waits.length = 0;
    sum = max = 0;
    return line;
  }

  return { poll, take, busy, size };
}

module.exports = { createThreadpool, poolSize };
