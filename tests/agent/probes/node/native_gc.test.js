'use strict';
// GC pauses from V8's callbacks in the native probe (native/gc_hooks.h): a
// gc line for every collection, with its exact pause and the heap after it,
// as many as V8's own --trace-gc prints. Needs LOOPDOCTOR_NATIVE_DIR (set by
// ctest); skipped without the addon.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const helpers = require('./helpers.js');
const { TEST_TIMEOUT_MS } = helpers;

const NATIVE_DIR = process.env.LOOPDOCTOR_NATIVE_DIR;
const ABI = process.versions.modules;
const haveNative = !!NATIVE_DIR && fs.existsSync(path.join(NATIVE_DIR, `loopdoctor_probe-${ABI}.node`));
const skipNative = haveNative ? false : `no addon for ABI ${ABI} in LOOPDOCTOR_NATIVE_DIR (${NATIVE_DIR})`;

// --trace-gc's line per collection: "Scavenge", "Mark-Compact", and the
// minor mark-sweep of newer V8s ("Minor Mark-Sweep" / "Minor Mark-Compact").
const TRACE_GC_LINE = /^\[\d+:0x[0-9a-f]+\]\s+\d+ ms: (Scavenge|Mark-Compact|Minor Mark-(Sweep|Compact))\b/;

// The shared fd-mode runner, with this build's addon; plus the gc lines.
async function runFd(script, extraEnv) {
  const run = await helpers.runFd(script, Object.assign({ LOOPDOCTOR_NATIVE_DIR: NATIVE_DIR }, extraEnv));
  return Object.assign(run, { gcs: run.msgs.filter((m) => m.type === 'gc') });
}

test('gc lines come from V8\'s callbacks: exact pauses and the heap after each', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const { r, msgs, gcs } = await runFd('gc-count.js', {});
  assert.equal(r.code, 0, r.stderr);
  assert.equal(msgs[0].probe, 'native');
  const bye = msgs[msgs.length - 1];
  assert.equal(bye.type, 'bye');
  const minors = gcs.filter((g) => g.kind === 'minor');
  const majors = gcs.filter((g) => g.kind === 'major');
  assert.ok(minors.length >= 10, `${minors.length} scavenges`);
  assert.ok(majors.length >= 1, `${majors.length} full collections`);
  for (const g of gcs) {
    assert.ok(['minor', 'major', 'incremental', 'weak'].includes(g.kind), g.kind);
    assert.ok(g.t >= 0 && g.t <= bye.t, `t ${g.t} on the probe clock`);
    assert.ok(g.duration_ms >= 0 && g.duration_ms < 1000, `duration ${g.duration_ms} ms`);
    assert.ok(Number.isInteger(g.heap_after) && g.heap_after > 1e6 && g.heap_after < 1e9,
              `heap_after ${g.heap_after} after a ${g.kind}`);
  }
  // A scavenge of a few MB of young garbage takes tens of us to a few ms.
  const sum = minors.reduce((a, g) => a + g.duration_ms, 0);
  assert.ok(sum > 0, 'scavenges take measurable time');
  // Lines go out in the order collections end; t is each one's start.
  for (let i = 1; i < minors.length; i++) assert.ok(minors[i].t >= minors[i - 1].t, 'minor collections in order');
});

test('the native probe sees as many collections as --trace-gc prints', { timeout: TEST_TIMEOUT_MS, skip: skipNative }, async () => {
  const { r, gcs } = await runFd('gc-count.js', { TRACE_GC: '1' });
  assert.equal(r.code, 0, r.stderr);
  const traced = r.stdout.split('\n').filter((l) => TRACE_GC_LINE.test(l)).length;
  const seen = gcs.filter((g) => g.kind === 'minor' || g.kind === 'major').length;
  assert.ok(traced >= 10, `--trace-gc printed ${traced} collections:\n${r.stdout.slice(0, 500)}`);
  // Collections before sampling started (the probe's own start-up) are not
  // seen; a few of them at most.
  assert.ok(Math.abs(seen - traced) <= Math.max(3, traced * 0.1), `probe ${seen} vs --trace-gc ${traced}`);
  console.log(`# gc count: native probe ${seen} (minor+major), --trace-gc ${traced}`);
});
