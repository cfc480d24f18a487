'use strict';
// LOOPDOCTOR_PROFILE=on-block, what `loopdoctor run` asks for by default:
// with the native probe, profile-start only arms V8's profiler, which starts
// once the loop is seen blocked (for the block threshold); a target that never
// blocks pays for no profiler and sends no profile. The JS probe, with no
// block stacks to name what blocks, profiles from profile-start as before.
// Native runs need LOOPDOCTOR_NATIVE_DIR (set by ctest); else skipped.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { WAIT_MS, TEST_TIMEOUT_MS, onLines, probeEnv, startTarget, withTimeout } = require('./helpers.js');

const NATIVE_DIR = process.env.LOOPDOCTOR_NATIVE_DIR;
const ABI = process.versions.modules;
const haveNative = !!NATIVE_DIR && fs.existsSync(path.join(NATIVE_DIR, `loopdoctor_probe-${ABI}.node`));
const skipNative = haveNative ? false : `no addon for ABI ${ABI} in LOOPDOCTOR_NATIVE_DIR (${NATIVE_DIR})`;

// Runs a fixture on an inherited socket, sends profile-start at hello and
// end endMs later, as `run` does around its load (or, with afterBlockMs,
// tells the fixture to go on stdin at hello and ends that long after it
// prints "blocked": fixed times raced a slow start on a busy machine);
// returns every message once the target has exited.
async function runProfiled(script, extraEnv, endMs, afterBlockMs = 0) {
  const env = probeEnv(Object.assign({ LOOPDOCTOR_FD: '3', LOOPDOCTOR_PROFILE: 'on-block' }, extraEnv));
  for (const k of ['LOOPDOCTOR_NATIVE_DIR', 'LOOPDOCTOR_PROBE']) if (!extraEnv[k]) delete env[k];
  const target = startTarget(script, env, { stdio: [afterBlockMs > 0 ? 'pipe' : 'ignore', 'pipe', 'pipe', 'pipe'] });
  const sock = target.child.stdio[3];
  const end = () => { try { sock.write('{"type":"end"}\n'); } catch (_) { /* exited */ } };
  if (afterBlockMs > 0) {
    target.child.stdout.setEncoding('utf8');
    target.child.stdout.on('data', (d) => { if (d.includes('blocked')) setTimeout(end, afterBlockMs); });
  }
  const msgs = [];
  onLines(sock, (line) => {
    const m = JSON.parse(line);
    msgs.push(m);
    if (m.type !== 'hello') return;
    sock.write('{"type":"profile-start"}\n');
    if (afterBlockMs === 0) setTimeout(end, endMs);
    else target.child.stdin.end('go\n');
  });
  const closed = new Promise((resolve) => sock.on('close', resolve));
  const r = await withTimeout(target.exited, 3 * WAIT_MS, `${script} exit`);
  await withTimeout(closed, WAIT_MS, 'socket closed');
  assert.equal(r.code, 0, r.stderr);
  return msgs;
}

const hello = (msgs) => msgs.find((m) => m.type === 'hello');
const profiles = (msgs) => msgs.filter((m) => m.type === 'profile');
const names = (p) => p.profile.nodes.map((n) => n.callFrame.functionName);

test('native: a loop that never blocks gets no profiler', { skip: skipNative, timeout: TEST_TIMEOUT_MS }, async () => {
  // profiled.js spins 30 ms at a time; a 1 s threshold keeps a busy
  // machine's scheduling stalls from counting as blocks.
  const msgs = await runProfiled('profiled.js', { LOOPDOCTOR_NATIVE_DIR: NATIVE_DIR, LOOPDOCTOR_BLOCK_THRESHOLD_MS: '1000' }, 600);
  assert.equal(hello(msgs).probe, 'native');
  assert.equal(profiles(msgs).length, 0, 'no profile');
  assert.ok(msgs.some((m) => m.type === 'bye'), 'bye');
});

test('native: the profiler starts at the first block and names what runs after it', { skip: skipNative, timeout: TEST_TIMEOUT_MS }, async () => {
  const msgs = await runProfiled('block-then-spin.js', { LOOPDOCTOR_NATIVE_DIR: NATIVE_DIR }, 0, 600);
  assert.equal(hello(msgs).probe, 'native');
  const [p] = profiles(msgs);
  // What the probe sent instead, when it sent no profile: the blocks and
  // the lines' types say whether the block came before the profiler was
  // armed, or the profile failed.
  const seen = () => JSON.stringify({ profile: p, blocks: msgs.filter((m) => m.type === 'block').map((b) => [b.start, b.duration_ms, b.in]),
    types: [...new Set(msgs.map((m) => m.type))] }).slice(0, 2000);
  assert.ok(p && p.profile, `a profile: ${seen()}`);
  const block = msgs.find((m) => m.type === 'block' && m.start > msgs[0].t);
  assert.ok(block, 'the block was seen');
  assert.ok(p.t >= block.start + 50, `the profile starts (${p.t}) after the block (${block.start})`);
  assert.ok(names(p).includes('spinAfterBlock'), `spinAfterBlock in ${names(p)}`);
  assert.ok(!names(p).includes('blockOnce'), 'not the block before it started');
});

test('native: a loop saturated by its requests\' own work, never blocked, starts the profiler too', { skip: skipNative, timeout: TEST_TIMEOUT_MS }, async () => {
  // 3 ms of CPU a request, the loop busy all the time; the end comes after
  // the fixture's 3.5 s of requests (two saturated checks a second apart).
  const msgs = await runProfiled('saturated-requests.js', { LOOPDOCTOR_NATIVE_DIR: NATIVE_DIR, LOOPDOCTOR_BLOCK_THRESHOLD_MS: '1000' }, 3400);
  assert.equal(hello(msgs).probe, 'native');
  assert.equal(msgs.filter((m) => m.type === 'block' && m.start > msgs[0].t).length, 0, 'no block');
  const [p] = profiles(msgs);
  assert.ok(p && p.profile, `a profile: the types sent were ${[...new Set(msgs.map((m) => m.type))]}`);
  assert.ok(names(p).includes('hashRequest'), `hashRequest in ${names(p)}`);
});

test('JS probe: on-block profiles from profile-start', { timeout: TEST_TIMEOUT_MS }, async () => {
  const msgs = await runProfiled('profiled.js', { LOOPDOCTOR_PROBE: 'js' }, 600);
  assert.equal(hello(msgs).probe, 'js');
  const [p] = profiles(msgs);
  assert.ok(p && p.profile, 'a profile');
  assert.ok(names(p).includes('spinForProfile'), `spinForProfile in ${names(p)}`);
});
