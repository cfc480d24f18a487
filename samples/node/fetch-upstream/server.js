'use strict';
// io-bound, cause upstream, through fetch (undici): every request waits on a
// slow upstream API (~400 ms). undici's pool to it is unbounded, so nothing
// queues in the process: the upstream's answer time is the request's.
const { startFetchProxy } = require('../lib/fetch-proxy');

// Answers take 400 +- 150 ms. At a fixed 400 ms the load's 50 requests
// moved in lockstep: their answers came in waves of 50, and the loop spent
// ~110 ms on each wave (2.2 ms of fetch's CPU per answer), a stall at the
// blocked-loop line (p99 100 ms) that a second busy process on the machine
// pushed over it (CI: p99 178-195 ms, blocked-loop). Spread, as a real
// service's times are, the answers come one by one.
const UPSTREAM_DELAY_MS = '400:150';

startFetchProxy('fetch-upstream', UPSTREAM_DELAY_MS, undefined);
