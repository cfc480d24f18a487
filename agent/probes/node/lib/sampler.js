'use strict';
// The sample line: one timer measures loop delay on every tick and, every
// intervalMs, reports delay percentiles, event-loop utilisation, CPU, memory,
// active handles and the HTTP view. Runs while connected; per-sample work is
// a few native calls and one hand-built string.
// With the native probe (state.native), the addon's watchdog thread measures
// the delay, ELU, CPU and RSS and writes the sample itself, on time even while
// JS blocks; the probe's slow tick then only hands it the readings only JS
// can make (heap, handles, the HTTP view), every HANDOVER_MS (not every
// sample: at 10 ms its wakes and work cost the loop ~17 ms of CPU a second
// on an idle server, most of the probe's cost, and at 100 ms still ~0.8 ms;
// the addon repeats the gauges on the samples between, native/watchdog_core.h).
const { performance } = require('perf_hooks');
const v8 = require('v8');
const { r3 } = require('./state.js');
const {
  MAX_DELAYS_PER_SAMPLE, SLOW_REFRESH_MS, MEM_REFRESH_MS, HANDOVER_MS,
  PROFILE_SATURATED_ELU, PROFILE_SATURATED_CPU_MS, PROFILE_SATURATION_CHECK_MS, PROFILE_SATURATED_CHECKS,
} = require('./config.js');

// onBlocked(): called when, with the native probe, the timer ran at least
// the block threshold late (the profiler's on-block start, see config.js).
function createSampler(state, transport, gc, httpView, onBlocked) {
  const { now } = state;
  const { intervalMs, resolutionMs, blockThresholdMs } = state.settings;
  const { enqueue, flushIfDue } = transport;
  let timer = null;
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
  let mem = null, memRest = null, memT = -Infinity;
  let arrayBuffers = 0, arrayBuffersT = -Infinity;
  let spaces = '', spacesT = -Infinity;
  let handles = null, handlesT = -Infinity;
  // The JS sampler's own timer runs at the delay's resolution; the native
  // one's handover rides the probe's slow tick (slow-tick.js), every
  // handoverMs (never faster than its samples). While the profiler waits
  // for a block (watchBlocks), the addon calls back after each block its
  // watchdog saw start, and each tick also asks it how many it saw (or
  // sees the tick run the threshold late). Set at start: the addon may have
  // failed to start since (transport.js).
  let handoverMs = HANDOVER_MS;
  let removeTick = null;
  let watching = false;
  let blocksAtWatch = 0;
  let lastHandOverT = -Infinity;

  function blocksSeen() {
    return state.native !== null && typeof state.native.blocksSeen === 'function' ? state.native.blocksSeen() : 0;
  }

  function arm() {
    disarm();
    if (state.native === null) {
      timer = setInterval(onTimer, resolutionMs);
      timer.unref();
      return;
    }
    handoverMs = Math.max(intervalMs, HANDOVER_MS);
    removeTick = state.slowTick.add(onTimer);
  }

  function disarm() {
    if (timer) { clearInterval(timer); timer = null; }
    if (removeTick) { removeTick(); removeTick = null; }
  }

  // The profiler waits for the first block (on), or no longer (off). The
  // addon also calls back right after a block it saw start (its async
  // handle wakes the loop: onBlock), so the profile starts then, not at the
  // next slow tick; the tick's check stays for a block the callback missed.
  function watchBlocks(on) {
    watching = on;
    if (on) { blocksAtWatch = blocksSeen(); satAt = null; satRun = 0; }
    const native = state.native;
    if (native !== null && typeof native.onBlock === 'function') native.onBlock(on ? onNativeBlock : null);
  }

  function onNativeBlock() {
    try { if (watching && onBlocked) onBlocked(); } catch (_) { /* never throw */ }
  }

  // With the native probe: whether a block began since watchBlocks(true).
  function blockSeen() {
    return state.slowTick.lateMs() >= blockThresholdMs || blocksSeen() !== blocksAtWatch;
  }

  // Whether the loop has been saturated by its requests' own work
  // (config.js PROFILE_SATURATED_*): checked every
  // PROFILE_SATURATION_CHECK_MS while the profiler waits for a block.
  let satAt = null;  // the last check: {t, elu, cpuUs, requests}
  let satRun = 0;    // saturated checks in a row
  function saturated(t) {
    if (satAt !== null && t - satAt.t < PROFILE_SATURATION_CHECK_MS - state.slowTick.periodMs / 2) return false;
    const elu = performance.eventLoopUtilization();
    const cpu = process.cpuUsage();
    const cur = { t, elu, cpuUs: cpu.user + cpu.system, requests: httpView.requestCount() };
    const last = satAt;
    satAt = cur;
    if (last === null) return false;
    const busy = performance.eventLoopUtilization(elu, last.elu).utilization;
    const requests = cur.requests - last.requests;
    const cpuMsPerRequest = requests > 0 ? (cur.cpuUs - last.cpuUs) / 1000 / requests : 0;
    satRun = busy >= PROFILE_SATURATED_ELU && cpuMsPerRequest >= PROFILE_SATURATED_CPU_MS ? satRun + 1 : 0;
    return satRun >= PROFILE_SATURATED_CHECKS;
  }

  function start() {
    if (state.finished || state.sampling) return;
    lastSampleT = lastTick = now();
    const elu = performance.eventLoopUtilization();
    lastEluIdle = elu.idle;
    lastEluActive = elu.active;
    const cpu = process.cpuUsage();
    lastCpuUser = cpu.user;
    lastCpuSystem = cpu.system;
    resetDelays();
    httpView.reset();
    memT = handlesT = arrayBuffersT = spacesT = -Infinity;
    gc.start();
    // The first handover after sampling began: its HTTP view (and gauges)
    // go into the first samples rather than a second later.
    if (state.native !== null) { state.native.startSampling(); lastHandOverT = lastSampleT; handOver(lastSampleT); }
    arm();
    state.sampling = true;
  }

  function stop() {
    if (state.native !== null) state.native.stopSampling();
    disarm();
    state.sampling = false;
    httpView.clear();
    gc.stop();
  }

  function onTimer() {
    try { tick(); } catch (_) { /* never throw */ }
  }

  // One timer drives both: every tick records how late it ran (its whole
  // period minus the configured one), and a sample is due every intervalMs.
  function tick() {
    const t = now();
    if (state.native !== null) {
      if (onBlocked && watching && (blockSeen() || saturated(t))) onBlocked();
      if (t - lastHandOverT < handoverMs - state.slowTick.periodMs / 2) return;
      lastHandOverT = t;
      handOver(t);
      return;
    }
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
    let p50, p90, p99;
    if (n === 1) {
      // One tick per sample (interval == timer period, the 10 ms default):
      // its delay is every percentile, with no view to make and sort.
      p50 = p90 = p99 = delays[0];
    } else {
      const sorted = delays.subarray(0, n).sort();  // numeric sort of a typed array, in place
      const pct = (p) => sorted[Math.min(n - 1, Math.ceil((p / 100) * n) - 1)];
      p50 = pct(50); p90 = pct(90); p99 = pct(99);
    }
    const s = '{"min":' + r3(delayMin) + ',"mean":' + r3(delaySum / delayCount) + ',"max":' + r3(delayMax) +
      ',"p50":' + r3(p50) + ',"p90":' + r3(p90) + ',"p99":' + r3(p99) + ',"count":' + delayCount + '}';
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
    const socket = state.socket;
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

  // process.memoryUsage() reads /proc/self/stat for the RSS (~10 us, ~40 us
  // from a cold idle wake here) besides V8's heap statistics. The native
  // probe's addon reads the RSS itself, so its handover takes V8's heap
  // statistics alone (no syscall) every SLOW_REFRESH_MS, and array buffers,
  // which only process.memoryUsage() tells, every MEM_REFRESH_MS.
  function refreshMem(t) {
    if (t - memT < SLOW_REFRESH_MS) return;
    memT = t;
    if (t - spacesT >= MEM_REFRESH_MS) {
      spaces = spacesJson();
      spacesT = t;
    }
    if (state.native !== null) {
      if (t - arrayBuffersT >= MEM_REFRESH_MS) {
        arrayBuffers = process.memoryUsage().arrayBuffers || 0;
        arrayBuffersT = t;
      }
      const h = v8.getHeapStatistics();
      memRest = ',"heap_used":' + h.used_heap_size + ',"heap_total":' + h.total_heap_size +
        ',"external":' + h.external_memory + ',"array_buffers":' + arrayBuffers;
      return;
    }
    const m = process.memoryUsage();
    memRest = ',"heap_used":' + m.heapUsed + ',"heap_total":' + m.heapTotal +
      ',"external":' + m.external + ',"array_buffers":' + (m.arrayBuffers || 0);
    mem = ',"mem":{"rss":' + m.rss + memRest + '}';
  }

  // The heap's spaces (bytes used), for the memory chart: every
  // MEM_REFRESH_MS (V8 builds an object per space, ~3 us), repeated between.
  // '' when V8 cannot tell (the line then has no spaces).
  function spacesJson() {
    let list;
    try { list = v8.getHeapSpaceStatistics(); } catch (_) { return ''; }
    let young = 0, old = 0, code = 0, large = 0;
    for (let i = 0; i < list.length; i++) {
      const sp = list[i];
      const used = sp.space_used_size;
      if (sp.space_name === 'new_space') young += used;
      else if (sp.space_name === 'old_space') old += used;
      else if (sp.space_name === 'code_space') code += used;
      else if (sp.space_name === 'large_object_space' || sp.space_name === 'new_large_object_space') large += used;
    }
    return '{"new":' + young + ',"old":' + old + ',"code":' + code + ',"large_object":' + large + '}';
  }

  function memJson(t) {
    refreshMem(t);
    return mem;
  }

  // Native probe: the addon attaches the HTTP view to one sample only, so a
  // new one is taken only once the last went out (counts are never lost nor
  // counted twice); heap and handles are gauges it repeats until the next.
  function handOver(t) {
    const native = state.native;
    refreshMem(t);
    const http = native.httpPending() ? undefined : httpView.takeJson();
    native.update(memRest, handlesCached(t), http, handoverMs, spaces);
  }

  function sample(t) {
    if (!state.connected) return;
    if (state.native !== null) {
      handOver(t);
      state.native.sampleNow();
      return;
    }
    const elapsed = t - lastSampleT;
    lastSampleT = t;
    const elu = performance.eventLoopUtilization();
    const dIdle = elu.idle - lastEluIdle, dActive = elu.active - lastEluActive;
    lastEluIdle = elu.idle;
    lastEluActive = elu.active;
    const util = dIdle + dActive > 0 ? dActive / (dIdle + dActive) : 0;
    const cpu = process.cpuUsage();
    const user = cpu.user - lastCpuUser, system = cpu.system - lastCpuSystem;
    lastCpuUser = cpu.user;
    lastCpuSystem = cpu.system;
    const line = '{"type":"sample","t":' + r3(t) + ',"interval_ms":' + r3(elapsed) +
      ',"delay":' + delayJson() +
      ',"elu":' + r3(util) +
      ',"cpu":{"user_us":' + user + ',"system_us":' + system + '}' +
      memJson(t) +
      (spaces !== '' ? ',"spaces":' + spaces : '') +
      ',"handles":' + handlesCached(t) +
      ',"http":' + httpView.takeJson() +
      ',"dropped":' + state.dropped + '}\n';
    enqueue(line);
    flushIfDue(t);
  }

  return { start, stop, sample, watchBlocks };
}

module.exports = { createSampler };
