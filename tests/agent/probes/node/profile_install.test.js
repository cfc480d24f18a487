'use strict';
// Probe tests of the CPU profile (profile-start / LOOPDOCTOR_PROFILE) and of
// the installed layout (probe.js plus lib/): an installed copy works for any
// target, and a broken part leaves the target running and unprobed.
// Helpers in helpers.js; every wait is bounded.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { spawn } = require('child_process');
const {
  PROBE, WAIT_MS, TEST_TIMEOUT_MS, startSink, probeEnv, startTarget, withTimeout, get, assertNumber, assertSample,
} = require('./helpers');

// profile-start ... end: the probe sends one V8 cpuprofile, trimmed to the
// nodes its samples reach, before bye; the inspector does not keep the
// target alive afterwards.
test('profile-start then end -> profile before bye, naming the busy function', { timeout: TEST_TIMEOUT_MS }, async () => {
  const sink = startSink();
  await sink.ready;
  const target = startTarget('profiled.js', probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path, LOOPDOCTOR_PROFILE_INTERVAL_US: '500' }));
  try {
    await sink.waitFor(() => sink.all().find((m) => m.type === 'hello'), 'hello');
    sink.conns[0].socket.write('{"type":"profile-start"}\n');
    await new Promise((r) => setTimeout(r, 400));
    sink.conns[0].socket.write('{"type":"end"}\n');
    await sink.waitFor(() => sink.all().find((m) => m.type === 'bye'), 'bye');
    const msgs = sink.all();
    const pi = msgs.findIndex((m) => m.type === 'profile');
    assert.ok(pi >= 0, 'a profile message');
    assert.ok(pi < msgs.findIndex((m) => m.type === 'bye'), 'profile before bye');
    const m = msgs[pi];
    assertNumber(m.t, 't');
    assertNumber(m.t_end, 't_end');
    assert.ok(m.t_end > m.t && m.t_end - m.t < 2000, `profile spans ${m.t}..${m.t_end}`);
    assert.equal(m.interval_us, 500);
    const p = m.profile;
    assert.ok(p.samples.length > 20, `${p.samples.length} samples`);
    assert.equal(p.samples.length, p.timeDeltas.length);
    const ids = new Set(p.nodes.map((n) => n.id));
    for (const id of p.samples) assert.ok(ids.has(id), 'every sample names a kept node');
    for (const n of p.nodes) for (const c of n.children || []) assert.ok(ids.has(c), 'children are kept nodes');
    const spin = p.nodes.filter((n) => n.callFrame.functionName === 'spinForProfile');
    assert.ok(spin.length >= 1, 'the busy function is in the profile');
    assert.ok(spin[0].callFrame.url.endsWith('profiled.js'));
    const r = await withTimeout(target.exited, WAIT_MS, 'exit after the profile');
    assert.equal(r.code, 0);
  } finally {
    target.child.kill('SIGKILL');
    await sink.close();
  }
});

test('LOOPDOCTOR_PROFILE=0: profile-start is ignored, bye still comes', { timeout: TEST_TIMEOUT_MS }, async () => {
  const sink = startSink();
  await sink.ready;
  const target = startTarget('profiled.js', probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path, LOOPDOCTOR_PROFILE: '0' }));
  try {
    await sink.waitFor(() => sink.all().find((m) => m.type === 'hello'), 'hello');
    sink.conns[0].socket.write('{"type":"profile-start"}\n');
    await new Promise((r) => setTimeout(r, 100));
    sink.conns[0].socket.write('{"type":"end"}\n');
    await sink.waitFor(() => sink.all().find((m) => m.type === 'bye'), 'bye');
    assert.equal(sink.all().filter((m) => m.type === 'profile').length, 0);
    const r = await withTimeout(target.exited, WAIT_MS, 'exit');
    assert.equal(r.code, 0);
  } finally {
    target.child.kill('SIGKILL');
    await sink.close();
  }
});

// The probe as `cmake --install` lays it out (probe.js and lib/, *.js only),
// copied under dir; returns the copied probe.js.
function copyProbe(dir) {
  const src = path.dirname(PROBE);
  fs.mkdirSync(path.join(dir, 'lib'), { recursive: true });
  fs.copyFileSync(PROBE, path.join(dir, 'probe.js'));
  for (const f of fs.readdirSync(path.join(src, 'lib'))) {
    if (f.endsWith('.js')) fs.copyFileSync(path.join(src, 'lib', f), path.join(dir, 'lib', f));
  }
  return path.join(dir, 'probe.js');
}

test('an installed copy works for an ESM target with lookalike modules on NODE_PATH', { timeout: TEST_TIMEOUT_MS }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-probe-layout-'));
  const sink = startSink();
  await sink.ready;
  let target = null;
  try {
    const probe = copyProbe(path.join(dir, 'share', 'probes', 'node'));
    // The target's folder says "type": "module"; its NODE_PATH holds modules
    // named like the probe's parts that break anything that loads them.
    const app = path.join(dir, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), '{"type":"module"}\n');
    fs.writeFileSync(path.join(app, 'server.js'),
      "import http from 'node:http';\n" +
      "const server = http.createServer((req, res) => res.end('ok\\n'));\n" +
      "server.listen(0, '127.0.0.1', () => console.log(String(server.address().port)));\n");
    const decoy = path.join(dir, 'decoy');
    fs.mkdirSync(path.join(decoy, 'lib'), { recursive: true });
    for (const f of fs.readdirSync(path.join(path.dirname(probe), 'lib'))) {
      fs.writeFileSync(path.join(decoy, f), 'throw new Error("decoy loaded");\n');
      fs.writeFileSync(path.join(decoy, 'lib', f), 'throw new Error("decoy loaded");\n');
    }
    const env = probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path, NODE_PATH: decoy });
    env.NODE_OPTIONS = `--require ${probe}`;
    target = startTarget(path.join(app, 'server.js'), env, { cwd: app });
    const port = Number(await target.firstLine());
    const hello = await sink.waitFor(() => sink.all().find((m) => m.type === 'hello'), 'hello');
    assert.equal(hello.pid, target.child.pid);
    assert.equal((await sink.waitFor(() => sink.all().find((m) => m.type === 'listen'), 'listen')).port, port);
    assert.equal(await get(port, '/'), 200);
    const s = await sink.waitFor(() => sink.all().find((m) => m.type === 'sample' && m.http.responses >= 1), 'sample with the response');
    assertSample(s);
    sink.conns[0].socket.write('{"type":"end"}\n');
    await sink.waitFor(() => sink.all().find((m) => m.type === 'bye'), 'bye');
  } finally {
    if (target) {
      target.child.kill('SIGKILL');
      await withTimeout(target.exited, WAIT_MS, 'target exit');
    }
    await sink.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a part of the probe that fails to load leaves the target running and unprobed', { timeout: TEST_TIMEOUT_MS }, async () => {
  const sink = startSink();
  await sink.ready;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-probe-broken-'));
  try {
    const breakages = [
      ['config.js', (f) => fs.writeFileSync(f, 'throw new Error("broken part");\n')],
      ['sampler.js', (f) => fs.rmSync(f)],                        // a partial install
      ['transport.js', (f) => fs.writeFileSync(f, 'function (\n')], // a syntax error
    ];
    for (const [name, breakIt] of breakages) {
      const probe = copyProbe(path.join(dir, name));
      breakIt(path.join(path.dirname(probe), 'lib', name));
      const env = probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path });
      env.NODE_OPTIONS = `--require ${probe}`;
      const t = startTarget('spawn-children.js', env);
      const r = await withTimeout(t.exited, WAIT_MS, `exit with a broken ${name}`);
      assert.equal(r.code, 0, `broken ${name}: exit code`);
      assert.equal(r.stderr, '', `broken ${name}: nothing on stderr`);
      const [inherited] = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
      assert.equal(inherited.fd, null, `broken ${name}: children do not see the collector`);
      assert.equal(inherited.endpoint, null, `broken ${name}: children do not see the collector`);
    }
    assert.equal(sink.conns.length, 0, 'no broken probe connected');
  } finally {
    await sink.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
