'use strict';
// io-bound, cause upstream, through fetch (undici): every request waits on a
// slow upstream API (~400 ms). undici's pool to it is unbounded, so nothing
// queues in the process: the upstream's answer time is the request's.
// On this project's 2-core machine crowded by parallel builds (its loop
// thread waiting for a CPU 80 % of the time) it was called blocked-loop, as
// slow-upstream was in the same hour; on a quieter machine io-bound with
// cause upstream in every run.
const { startFetchProxy } = require('../lib/fetch-proxy');

const UPSTREAM_DELAY_MS = 400;

startFetchProxy('fetch-upstream', UPSTREAM_DELAY_MS, undefined);
