'use strict';
// The native probe (issue 12): which probe runs and why, on-time samples
// while JS blocks, a loop idle in epoll not taken for blocked, and a target
// that exits, calls process.exit() in a block or forks runs unchanged.
// Native runs need LOOPDOCTOR_NATIVE_DIR (set by ctest to the build's addon
// folder); without it those tests are skipped and say so.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { TEST_TIMEOUT_MS, runFd, assertSample } = require('./helpers.js');

const NATIVE_DIR = process.env.LOOPDOCTOR_NATIVE_DIR;
const ABI = process.versions.modules;
const haveNative = !!NATIVE_DIR && fs.existsSync(path.join(NATIVE_DIR, `loopdoctor_probe-${ABI}.node`));
const skipNative = haveNative ? false : `no addon for ABI ${ABI} in LOOPDOCTOR_NATIVE_DIR (${NATIVE_DIR})`;

const native = () => ({ LOOPDOCTOR_NATIVE_DIR: NATIVE_DIR });

test('hello says native, and samples keep DESIGN\'s shape', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const { r, msgs, samples } = await runFd('busy.js', native());
  assert.equal(r.code, 0, r.stderr);
  const hello = msgs[0];
  assert.equal(hello.type, 'hello');
  assert.equal(hello.probe, 'native');
  assert.equal(hello.probe_fallback, undefined);
  assert.equal(msgs[msgs.length - 1].type, 'bye', 'bye is the last line, written at exit');
  samples.forEach((s) => assertSample(s, { httpOptional: true }));
  // The heap's spaces ride with the heap JS handed over (issue 32).
  const withHeap = samples.filter((s) => s.mem.heap_used > 0);
  assert.ok(withHeap.length > 0 && withHeap.every((s) => s.spaces !== undefined), 'spaces with the heap');
  const withHttp = samples.filter((s) => s.http !== undefined).length;
  assert.ok(withHttp >= 10, `the HTTP view while the loop is free (${withHttp} of ${samples.length})`);
});

test('LOOPDOCTOR_PROBE=js and a missing addon run the JS probe and say why', { timeout: TEST_TIMEOUT_MS }, async () => {
  const forced = await runFd('noop.js', Object.assign(native(), { LOOPDOCTOR_PROBE: 'js' }));
  assert.equal(forced.r.code, 0);
  assert.equal(forced.msgs[0].probe, 'js');
  assert.equal(forced.msgs[0].probe_fallback, 'LOOPDOCTOR_PROBE=js');
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-native-'));
  try {
    const missing = await runFd('busy.js', { LOOPDOCTOR_NATIVE_DIR: empty });
    assert.equal(missing.r.code, 0);
    assert.equal(missing.msgs[0].probe, 'js');
    assert.match(missing.msgs[0].probe_fallback,
      new RegExp(`^no native probe built for Node ${process.versions.node} \\(ABI ${ABI}\\) in ${empty}, .*; build one `));
    assert.ok(missing.samples.length > 5, 'the JS probe samples');
    missing.samples.forEach(assertSample);
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
});

test('a 200 ms block gets on-time samples (the JS probe gets one)', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const { samples } = await runFd('busy.js', native());
  // Samples sent while JS spun: their delay says the loop has not turned.
  const inBlock = samples.filter((s) => s.delay.max >= 20 && s.elu >= 0.9);
  assert.ok(inBlock.length >= 12, `${inBlock.length} samples during the 200 ms block (>= 12 of ~20)`);
  const maxDelay = Math.max(...samples.map((s) => s.delay.max));
  assert.ok(maxDelay >= 150 && maxDelay < 1000, `delay.max ${maxDelay} ~ the 200 ms block`);
  assert.ok(inBlock.every((s) => s.interval_ms < 50), 'each went out on its own clock');
  // No fresh JS reading: at most the last handover's inflight gauge, with
  // zero counts (native/watchdog_core.h kHttpGaugeRepeatHandovers).
  assert.ok(inBlock.every((s) => s.http === undefined || (s.http.requests === 0 && s.http.responses === 0)),
    'no JS reading during the block');
});

test('a loop waiting 100 ms in epoll is not blocked', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const { r, samples } = await runFd('idle-poll.js', native());
  assert.equal(r.code, 0);
  assert.ok(samples.length >= 40, `${samples.length} samples in ~700 ms`);
  const late = samples.filter((s) => s.delay.max >= 20);
  assert.ok(late.length <= 2, `no stall seen in an idle loop: ${late.map((s) => s.delay.max)}`);
  const busy = samples.filter((s) => s.elu > 0.5);
  assert.ok(busy.length <= 3, `elu stays low: ${busy.length} samples over 0.5`);
});

// A profiler interrupting every wait (SIGPROF): libuv loses the waits'
// idle time, which read as stalls growing to 100 ms and utilisation near 1.
test('a loop waiting 100 ms in epoll under a CPU profiler is not blocked', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const { r, samples } = await runFd('idle-poll-profiled.js', native());
  assert.equal(r.code, 0);
  assert.ok(samples.length >= 40, `${samples.length} samples in ~700 ms`);
  const stalled = samples.filter((s) => s.delay.max >= 50);
  assert.equal(stalled.length, 0, `no stall seen in an idle profiled loop: ${samples.map((s) => s.delay.max)}`);
  const elu = samples.reduce((a, s) => a + s.elu, 0) / samples.length;
  assert.ok(elu < 0.5, `elu stays low: mean ${elu.toFixed(2)}`);
});

test('process.exit() inside a block: exit code kept, samples and bye out', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const { r, msgs, samples } = await runFd('exit-in-block.js', native());
  assert.equal(r.code, 3);
  assert.ok(r.ms < 3000, `exited after ${r.ms} ms`);
  assert.ok(samples.filter((s) => s.delay.max >= 20).length >= 15, 'samples during the 300 ms block');
  assert.equal(msgs[msgs.length - 1].type, 'bye');
});

test('a script that does nothing exits promptly with the native probe', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const { r, msgs } = await runFd('noop.js', native());
  assert.equal(r.code, 0);
  assert.ok(r.ms < 3000, `exited after ${r.ms} ms`);
  assert.equal(msgs[0].probe, 'native');
});

test('a forked child runs no second watchdog on the inherited fd', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const { r, msgs } = await runFd('fork-child.js', native());
  assert.equal(r.code, 0, r.stderr);
  const seen = JSON.parse(r.stdout.trim());
  assert.equal(seen.fd, null, 'the child does not see LOOPDOCTOR_FD');
  assert.equal(seen.nodeOptions, null, 'nor the --require of the probe');
  const hellos = msgs.filter((m) => m.type === 'hello');
  assert.equal(hellos.length, 1);
  assert.equal(hellos[0].probe, 'native');
  assert.equal(msgs.filter((m) => m.type === 'bye').length, 1);
});

test('an uncaught exception ends the target as before, the thread with it', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const { r, msgs } = await runFd('throws.js', native());
  assert.equal(r.code, 1);
  assert.match(r.stderr, /boom from target/);
  assert.equal(msgs[0].probe, 'native');
  assert.equal(msgs[msgs.length - 1].type, 'bye');
});

test('a worker thread runs unchanged and loads no second watchdog', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const { r, msgs } = await runFd('worker.js', native());
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout.trim()), { worker: 0 });
  assert.equal(msgs.filter((m) => m.type === 'hello').length, 1);
  assert.equal(msgs.filter((m) => m.type === 'bye').length, 1);
});
