'use strict';
// A run's tree with the native probe (issue 13): the first process, a child
// process and each worker thread run the addon (their writes go on the
// connection their JS opened to the run's socket, so they still hear "end");
// a worker's watchdog thread ends with the worker, however it ends. Needs LOOPDOCTOR_NATIVE_DIR
// (ctest sets it to the build's addon folder).
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { startSink, runFd, TEST_TIMEOUT_MS } = require('./helpers.js');

const NATIVE_DIR = process.env.LOOPDOCTOR_NATIVE_DIR;
const ABI = process.versions.modules;
const haveNative = !!NATIVE_DIR && fs.existsSync(path.join(NATIVE_DIR, `loopdoctor_probe-${ABI}.node`));
const skipNative = haveNative ? false : `no addon for ABI ${ABI} in LOOPDOCTOR_NATIVE_DIR (${NATIVE_DIR})`;

async function runTree(script, extraEnv) {
  const sink = startSink();
  await sink.ready;
  try {
    const fd = await runFd(script, Object.assign({ LOOPDOCTOR_ENDPOINT: sink.path, LOOPDOCTOR_NATIVE_DIR: NATIVE_DIR }, extraEnv));
    await sink.waitFor(() => sink.conns.length > 0 && sink.conns.every((c) => c.closed), 'tree connections closed');
    return { fd, conns: sink.conns.map((c) => c.msgs) };
  } finally {
    await sink.close();
  }
}

test('native: the main thread and a worker each run the addon on their own connection', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const { fd, conns } = await runTree('tree-workers.js', { LIFE_MS: '400' });
  assert.equal(fd.r.code, 0, fd.r.stderr);
  assert.equal(fd.msgs.find((m) => m.type === 'hello').probe, 'native');
  assert.equal(conns.length, 1);
  const hello = conns[0][0];
  assert.equal(hello.thread, 1);
  assert.equal(hello.probe, 'native');
  assert.equal(hello.probe_fallback, undefined);
  assert.ok(conns[0].filter((m) => m.type === 'sample').length >= 5, 'worker samples');
  assert.equal(conns[0][conns[0].length - 1].type, 'bye');
});

// The worker's samples come from its watchdog thread: on time while its JS
// spins (the JS probe's timer would send none then), and its block lines
// carry the worker's stack and thread id, on the worker's connection only.
test('native: a worker whose JS blocks 600 ms still samples and its block lines name its function', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const { fd, conns } = await runTree('worker-stall-native.js', { STALL_MS: '600' });
  assert.equal(fd.r.code, 0, fd.r.stderr);
  // The worker's stack is on its own connection only (the main loop may
  // block too on a loaded machine: loading the module, creating the worker).
  const mainBlocks = fd.msgs.filter((m) => m.type === 'block');
  assert.ok(mainBlocks.every((b) => b.thread === undefined && b.frames.every((f) => f.function !== 'stallInWorker')),
            JSON.stringify(mainBlocks));
  const msgs = conns[0];
  assert.equal(msgs[0].probe, 'native');
  const blocks = msgs.filter((m) => m.type === 'block');
  const js = blocks.filter((b) => b.in === 'js');
  assert.ok(js.length >= 5, `block lines while the worker spins: ${blocks.length}`);
  for (const b of blocks) assert.equal(b.thread, 1);
  assert.equal(js[0].frames[0].function, 'stallInWorker');
  assert.match(js[0].frames[0].url, /worker-stall-native\.js$/);
  // Samples whose interval falls inside the stall: the nominal count is 60
  // at 10 ms; the watchdog must deliver most of them.
  const start = blocks[0].start;
  const end = start + Math.max(...blocks.map((b) => b.duration_ms));
  const during = msgs.filter((m) => m.type === 'sample' && m.t > start + 10 && m.t <= end);
  const nominal = Math.floor((end - start - 10) / 10);
  assert.ok(during.length >= 0.8 * nominal, `${during.length} samples during the stall, nominal ${nominal}`);
  assert.ok(Math.max(...during.map((s) => s.delay.max)) >= 300, 'the samples see the delay growing');
});

// However a worker ends, its watchdog thread ends with it: the process exits
// by itself (no loop kept alive, no hang), with the worker's exit code, and
// the worker's connection closes.
for (const [end, code] of [['terminate', 1], ['exit', 3], ['throw', 1]]) {
  test(`native: a worker ended by ${end} during a block ends its watchdog; the process exits by itself`, { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
    const { fd, conns } = await runTree('worker-ends.js', { END: end });
    assert.equal(fd.r.code, 0, fd.r.stderr);
    assert.equal(fd.r.signal, null);
    assert.deepEqual(JSON.parse(fd.r.stdout.trim()), { exit: code });
    assert.ok(fd.r.ms < 4000, `exited in ${fd.r.ms} ms`);
    assert.equal(conns.length, 1);
    assert.equal(conns[0][0].probe, 'native');
    assert.ok(conns[0].some((m) => m.type === 'block'), 'the worker was blocked when it ended');
    if (end === 'exit') assert.equal(conns[0][conns[0].length - 1].exit_code, 3);
  });
}

// Workers ended at every stage of their probe (before it connected, while
// it samples, inside a block): no crash, no hang, every connection closed.
test('native: 20 workers terminated one after another at random points: the process exits cleanly', { timeout: 60000, skip: skipNative }, async () => {
  const { fd, conns } = await runTree('worker-churn.js', { N: '20' });
  assert.equal(fd.r.signal, null, fd.r.stderr);
  assert.equal(fd.r.code, 0, fd.r.stderr);
  assert.deepEqual(JSON.parse(fd.r.stdout.trim()), { done: 20 });
  assert.ok(conns.every((c) => c.every((m) => m.type !== 'hello' || m.probe === 'native')), 'every worker hello says native');
});

// The addon's bound is the sampling bound plus the main thread: all 64
// sampled workers and the main thread get a watchdog (one fewer and the 64th
// worker would fall back to the JS probe).
test('native: 70 workers alive at once: the 64 sampled ones and the main thread all run the addon', { timeout: 120000, skip: skipNative }, async () => {
  const sink = startSink();
  await sink.ready;
  try {
    const fd = await runFd('tree-workers.js', { LOOPDOCTOR_ENDPOINT: sink.path, LOOPDOCTOR_NATIVE_DIR: NATIVE_DIR,
      WORKERS: '70', LIFE_MS: '500', LOOPDOCTOR_INTERVAL_MS: '200' }, 100000);
    await sink.waitFor(() => sink.conns.length > 0 && sink.conns.every((c) => c.closed), 'worker connections closed', 20000);
    assert.equal(fd.r.code, 0, fd.r.stderr);
    assert.deepEqual(JSON.parse(fd.r.stdout.trim()), { exited: 70 });
    assert.equal(fd.msgs[0].probe, 'native');
    const hellos = sink.conns.map((c) => c.msgs[0]).filter((m) => m && m.type === 'hello');
    assert.equal(hellos.length, 64);
    assert.deepEqual(hellos.filter((h) => h.probe !== 'native').map((h) => h.probe_fallback), []);
    assert.equal(sink.conns.filter((c) => c.msgs[c.msgs.length - 1].type === 'bye').length, 64, 'every worker said bye');
  } finally {
    await sink.close();
  }
});

test('native: a child process writes through the addon on its own connection and ends with bye', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const { fd, conns } = await runTree('spawn-children.js', {});
  assert.equal(fd.r.code, 0, fd.r.stderr);
  assert.equal(conns.length, 1, 'the child with the inherited environment');
  const msgs = conns[0];
  assert.equal(msgs[0].type, 'hello');
  assert.equal(msgs[0].probe, 'native');
  assert.equal(msgs[0].parent_pid, fd.msgs.find((m) => m.type === 'hello').pid);
  assert.ok(msgs.filter((m) => m.type === 'sample').length >= 5, 'the addon\'s samples');
  const bye = msgs[msgs.length - 1];
  assert.equal(bye.type, 'bye');
  assert.equal(bye.exit_code, 0);
});
