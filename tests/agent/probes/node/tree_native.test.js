'use strict';
// A run's tree with the native probe (issue 13): the first process and a
// child process run the addon (the child's writes go on the connection its
// JS opened to the run's socket, so it still hears "end"); a worker thread
// runs the JS probe and its hello says why. Needs LOOPDOCTOR_NATIVE_DIR
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

test('native: the main thread keeps the addon and a worker runs the JS probe, saying why', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const { fd, conns } = await runTree('tree-workers.js', { LIFE_MS: '400' });
  assert.equal(fd.r.code, 0, fd.r.stderr);
  assert.equal(fd.msgs.find((m) => m.type === 'hello').probe, 'native');
  assert.equal(conns.length, 1);
  const hello = conns[0][0];
  assert.equal(hello.thread, 1);
  assert.equal(hello.probe, 'js');
  assert.match(hello.probe_fallback, /main thread only/);
  assert.ok(conns[0].filter((m) => m.type === 'sample').length >= 5, 'worker samples');
  assert.equal(conns[0][conns[0].length - 1].type, 'bye');
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
