'use strict';
// attach()'s settings, checked before anything is loaded into the target:
// refused with a sentence naming the field, and their defaults (the rest of
// attach is attach.test.js's, through a real inspector).
const test = require('node:test');
const assert = require('node:assert/strict');
const { TEST_TIMEOUT_MS } = require('./helpers.js');

test('attach refuses bad settings with a sentence that names the field, and never throws', { timeout: TEST_TIMEOUT_MS }, async () => {
  const { attach } = require('../../../../agent/probes/node/attach.js');
  assert.match(attach(undefined).error, /^attach\(\) takes a settings object/);
  assert.match(attach({}).error, /^settings\.endpoint must name/);
  assert.match(attach({ endpoint: '/x.sock', profile: 'sometimes' }).error, /^settings\.profile is "sometimes": it takes on-block, on or off$/);
  assert.match(attach({ endpoint: '/x.sock', probe: 'wasm' }).error, /^settings\.probe is "wasm"/);
  assert.equal(globalThis[Symbol.for('loopdoctor.probe.attach')], undefined);
});

test('attach settings: a diagnosis samples every 10 ms unless told; the agent\'s attach (agent: true) every second, as its preloaded probes', () => {
  const { attachSettings } = require('../../../../agent/probes/node/lib/config.js');
  assert.equal(attachSettings({ endpoint: '/x.sock' }).settings.intervalMs, 10);
  assert.equal(attachSettings({ endpoint: '/x.sock', agent: true }).settings.intervalMs, 1000);
  assert.equal(attachSettings({ endpoint: '/x.sock', agent: true, intervalMs: 250 }).settings.intervalMs, 250);
  assert.equal(attachSettings({ endpoint: '/x.sock', agent: true, profile: 'off' }).settings.profileEnabled, false);
});
