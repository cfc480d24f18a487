'use strict';
// The probe's process-warnings line (agent/probes/node/lib/warnings.js),
// driven directly with real warnings from node and a clock of its own.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { EventEmitter } = require('events');

const LIB = path.resolve(__dirname, '..', '..', '..', '..', 'agent', 'probes', 'node', 'lib');
const { createWarnings, MAX_KINDS, MAX_MESSAGE_CHARS } = require(path.join(LIB, 'warnings.js'));

const fakeState = () => { let t = 0; return { now: () => (t += 5) }; };
const nextWarning = () => new Promise((resolve) => process.once('warning', resolve));

test('warnings: a MaxListenersExceededWarning names its emitter, event and the line adding the listener', async () => {
  const w = createWarnings(fakeState(), LIB);
  const bus = new EventEmitter();
  const got = nextWarning();
  const ADD_LINE = 20;  // the line of `bus.on` below
  for (let i = 0; i < 11; i++) bus.on('request', () => {});
  w.onWarning(await got);
  const line = JSON.parse(w.take(1000, 1000));
  assert.equal(line.type, 'process-warnings');
  assert.equal(line.interval_ms, 1000);
  assert.equal(line.warnings.length, 1);
  const e = line.warnings[0];
  assert.equal(e.name, 'MaxListenersExceededWarning');
  assert.match(e.message, /11 request listeners added to \[EventEmitter\]/);
  assert.equal(e.count, 1);
  assert.equal(e.frame.url, __filename);
  assert.equal(e.frame.line, ADD_LINE);
  // Nothing since: no line.
  assert.equal(w.take(2000, 1000), '');
});

test('warnings: repeats are counted, kinds are bounded and messages cut', () => {
  const w = createWarnings(fakeState(), LIB);
  const dep = Object.assign(new Error('Buffer() is deprecated'), { name: 'DeprecationWarning', code: 'DEP0005' });
  for (let i = 0; i < 3; i++) w.onWarning(dep);
  for (let i = 0; i < MAX_KINDS + 4; i++) w.onWarning(Object.assign(new Error(i + 'x'.repeat(600)), { name: 'Warning' }));
  const line = JSON.parse(w.take(1000, 1000));
  assert.equal(line.warnings.length, MAX_KINDS);
  assert.equal(line.dropped, 5);
  const d = line.warnings.find((x) => x.name === 'DeprecationWarning');
  assert.equal(d.count, 3);
  assert.equal(d.code, 'DEP0005');
  assert.ok(line.warnings.every((x) => x.message.length <= MAX_MESSAGE_CHARS));
  // A warning without a stack frame of the application has no frame.
  const bare = createWarnings(fakeState(), LIB);
  bare.onWarning({ name: 'Warning', message: 'm', stack: 'Warning: m\n    at node:internal/x:1:1' });
  assert.equal(JSON.parse(bare.take(1, 1)).warnings[0].frame, undefined);
  // Not an object at all: ignored, never thrown.
  bare.onWarning(undefined);
});
