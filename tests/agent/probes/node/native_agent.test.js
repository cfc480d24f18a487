'use strict';
// The native probe in agent mode (LOOPDOCTOR_ENDPOINT): the addon's own
// connection (native/socket_writer.h). Hello first on every connection,
// reconnects after the agent went away, lines of the absence dropped and
// counted, the target serving throughout. Needs LOOPDOCTOR_NATIVE_DIR (set
// by ctest); skipped without the addon.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { TEST_TIMEOUT_MS, WAIT_MS, startSink, probeEnv, startTarget, withTimeout, get, tmpSocketPath, assertSample } = require('./helpers.js');

const NATIVE_DIR = process.env.LOOPDOCTOR_NATIVE_DIR;
const ABI = process.versions.modules;
const haveNative = !!NATIVE_DIR && fs.existsSync(path.join(NATIVE_DIR, `loopdoctor_probe-${ABI}.node`));
const skipNative = haveNative ? false : `no addon for ABI ${ABI} in LOOPDOCTOR_NATIVE_DIR (${NATIVE_DIR})`;

function startAgentTarget(sockPath, script = 'http-server.js') {
  const env = probeEnv({ LOOPDOCTOR_ENDPOINT: sockPath, LOOPDOCTOR_INTERVAL_MS: '50', LOOPDOCTOR_NATIVE_DIR: NATIVE_DIR });
  delete env.LOOPDOCTOR_PROBE;
  return startTarget(script, env);
}

test('agent mode runs the native probe: hello first, then its samples', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const sink = startSink();
  await sink.ready;
  const target = startAgentTarget(sink.path);
  try {
    const port = Number(await target.firstLine());
    await sink.waitFor(() => sink.all().filter((m) => m.type === 'sample').length >= 3, 'three samples');
    const msgs = sink.conns[0].msgs;
    assert.equal(msgs[0].type, 'hello');
    assert.equal(msgs[0].probe, 'native', `probe_fallback: ${msgs[0].probe_fallback}`);
    assert.equal(msgs[0].interval_ms, 50);
    assert.equal(msgs.filter((m) => m.type === 'hello').length, 1, 'one hello per connection');
    await sink.waitFor(() => msgs.find((m) => m.type === 'listen' && m.port === port), 'the listen line');
    msgs.filter((m) => m.type === 'sample').forEach((s) => assertSample(s, { httpOptional: true }));
  } finally {
    target.child.kill('SIGKILL');
    await sink.close();
  }
});

test('the agent restarted: the addon reconnects with hello and listen, and counts what it dropped', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const sockPath = tmpSocketPath();
  let sink = startSink(sockPath);
  await sink.ready;
  const target = startAgentTarget(sockPath);
  try {
    const port = Number(await target.firstLine());
    await sink.waitFor(() => sink.all().filter((m) => m.type === 'sample').length >= 2, 'samples before');
    await sink.close();
    // Away for ~600 ms (12 samples): the target keeps serving meanwhile.
    for (let i = 0; i < 3; i++) {
      assert.equal(await withTimeout(get(port, '/'), WAIT_MS, 'a request while the agent is away'), 200);
      await new Promise((r) => setTimeout(r, 200));
    }
    sink = startSink(sockPath);
    await sink.ready;
    const again = await sink.waitFor(() => sink.conns[0] && sink.conns[0].msgs.length >= 3 && sink.conns[0].msgs, 'reconnected', 3 * WAIT_MS);
    assert.equal(again[0].type, 'hello', 'hello first on the new connection');
    assert.equal(again[0].probe, 'native');
    assert.equal(again[1].type, 'listen', 'then the listen line');
    assert.equal(again[1].port, port);
    const sample = await sink.waitFor(() => sink.all().find((m) => m.type === 'sample'), 'a sample after the reconnect');
    assert.ok(sample.dropped >= 5, `lines of the absence counted as dropped: ${sample.dropped}`);
  } finally {
    target.child.kill('SIGKILL');
    await sink.close();
  }
});

test('with no agent at all the target runs and exits as before', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const target = startAgentTarget(path.join(path.dirname(tmpSocketPath()), 'ld-no-agent-here.sock'), 'busy.js');
  const r = await withTimeout(target.exited, 3 * WAIT_MS, 'busy.js exit');
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.ms < 5000, `exited after ${r.ms} ms`);
});
