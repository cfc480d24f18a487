'use strict';
// io-bound, cause connection-pool, through fetch (undici): the upstream is
// fast (~10 ms) but fetch goes through an undici Agent of 2 connections per
// origin, so requests queue in undici's pool while the loop sits idle. (Real
// case: `connections` copied from an example, as small-pool's maxSockets.)
// The Agent is fetch's own undici's (lib/bundled-undici.js says how it is
// found).
const { BundledAgent } = require('../lib/bundled-undici');
const { startFetchProxy } = require('../lib/fetch-proxy');

const UPSTREAM_DELAY_MS = 10;
const POOL_CONNECTIONS = 2;

const dispatcher = new BundledAgent({ connections: POOL_CONNECTIONS });

startFetchProxy('fetch-pool', UPSTREAM_DELAY_MS, { dispatcher });
