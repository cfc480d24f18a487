'use strict';
// Shared by the samples that use the undici Node's fetch is built on
// (fetch-pool, undici-pool); not a sample itself (no label). Node 20 and 22
// do not export it, so its Agent class is taken from the global dispatcher
// it installs when it loads (touching one of its globals loads it): undici
// keeps that dispatcher under Symbol.for('undici.globalDispatcher.1') so that
// copies of undici share it, and fetch(url, { dispatcher }) is Node's
// documented way to pass another one. With the npm package it would be
// `require('undici').Agent`; both publish the same diagnostics_channel
// messages and have the same `request()`.
void globalThis.Response;
const BundledAgent = globalThis[Symbol.for('undici.globalDispatcher.1')].constructor;

module.exports = { BundledAgent };
