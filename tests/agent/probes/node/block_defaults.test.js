'use strict';
// Block stacks' settings have one owner, agent/protocol/block_limits.h
// (`run` passes them to the probe always); the JS probe repeats them as its
// fallback for agent mode. This fails when the two drift apart.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const config = require(path.join(ROOT, 'agent', 'probes', 'node', 'lib', 'config.js'));
const header = fs.readFileSync(path.join(ROOT, 'agent', 'protocol', 'block_limits.h'), 'utf8');

// The value of `inline constexpr double <name> = <number>;` in the header.
function headerValue(name) {
  const m = new RegExp(`constexpr\\s+double\\s+${name}\\s*=\\s*([0-9.]+)\\s*;`).exec(header);
  assert.ok(m, `block_limits.h defines no ${name}`);
  return Number(m[1]);
}

test('the JS fallbacks equal block_limits.h', () => {
  assert.equal(config.DEFAULT_BLOCK_THRESHOLD_MS, headerValue('kDefaultBlockThresholdMs'));
  assert.equal(config.DEFAULT_BLOCK_INTERVAL_MS, headerValue('kDefaultBlockIntervalMs'));
  assert.equal(config.MIN_BLOCK_MS, headerValue('kMinBlockMs'));
  assert.equal(config.MAX_BLOCK_MS, headerValue('kMaxBlockMs'));
});

test('unset, the probe takes the fallbacks; set, what run passes', () => {
  const self = path.join(ROOT, 'agent', 'probes', 'node', 'probe.js');
  const unset = config.readSettings({ LOOPDOCTOR_ENDPOINT: '/tmp/x.sock' }, self);
  assert.equal(unset.blockThresholdMs, headerValue('kDefaultBlockThresholdMs'));
  assert.equal(unset.blockIntervalMs, headerValue('kDefaultBlockIntervalMs'));
  const set = config.readSettings({ LOOPDOCTOR_FD: '3', LOOPDOCTOR_BLOCK_THRESHOLD_MS: '75',
    LOOPDOCTOR_BLOCK_INTERVAL_MS: '1' }, self);
  assert.equal(set.blockThresholdMs, 75);
  assert.equal(set.blockIntervalMs, headerValue('kMinBlockMs'));  // clamped to the range
});
