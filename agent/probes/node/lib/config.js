'use strict';
// The probe's settings: its named limits, the LOOPDOCTOR_* environment it
// reads (or the settings `loopdoctor attach` passes), and the scrubbing that
// hides it from the target's children.
const path = require('path');
const fs = require('fs');

// ---- limits (protocol and safety) ----
// One-shot runs (an inherited fd) sample every 10 ms; a long-running agent
// (an endpoint) every second, each sample keeping its interval's max and
// percentiles so no spike is lost between scrapes.
const DEFAULT_INTERVAL_FD_MS = 10;
const DEFAULT_INTERVAL_ENDPOINT_MS = 1000;
const MIN_INTERVAL_MS = 1;           // below this the timer itself is the load
const MAX_INTERVAL_MS = 60000;
// The delay timer's period: fine enough to see 10 ms stalls even with a
// long sample interval, but no finer than the sample interval.
const MAX_DELAY_RESOLUTION_MS = 10;
const MAX_BUFFERED_BYTES = 1024 * 1024;  // drop instead of growing memory
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5000;
const MAX_CONTROL_LINE_BYTES = 64 * 1024;  // control messages are tiny
const MAX_DELAYS_PER_SAMPLE = 4096;     // ~40 s of 10 ms ticks
// Costly readings (a /proc read, a list of every handle) are refreshed at
// most this often; samples in between repeat the last values. Also the
// probe's slow tick (slow-tick.js) while a part needs it this often.
const SLOW_REFRESH_MS = 100;
// The slow tick while no part needs SLOW_REFRESH_MS (a server that calls
// out to nobody and whose threadpool makes nobody wait): each tick ran ~150
// us of cold code on the loop here (measured at 2000 req/s: handover 81 us,
// causes 61, the rest 13), 1.5 ms a second at ten a second.
const SLOW_IDLE_REFRESH_MS = 1000;
// The native probe's handover of the readings only JS makes (heap, handles,
// the HTTP view: sampler.js) at most this often, and at every sample when
// samples are further apart (agent mode). The addon repeats the gauges on
// the samples between (native/watchdog_core.h).
const HANDOVER_MS = 1000;
// The native probe's array_buffers gauge (process.memoryUsage(), whose /proc
// read the addon does not need) at most this often: sampler.js refreshMem.
const MEM_REFRESH_MS = 1000;
const FLUSH_MS = 100;                   // see transport.js enqueue()
// A detaching probe's last lines (the profile, bye) wait at most this long
// for a collector that stopped reading, as the native writer's
// kStalledWriteMs (native/line_writer.cc) does, before the socket goes.
const CLOSE_WAIT_MS = 2000;
// Request timing: two clock reads cost ~0.1 us a request, ~0.5 % of a
// hello-world request (~20 us). Every request is timed while an
// interval sees at most this many; above it, 1 request in N (N a power of
// two) so about this many per interval are still timed: the mean stays an
// unbiased estimate from >= 64 values and the cost falls with the rate.
const TIMED_REQUESTS_PER_INTERVAL = 64;
// A full collection's heap_after is read when the observer hears of it if
// that is at most this long after it ended. Deliveries take 0.3-2.5 ms on an
// idle or busy loop (measured), with VM hiccups past 5 ms; a busy server
// allocates ~100-200 MB/s, so a reading can hold up to 2-4 MB of new
// garbage: small beside the heaps whose growth is judged (tens of MB and
// up), and no trend, since it does not grow with time.
const HEAP_AFTER_MAX_LAG_MS = 20;
// Later than that, the loop is stalling and v8.GCProfiler takes over (see
// gc.js); it is switched off again after this long with prompt deliveries,
// since it costs ~30 us for every collection, minor ones included.
const GC_PROFILER_IDLE_MS = 10000;
// v8.GCProfiler keeps a JSON record (~1.5 KB) of every collection until it is
// stopped; while it runs, gc.js harvests it at each full collection, and
// after this many other collections so a server that never runs a full one
// stays bounded (~200 KB) and a harvest stays well under a millisecond.
const GC_PROFILER_MAX_PENDING = 128;
// CPU profile (sent once, at the end, when the collector asked for it with
// "profile-start"). 10 ms: measured at a fixed 1500 req/s on hello-world
// (bench/probe-overhead), 1 ms sampling added ~50 us of the server's CPU per
// request, 10 ms ~20; the native probe's block stacks now name what blocks
// the loop between samples, and a 5 s blocked run still gives ~500 samples.
// --profile-interval 1ms for short work in a short run.
const DEFAULT_PROFILE_INTERVAL_US = 10000;
// LOOPDOCTOR_PROFILE=on-block (what `run` asks for unless --profile) with the
// native probe: profile-start only arms the profiler, which starts once the
// loop is seen blocked for the block threshold: the addon calls back right
// after a block starts (onBlock: the watchdog wakes the loop through an
// async handle), and the slow tick checks the addon's count of blocks
// (blocksSeen()) and its own lateness for one the callback missed. V8's profiler costs a server whatever its interval (docs/building.md,
// probe-overhead), so a server that never blocks should not pay for it;
// block stacks name what blocks, and the profile then adds hot lines,
// source maps and the flame graph. The default threshold, 50 ms, is the
// delay from which the analyzer charges profile samples to a blocked loop
// (kBlockedIntervalMs, analyzer/thresholds.h): the late start misses the
// first such stall only.
// ... or once the loop is saturated by its requests' own work with no block
// at all: busy PROFILE_SATURATED_ELU of the time and each request costing
// PROFILE_SATURATED_CPU_MS of the process's CPU or more, over
// PROFILE_SATURATED_CHECKS checks PROFILE_SATURATION_CHECK_MS apart in a
// row (the analyzer's blocked-loop rule 4: kSaturatedElu, kSyncRequestCpuMs;
// a cluster worker hashing 4 ms a request never blocks 50 ms, and named no
// hotspot). Two in a row: a server's first second under load runs its
// code unoptimised (hello world measured 1-3 ms a request then, 0.02 ms
// after), and a saturated hello world must not pay for the profiler.
const PROFILE_SATURATED_ELU = 0.9;
const PROFILE_SATURATED_CPU_MS = 1;
const PROFILE_SATURATION_CHECK_MS = 1000;
const PROFILE_SATURATED_CHECKS = 2;
const MIN_PROFILE_INTERVAL_US = 50;      // V8's sampler thread cannot go much finer
const MAX_PROFILE_INTERVAL_US = 1000000;
// V8 keeps every sample in memory until Profiler.stop: a long soak would
// grow without bound (and its JSON past the line cap), so the profile
// covers at most the first 5 minutes of load (~300k samples, ~3 MB).
const MAX_PROFILE_MS = 5 * 60 * 1000;
// The collector closes the connection on a profile line over 16 MiB; stay
// under it with room for the envelope, and say why when we do not send it.
const MAX_PROFILE_BYTES = 15 * 1024 * 1024;
// performance.now() and V8's profile clock differ in origin only (both are
// CLOCK_MONOTONIC on Linux); if they disagree by more than this, the clock
// bases differ and the probe-measured start time is used instead.
const MAX_PROFILE_CLOCK_SKEW_MS = 1000;

// Allocation sampling (alloc.js): V8's sampling heap profiler takes about
// one allocation in every ALLOC_DEFAULT_INTERVAL_BYTES, each costing a stack
// walk and a weak handle. bench/probe-overhead (hello-world, 2000 req/s,
// the addon's sampler) added, over the run without allocation sampling,
// +1.6 to +2.6 us of CPU a request at 128 KiB (the contract's first
// figure) and nothing measurable at 512 KiB (V8's C++ default), where the
// probe as a whole stays at the 3 us target. A server allocating
// 100 MB/s still gives a 2 s churn phase ~400 samples, and a leak of
// 1 MB/s two a second, ~20 over a 10 s load.
const ALLOC_DEFAULT_INTERVAL_BYTES = 512 * 1024;
// Below 1 KiB nearly every object is a sample (the profiler is the load);
// above 64 MiB a run sees too few samples to rank sites.
const ALLOC_MIN_INTERVAL_BYTES = 1024;
const ALLOC_MAX_INTERVAL_BYTES = 64 * 1024 * 1024;
// Under a collector (alloc-start): what churns in the load's first 2 s
// (V8 keeps a sample of every collected object while the churn flags are
// on, so the phase is short), then what is still alive, a point every 2 s
// (a 10 s run gets four points and the one at its end).
const ALLOC_CHURN_MS = 2000;
const ALLOC_LIVE_POINT_MS = 2000;
// The agent's endpoint alone (no alloc-start): a long-lived server, looked
// at for minutes, so a longer churn phase and sparser points; the live phase
// starts again every minute so its samples (and their cost) stay bounded.
const ALLOC_AGENT_CHURN_MS = 5000;
const ALLOC_AGENT_LIVE_POINT_MS = 10000;
const ALLOC_AGENT_LIVE_PHASE_MS = 60000;
// Through the inspector (the JS probe; the addon forces none,
// native/heap_sampler.h), reading a live point costs a full,
// non-incremental collection: the inspector's HeapProfiler always starts
// V8's sampler with kSamplingForceGC,
// so that a point counts live objects only. Its pause grows with the heap
// (measured here, 2-core VM: 32 ms at 13 MB live, 140 ms at 50 MB), so the
// next point waits until that pause is at most this share of the time
// since: a point every 2 s up to ~20 ms pauses, sparser above. The pause is
// not all it costs: a server collected in full every 2 s runs slower after
// (hello-world at 2000 req/s: ~+50 us of CPU a request, the same with
// global.gc() every 2 s and no profiler; bench/probe-overhead).
const ALLOC_MAX_PAUSE_SHARE = 0.01;

// The collector closes a connection on a non-profile line over 1 MiB
// (agent/protocol/line_splitter.h kMaxLineBytes); the smallest sites go
// first to keep an alloc line under it, with room for its envelope.
const MAX_ALLOC_LINE_BYTES = 1024 * 1024 - 4096;
// --heap-snapshot=on-growth takes the snapshot only when the live phase's
// sampled live bytes grew by more than this from its first point to its
// last. A live point also counts sampled objects no collection has freed
// yet: up to a young generation of them (V8's default semi-space on 64-bit,
// 16 MiB), and old-space garbage awaiting a full collection. A snapshot
// pauses the process about a second per 100 MB of heap: 32 MiB of growth
// is past what garbage alone shows on the samples' short runs.
const HEAP_SNAPSHOT_MIN_GROWTH_BYTES = 32 * 1024 * 1024;
// A snapshot's path as the collector sends it: a file path, bounded.
const MAX_SNAPSHOT_PATH_BYTES = 4096;

// Block stacks (native probe only): a loop that has not turned for the
// threshold is blocked, and its stack is read again every interval while it
// lasts. agent/protocol/block_limits.h owns these four (and says why);
// `loopdoctor run` always passes the two settings, so these are the
// fallback for agent mode only. block_defaults.test.js fails if they drift.
const DEFAULT_BLOCK_THRESHOLD_MS = 50;
const DEFAULT_BLOCK_INTERVAL_MS = 20;
const MIN_BLOCK_MS = 5;
const MAX_BLOCK_MS = 10000;

// Worker threads sampled at once per process: each costs a
// connection, a timer and a sample line per interval; 64 is beyond any sane
// pool (pools size to the cores) and keeps the agent's series bounded. The
// workers past it are counted in a threads-unsampled line.
const MAX_SAMPLED_THREADS = 64;
// The key of the worker_threads environment data the main thread hands its
// workers (the settings and the shared counters): workers see no
// LOOPDOCTOR_* variable, scrubbed before they start.
const WORKER_DATA_KEY = 'loopdoctor-probe';

// Every variable the collector sets for the probe; none may reach a child,
// except in a run's tree (passToChildren).
const PROBE_ENV_VARS = [
  'LOOPDOCTOR_FD', 'LOOPDOCTOR_ENDPOINT', 'LOOPDOCTOR_INTERVAL_MS',
  'LOOPDOCTOR_JOB', 'LOOPDOCTOR_PROFILE', 'LOOPDOCTOR_PROFILE_INTERVAL_US',
  'LOOPDOCTOR_PROBE', 'LOOPDOCTOR_NATIVE_DIR',
  'LOOPDOCTOR_BLOCK_THRESHOLD_MS', 'LOOPDOCTOR_BLOCK_INTERVAL_MS', 'LOOPDOCTOR_TREE',
  'LOOPDOCTOR_ALLOC', 'LOOPDOCTOR_ALLOC_INTERVAL_BYTES',
];
// Under `run`, the collector names its per-run socket beside the inherited
// fd: the first process keeps the fd and leaves the rest (the endpoint, the
// settings, NODE_OPTIONS) to its children, which join the run with their own
// connection. LOOPDOCTOR_TREE carries the first process's pid.
const TREE_ENV_VAR = 'LOOPDOCTOR_TREE';

// Reads the probe's settings, then scrubs them (and the --require of
// selfPath) from env: children the target spawns inherit process.env and
// must never be probed nor write on the collector's socket. Returns null
// when no collector was named (the probe then does nothing).
function readSettings(env, selfPath) {
  const fdText = env.LOOPDOCTOR_FD;
  const endpoint = env.LOOPDOCTOR_ENDPOINT;
  // A run's tree: the first process has both the fd and the endpoint, a
  // child the endpoint and LOOPDOCTOR_TREE.
  const tree = Boolean(endpoint) && (Boolean(fdText) || Boolean(env[TREE_ENV_VAR]));
  const raw = {
    fdText,
    endpoint,
    tree,
    oneShot: Boolean(fdText) || tree,
    interval: env.LOOPDOCTOR_INTERVAL_MS,
    job: env.LOOPDOCTOR_JOB,
    profile: env.LOOPDOCTOR_PROFILE,
    profileInterval: env.LOOPDOCTOR_PROFILE_INTERVAL_US,
    probeChoice: env.LOOPDOCTOR_PROBE,    // "js" forces the JS probe
    nativeDir: env.LOOPDOCTOR_NATIVE_DIR,  // where the addon was built
    blockThreshold: env.LOOPDOCTOR_BLOCK_THRESHOLD_MS,
    blockInterval: env.LOOPDOCTOR_BLOCK_INTERVAL_MS,
    alloc: env.LOOPDOCTOR_ALLOC,
    allocInterval: env.LOOPDOCTOR_ALLOC_INTERVAL_BYTES,
  };
  try {
    if (tree) passToChildren(env); else scrubEnvironment(env, selfPath);
  } catch (_) { /* never break the target */ }
  if (!fdText && !endpoint) return null;
  return settingsFrom(raw);
}

// `loopdoctor attach`: the settings object its Runtime.evaluate passes to
// attach.js (every field given), onto the same shape as readSettings'.
// Returns { settings } or { error } naming the bad field and what it takes.
const ATTACH_PROFILES = { 'on-block': 'on-block', on: '1', off: '0' };
function attachSettings(s) {
  if (s === null || typeof s !== 'object') return { error: 'attach() takes a settings object, not ' + typeof s };
  if (typeof s.endpoint !== 'string' || s.endpoint === '' || s.endpoint === '\u0000') {
    return { error: 'settings.endpoint must name the collector\'s Unix socket (a path, or "\\u0000name" for an abstract one)' };
  }
  if (s.profile !== undefined && !Object.prototype.hasOwnProperty.call(ATTACH_PROFILES, s.profile)) {
    return { error: 'settings.profile is ' + JSON.stringify(s.profile) + ': it takes on-block, on or off' };
  }
  if (s.alloc !== undefined && typeof s.alloc !== 'boolean') {
    return { error: 'settings.alloc is ' + JSON.stringify(s.alloc) + ': it takes true (allocation sampling, the default) or false' };
  }
  if (s.probe !== undefined && s.probe !== 'js') {
    return { error: 'settings.probe is ' + JSON.stringify(s.probe) + ': it takes "js" (the JS probe) or nothing (native when it loads)' };
  }
  const settings = settingsFrom({
    endpoint: s.endpoint,
    tree: false,
    // A diagnosis as under `run` (10 ms samples unless told), or, with
    // settings.agent (`loopdoctor agent --attach`), a long-running agent's
    // probe: its samples every second unless told, as a preloaded one's.
    oneShot: s.agent !== true,
    interval: s.intervalMs,
    job: typeof s.job === 'string' ? s.job : undefined,
    profile: s.profile === undefined ? undefined : ATTACH_PROFILES[s.profile],
    profileInterval: s.profileIntervalUs,
    probeChoice: s.probe,
    nativeDir: typeof s.nativeDir === 'string' && s.nativeDir !== '' ? s.nativeDir : undefined,
    blockThreshold: s.blockThresholdMs,
    blockInterval: s.blockIntervalMs,
    alloc: s.alloc === false ? '0' : undefined,
    allocInterval: s.allocIntervalBytes,
  });
  settings.attached = true;
  settings.attachToken = typeof s.token === 'string' ? s.token : '';
  settings.closeInspector = s.closeInspector === true;
  // `attach --tree`: a process below the one attached to, named in its hello
  // as a run's child processes are (parent_pid, process_name).
  if (s.treeChild === true) settings.treeChild = true;
  // The private folder loopdoctor made for this attach (its socket, and the
  // probe's copy in a container): removed by the main thread's probe when
  // it stops, so a loopdoctor killed mid-attach leaves nothing behind. Only
  // a folder of that name is ever removed.
  if (typeof s.removeDir === 'string' && /(^|\/)loopdoctor-attach-[^/]+$/.test(s.removeDir)) {
    settings.removeDir = s.removeDir;
  }
  return { settings };
}

// The one place that defaults and clamps the settings, from the
// environment's texts (readSettings) or attach's values (attachSettings).
function settingsFrom(raw) {
  const defaultIntervalMs = raw.oneShot ? DEFAULT_INTERVAL_FD_MS : DEFAULT_INTERVAL_ENDPOINT_MS;
  let intervalMs = Number(raw.interval);
  if (!Number.isFinite(intervalMs) || intervalMs <= 0) intervalMs = defaultIntervalMs;
  intervalMs = Math.min(Math.max(intervalMs, MIN_INTERVAL_MS), MAX_INTERVAL_MS);
  let profileIntervalUs = Number(raw.profileInterval);
  if (!Number.isFinite(profileIntervalUs) || profileIntervalUs <= 0) profileIntervalUs = DEFAULT_PROFILE_INTERVAL_US;
  profileIntervalUs = Math.round(Math.min(Math.max(profileIntervalUs, MIN_PROFILE_INTERVAL_US), MAX_PROFILE_INTERVAL_US));
  const profileText = raw.profile;
  return {
    fdText: raw.fdText,
    endpoint: raw.endpoint,
    // Under run: worker threads and child processes are probed too.
    tree: raw.tree,
    treeChild: raw.tree && !raw.fdText,
    // attachSettings sets these three: loaded by `loopdoctor attach`.
    attached: false,
    attachToken: '',
    closeInspector: false,
    intervalMs,
    resolutionMs: Math.max(1, Math.min(Math.round(intervalMs), MAX_DELAY_RESOLUTION_MS)),
    job: raw.job || (process.argv[1] ? path.basename(process.argv[1]) : 'node'),
    profileEnabled: profileText !== '0' && profileText !== 'false',
    profileOnBlock: profileText === 'on-block',
    profileIntervalUs,
    probeChoice: raw.probeChoice,
    nativeDir: raw.nativeDir,
    blockThresholdMs: blockMs(raw.blockThreshold, DEFAULT_BLOCK_THRESHOLD_MS),
    blockIntervalMs: blockMs(raw.blockInterval, DEFAULT_BLOCK_INTERVAL_MS),
    allocEnabled: raw.alloc !== '0' && raw.alloc !== 'false',
    allocIntervalBytes: allocBytes(raw.allocInterval),
  };
}

// The allocation sampling interval (a text from the environment or
// attach's number), in [ALLOC_MIN_INTERVAL_BYTES, ALLOC_MAX_INTERVAL_BYTES].
function allocBytes(text) {
  const n = Number(text);
  if (text === undefined || text === '' || !Number.isFinite(n) || n <= 0) return ALLOC_DEFAULT_INTERVAL_BYTES;
  return Math.round(Math.min(Math.max(n, ALLOC_MIN_INTERVAL_BYTES), ALLOC_MAX_INTERVAL_BYTES));
}

// A block setting (a text from the environment or attach's number), in
// [MIN_BLOCK_MS, MAX_BLOCK_MS].
function blockMs(text, fallback) {
  const ms = Number(text);
  if (text === undefined || text === '' || !Number.isFinite(ms) || ms <= 0) return fallback;
  return Math.min(Math.max(ms, MIN_BLOCK_MS), MAX_BLOCK_MS);
}

// In a run's tree the children keep the probe: only the fd (the first
// process's own) goes, and they learn they are part of the tree.
function passToChildren(env) {
  delete env.LOOPDOCTOR_FD;
  if (!env[TREE_ENV_VAR]) env[TREE_ENV_VAR] = String(process.pid);
}

function scrubEnvironment(env, selfPath) {
  for (const name of PROBE_ENV_VARS) delete env[name];
  const opts = env.NODE_OPTIONS;
  if (typeof opts !== 'string' || opts === '') return;
  const cleaned = removeSelfFromNodeOptions(opts, selfPath);
  if (cleaned === opts) return;
  if (cleaned.trim() === '') delete env.NODE_OPTIONS;
  else env.NODE_OPTIONS = cleaned;
}

// NODE_OPTIONS is split on spaces with "double quotes" and backslash
// escapes inside quotes; keep every other token exactly as written.
function tokenize(s) {
  const out = [];
  let i = 0;
  while (i < s.length) {
    while (i < s.length && /\s/.test(s[i])) i++;
    if (i >= s.length) break;
    const start = i;
    let value = '';
    let quoted = false;
    while (i < s.length && (quoted || !/\s/.test(s[i]))) {
      const c = s[i];
      if (c === '"') { quoted = !quoted; i++; continue; }
      if (quoted && c === '\\' && i + 1 < s.length) { value += s[i + 1]; i += 2; continue; }
      value += c;
      i++;
    }
    out.push({ raw: s.slice(start, i), value });
  }
  return out;
}

function isSelf(p, selfPath) {
  if (!p) return false;
  try {
    const abs = path.resolve(p);
    if (abs === selfPath) return true;
    return fs.realpathSync(abs) === fs.realpathSync(selfPath);
  } catch (_) {
    return false;
  }
}

function removeSelfFromNodeOptions(opts, selfPath) {
  const toks = tokenize(opts);
  const keep = [];
  for (let i = 0; i < toks.length; i++) {
    const v = toks[i].value;
    if ((v === '--require' || v === '-r') && i + 1 < toks.length && isSelf(toks[i + 1].value, selfPath)) {
      i++;
      continue;
    }
    if (v.startsWith('--require=') && isSelf(v.slice('--require='.length), selfPath)) continue;
    keep.push(toks[i].raw);
  }
  if (keep.length === toks.length) return opts;
  return keep.join(' ');
}

module.exports = {
  readSettings,
  attachSettings,
  PROBE_ENV_VARS,
  MAX_SAMPLED_THREADS,
  WORKER_DATA_KEY,
  MAX_BUFFERED_BYTES,
  RECONNECT_MIN_MS,
  RECONNECT_MAX_MS,
  MAX_CONTROL_LINE_BYTES,
  MAX_DELAYS_PER_SAMPLE,
  SLOW_REFRESH_MS,
  SLOW_IDLE_REFRESH_MS,
  HANDOVER_MS,
  MEM_REFRESH_MS,
  FLUSH_MS,
  CLOSE_WAIT_MS,
  TIMED_REQUESTS_PER_INTERVAL,
  GC_PROFILER_MAX_PENDING,
  PROFILE_SATURATED_ELU,
  PROFILE_SATURATED_CPU_MS,
  PROFILE_SATURATION_CHECK_MS,
  PROFILE_SATURATED_CHECKS,
  HEAP_AFTER_MAX_LAG_MS,
  GC_PROFILER_IDLE_MS,
  MAX_PROFILE_MS,
  MAX_PROFILE_BYTES,
  MAX_PROFILE_CLOCK_SKEW_MS,
  DEFAULT_BLOCK_THRESHOLD_MS,
  DEFAULT_BLOCK_INTERVAL_MS,
  MIN_BLOCK_MS,
  MAX_BLOCK_MS,
  ALLOC_DEFAULT_INTERVAL_BYTES,
  ALLOC_CHURN_MS,
  ALLOC_LIVE_POINT_MS,
  ALLOC_AGENT_CHURN_MS,
  ALLOC_AGENT_LIVE_POINT_MS,
  ALLOC_AGENT_LIVE_PHASE_MS,
  ALLOC_MAX_PAUSE_SHARE,
  MAX_ALLOC_LINE_BYTES,
  HEAP_SNAPSHOT_MIN_GROWTH_BYTES,
  MAX_SNAPSHOT_PATH_BYTES,
};
