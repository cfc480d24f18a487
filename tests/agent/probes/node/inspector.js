'use strict';
// The attach tests' side of `loopdoctor attach`: opens a running target's
// inspector as loopdoctor does (SIGUSR1; the port from the line Node prints
// on stderr), speaks the DevTools protocol over the global WebSocket (Node
// 22; Node 20 with --experimental-websocket, which CMakeLists passes), and
// builds the expression loopdoctor evaluates to attach the probe.
const path = require('path');
const { WAIT_MS, withTimeout } = require('./helpers.js');

const ATTACH = path.resolve(__dirname, '..', '..', '..', '..', 'agent', 'probes', 'node', 'attach.js');
const ATTACH_KEY = "globalThis[Symbol.for('loopdoctor.probe.attach')]";

// The expression of the attach contract (attach.js's header), verbatim.
function attachExpression(settings, attachPath = ATTACH) {
  return `(() => { const p = ${JSON.stringify(attachPath)};
  const r = typeof process.getBuiltinModule === 'function'
    ? process.getBuiltinModule('module').createRequire(p)
    : (typeof require === 'function' ? require : process.mainModule.require);
  return r(p).attach(${JSON.stringify(settings)}); })()`;
}

const DETACH = `${ATTACH_KEY}.detach()`;

// SIGUSR1 opens the target's inspector (on 9229, or a free port when that
// is taken: Node prints which). Resolves with { url, port }.
function openInspector(target) {
  let err = '';
  const found = new Promise((resolve) => {
    const onData = (d) => {
      err += d;
      const m = /Debugger listening on (ws:\/\/[^\s]+)/.exec(err);
      if (!m) return;
      target.child.stderr.off('data', onData);
      resolve({ url: m[1], port: Number(/:(\d+)\//.exec(m[1])[1]) });
    };
    target.child.stderr.on('data', onData);
  });
  target.child.kill('SIGUSR1');
  return withTimeout(found, WAIT_MS, 'the inspector to open after SIGUSR1');
}

// One DevTools session. call() resolves with the result or rejects with the
// protocol's error; with a sessionId it goes to that worker through
// NodeWorker.sendMessageToWorker, and its answer comes back in
// NodeWorker.receivedMessageFromWorker.
class Cdp {
  static async connect(url) {
    if (typeof WebSocket !== 'function') {
      throw new Error('no global WebSocket: run under Node 22, or Node 20 with --experimental-websocket');
    }
    const ws = new WebSocket(url);
    await withTimeout(new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = () => reject(new Error('WebSocket to ' + url + ' failed'));
    }), WAIT_MS, 'the inspector WebSocket');
    return new Cdp(ws);
  }

  constructor(ws) {
    this.ws = ws;
    this.nextId = 1;
    this.pending = new Map();   // "<sessionId>:<id>" -> {resolve, reject}
    this.listeners = new Map(); // method -> [fn]
    this.closed = new Promise((resolve) => { ws.onclose = resolve; });
    ws.onmessage = (e) => this.onMessage(JSON.parse(e.data), '');
  }

  onMessage(m, sessionId) {
    if (m.method === 'NodeWorker.receivedMessageFromWorker') {
      this.onMessage(JSON.parse(m.params.message), m.params.sessionId);
      return;
    }
    if (m.id !== undefined) {
      const key = sessionId + ':' + m.id;
      const p = this.pending.get(key);
      if (!p) return;
      this.pending.delete(key);
      if (m.error) p.reject(new Error(m.error.message));
      else p.resolve(m.result);
      return;
    }
    for (const fn of this.listeners.get(m.method) || []) fn(m.params, sessionId);
  }

  on(method, fn) {
    if (!this.listeners.has(method)) this.listeners.set(method, []);
    this.listeners.get(method).push(fn);
  }

  call(method, params = {}, sessionId = '') {
    const id = this.nextId++;
    const answer = new Promise((resolve, reject) => this.pending.set(sessionId + ':' + id, { resolve, reject }));
    const msg = JSON.stringify({ id, method, params });
    if (sessionId === '') this.ws.send(msg);
    else this.ws.send(JSON.stringify({ id: this.nextId++, method: 'NodeWorker.sendMessageToWorker', params: { sessionId, message: msg } }));
    return withTimeout(answer, WAIT_MS, method);
  }

  // The value of `expression` (returnByValue), in the main thread or a
  // worker's session; rejects when it threw.
  async evaluate(expression, sessionId = '') {
    const r = await this.call('Runtime.evaluate', { expression, returnByValue: true, includeCommandLineAPI: true }, sessionId);
    if (r.exceptionDetails) throw new Error('evaluate threw: ' + JSON.stringify(r.exceptionDetails));
    return r.result.value;
  }

  close() {
    this.ws.close();
    return withTimeout(this.closed, WAIT_MS, 'the inspector WebSocket to close');
  }
}

module.exports = { ATTACH, ATTACH_KEY, DETACH, attachExpression, openInspector, Cdp };
