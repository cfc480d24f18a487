'use strict';
// loopdoctor's in-process probe for Node.js (>= 18), loaded with
//   NODE_OPTIONS="--require /abs/path/probe.js"
// It streams newline-delimited JSON (see "Probe protocol" in DESIGN.md) to the
// collector over an inherited socket (LOOPDOCTOR_FD) or a Unix socket path
// (LOOPDOCTOR_ENDPOINT). Rules it lives by:
// - it never keeps the target alive: every handle it creates is unref()'d;
// - it never breaks the target: all of its code runs inside try/catch, it adds
//   no 'uncaughtException' or signal listener (those change behaviour), and a
//   socket error silently disables it;
// - it never slows the target much: per-sample work is a few native calls and
//   one hand-built string, costly readings are refreshed every 100 ms, lines
//   are written in batches; when the collector does not keep up, messages are
//   dropped and counted rather than buffered without bound.
// It is one file on purpose: it is installed and preloaded as a single file.

(function loopdoctorProbe() {
  let net, path, fs, perf, v8, dc, wt;
  try {
    net = require('net');
    path = require('path');
    fs = require('fs');
    perf = require('perf_hooks');
    v8 = require('v8');
    wt = require('worker_threads');
    try { dc = require('diagnostics_channel'); } catch (_) { dc = null; }
  } catch (_) {
    return;
  }
  // Worker threads run NODE_OPTIONS preloads too; only the main thread owns
  // the process's event loop and the collector connection.
  if (!wt.isMainThread) return;

  const env = process.env;
  const fdText = env.LOOPDOCTOR_FD;
  const endpoint = env.LOOPDOCTOR_ENDPOINT;
  const intervalText = env.LOOPDOCTOR_INTERVAL_MS;
  const jobText = env.LOOPDOCTOR_JOB;
  const profileText = env.LOOPDOCTOR_PROFILE;
  const profileIntervalText = env.LOOPDOCTOR_PROFILE_INTERVAL_US;
  // Children the target spawns inherit process.env: clean it first so they are
  // never probed and never write on the collector's socket.
  try { scrubEnvironment(); } catch (_) { /* never break the target */ }
  if (!fdText && !endpoint) return;

  // Protocol and safety limits.
  // One-shot runs (an inherited fd) sample every 10 ms; a long-running agent
  // (an endpoint) every second, each sample keeping its interval's max and
  // percentiles so no spike is lost between scrapes.
  const DEFAULT_INTERVAL_MS = fdText ? 10 : 1000;
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
  // most this often; samples in between repeat the last values.
  const SLOW_REFRESH_MS = 100;
  const FLUSH_MS = 100;                   // see enqueue()
  // CPU profile (sent once, at the end, when the collector asked for it with
  // "profile-start"). 1 ms sampling costs V8 a few per cent and resolves a
  // 10 ms stall into ~10 samples; finer adds cost, coarser misses short work.
  const DEFAULT_PROFILE_INTERVAL_US = 1000;
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

  const t0 = perf.performance.now();
  const now = () => perf.performance.now() - t0;
  const r3 = (x) => Math.round(x * 1000) / 1000;

  let intervalMs = Number(intervalText);
  if (!Number.isFinite(intervalMs) || intervalMs <= 0) intervalMs = DEFAULT_INTERVAL_MS;
  intervalMs = Math.min(Math.max(intervalMs, MIN_INTERVAL_MS), MAX_INTERVAL_MS);
  const resolutionMs = Math.max(1, Math.min(Math.round(intervalMs), MAX_DELAY_RESOLUTION_MS));
  const job = jobText || (process.argv[1] ? path.basename(process.argv[1]) : 'node');
  const profileEnabled = profileText !== '0' && profileText !== 'false';
  let profileIntervalUs = Number(profileIntervalText);
  if (!Number.isFinite(profileIntervalUs) || profileIntervalUs <= 0) profileIntervalUs = DEFAULT_PROFILE_INTERVAL_US;
  profileIntervalUs = Math.round(Math.min(Math.max(profileIntervalUs, MIN_PROFILE_INTERVAL_US), MAX_PROFILE_INTERVAL_US));

  let socket = null;
  let connected = false;
  let disabled = false;   // socket error (fd mode) or fatal probe error
  let finished = false;   // 'end' received or process exiting: bye sent
  let dropped = 0;
  let reconnectDelay = RECONNECT_MIN_MS;
  let reconnectTimer = null;
  let sampleTimer = null;
  let inBuf = '';
  const listens = [];     // listen messages, re-sent on every (re)connect

  // ---- sampling state (reused between samples) ----
  // Loop delay: our own timer measures how late each tick runs. Not
  // monitorEventLoopDelay: its reset() also forgets the previous tick, so the
  // first delay after every per-sample reset was lost (a 200 ms block right
  // after a sample went unseen about half the time). Values of one interval
  // go to a fixed array; min/max/mean/count stay exact past its end.
  const delays = new Float64Array(MAX_DELAYS_PER_SAMPLE);
  let delayCount = 0, delaySum = 0, delayMin = Infinity, delayMax = 0;
  let lastTick = 0;
  let lastSampleT = 0;
  let lastEluIdle = 0, lastEluActive = 0;
  let lastCpuUser = 0, lastCpuSystem = 0;
  let mem = null, memT = -Infinity;
  let outBuf = '';        // queued lines, see enqueue()
  let lastFlushT = 0;
  let handles = null, handlesT = -Infinity;
  let httpRequests = 0, httpResponses = 0, httpLatencySum = 0, httpLatencyMax = 0;
  const inflight = new Map();  // ServerResponse -> start time (performance.now)
  let gcObserver = null;
  // CPU profile state: the inspector session while profiling, the measured
  // start, and the result once stopped (early, at MAX_PROFILE_MS, or at end).
  let profSession = null;
  let profStartT = 0;
  let profCapTimer = null;
  let profResult = null;   // {profile, t, t_end} or {error, t, t_end}

  function scrubEnvironment() {
    delete env.LOOPDOCTOR_FD;
    delete env.LOOPDOCTOR_ENDPOINT;
    delete env.LOOPDOCTOR_INTERVAL_MS;
    delete env.LOOPDOCTOR_JOB;
    delete env.LOOPDOCTOR_PROFILE;
    delete env.LOOPDOCTOR_PROFILE_INTERVAL_US;
    const opts = env.NODE_OPTIONS;
    if (typeof opts !== 'string' || opts === '') return;
    const cleaned = removeSelfFromNodeOptions(opts);
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

  function isSelf(p) {
    if (!p) return false;
    try {
      const abs = path.resolve(p);
      if (abs === __filename) return true;
      return fs.realpathSync(abs) === fs.realpathSync(__filename);
    } catch (_) {
      return false;
    }
  }

  function removeSelfFromNodeOptions(opts) {
    const toks = tokenize(opts);
    const keep = [];
    for (let i = 0; i < toks.length; i++) {
      const v = toks[i].value;
      if ((v === '--require' || v === '-r') && i + 1 < toks.length && isSelf(toks[i + 1].value)) {
        i++;
        continue;
      }
      if (v.startsWith('--require=') && isSelf(v.slice('--require='.length))) continue;
      keep.push(toks[i].raw);
    }
    if (keep.length === toks.length) return opts;
    return keep.join(' ');
  }

  // ---- transport ----
  // Samples and gc lines are queued and written in batches every FLUSH_MS:
  // a write on a Unix socket that wakes the collector costs far more than
  // building a sample (~0.2 ms on a small VM), so one write per 10 ms sample
  // alone was a few per cent of a saturated server's CPU.
  function enqueue(lines) {
    if (!connected || disabled || socket === null) { dropped += countLines(lines); return; }
    if (outBuf.length + lines.length > MAX_BUFFERED_BYTES) { dropped += countLines(lines); return; }
    outBuf += lines;
  }

  function flush() {
    lastFlushT = now();
    if (outBuf === '') return;
    const out = outBuf;
    outBuf = '';
    if (!connected || disabled || socket === null) { dropped += countLines(out); return; }
    try {
      if (socket.writableLength > MAX_BUFFERED_BYTES) { dropped += countLines(out); return; }
      socket.write(out);
    } catch (_) {
      dropped += countLines(out);
    }
  }

  // Control messages (hello, listen, bye) go out at once, after what is queued.
  function send(line) {
    enqueue(line);
    flush();
  }

  function countLines(s) {
    let n = 0;
    for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
    return n;
  }

  function helloLine() {
    let heapLimit = 0;
    try { heapLimit = v8.getHeapStatistics().heap_size_limit; } catch (_) { /* keep 0 */ }
    return JSON.stringify({
      type: 'hello', t: r3(now()), v: 1, pid: process.pid, runtime: 'node',
      versions: { node: process.versions.node, v8: process.versions.v8, uv: process.versions.uv },
      argv: process.argv, interval_ms: intervalMs, heap_limit: heapLimit, job,
    }) + '\n';
  }

  function onConnected() {
    connected = true;
    reconnectDelay = RECONNECT_MIN_MS;
    send(helloLine());
    for (const l of listens) send(JSON.stringify(Object.assign({}, l, { t: r3(now()) })) + '\n');
    startSampling();
  }

  function onLost() {
    connected = false;
    stopSampling();
    profResult = null;
    closeProfileSession();  // disconnecting ends V8's profiling too
    if (socket) { try { socket.destroy(); } catch (_) { /* already gone */ } }
    socket = null;
    if (endpoint && !fdText && !finished && !disabled) scheduleReconnect();
    else disabled = true;
  }

  function attach(s) {
    socket = s;
    s.setEncoding('utf8');
    s.on('data', onData);
    s.on('error', () => { try { if (socket === s) onLost(); } catch (_) { /* silent */ } });
    s.on('close', () => { try { if (socket === s) onLost(); } catch (_) { /* silent */ } });
    s.unref();
  }

  function openFd() {
    const fd = Number(fdText);
    if (!Number.isInteger(fd) || fd < 0) { disabled = true; return; }
    const s = new net.Socket({ fd, readable: true, writable: true });
    attach(s);
    onConnected();
  }

  function connectEndpoint() {
    reconnectTimer = null;
    if (finished || disabled) return;
    const s = net.connect(endpoint);
    attach(s);
    s.once('connect', () => { try { if (socket === s) onConnected(); } catch (_) { /* silent */ } });
  }

  function scheduleReconnect() {
    if (reconnectTimer) return;
    const delay = reconnectDelay;
    reconnectDelay = Math.min(reconnectDelay * 2, RECONNECT_MAX_MS);
    reconnectTimer = setTimeout(() => { try { connectEndpoint(); } catch (_) { /* silent */ } }, delay);
    reconnectTimer.unref();
  }

  function onData(chunk) {
    try {
      inBuf += chunk;
      let nl;
      while ((nl = inBuf.indexOf('\n')) >= 0) {
        const line = inBuf.slice(0, nl);
        inBuf = inBuf.slice(nl + 1);
        handleControl(line);
      }
      if (inBuf.length > MAX_CONTROL_LINE_BYTES) inBuf = '';
    } catch (_) { /* ignore bad control input */ }
  }

  function handleControl(line) {
    if (line.trim() === '') return;
    let msg;
    try { msg = JSON.parse(line); } catch (_) { return; }
    if (!msg) return;
    if (msg.type === 'end') finish(false);
    else if (msg.type === 'profile-start') startProfile();
  }

  // Last sample, the profile, then bye; sampling stops but the process keeps
  // running. At process exit no callback will run again, so bye goes at once.
  function finish(exiting) {
    if (finished) return;
    if (connected && sampleTimer) sample(now());
    finished = true;
    stopSampling();
    let byeSent = false;
    const bye = () => {
      if (byeSent) return;
      byeSent = true;
      send('{"type":"bye","t":' + r3(now()) + ',"dropped":' + dropped + '}\n');
    };
    stopProfile(() => { try { sendProfile(); } catch (_) { /* never throw */ } bye(); });
    if (exiting) bye();
  }

  // ---- CPU profile (inspector) ----
  function startProfile() {
    if (!profileEnabled || profSession || profResult || finished || !connected) return;
    let inspector;
    try { inspector = require('inspector'); } catch (_) { return; }  // node built without it
    let s = null;
    try {
      s = new inspector.Session();
      s.connect();
      profSession = s;
      const fail = (err) => { if (err && profSession === s) closeProfileSession(); };
      s.post('Profiler.enable', fail);
      s.post('Profiler.setSamplingInterval', { interval: profileIntervalUs }, fail);
      profStartT = now();
      s.post('Profiler.start', fail);
      profCapTimer = setTimeout(() => { try { stopProfile(null); } catch (_) { /* silent */ } }, MAX_PROFILE_MS);
      profCapTimer.unref();
    } catch (_) {
      if (s) closeProfileSession();
    }
  }

  function closeProfileSession() {
    const s = profSession;
    profSession = null;
    if (profCapTimer) { clearTimeout(profCapTimer); profCapTimer = null; }
    if (s) { try { s.disconnect(); } catch (_) { /* already gone */ } }
  }

  // Stops the profiler (if running) and calls done once the result is kept.
  function stopProfile(done) {
    const s = profSession;
    if (!s) { if (done) done(); return; }
    if (profCapTimer) { clearTimeout(profCapTimer); profCapTimer = null; }
    let called = false;
    const stopT = now();
    try {
      s.post('Profiler.stop', (err, res) => {
        if (called) return;
        called = true;
        try {
          if (!err && res && res.profile) profResult = keepProfile(res.profile, stopT);
        } catch (_) { profResult = null; }
        closeProfileSession();
        if (done) done();
      });
    } catch (_) {
      closeProfileSession();
      if (done && !called) { called = true; done(); }
    }
  }

  // Trims the profile to the nodes its samples reach (and their ancestors),
  // and places it on the probe clock: V8 stamps it with CLOCK_MONOTONIC µs,
  // the clock process.hrtime reads, so the start is exact, not a guess.
  function keepProfile(p, stopT) {
    const monoMinusProbe = Number(process.hrtime.bigint()) / 1e6 - now();
    let t = profStartT, tEnd = stopT;
    if (Number.isFinite(p.startTime) && Number.isFinite(p.endTime)) {
      const t0v8 = p.startTime / 1000 - monoMinusProbe;
      if (Math.abs(t0v8 - profStartT) <= MAX_PROFILE_CLOCK_SKEW_MS) {
        t = t0v8;
        tEnd = p.endTime / 1000 - monoMinusProbe;
      }
    }
    const nodes = Array.isArray(p.nodes) ? p.nodes : [];
    const samples = Array.isArray(p.samples) ? p.samples : [];
    const byId = new Map();
    const parent = new Map();
    for (const n of nodes) {
      byId.set(n.id, n);
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
  function sendProfile() {
    const r = profResult;
    profResult = null;
    if (!r || !connected || disabled || socket === null) return;
    let line = JSON.stringify({ type: 'profile', t: r.t, t_end: r.t_end, interval_us: profileIntervalUs, profile: r.profile }) + '\n';
    if (line.length > MAX_PROFILE_BYTES) {
      const mib = (line.length / 1048576).toFixed(1);
      line = JSON.stringify({ type: 'profile', t: r.t, t_end: r.t_end, interval_us: profileIntervalUs,
        error: 'the CPU profile (' + mib + ' MiB) is over the ' + (MAX_PROFILE_BYTES >> 20) +
          ' MiB limit and was not sent; use a longer --profile-interval or a shorter run' }) + '\n';
    }
    flush();
    try { socket.write(line); } catch (_) { /* the collector is gone */ }
  }

  // ---- sampling ----
  function startSampling() {
    if (finished || sampleTimer) return;
    lastSampleT = lastTick = now();
    const elu = perf.performance.eventLoopUtilization();
    lastEluIdle = elu.idle;
    lastEluActive = elu.active;
    const cpu = process.cpuUsage();
    lastCpuUser = cpu.user;
    lastCpuSystem = cpu.system;
    resetDelays();
    httpRequests = httpResponses = httpLatencySum = httpLatencyMax = 0;
    outBuf = '';
    memT = handlesT = -Infinity;
    startGcObserver();
    sampleTimer = setInterval(() => { try { tick(); } catch (_) { /* never throw */ } }, resolutionMs);
    sampleTimer.unref();
  }

  function stopSampling() {
    if (sampleTimer) { clearInterval(sampleTimer); sampleTimer = null; }
    inflight.clear();
    if (gcObserver) { try { gcObserver.disconnect(); } catch (_) { /* gone */ } gcObserver = null; }
  }

  // One timer drives both: every tick records how late it ran (its whole
  // period minus the configured one), and a sample is due every intervalMs.
  function tick() {
    const t = now();
    const late = t - lastTick - resolutionMs;
    lastTick = t;
    recordDelay(late > 0 ? late : 0);
    if (t - lastSampleT >= intervalMs - resolutionMs / 2) sample(t);
  }

  function recordDelay(ms) {
    if (delayCount < MAX_DELAYS_PER_SAMPLE) delays[delayCount] = ms;
    delayCount++;
    delaySum += ms;
    if (ms < delayMin) delayMin = ms;
    if (ms > delayMax) delayMax = ms;
  }

  function resetDelays() {
    delayCount = 0;
    delaySum = 0;
    delayMin = Infinity;
    delayMax = 0;
  }

  function delayJson() {
    if (delayCount === 0) return '{"min":0,"mean":0,"max":0,"p50":0,"p90":0,"p99":0,"count":0}';
    const n = Math.min(delayCount, MAX_DELAYS_PER_SAMPLE);
    const sorted = delays.subarray(0, n).sort();  // numeric sort of a typed array, in place
    const pct = (p) => sorted[Math.min(n - 1, Math.ceil((p / 100) * n) - 1)];
    const s = '{"min":' + r3(delayMin) + ',"mean":' + r3(delaySum / delayCount) + ',"max":' + r3(delayMax) +
      ',"p50":' + r3(pct(50)) + ',"p90":' + r3(pct(90)) + ',"p99":' + r3(pct(99)) +
      ',"count":' + delayCount + '}';
    resetDelays();
    return s;
  }

  function handlesCached(t) {
    if (handles === null || t - handlesT >= SLOW_REFRESH_MS) {
      handles = handlesJson();
      handlesT = t;
    }
    return handles;
  }

  function handlesJson() {
    let list;
    try { list = process.getActiveResourcesInfo(); } catch (_) { return '{"total":0,"by_type":{}}'; }
    // The probe's own handles are unref()'d and so not listed; a pending
    // write on its socket is, once.
    const counts = new Map();
    for (let i = 0; i < list.length; i++) counts.set(list[i], (counts.get(list[i]) || 0) + 1);
    if (socket !== null && socket.writableLength > 0 && counts.get('WriteWrap') > 0) {
      counts.set('WriteWrap', counts.get('WriteWrap') - 1);
    }
    let total = 0;
    let body = '';
    for (const [k, n] of counts) {
      if (n <= 0) continue;
      total += n;
      body += (body ? ',' : '') + JSON.stringify(k) + ':' + n;
    }
    return '{"total":' + total + ',"by_type":{' + body + '}}';
  }

  // process.memoryUsage() reads /proc/self/stat for the RSS: ~0.1 ms here.
  function memJson(t) {
    if (mem === null || t - memT >= SLOW_REFRESH_MS) {
      const m = process.memoryUsage();
      mem = ',"mem":{"rss":' + m.rss + ',"heap_used":' + m.heapUsed + ',"heap_total":' + m.heapTotal +
        ',"external":' + m.external + ',"array_buffers":' + (m.arrayBuffers || 0) + '}';
      memT = t;
    }
    return mem;
  }

  function sweepInflight() {
    // A request whose connection died never gets 'finish': forget it.
    for (const res of inflight.keys()) {
      const s = res.socket;
      if (res.destroyed || !s || s.destroyed) inflight.delete(res);
    }
  }

  function sample(t) {
    if (!connected) return;
    const elapsed = t - lastSampleT;
    lastSampleT = t;
    const elu = perf.performance.eventLoopUtilization();
    const dIdle = elu.idle - lastEluIdle, dActive = elu.active - lastEluActive;
    lastEluIdle = elu.idle;
    lastEluActive = elu.active;
    const util = dIdle + dActive > 0 ? dActive / (dIdle + dActive) : 0;
    const cpu = process.cpuUsage();
    const user = cpu.user - lastCpuUser, system = cpu.system - lastCpuSystem;
    lastCpuUser = cpu.user;
    lastCpuSystem = cpu.system;
    if (inflight.size > 0) sweepInflight();
    const latMean = httpResponses > 0 ? httpLatencySum / httpResponses : 0;
    const line = '{"type":"sample","t":' + r3(t) + ',"interval_ms":' + r3(elapsed) +
      ',"delay":' + delayJson() +
      ',"elu":' + r3(util) +
      ',"cpu":{"user_us":' + user + ',"system_us":' + system + '}' +
      memJson(t) +
      ',"handles":' + handlesCached(t) +
      ',"http":{"requests":' + httpRequests + ',"responses":' + httpResponses +
      ',"inflight":' + inflight.size + ',"latency_mean_ms":' + r3(latMean) +
      ',"latency_max_ms":' + r3(httpLatencyMax) + '}' +
      ',"dropped":' + dropped + '}\n';
    httpRequests = httpResponses = httpLatencySum = httpLatencyMax = 0;
    enqueue(line);
    if (t - lastFlushT >= FLUSH_MS) flush();
  }

  // ---- GC ----
  const GC_KINDS = { 1: 'minor', 4: 'major', 8: 'incremental', 16: 'weak' };
  function startGcObserver() {
    if (gcObserver) return;
    try {
      gcObserver = new perf.PerformanceObserver((list) => {
        try {
          if (!connected || finished) return;
          const entries = list.getEntries();
          let out = '';
          for (let i = 0; i < entries.length; i++) {
            const e = entries[i];
            const kindNum = e.detail ? e.detail.kind : e.kind;  // .kind before Node 16
            const kind = GC_KINDS[kindNum] || 'minor';
            out += '{"type":"gc","t":' + r3(e.startTime - t0) + ',"kind":"' + kind +
              '","duration_ms":' + r3(e.duration) + '}\n';
          }
          if (out) enqueue(out);
        } catch (_) { /* never throw */ }
      });
      gcObserver.observe({ entryTypes: ['gc'] });
    } catch (_) { gcObserver = null; }
  }

  // ---- HTTP server view (diagnostics_channel, Node >= 18.? ) ----
  function onRequestStart(msg) {
    try {
      if (sampleTimer === null) return;  // not sampling: keep nothing alive
      const res = msg.response;
      httpRequests++;
      if (res) inflight.set(res, perf.performance.now());
    } catch (_) { /* never throw */ }
  }
  function onResponseFinish(msg) {
    try {
      const res = msg.response;
      const start = res ? inflight.get(res) : undefined;
      if (start === undefined) return;
      inflight.delete(res);
      const ms = perf.performance.now() - start;
      httpResponses++;
      httpLatencySum += ms;
      if (ms > httpLatencyMax) httpLatencyMax = ms;
    } catch (_) { /* never throw */ }
  }

  // ---- listen ----
  function hookListen() {
    const proto = net.Server.prototype;
    const original = proto.listen;
    if (typeof original !== 'function' || original.__loopdoctor) return;
    function onListening() {
      try {
        const a = this.address();
        if (!a || typeof a !== 'object' || typeof a.port !== 'number') return;  // pipe
        const msg = { type: 'listen', address: a.address, port: a.port };
        listens.push(msg);
        if (connected) send(JSON.stringify(Object.assign({ t: r3(now()) }, msg)) + '\n');
      } catch (_) { /* never throw */ }
    }
    const wrapped = function listen(...args) {
      try { if (!finished) this.once('listening', onListening); } catch (_) { /* ignore */ }
      return original.apply(this, args);
    };
    Object.defineProperty(wrapped, '__loopdoctor', { value: true });
    Object.defineProperty(wrapped, 'length', { value: original.length });
    proto.listen = wrapped;
  }

  try {
    hookListen();
    if (dc && typeof dc.subscribe === 'function') {
      dc.subscribe('http.server.request.start', onRequestStart);
      dc.subscribe('http.server.response.finish', onResponseFinish);
    } else if (dc && typeof dc.channel === 'function') {
      dc.channel('http.server.request.start').subscribe(onRequestStart);
      dc.channel('http.server.response.finish').subscribe(onResponseFinish);
    }
    process.on('exit', () => {
      try { if (connected && !finished) finish(true); } catch (_) { /* never throw */ }
    });
    if (fdText) openFd();
    else connectEndpoint();
  } catch (_) {
    disabled = true;
  }
})();
