'use strict';
// Chooses the probe: the native addon (a watchdog thread that samples the
// loop on its own clock, see native/) when one is built for the running
// Node's ABI and loads, the JS sampler otherwise, and says why.
const path = require('path');
const fs = require('fs');

// The addon's file name carries the ABI it was built for: an addon built
// against another Node's headers must not be loaded (V8's API differs).
function addonFileName(abi) {
  return 'loopdoctor_probe-' + abi + '.node';
}

// Folders searched, in order: LOOPDOCTOR_NATIVE_DIR (a build tree, tests),
// then native/ beside probe.js (the installed layout).
function addonDirs(settings, probeDir) {
  const dirs = [];
  if (settings.nativeDir) dirs.push(path.resolve(settings.nativeDir));
  dirs.push(path.join(probeDir, 'native'));
  return dirs;
}

// Returns { addon, fallback }: addon is null and fallback says why when the
// JS probe runs.
function loadNative(settings, probeDir) {
  if (settings.probeChoice === 'js') return { addon: null, fallback: 'LOOPDOCTOR_PROBE=js' };
  const abi = process.versions.modules;
  const name = addonFileName(abi);
  const dirs = addonDirs(settings, probeDir);
  const file = dirs.map((d) => path.join(d, name)).find((f) => fs.existsSync(f));
  if (!file) return { addon: null, fallback: 'no addon built for Node ABI ' + abi + ' (looked in ' + dirs.join(', ') + ')' };
  try {
    const addon = require(file);
    if (typeof addon.start !== 'function') return { addon: null, fallback: file + ' is not the loopdoctor probe addon' };
    return { addon, fallback: null };
  } catch (e) {
    return { addon: null, fallback: 'the addon ' + file + ' did not load: ' + String(e && e.message).split('\n')[0] };
  }
}

module.exports = { loadNative, addonFileName };
