'use strict';
// The target's process warnings (process.on('warning'): MaxListenersExceeded,
// Deprecation, ...) as evidence. Each distinct warning (name, code, message)
// is counted; once a second, while sampling, the ones seen since the last
// line go out as one `process-warnings` line (docs/contracts.md, "Probe protocol").
// Listening does not change what node prints: its own handler writes the
// warning to stderr whether or not anyone else listens.
//
// Bounded: at most MAX_KINDS distinct warnings are kept for the life of the
// process (one whose message changes every time is still one per message),
// later ones are only counted as dropped; strings are cut to the lengths
// below. The stack's first frame outside node's own code is sent, never the
// whole stack: for a MaxListenersExceededWarning it is the line that adds
// the listener.
const { r3 } = require('./state.js');

const WARNINGS_INTERVAL_MS = 1000;
// The protocol check's limits (agent/protocol/message_check.cc) match these.
const MAX_KINDS = 16;
const MAX_NAME_CHARS = 64;
const MAX_MESSAGE_CHARS = 512;
const MAX_URL_CHARS = 1024;

// "    at fn (file:///app/server.js:20:7)" or "    at /app/server.js:20:7".
const FRAME_RE = /^\s*at (?:(.*?) \()?(.+?):(\d+):(\d+)\)?$/;

function cut(s, n) {
  const t = String(s === undefined || s === null ? '' : s);
  return t.length > n ? t.slice(0, n) : t;
}

// The first frame of the warning's stack in the target's own code (not
// node:, not internal/, not this probe), or null.
function userFrame(stack, probeDir) {
  if (typeof stack !== 'string') return null;
  const lines = stack.split('\n');
  for (let i = 1; i < lines.length; i++) {
    const m = FRAME_RE.exec(lines[i]);
    if (m === null) continue;
    const url = m[2];
    if (url.startsWith('node:') || url.startsWith('internal/') || url.includes(probeDir)) continue;
    return { function: cut(m[1] || '', MAX_NAME_CHARS), url: cut(url, MAX_URL_CHARS),
      line: Number(m[3]), column: Number(m[4]) };
  }
  return null;
}

function createWarnings(state, probeDir) {
  const kinds = new Map();  // key -> {entry, count, firstT}
  let dropped = 0;

  function onWarning(w) {
    try {
      const name = cut(w && w.name, MAX_NAME_CHARS);
      const message = cut(w && w.message, MAX_MESSAGE_CHARS);
      const code = cut(w && w.code, MAX_NAME_CHARS);
      const key = name + '\0' + code + '\0' + message;
      let k = kinds.get(key);
      if (k === undefined) {
        if (kinds.size >= MAX_KINDS) { dropped++; return; }
        k = { entry: { name, message, code, frame: userFrame(w && w.stack, probeDir) }, count: 0, firstT: 0 };
        kinds.set(key, k);
      }
      if (k.count === 0) k.firstT = state.now();
      k.count++;
    } catch (_) { /* never throw */ }
  }

  // The interval's line, or '' when no warning came; starts the next.
  function take(t, intervalMs) {
    const out = [];
    for (const k of kinds.values()) {
      if (k.count === 0) continue;
      const e = Object.assign({}, k.entry, { count: k.count, first_t: r3(k.firstT) });
      if (e.frame === null) delete e.frame;
      if (e.code === '') delete e.code;
      out.push(e);
      k.count = 0;
    }
    if (out.length === 0 && dropped === 0) return '';
    const line = { type: 'process-warnings', t: r3(t), interval_ms: r3(intervalMs), warnings: out };
    if (dropped > 0) line.dropped = dropped;
    dropped = 0;
    return JSON.stringify(line) + '\n';
  }

  return { onWarning, take };
}

// Listens from the start (warnings at start-up count too) and sends what
// came once a second while sampling (on the probe's slow tick); warnings
// before the collector is connected wait in their counts. Returns the
// listener's removal (a detaching probe).
function installWarnings(state, transport, probeDir) {
  const warnings = createWarnings(state, probeDir);
  process.on('warning', warnings.onWarning);
  let lastT = -1;   // end of the last line's interval; -1: not sampling
  let dueT = 0;
  const remove = state.slowTick.add(() => {
    if (state.finished) { remove(); return; }
    if (!state.sampling || !state.connected) { lastT = -1; return; }
    const t = state.now();
    // The first line after (re)connecting holds what came since the probe
    // started: warnings at start-up waited for it.
    if (lastT < 0) { lastT = 0; dueT = t + WARNINGS_INTERVAL_MS; }
    if (t < dueT - state.slowTick.periodMs / 2) return;
    const line = warnings.take(t, t - lastT);
    lastT = t;
    dueT = t + WARNINGS_INTERVAL_MS;
    if (line !== '') transport.enqueue(line);
  });
  return () => {
    remove();
    process.removeListener('warning', warnings.onWarning);
  };
}

module.exports = { installWarnings, createWarnings, userFrame, MAX_KINDS, MAX_MESSAGE_CHARS };
