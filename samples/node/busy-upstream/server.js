'use strict';
// io-bound, with real work per request: each request renders for ~2 ms of
// CPU, then waits ~180 ms on an upstream. Under 50 connections the process
// uses about half a core and its loop is busy about half the time, yet each
// response takes ~90x its CPU time: it waits. (A CPU or utilisation cut
// called this server healthy in one run of four; see docs/verdicts.md, io-bound.)
// Not a labelled sample yet: responses come back from the upstream in
// bursts of up to 50, and 50 renders in a row stall the loop ~100 ms, more
// on a crowded machine, so its verdict sits between io-bound and
// blocked-loop; the io-bound rule is pinned by tests/analyzer/rules_test.cc.
// RENDER_WORK scales the CPU per request (default 1: ~2 ms here).
const http = require('http');
const { startUpstream } = require('../lib/spawn-upstream');

const UPSTREAM_DELAY_MS = 180;
// Iterations of the stand-in work: ~2 ms of CPU on this project's CI machine.
// Counted in work, not in wall time: a process waiting for a CPU must not
// look like one doing more work per request.
const RENDER_ITERATIONS = Math.round(340000 * (Number(process.env.RENDER_WORK) || 1));
const agent = new http.Agent({ keepAlive: true });  // unlimited sockets

// Stand-in for templating a page: a fixed amount of CPU per request.
function render(body) {
  let x = 0;
  for (let i = 0; i < RENDER_ITERATIONS; i++) x = (x * 31 + body.length + i) % 1000003;
  return JSON.stringify({ upstream: body.toString(), check: x });
}

startUpstream(UPSTREAM_DELAY_MS, (upstreamPort) => {
  const server = http.createServer((req, res) => {
    const up = http.get({ host: '127.0.0.1', port: upstreamPort, path: req.url, agent }, (ur) => {
      const chunks = [];
      ur.on('data', (c) => chunks.push(c));
      ur.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(render(Buffer.concat(chunks)));
      });
    });
    up.on('error', () => { res.writeHead(502); res.end(); });
  });
  server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
    console.log(`busy-upstream listening on 127.0.0.1:${server.address().port}`);
  });
});
