'use strict';
// io-bound, cause connection-pool, through fetch (undici): the upstream is
// fast (~10 ms) but fetch goes through an undici Agent of 2 connections per
// origin, so requests queue in undici's pool while the loop sits idle. (Real
// case: `connections` copied from an example, as small-pool's maxSockets.)
//
// Node 20 and 22 do not export the undici their fetch is built on, so its
// Agent class is taken from the global dispatcher it installs when it loads
// (touching one of its globals loads it): undici keeps that dispatcher under
// Symbol.for('undici.globalDispatcher.1') so that copies of undici share it,
// and fetch(url, { dispatcher }) is Node's documented way to pass another
// one. With the npm package it would be `new (require('undici').Agent)(...)`;
// both publish the same diagnostics_channel messages.
const { startFetchProxy } = require('../lib/fetch-proxy');

const UPSTREAM_DELAY_MS = 10;
const POOL_CONNECTIONS = 2;

void globalThis.Response;
const BundledAgent = globalThis[Symbol.for('undici.globalDispatcher.1')].constructor;
const dispatcher = new BundledAgent({ connections: POOL_CONNECTIONS });

startFetchProxy('fetch-pool', UPSTREAM_DELAY_MS, { dispatcher });
