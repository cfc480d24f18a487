'use strict';
// io-bound, cause upstream, through fetch (undici): every request waits on a
// slow upstream API (~400 ms). undici's pool to it is unbounded, so nothing
// queues in the process: the upstream's answer time is the request's.
// On this project's 2-core machine crowded by parallel builds (its loop
// thread waiting for a CPU 80 % of the time) it was called blocked-loop, as
// slow-upstream was in the same hour; on a quieter machine io-bound with
// cause upstream in every run.
const http = require('http');
const { startUpstream } = require('../lib/spawn-upstream');

const UPSTREAM_DELAY_MS = 400;

startUpstream(UPSTREAM_DELAY_MS, (upstreamPort) => {
  const url = `http://127.0.0.1:${upstreamPort}/`;
  const server = http.createServer(async (req, res) => {
    try {
      const up = await fetch(url + req.url.slice(1));
      const body = await up.text();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    } catch (_) {
      res.writeHead(502);
      res.end();
    }
  });
  server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
    console.log(`fetch-upstream listening on 127.0.0.1:${server.address().port}`);
  });
});
