'use strict';
// Raw TCP and TLS clients' calls (a database's or cache's driver), for
// outbound.js: see createNetCalls.
const { performance } = require('perf_hooks');

// A raw client's destination: the remote address and port, or a local
// socket's path (net.connect({ path }): Node keeps it as _pipeName).
const MAX_DEST_CHARS = 200;  // the collector refuses a dest over 256 bytes
function netDestOf(sock) {
  if (typeof sock.remotePort === 'number') return String(sock.remoteAddress) + ':' + sock.remotePort;
  return typeof sock._pipeName === 'string' ? sock._pipeName.slice(0, MAX_DEST_CHARS) : 'local socket';
}

const NET_UNKNOWN = 0, NET_RAW = 1, NET_OTHER = 2;

// Raw TCP clients: a database's or cache's driver speaks its own protocol on
// a net.Socket, which 'net.client.socket' hands over as net.connect() makes
// it. A call is the time from a write to the next read on the socket (a
// request and its answer; writes before that read count as one call, from
// the first), per destination. The http client's and undici's sockets come
// through the channel too: at its first read a socket that carries HTTP
// (the http client's `parser` or `_httpMessage` set, or a connection undici
// handed over) is left to their channels. Each socket gets its own
// `_writeGeneric` (where every net write goes, write() and writev() alike,
// and again once connected for a write made before: the first call is the
// one timed; `write` itself is no use, net's connect() resets it) and `push`
// (net's reads end in socket.push(chunk)), which read the clock and call
// the prototype's; a server's sockets never come through the channel and
// keep their shape. A TLS socket (watchTls) is timed the same way,
// as client `tls`: its writes and reads are the application's, in clear,
// on the TLSSocket. A Node without _writeGeneric times nothing.
// onCall(client, dest, ms) records a call; conns[client] counts the
// connections per destination. Once the probe detaches (stop()), each
// socket's two functions put back what was there at its next write or
// read, and call it.
function createNetCalls(state, isUndici, onCall, conns) {
  const tracked = new WeakMap();  // socket -> its state, for an upgrade to TLS
  let live = true;

  function classify(sock) {
    return sock.parser || sock._httpMessage || isUndici(sock) ? NET_OTHER : NET_RAW;
  }

  function onReply(sock, st) {
    const ms = performance.now() - st.sent;
    st.sent = -1;
    if (st.kind === NET_UNKNOWN) {
      st.kind = classify(sock);
      if (st.kind === NET_RAW) conns[st.client].add(st.dest = netDestOf(sock), sock);
    }
    if (st.kind === NET_RAW && state.sampling) onCall(st.client, st.dest, ms);
  }

  function wrap(sock, name, fn) {
    const own = Object.getOwnPropertyDescriptor(sock, name);
    Object.defineProperty(sock, name, { value: fn, writable: true, configurable: true, enumerable: false });
    return () => {
      if (sock[name] !== fn) return;  // replaced since: theirs stays
      if (own) Object.defineProperty(sock, name, own); else delete sock[name];
    };
  }

  // A plain socket upgraded to TLS (pg's and mysql2's STARTTLS: the
  // driver's first exchange in clear, then tls.connect({ socket })): from
  // then on its calls are the TLS socket's, and it is no longer counted.
  function onUpgrade(plain) {
    const st = tracked.get(plain);
    if (st === undefined) return;
    st.kind = NET_OTHER;
    st.sent = -1;
    if (st.dest !== '') conns[st.client].drop(st.dest, plain);
  }

  function onSocket(msg, client = 'net') {
    try {
      const sock = msg && msg.socket;
      if (!sock || typeof sock._writeGeneric !== 'function' || typeof sock.push !== 'function') return;
      // Handed over twice: a driver's pool's socket (driver-pools.js), or a
      // TLS socket Node 22's tls.connect() also published as a plain one.
      // Its one pair of wrappers stays; TLS is the client it is timed as.
      const seen = tracked.get(sock);
      if (seen !== undefined) {
        if (client === 'tls' && seen.client !== 'tls') {
          if (seen.dest !== '') conns[seen.client].drop(seen.dest, sock);
          seen.client = 'tls', seen.kind = NET_UNKNOWN, seen.dest = '';
        }
        return;
      }
      const protoWrite = sock._writeGeneric, protoPush = sock.push;
      const st = { kind: NET_UNKNOWN, sent: -1, dest: '', client };
      tracked.set(sock, st);
      let unwrapWrite = null, unwrapPush = null;
      const unwrap = () => { try { unwrapWrite(); unwrapPush(); } catch (_) { /* never throw */ } };
      unwrapWrite = wrap(sock, '_writeGeneric', function _writeGeneric() {
        if (!live) unwrap();
        else if (st.sent < 0 && st.kind !== NET_OTHER && state.sampling) st.sent = performance.now();
        return protoWrite.apply(this, arguments);
      });
      unwrapPush = wrap(sock, 'push', function push(chunk) {
        if (!live) unwrap();
        else if (st.sent >= 0 && chunk !== null) {
          try { onReply(sock, st); } catch (_) { /* never throw */ }
        }
        return protoPush.apply(this, arguments);
      });
    } catch (_) { /* never throw */ }
  }

  return { onSocket, onUpgrade, stop: () => { live = false; } };
}

module.exports = { createNetCalls, netDestOf };
