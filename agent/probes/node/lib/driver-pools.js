'use strict';
// A database driver's own pool, whose queue no socket shows: pg's Pool
// (the pg-pool package, which pg's Pool extends) keeps the queries waiting
// for a client in its own queue, while its `max` connections stay busy. The
// sockets alone say only that they are all busy (net-calls.js); the pool
// says how many requests wait, its size and the driver's name and version,
// which the connection-pool cause then names ("pg 8.23.1's Pool: 4
// connections, 46 queries waiting for one"). pg makes its sockets with
// `new net.Socket().connect()`, which publishes nothing on
// 'net.client.socket' (net.connect() does): the pool's clients' sockets are
// handed to net-calls.js from here, so its queries are timed as any raw
// client's calls.
//
// Found without a hook on the require path (whose frame would sit in every
// stack): once outbound calls go out, require.cache is looked through at
// most once a second until pg-pool's module is there (an ESM app's
// `import pg from 'pg'` loads it through the CJS loader too). Its
// Pool.prototype.connect (pool.query calls it for every query) then gets a
// wrapper that notes the pool (a WeakRef) and calls the original with the
// same `this` and arguments, returning what it returns; stop() puts the
// original back. What is read of a pool is its public gauges (waitingCount,
// totalCount, options.max) and its clients' sockets, for their destination.
const fs = require('fs');
const path = require('path');
const { netDestOf } = require('./net-calls.js');

// How often require.cache is looked through while the driver is not found.
const SCAN_EVERY_MS = 1000;
// Pools noted at most: an application makes a few, once; a bound that a
// process making one per request cannot grow past.
const MAX_POOLS = 64;

const PG_POOL_MAIN = /[\\/]node_modules[\\/]pg-pool[\\/]index\.js$/;
const PG_MAIN = /[\\/]node_modules[\\/]pg[\\/]lib[\\/]index\.js$/;

function versionAt(dir) {
  try {
    const v = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
    return typeof v === 'string' && v.length <= 32 ? v : '';
  } catch (_) {
    return '';
  }
}

// "pg 8.23.1" from the pg package loaded beside pg-pool ("pg-pool 3.10.1"
// when pg-pool is used alone); the bare name when no version is readable.
function driverName(cacheKeys, poolFile) {
  const pg = cacheKeys.find((k) => PG_MAIN.test(k));
  if (pg !== undefined) return ('pg ' + versionAt(path.dirname(path.dirname(pg)))).trim();
  return ('pg-pool ' + versionAt(path.dirname(poolFile))).trim();
}

// onSocket(socket, client): a pool client's socket, once ('net' or 'tls').
function createDriverPools(onSocket) {
  const pools = [];          // WeakRef of each pool noted
  const noted = new WeakSet();
  const handed = new WeakSet();  // sockets given to onSocket
  let driver = '';
  let restore = null;        // puts Pool.prototype.connect back
  let lastScan = -Infinity;

  function note(pool) {
    if (noted.has(pool) || pools.length >= MAX_POOLS) return;
    noted.add(pool);
    pools.push(new WeakRef(pool));
  }

  function wrapPgPool(Pool, name) {
    const proto = Pool && Pool.prototype;
    const orig = proto && proto.connect;
    if (typeof orig !== 'function') return;
    const connect = function connect() {
      try { note(this); } catch (_) { /* never throw */ }
      return orig.apply(this, arguments);
    };
    Object.defineProperty(connect, 'length', { value: orig.length });
    proto.connect = connect;
    driver = name;
    restore = () => { if (proto.connect === connect) proto.connect = orig; };
  }

  function scan(now) {
    if (restore !== null || now - lastScan < SCAN_EVERY_MS) return;
    lastScan = now;
    let keys;
    try { keys = Object.keys(require.cache); } catch (_) { return; }
    const file = keys.find((k) => PG_POOL_MAIN.test(k));
    if (file === undefined) return;
    const mod = require.cache[file];
    if (mod && mod.exports) wrapPgPool(mod.exports, driverName(keys, file));
  }

  // One pool's destination (its first client's socket's); hands each new
  // client's socket to onSocket on the way.
  function destOf(pool) {
    const clients = Array.isArray(pool._clients) ? pool._clients : [];
    let dest = null;
    for (const c of clients) {
      const sock = c && c.connection && c.connection.stream;
      if (!sock || typeof sock.remotePort !== 'number') continue;
      if (dest === null) dest = netDestOf(sock);
      if (!handed.has(sock)) {
        handed.add(sock);
        onSocket(sock, sock.encrypted === true ? 'tls' : 'net');
      }
    }
    return dest;
  }

  // dest -> { waiting, max, driver }, summed over the pools to each
  // destination; empty until a pool was noted.
  function poll(now) {
    scan(now);
    const byDest = new Map();
    for (let i = pools.length - 1; i >= 0; i--) {
      const pool = pools[i].deref();
      if (pool === undefined || pool.ended) { pools.splice(i, 1); continue; }
      const dest = destOf(pool);
      if (dest === null) continue;
      const waiting = Number(pool.waitingCount) || 0;
      const max = pool.options && Number(pool.options.max) > 0 ? Number(pool.options.max) : 0;
      const d = byDest.get(dest) || { waiting: 0, max: 0, driver };
      d.waiting += waiting;
      d.max += max;
      byDest.set(dest, d);
    }
    return byDest;
  }

  function stop() {
    if (restore !== null) restore();
    restore = null;
    pools.length = 0;
  }

  return { poll, stop };
}

module.exports = { createDriverPools };
