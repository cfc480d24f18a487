'use strict';
// Which addon file the probe loads (issue 12, every Node the user runs): only
// one compiled for the running Node's ABI. A file named for this ABI but
// built for another (copied, renamed) is not loaded, a file that fails to load
// is caught, and in each case the JS probe runs and hello says why.
// Run by ctest on the system Node and on Node 22 (probe_native_node22).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { TEST_TIMEOUT_MS, runFd, assertSample } = require('./helpers.js');

const NATIVE_DIR = process.env.LOOPDOCTOR_NATIVE_DIR;
const ABI = process.versions.modules;
const THIS_NODE = `Node ${process.versions.node} \\(ABI ${ABI}\\)`;

// The build's addons for ABIs other than the running Node's.
function otherAddons() {
  if (!NATIVE_DIR || !fs.existsSync(NATIVE_DIR)) return [];
  return fs.readdirSync(NATIVE_DIR)
    .map((f) => /^loopdoctor_probe-([0-9]+)\.node$/.exec(f))
    .filter((m) => m && m[1] !== ABI)
    .map((m) => ({ abi: m[1], file: path.join(NATIVE_DIR, m[0]) }));
}
const other = otherAddons()[0];

// Runs busy.js with a native folder holding only `bytes` under this ABI's
// name; checks the JS probe ran and sampled; returns hello's fallback.
async function fallbackWith(bytes) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-abi-'));
  const file = path.join(dir, `loopdoctor_probe-${ABI}.node`);
  try {
    fs.writeFileSync(file, bytes);
    const { r, msgs, samples } = await runFd('busy.js', { LOOPDOCTOR_NATIVE_DIR: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(msgs[0].type, 'hello');
    assert.equal(msgs[0].probe, 'js');
    assert.ok(samples.length > 5, `the JS probe samples (${samples.length})`);
    samples.forEach((s) => assertSample(s));
    assert.equal(msgs[msgs.length - 1].type, 'bye');
    return { fallback: msgs[0].probe_fallback, file };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('an addon built for another ABI, renamed for this one, is not loaded', {
  timeout: TEST_TIMEOUT_MS,
  skip: other ? false : `no addon for another ABI than ${ABI} in LOOPDOCTOR_NATIVE_DIR (${NATIVE_DIR})`,
}, async () => {
  const { fallback, file } = await fallbackWith(fs.readFileSync(other.file));
  assert.match(fallback, new RegExp(`^${escape(file)} was built for Node ABI ${other.abi}, not for ${THIS_NODE}: not loaded; build one `));
});

test('a file tagged for another ABI is not loaded and the reason says how to build one', { timeout: TEST_TIMEOUT_MS }, async () => {
  const { fallback, file } = await fallbackWith('\x7fELF junk loopdoctor-probe-abi:1;');
  assert.match(fallback, new RegExp(`^${escape(file)} was built for Node ABI 1, not for ${THIS_NODE}: not loaded; `));
  const headers = path.join(path.dirname(path.dirname(process.execPath)), 'include', 'node');
  const hint = fs.existsSync(path.join(headers, 'node_api.h'))
    ? `build one with scripts/build.sh -DLOOPDOCTOR_NODE_INCLUDE_DIRS=${headers}`
    : `build one against its headers (none in ${headers}; `;
  assert.ok(fallback.includes(hint), `${fallback} names ${hint}`);
});

test('a file without the ABI tag is not loaded', { timeout: TEST_TIMEOUT_MS }, async () => {
  const { fallback, file } = await fallbackWith('\x7fELF not an addon');
  assert.equal(fallback, `${file} carries no loopdoctor ABI tag: not loaded`);
});

test('a tagged file that fails to load is caught and named', { timeout: TEST_TIMEOUT_MS }, async () => {
  const { fallback, file } = await fallbackWith(`not an ELF file loopdoctor-probe-abi:${ABI};`);
  assert.match(fallback, new RegExp(`^the addon ${escape(file)} did not load: .+`));
});

test('the build\'s own addon carries the ABI it is named for', {
  skip: NATIVE_DIR && fs.existsSync(NATIVE_DIR) ? false : `no LOOPDOCTOR_NATIVE_DIR (${NATIVE_DIR})`,
}, () => {
  const addons = fs.readdirSync(NATIVE_DIR).filter((f) => /^loopdoctor_probe-[0-9]+\.node$/.test(f));
  assert.ok(addons.length >= 1, `addons in ${NATIVE_DIR}: ${addons}`);
  for (const f of addons) {
    const named = /-([0-9]+)\.node$/.exec(f)[1];
    const bytes = fs.readFileSync(path.join(NATIVE_DIR, f)).toString('latin1');
    assert.ok(bytes.includes(`loopdoctor-probe-abi:${named};`), `${f} is tagged for ABI ${named}`);
  }
});
