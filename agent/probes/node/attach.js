'use strict';
// `loopdoctor attach PID`: the probe, loaded into a Node process that is
// already running. loopdoctor opens the target's inspector (SIGUSR1) and
// has it evaluate, in the main thread and in each worker thread:
//
//   (() => { const p = "<this file's absolute path, as the target sees it>";
//     const r = typeof process.getBuiltinModule === 'function'
//       ? process.getBuiltinModule('module').createRequire(p)
//       : (typeof require === 'function' ? require : process.mainModule.require);
//     return r(p).attach(<settings as a JSON literal>); })()
//
// (a CommonJS or an ES module application alike; Runtime.evaluate with
// returnByValue). attach(settings) starts the same probe as probe.js does
// under `loopdoctor run` (lib/lifecycle.js) on one connection to
// settings.endpoint, and returns at once, never throwing:
//   { ok: true, probe: 'native'|'js', probe_fallback (js only), listens: [{address, port}] }
//   { ok: false, error: '<one sentence a user can act on>' }
// While attached, globalThis[Symbol.for('loopdoctor.probe.attach')] holds
// { detach(), alive(), token }. detach() returns { ok: true } at once; at
// the loop's next turn (not inside the probe's own code, which the
// inspector may have interrupted: lib/lifecycle.js) the probe sends the
// last sample, the profile and bye, then removes every part of itself (its
// timers, channel subscriptions, observers, listeners, inspector session,
// the addon's thread and loop handles, the socket). The same happens when
// the collector's connection ends. settings.closeInspector: the main
// thread then also closes the inspector loopdoctor opened, once its
// WebSocket is gone (see closeInspectorSoon). Settings: config.js
// attachSettings.
const path = require('path');

const ATTACH_KEY = Symbol.for('loopdoctor.probe.attach');
const PRELOAD_KEY = Symbol.for('loopdoctor.probe.preload');
const INSPECTOR_CLOSE_KEY = Symbol.for('loopdoctor.probe.inspector-close');

// inspector.close() (process._debugEnd) stops Node's inspector server: it
// terminates the WebSocket connections still open and joins the inspector's
// I/O thread, on the main thread. Called from inside loopdoctor's own
// Runtime.evaluate it would cut off the answer to that call, so it runs
// later, from an unref'd timer; by then loopdoctor, which closes its
// WebSocket once detach() answered (or died, when the connection ended),
// is normally gone. The close itself then takes well under a millisecond
// (attach.test.js measures it with a client still connected).
const INSPECTOR_CLOSE_DELAY_MS = 300;

const lib = (name) => require(path.join(__dirname, 'lib', name));

function attach(input) {
  try {
    return attachOrRefuse(input);
  } catch (e) {
    return { ok: false, error: 'the probe did not start: ' + firstLine(e) + ' (the target runs on, unprobed)' };
  }
}

function firstLine(e) {
  return String(e && e.message !== undefined ? e.message : e).split('\n')[0];
}

function attachOrRefuse(input) {
  if (globalThis[PRELOAD_KEY] === true) {
    return { ok: false, error: 'this process already runs loopdoctor\'s probe, preloaded at its start ' +
      '(NODE_OPTIONS --require probe.js, under `loopdoctor run`, `env` or the agent): it reports there' };
  }
  const current = globalThis[ATTACH_KEY];
  if (current && typeof current.detach === 'function') {
    if (typeof current.alive === 'function' && current.alive()) {
      return { ok: false, error: 'already attached: another loopdoctor is diagnosing this ' +
        (isMainThread() ? 'process' : 'thread') + ' (attach token ' + JSON.stringify(current.token) +
        '); stop it, or wait for its end' };
    }
    current.detach();  // its connection is dead: it goes first
  }
  const parsed = lib('config.js').attachSettings(input);
  if (parsed.error) return { ok: false, error: parsed.error };
  const settings = parsed.settings;
  const wt = require('worker_threads');
  const worker = !wt.isMainThread;
  if (worker) Object.assign(settings, { worker: true, threadId: wt.threadId, closeInspector: false });
  // A detach, or a close the last attach scheduled, must not cut off the
  // inspector this attach came through.
  cancelInspectorClose();

  let handle = null;
  const entry = {
    token: settings.attachToken,
    alive: () => handle !== null && !handle.stopping() && !handle.state.disabled,
    detach: () => {
      try { if (handle !== null) handle.stop(); } catch (_) { /* never throw */ }
      return { ok: true };
    },
  };
  // A newer attach that took over from this one (its connection was dead)
  // keeps the global, and the inspector it came through.
  const onStopped = () => {
    if (!worker && settings.removeDir) removeFolder(settings.removeDir);
    if (globalThis[ATTACH_KEY] !== entry) return;
    delete globalThis[ATTACH_KEY];
    if (settings.closeInspector) closeInspectorSoon();
  };
  Object.defineProperty(globalThis, ATTACH_KEY, { value: entry, configurable: true, writable: true });
  try {
    handle = lib('lifecycle.js').start(settings, { probeDir: __dirname, onStopped });
  } catch (e) {
    if (globalThis[ATTACH_KEY] === entry) delete globalThis[ATTACH_KEY];
    return { ok: false, error: 'the probe did not start: ' + firstLine(e) + ' (the target runs on, unprobed)' };
  }
  const state = handle.state;
  const out = { ok: true, probe: state.native !== null ? 'native' : 'js' };
  if (state.native === null) out.probe_fallback = state.probeFallback || 'the JS probe was asked for';
  out.listens = state.listens.map((l) => ({ address: l.address, port: l.port }));
  return out;
}

// Everything of this attach is loaded by now (modules are cached, the addon
// mapped): its files may go.
function removeFolder(dir) {
  try { require('fs').rmSync(dir, { recursive: true, force: true }); } catch (_) { /* never throw */ }
}

function isMainThread() {
  try { return require('worker_threads').isMainThread; } catch (_) { return true; }
}

// See INSPECTOR_CLOSE_DELAY_MS. One pending close per process, in a global
// so that an attach through another copy of this file cancels it too.
function closeInspectorSoon() {
  cancelInspectorClose();
  const timer = setTimeout(() => {
    delete globalThis[INSPECTOR_CLOSE_KEY];
    try {
      const inspector = require('inspector');
      if (inspector.url() !== undefined) inspector.close();
    } catch (_) { /* never throw */ }
  }, INSPECTOR_CLOSE_DELAY_MS);
  timer.unref();
  Object.defineProperty(globalThis, INSPECTOR_CLOSE_KEY, { value: timer, configurable: true, writable: true });
}

function cancelInspectorClose() {
  const timer = globalThis[INSPECTOR_CLOSE_KEY];
  if (timer === undefined) return;
  clearTimeout(timer);
  delete globalThis[INSPECTOR_CLOSE_KEY];
}

module.exports = { attach };
