'use strict';
// Allocation sampling by site (issue 32; docs/contracts.md "Memory by
// site"): the probe's churn and live `alloc` lines at the collector's
// alloc-start, its own schedule on the agent's endpoint alone, heap spaces
// in samples, LOOPDOCTOR_ALLOC=0, and the heap snapshot at end. Helpers in
// helpers.js; every wait is bounded, nothing asserts a speed.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const {
  FIX, WAIT_MS, startSink, probeEnv, startTarget, startFd, withTimeout, assertNumber,
} = require('./helpers');
const { allocLine } = require('../../../../agent/probes/node/lib/alloc-line.js');
const { MAX_ALLOC_LINE_BYTES, ALLOC_DEFAULT_INTERVAL_BYTES } = require('../../../../agent/probes/node/lib/config.js');

// The collector's limit for a line that is not a profile
// (agent/protocol/line_splitter.h kMaxLineBytes).
const COLLECTOR_LINE_LIMIT = 1024 * 1024;
// Points come every 2 s once the 2 s churn phase is over; a busy machine
// may hold the target's timers back, so the waits are generous.
const ALLOC_TEST_TIMEOUT_MS = 60000;
const POINTS_WAIT_MS = 30000;

// The fixture's line of `function <name>(`, 1-based.
function lineOf(name) {
  const text = fs.readFileSync(path.join(FIX, 'leak-and-churn.js'), 'utf8').split('\n');
  return text.findIndex((l) => l.startsWith(`function ${name}(`)) + 1;
}

// Bytes per site (function, script, line), summed over a line's nodes.
function bySite(line) {
  const sites = new Map();
  for (const n of line.nodes) {
    const k = `${n.fn} ${path.basename(n.url)}:${n.line}`;
    sites.set(k, (sites.get(k) || 0) + n.self);
  }
  return sites;
}

function top(sites) {
  return [...sites].sort((a, b) => b[1] - a[1])[0];
}

function assertAllocLine(m) {
  assert.equal(m.type, 'alloc');
  for (const k of ['t', 'since', 'interval_bytes', 'read_ms', 'total_bytes', 'dropped_bytes']) assertNumber(m[k], k);
  assert.ok(m.t > m.since, `t ${m.t} after since ${m.since}`);
  assert.ok(m.rawBytes < COLLECTOR_LINE_LIMIT, `an alloc line of ${m.rawBytes} bytes`);
  const ids = new Set();
  let self = 0;
  for (const n of m.nodes) {
    assert.ok(Number.isInteger(n.id) && !ids.has(n.id), 'ids unique in the line');
    assert.ok(n.parent === 0 || ids.has(n.parent), 'a parent comes before its children');
    ids.add(n.id);
    assert.ok(Number.isInteger(n.line) && n.line >= 0 && Number.isInteger(n.column) && n.column >= 0);
    assert.equal(typeof n.fn, 'string');
    assert.equal(typeof n.url, 'string');
    self += n.self;
  }
  assert.equal(self + m.dropped_bytes, m.total_bytes, 'total_bytes is every self, dropped included');
}

// The JS probe reads V8's sampler through the inspector; the native one
// through the addon (no forced collection per point): probe_native runs
// this file with LOOPDOCTOR_NATIVE_DIR set, probe_protocol without.
const NATIVE_DIR = process.env.LOOPDOCTOR_NATIVE_DIR;
const haveNative = !!NATIVE_DIR && fs.existsSync(path.join(NATIVE_DIR, `loopdoctor_probe-${process.versions.modules}.node`));
const PROBES = haveNative ? { native: { LOOPDOCTOR_NATIVE_DIR: NATIVE_DIR } } : { js: {} };
// The rest needs no addon: run once, by probe_protocol.
const ONCE = { timeout: ALLOC_TEST_TIMEOUT_MS, skip: haveNative ? 'probe_protocol runs it' : false };

for (const [probe, probeSettings] of Object.entries(PROBES))
test(`alloc-start (${probe} probe): a churn line naming the churning function, live points naming the leak, all before bye`,
  { timeout: ALLOC_TEST_TIMEOUT_MS }, async () => {
    const fd = startFd('leak-and-churn.js', Object.assign({ LEAK_AND_CHURN_MS: '60000', LOOPDOCTOR_INTERVAL_MS: '50' }, probeSettings));
    assert.equal((await fd.waitFor((ms) => ms.find((m) => m.type === 'hello'), 'hello')).probe, probe);
    try {
      await withTimeout(fd.target.firstLine(), WAIT_MS, 'the fixture runs');
      await fd.waitFor((ms) => ms.find((m) => m.type === 'hello'), 'hello');
      fd.send({ type: 'alloc-start' });
      await fd.waitFor((ms) => ms.find((m) => m.type === 'alloc' && m.mode === 'live'), 'a live point', POINTS_WAIT_MS);
      // The leak grows on; the point at end is the second (the timer's next
      // may come later: a point's forced collection spaces them, alloc.js).
      await new Promise((r) => setTimeout(r, 1500));
      fd.send({ type: 'end' });
      await fd.waitFor((ms) => ms.find((m) => m.type === 'bye'), 'bye', POINTS_WAIT_MS);
      const bye = fd.msgs.findIndex((m) => m.type === 'bye');
      const allocs = fd.msgs.filter((m) => m.type === 'alloc');
      allocs.forEach(assertAllocLine);
      assert.ok(fd.msgs.findLastIndex((m) => m.type === 'alloc') < bye, 'every alloc line before bye');
      assert.ok(allocs.every((m) => m.interval_bytes === ALLOC_DEFAULT_INTERVAL_BYTES), 'the default interval');

      const churn = allocs.filter((m) => m.mode === 'churn');
      assert.equal(churn.length, 1, 'one churn phase');
      const [churnTop] = top(bySite(churn[0]));
      assert.equal(churnTop, `parseOrders leak-and-churn.js:${lineOf('parseOrders')}`, 'the churning site first');

      const live = allocs.filter((m) => m.mode === 'live');
      assert.ok(live.length >= 2, `${live.length} live points: one on the timer at least, one at end`);
      assert.ok(live.every((m) => m.since === live[0].since), 'one live phase, one since');
      assert.ok(live[0].since >= churn[0].t, 'the live phase follows the churn phase');
      const first = bySite(live[0]);
      const last = bySite(live[live.length - 1]);
      const growth = new Map([...last].map(([k, v]) => [k, v - (first.get(k) || 0)]));
      const [growTop, grew] = top(growth);
      assert.equal(growTop, `leakIntoCache leak-and-churn.js:${lineOf('leakIntoCache')}`, 'the leaking site grows most');
      assert.ok(grew > 0);
      const leakNode = live[live.length - 1].nodes.find((n) => n.fn === 'leakIntoCache');
      assert.ok(leakNode.column >= 1, 'a 1-based column');
      // Each point after the first says what of it was sampled before the
      // one before and lived on: the leak's bytes, some.
      assert.equal(live[0].kept_since, undefined, 'the first point has no earlier one');
      live.slice(1).forEach((m, i) => assert.equal(m.kept_since, live[i].t, 'kept since the point before'));
      assert.ok(live.every((m) => m.nodes.every((n) => (n.kept || 0) <= n.self)), 'kept is part of self');
      assert.ok(leakNode.kept > 0, `the leak kept ${leakNode.kept} bytes`);

      // Samples carry the heap's spaces.
      const samples = fd.msgs.filter((m) => m.type === 'sample');
      assert.ok(samples.length > 0);
      for (const s of samples) {
        for (const k of ['new', 'old', 'code', 'large_object']) assertNumber(s.spaces[k], `spaces.${k}`);
        assert.ok(s.spaces.old > 0 && s.spaces.old <= s.mem.heap_total, 'old space within the heap');
      }
    } finally {
      fd.target.child.kill('SIGKILL');
    }
  });

test('LOOPDOCTOR_ALLOC=0: alloc-start is ignored, bye still comes', ONCE, async () => {
  const fd = startFd('leak-and-churn.js', { LEAK_AND_CHURN_MS: '60000', LOOPDOCTOR_ALLOC: '0' });
  try {
    await fd.waitFor((ms) => ms.find((m) => m.type === 'hello'), 'hello');
    fd.send({ type: 'alloc-start' });
    // Past the churn phase's 2 s, when a churn line would have come.
    await new Promise((r) => setTimeout(r, 2500));
    fd.send({ type: 'end' });
    await fd.waitFor((ms) => ms.find((m) => m.type === 'bye'), 'bye', POINTS_WAIT_MS);
    assert.equal(fd.msgs.filter((m) => m.type === 'alloc').length, 0);
  } finally {
    fd.target.child.kill('SIGKILL');
  }
});

test('the agent\'s endpoint alone: the probe starts by itself with a 5 s churn phase', ONCE, async () => {
  const sink = startSink();
  await sink.ready;
  const target = startTarget('leak-and-churn.js', probeEnv({ LOOPDOCTOR_ENDPOINT: sink.path, LEAK_AND_CHURN_MS: '60000' }));
  try {
    const hello = await sink.waitFor(() => sink.all().find((m) => m.type === 'hello'), 'hello');
    const churn = await sink.waitFor(() => sink.all().find((m) => m.type === 'alloc'), 'a churn line', POINTS_WAIT_MS);
    assert.equal(churn.mode, 'churn');
    assert.ok(churn.since >= hello.t, 'started once connected');
    assert.ok(churn.t - churn.since >= 5000 - 50, `a 5 s phase: ${churn.since}..${churn.t}`);
  } finally {
    target.child.kill('SIGKILL');
    await sink.close();
  }
});

test('heap-snapshot-take: written at end before bye, answered with its size and pause', ONCE, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-snapshot-'));
  const file = path.join(dir, 'run.heapsnapshot');
  // A small heap: the snapshot takes well under a second.
  const fd = startFd('leak-and-churn.js', { LEAK_AND_CHURN_MS: '200' });
  try {
    await fd.waitFor((ms) => ms.find((m) => m.type === 'hello'), 'hello');
    fd.send({ type: 'heap-snapshot-take', path: file });
    fd.send({ type: 'end' });
    await fd.waitFor((ms) => ms.find((m) => m.type === 'bye'), 'bye', POINTS_WAIT_MS);
    const i = fd.msgs.findIndex((m) => m.type === 'heap-snapshot');
    assert.ok(i >= 0 && i < fd.msgs.findIndex((m) => m.type === 'bye'), 'the answer before bye');
    const a = fd.msgs[i];
    assert.equal(a.error, undefined, a.error);
    assert.equal(a.path, file);
    assertNumber(a.pause_ms, 'pause_ms');
    assert.equal(a.bytes, fs.statSync(file).size);
    const snap = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.ok(Array.isArray(snap.snapshot.meta.node_fields), 'a V8 heap snapshot');
    assert.ok(snap.snapshot.node_count > 0);
  } finally {
    fd.target.child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('heap-snapshot-take on-growth: no growth, no snapshot, and why', ONCE, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-snapshot-'));
  const file = path.join(dir, 'run.heapsnapshot');
  const fd = startFd('leak-and-churn.js', { LEAK_AND_CHURN_MS: '200', LEAK_AND_CHURN_IDLE_MS: '60000' });
  try {
    await fd.waitFor((ms) => ms.find((m) => m.type === 'hello'), 'hello');
    fd.send({ type: 'heap-snapshot-take', path: file, when: 'on-growth' });
    fd.send({ type: 'alloc-start' });
    await fd.waitFor((ms) => ms.find((m) => m.type === 'alloc' && m.mode === 'live'), 'a live point', POINTS_WAIT_MS);
    fd.send({ type: 'end' });
    const a = await fd.waitFor((ms) => ms.find((m) => m.type === 'heap-snapshot'), 'the answer', POINTS_WAIT_MS);
    assert.equal(a.path, file);
    assert.match(a.skipped, /grew .* MiB, not over 32 MiB/);
    assert.equal(fs.existsSync(file), false);
  } finally {
    fd.target.child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('heap-snapshot-take without a path is answered with an error', ONCE, async () => {
  const fd = startFd('leak-and-churn.js', { LEAK_AND_CHURN_MS: '200' });
  try {
    await fd.waitFor((ms) => ms.find((m) => m.type === 'hello'), 'hello');
    fd.send({ type: 'heap-snapshot-take' });
    const a = await fd.waitFor((ms) => ms.find((m) => m.type === 'heap-snapshot'), 'the answer');
    assert.match(a.error, /needs a file path/);
  } finally {
    fd.target.child.kill('SIGKILL');
  }
});

// V8's samples (the inspector's and the addon's alike) say which bytes
// were sampled before an earlier point: those still alive are `kept`.
test('a live point after the first: each node\'s bytes sampled before the earlier point and alive still, as kept', ONCE, () => {
  const frame = (name, line) => ({ functionName: name, url: 'file:///app/a.js', lineNumber: line, columnNumber: 2 });
  const head = { id: 1, callFrame: frame('(root)', -1), selfSize: 0, children: [
    { id: 2, callFrame: frame('leak', 4), selfSize: 300, children: [] },
    { id: 3, callFrame: frame('young', 9), selfSize: 200, children: [] },
  ] };
  const samples = [{ nodeId: 2, size: 100, ordinal: 5 }, { nodeId: 2, size: 200, ordinal: 12 }, { nodeId: 3, size: 200, ordinal: 11 }];
  const later = JSON.parse(allocLine({ head, samples }, 'live', 1000, 3000, 131072, MAX_ALLOC_LINE_BYTES, 0, { t: 2000, upto: 10 }).line);
  assert.equal(later.kept_since, 2000);
  assert.deepEqual(later.nodes.map((n) => [n.fn, n.self, n.kept]), [['leak', 300, 100], ['young', 200, undefined]]);
  const first = JSON.parse(allocLine({ head, samples }, 'live', 1000, 2000, 131072, MAX_ALLOC_LINE_BYTES).line);
  assert.equal(first.kept_since, undefined);
  assert.ok(first.nodes.every((n) => n.kept === undefined));
});

// A profile far over the line limit (thousands of sites with long URLs):
// the smallest sites go, their bytes counted, every kept node's parent kept.
test('an alloc line over the limit drops the smallest sites and stays under 1 MiB', ONCE, () => {
  let id = 1;
  const frame = (i) => ({ functionName: `fn${i}`, url: `file:///app/${'deep/'.repeat(40)}m${i}.js`, lineNumber: i, columnNumber: 2 });
  const head = { callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, selfSize: 0, id: id++, children: [] };
  const leaves = [];
  for (let i = 0; i < 3000; i++) {
    const mid = { callFrame: frame(i), selfSize: 0, id: id++, children: [] };
    for (let j = 0; j < 2; j++) {
      leaves.push(1000 + i * 7 + j);
      mid.children.push({ callFrame: frame(i * 10 + j), selfSize: 1000 + i * 7 + j, id: id++, children: [] });
    }
    head.children.push(mid);
  }
  head.children.push({ callFrame: frame(-1), selfSize: 0, id: id++, children: [] });  // no bytes: left out
  const { line, total } = allocLine({ head, samples: [] }, 'live', 1, 2, 131072, MAX_ALLOC_LINE_BYTES);
  assert.ok(Buffer.byteLength(line) < COLLECTOR_LINE_LIMIT, `${Buffer.byteLength(line)} bytes`);
  const m = JSON.parse(line);
  Object.defineProperty(m, 'rawBytes', { value: Buffer.byteLength(line) - 1 });
  assertAllocLine(m);
  assert.equal(m.total_bytes, total);
  assert.ok(m.dropped_bytes > 0, 'some sites dropped');
  const kept = m.nodes.map((n) => n.self).filter((s) => s > 0);
  const largest = leaves.sort((x, y) => y - x).slice(0, kept.length);
  assert.equal(kept.reduce((x, y) => x + y, 0), largest.reduce((x, y) => x + y, 0), 'the largest sites kept');
  assert.ok(m.nodes.every((n) => n.line >= 1), 'no node without bytes');
});
