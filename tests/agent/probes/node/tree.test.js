'use strict';
// Every loop of a run's tree (issue 13): under `run` (an inherited fd AND the
// run's endpoint) each worker thread and each Node child process connects to
// the endpoint with its own hello; under the agent (its endpoint alone) the
// worker threads do too, the children not (probe.test.js keeps the agent
// mode's "children are not probed").
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { startSink, startTarget, probeEnv, runFd, withTimeout, TEST_TIMEOUT_MS, WAIT_MS } = require('./helpers.js');

const MAX_SAMPLED_THREADS = 64;  // agent/probes/node/lib/config.js

const byType = (msgs, type) => msgs.filter((m) => m.type === type);

// Runs a fixture as `run` starts the first process: fd 3 plus the endpoint.
async function runTree(script, extraEnv = {}, exitMs = undefined) {
  const sink = startSink();
  await sink.ready;
  try {
    const fd = await runFd(script, Object.assign({ LOOPDOCTOR_ENDPOINT: sink.path, LOOPDOCTOR_PROBE: 'js' }, extraEnv), exitMs);
    // Every connection of the tree has ended once the process has.
    await sink.waitFor(() => sink.conns.every((c) => c.closed), 'tree connections closed');
    return { fd, conns: sink.conns.map((c) => c.msgs) };
  } finally {
    await sink.close();
  }
}

test('a worker thread says hello on its own connection with its id, name and tid, samples, and says bye', { timeout: TEST_TIMEOUT_MS }, async () => {
  const { fd, conns } = await runTree('tree-workers.js', { STALL_MS: '150', LIFE_MS: '400' });
  assert.equal(fd.r.code, 0, fd.r.stderr);
  assert.equal(byType(fd.msgs, 'hello').length, 1);
  assert.equal(byType(fd.msgs, 'hello')[0].thread, undefined, 'the main thread names no thread');
  assert.equal(conns.length, 1, 'one worker, one connection');
  const [hello] = conns[0];
  assert.equal(hello.type, 'hello');
  assert.equal(hello.pid, byType(fd.msgs, 'hello')[0].pid, 'the same process');
  assert.equal(hello.thread, 1);
  assert.equal(hello.thread_name, 'worker 1 (tree-workers.js)');
  assert.ok(Number.isInteger(hello.tid) && hello.tid > 0 && hello.tid !== hello.pid, `tid ${hello.tid}`);
  assert.equal(hello.probe, 'js');
  const samples = byType(conns[0], 'sample');
  assert.ok(samples.length >= 5, `${samples.length} worker samples`);
  // The worker's 150 ms spin is its own loop's delay and utilisation, not
  // the main thread's (its delays may grow on a busy machine; its loop idles).
  assert.ok(Math.max(...samples.map((s) => s.delay.max)) >= 100, 'the worker saw its stall');
  assert.ok(Math.max(...samples.map((s) => s.elu)) >= 0.9, 'the worker\'s loop was busy');
  const mainElu = byType(fd.msgs, 'sample').map((s) => s.elu).sort((a, b) => a - b);
  assert.ok(mainElu[Math.floor(mainElu.length / 2)] < 0.5, `the main thread idled (median elu ${mainElu[Math.floor(mainElu.length / 2)]})`);
  // One clock per process: the worker's t is after the main thread's hello.
  assert.ok(hello.t > byType(fd.msgs, 'hello')[0].t);
  const bye = conns[0][conns[0].length - 1];
  assert.equal(bye.type, 'bye', 'the worker ended with bye');
  assert.equal(bye.exit_code, 0);
});

// 70 threads start in ~20 s on a busy 2-core machine: a long bound.
test('70 workers alive at once: 64 are sampled and the main thread counts the 6 others', { timeout: 120000 }, async () => {
  const { fd, conns } = await runTree('tree-workers.js', { WORKERS: '70', LIFE_MS: '500', LOOPDOCTOR_INTERVAL_MS: '200' }, 100000);
  assert.equal(fd.r.code, 0, fd.r.stderr);
  assert.deepEqual(JSON.parse(fd.r.stdout.trim()), { exited: 70 });
  const hellos = conns.map((c) => c[0]).filter((m) => m && m.type === 'hello');
  assert.equal(hellos.length, MAX_SAMPLED_THREADS);
  assert.equal(new Set(hellos.map((h) => h.thread)).size, MAX_SAMPLED_THREADS, 'distinct thread ids');
  const notices = byType(fd.msgs, 'threads-unsampled');
  assert.ok(notices.length >= 1, 'a threads-unsampled line');
  assert.deepEqual(notices.map((n) => n.limit), notices.map(() => MAX_SAMPLED_THREADS));
  assert.equal(notices[notices.length - 1].count, 70 - MAX_SAMPLED_THREADS);
});

test('a Node child of the first process joins with its own hello; one with a clean environment does not', { timeout: TEST_TIMEOUT_MS }, async () => {
  const sink = startSink();
  await sink.ready;
  try {
    const fd = await runFd('spawn-children.js', { LOOPDOCTOR_ENDPOINT: sink.path, LOOPDOCTOR_PROBE: 'js' });
    assert.equal(fd.r.code, 0, fd.r.stderr);
    const [inherited, clean] = fd.r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(inherited.fd, null, 'the fd is the first process\'s alone');
    assert.equal(inherited.endpoint, sink.path);
    assert.equal(clean.endpoint, null);
    await sink.waitFor(() => sink.conns.length === 1 && sink.conns[0].closed, 'the child\'s connection ended');
    const [hello] = sink.conns[0].msgs;
    assert.equal(hello.type, 'hello');
    assert.equal(hello.pid, inherited.pid);
    assert.equal(hello.parent_pid, byType(fd.msgs, 'hello')[0].pid);
    assert.equal(hello.process_name, 'node');  // `node -e`: no script
    assert.equal(hello.thread, undefined);
    assert.equal(hello.interval_ms, 10, 'a run\'s interval, not the agent\'s');
  } finally {
    await sink.close();
  }
});

test('cluster workers are named by their cluster id and report their exit code', { timeout: TEST_TIMEOUT_MS }, async () => {
  const { fd, conns } = await runTree('cluster-two.js');
  assert.equal(fd.r.code, 0, fd.r.stderr);
  const hellos = conns.map((c) => c[0]);
  assert.deepEqual(hellos.map((h) => h.process_name).sort(), ['cluster worker 1', 'cluster worker 2']);
  const primary = byType(fd.msgs, 'hello')[0].pid;
  for (const h of hellos) assert.equal(h.parent_pid, primary);
  for (const c of conns) assert.equal(c[c.length - 1].exit_code, 3, 'bye carries the worker\'s exit code');
});

test('outside a run (the agent\'s endpoint alone) each worker thread connects with its own hello, named by its script', { timeout: TEST_TIMEOUT_MS }, async () => {
  const sink = startSink();
  await sink.ready;
  try {
    const t = startTarget('tree-workers.js', probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path, LIFE_MS: '300' }));
    const r = await withTimeout(t.exited, WAIT_MS, 'target exit');
    assert.equal(r.code, 0, r.stderr);
    await sink.waitFor(() => sink.conns.length === 2 && sink.conns.every((c) => c.closed), 'connections closed');
    const hellos = byType(sink.all(), 'hello');
    assert.equal(hellos.length, 2, 'the main thread and the worker');
    const worker = hellos.find((h) => h.thread !== undefined);
    assert.equal(worker.thread, 1);
    // Said only once Node has put the worker's script in process.argv[1].
    assert.equal(worker.thread_name, 'worker 1 (tree-workers.js)');
    assert.equal(worker.parent_pid, undefined, 'a thread, not a child process');
  } finally {
    await sink.close();
  }
});
