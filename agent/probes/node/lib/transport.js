'use strict';
// The connection to the collector: an inherited socket (LOOPDOCTOR_FD), a
// Unix socket path (LOOPDOCTOR_ENDPOINT) with reconnects, or attach's
// endpoint (one connection, no reconnect; a name starting with "\0" is an
// abstract socket); the outgoing line queue; the control lines (hello,
// listen, bye) and the collector's commands.
const net = require('net');
const v8 = require('v8');
const { r3 } = require('./state.js');
const {
  MAX_BUFFERED_BYTES, RECONNECT_MIN_MS, RECONNECT_MAX_MS, MAX_CONTROL_LINE_BYTES, FLUSH_MS, CLOSE_WAIT_MS,
} = require('./config.js');

// hooks.connected(): hello and listens are out, start sampling.
// hooks.lost(): the socket is gone (connected is already false).
// hooks.closed(): attach mode, after lost: the one connection is over.
// hooks.end(), hooks.profileStart(), hooks.allocStart(),
// hooks.heapSnapshotTake(msg): the collector's commands.
function createTransport(state, hooks) {
  const { settings, now } = state;
  let outBuf = '';        // queued lines, see enqueue()
  let lastFlushT = 0;
  let inBuf = '';
  let reconnectDelay = RECONNECT_MIN_MS;
  let reconnectTimer = null;

  // Samples and gc lines are queued and written in batches every FLUSH_MS:
  // a write on a Unix socket that wakes the collector costs far more than
  // building a sample (~0.2 ms on a small VM), so one write per 10 ms sample
  // alone was a few per cent of a saturated server's CPU.
  // With the native probe every line goes to the addon's one writer (its
  // watchdog thread writes the socket, see native/line_writer.h), so JS
  // lines and the thread's samples never interleave. In agent mode the
  // addon also owns the connection (native/socket_writer.h): it connects,
  // starts each connection with the preamble (hello, listens) and
  // reconnects on this file's backoff; for JS the probe stays connected, and
  // what the addon cannot send while the agent is away it drops and counts.
  let native = state.native;
  let nativeLink = false;  // agent mode with the addon's own connection
  let nativeStarted = false;  // this probe's start() of the addon succeeded: close() releases it

  function enqueue(lines) {
    if (native !== null) {
      if (!state.connected || state.disabled) state.dropped += countLines(lines);
      else native.send(lines, false);
      return;
    }
    if (!state.connected || state.disabled || state.socket === null) { state.dropped += countLines(lines); return; }
    if (outBuf.length + lines.length > MAX_BUFFERED_BYTES) { state.dropped += countLines(lines); return; }
    outBuf += lines;
  }

  function flush() {
    lastFlushT = now();
    if (native !== null) { native.flush(); return; }
    if (outBuf === '') return;
    const out = outBuf;
    outBuf = '';
    const socket = state.socket;
    if (!state.connected || state.disabled || socket === null) { state.dropped += countLines(out); return; }
    try {
      if (socket.writableLength > MAX_BUFFERED_BYTES) { state.dropped += countLines(out); return; }
      socket.write(out);
    } catch (_) {
      state.dropped += countLines(out);
    }
  }

  // Called with each sample's time: writes the queue once FLUSH_MS passed.
  function flushIfDue(t) {
    if (t - lastFlushT >= FLUSH_MS) flush();
  }

  // Control messages (hello, listen, bye) go out at once, after what is queued.
  // With the addon's own connection, a new listen also joins the preamble
  // that every later connection starts with.
  function send(line) {
    if (nativeLink) native.preamble(preamble());
    enqueue(line);
    flush();
  }

  // A line far over the queue's bound (the profile): after what is queued.
  function writeNow(line) {
    if (native !== null) { native.send(line, true); native.flush(); return; }
    flush();
    try { state.socket.write(line); } catch (_) { /* the collector is gone */ }
  }

  // The addon counts what its writer dropped; the sum is the probe's.
  function droppedTotal() {
    return native !== null ? state.dropped + native.dropped() : state.dropped;
  }

  // A worker's or a child's bye also says how it exited (the collector
  // cannot wait() for a process it did not spawn).
  function sendBye() {
    const code = Number.isInteger(state.exitCode) ? ',"exit_code":' + state.exitCode : '';
    send('{"type":"bye","t":' + r3(now()) + ',"dropped":' + droppedTotal() + code + '}\n');
  }

  function countLines(s) {
    let n = 0;
    for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
    return n;
  }

  function helloLine() {
    let heapLimit = 0;
    try { heapLimit = v8.getHeapStatistics().heap_size_limit; } catch (_) { /* keep 0 */ }
    return JSON.stringify(Object.assign({
      type: 'hello', t: r3(now()), v: 1, pid: process.pid}, state.identity(), { runtime: 'node',
      versions: { node: process.versions.node, v8: process.versions.v8, uv: process.versions.uv },
      argv: process.argv, interval_ms: settings.intervalMs, heap_limit: heapLimit, job: settings.job,
      probe: native !== null ? 'native' : 'js',
      probe_fallback: state.probeFallback || undefined,
      // `loopdoctor attach`: the token tells the collector its own attach.
      attached: settings.attached || undefined,
      attach_token: settings.attached ? settings.attachToken : undefined,
    })) + '\n';
  }

  function listenLines() {
    let out = '';
    for (const l of state.listens) out += JSON.stringify(Object.assign({}, l, { t: r3(now()) })) + '\n';
    return out;
  }

  function preamble() {
    return helloLine() + listenLines();
  }

  function onConnected() {
    state.connected = true;
    reconnectDelay = RECONNECT_MIN_MS;
    send(helloLine());
    const listens = listenLines();
    if (listens) send(listens);
    hooks.connected();
  }

  function onLost() {
    state.connected = false;
    hooks.lost();
    shutdown();  // the thread must be done with the fd before it closes
    if (state.socket) { try { state.socket.destroy(); } catch (_) { /* already gone */ } }
    state.socket = null;
    // A run's tree does not reconnect: the collector never comes back;
    // nor does an attached probe, which detaches instead.
    if (settings.endpoint && !settings.fdText && !settings.tree && !settings.attached && !state.finished && !state.disabled) {
      scheduleReconnect();
      return;
    }
    state.disabled = true;
    if (settings.attached) hooks.closed();
  }

  function attach(s) {
    state.socket = s;
    s.setEncoding('utf8');
    s.on('data', onData);
    s.on('error', () => { try { if (state.socket === s) onLost(); } catch (_) { /* silent */ } });
    s.on('close', () => { try { if (state.socket === s) onLost(); } catch (_) { /* silent */ } });
    s.unref();
  }

  function openFd() {
    const fd = Number(settings.fdText);
    if (!Number.isInteger(fd) || fd < 0) { state.disabled = true; return; }
    const s = new net.Socket({ fd, readable: true, writable: true });
    attach(s);
    startNativeOn(fd);
    onConnected();
  }

  // The addon writes on the socket JS reads the collector's commands from
  // (fd mode, and a run's child process on the run's socket).
  function startNativeOn(fd) {
    if (native !== null && !native.start(fd, settings.intervalMs, settings.resolutionMs, now(), MAX_BUFFERED_BYTES)) {
      native = state.native = null;
      state.probeFallback = 'the native probe did not start on fd ' + fd;
    }
    nativeStarted = native !== null;
    // Block stacks (`block` lines) come from the native probe only.
    if (native !== null && typeof native.blocks === 'function') {
      native.blocks(settings.blockThresholdMs, settings.blockIntervalMs, settings.worker ? settings.threadId : 0);
    }
  }

  // Agent mode with the native probe: the addon connects from its thread;
  // the JS probe's own connection if it cannot.
  function startNativeEndpoint() {
    const ok = typeof native.startEndpoint === 'function' &&
      native.startEndpoint(settings.endpoint, settings.intervalMs, settings.resolutionMs, now(),
                           MAX_BUFFERED_BYTES, RECONNECT_MIN_MS, RECONNECT_MAX_MS);
    if (!ok) {
      native = state.native = null;
      state.probeFallback = 'the native probe did not start on ' + settings.endpoint;
      connectEndpoint();
      return;
    }
    nativeLink = true;
    nativeStarted = true;
    // Block stacks, where the addon has them (as openFd does).
    if (typeof native.blocks === 'function') native.blocks(settings.blockThresholdMs, settings.blockIntervalMs);
    native.preamble(preamble());
    state.connected = true;
    hooks.connected();
  }

  function connectEndpoint() {
    reconnectTimer = null;
    if (state.finished || state.disabled) return;
    const s = net.connect(settings.endpoint);
    attach(s);
    s.once('connect', () => {
      try {
        if (state.socket !== s) return;
        if (settings.tree || settings.attached) startNativeOn(s._handle.fd);
        onConnected();
      } catch (_) { /* silent */ }
    });
  }

  function scheduleReconnect() {
    if (reconnectTimer) return;
    const delay = reconnectDelay;
    reconnectDelay = Math.min(reconnectDelay * 2, RECONNECT_MAX_MS);
    reconnectTimer = setTimeout(() => { try { connectEndpoint(); } catch (_) { /* silent */ } }, delay);
    reconnectTimer.unref();
  }

  function onData(chunk) {
    try {
      inBuf += chunk;
      let nl;
      while ((nl = inBuf.indexOf('\n')) >= 0) {
        const line = inBuf.slice(0, nl);
        inBuf = inBuf.slice(nl + 1);
        handleControl(line);
      }
      if (inBuf.length > MAX_CONTROL_LINE_BYTES) inBuf = '';
    } catch (_) { /* ignore bad control input */ }
  }

  function handleControl(line) {
    if (line.trim() === '') return;
    let msg;
    try { msg = JSON.parse(line); } catch (_) { return; }
    if (!msg) return;
    if (msg.type === 'end') hooks.end();
    else if (msg.type === 'profile-start') hooks.profileStart();
    else if (msg.type === 'alloc-start') hooks.allocStart();
    else if (msg.type === 'heap-snapshot-take') hooks.heapSnapshotTake(msg);
  }

  // The process exits or the socket is lost: the native writer writes out
  // what is queued (bye included) and its thread ends.
  function shutdown() {
    if (native !== null && nativeStarted) { try { native.stop(); } catch (_) { /* never throw */ } }
  }

  // Attach mode, the probe detaches: what is queued is written (the
  // addon's writer writes its queue out as its thread ends), the addon lets
  // go of its thread and loop handles, and the socket closes once written;
  // a collector that reads nothing for CLOSE_WAIT_MS has it destroyed.
  function close() {
    if (reconnectTimer) { clearTimeout(reconnectTimer); reconnectTimer = null; }
    try { flush(); } catch (_) { /* the collector is gone */ }
    // Only what this probe started: an addon it never started may be
    // another probe's by now (an attach that took over in this thread).
    if (native !== null && nativeStarted) {
      try { if (typeof native.release === 'function') native.release(); else native.stop(); } catch (_) { /* never throw */ }
    }
    const s = state.socket;
    state.socket = null;
    state.connected = false;
    state.disabled = true;
    if (s === null) return;
    if (native !== null || s.destroyed || !s.writable || s.writableLength === 0) { s.destroy(); return; }
    const timer = setTimeout(() => s.destroy(), CLOSE_WAIT_MS);
    timer.unref();
    s.once('close', () => clearTimeout(timer));
    s.end(() => s.destroy());
  }

  // Connects (fd: at once, with hello; endpoint: when the socket connects;
  // a run's child process and an attached probe: JS connects, then the
  // addon writes on that socket).
  function start() {
    if (settings.fdText) openFd();
    else if (native !== null && !settings.tree && !settings.attached) startNativeEndpoint();
    else connectEndpoint();
  }

  return { start, enqueue, flush, flushIfDue, send, writeNow, sendBye, shutdown, close };
}

module.exports = { createTransport };
