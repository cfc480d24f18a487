'use strict';
// Shared by the samples whose server answers each request with a fetch to
// a local upstream (fetch-upstream, fetch-pool; undici-pool through
// startProxy with undici's request()); not a sample itself (no
// label). Starts the upstream (spawn-upstream.js), then a server that
// fetches upstream's answer for each request with `fetchOptions` (a
// dispatcher, for fetch-pool) and sends it on; prints its port as the
// other samples do.
const http = require('http');
const { startUpstream } = require('./spawn-upstream');

// The proxy itself: `call(origin, path)` resolves to the upstream's body.
function startProxy(name, upstreamDelayMs, call) {
  startUpstream(upstreamDelayMs, (upstreamPort) => {
    const origin = `http://127.0.0.1:${upstreamPort}`;
    const server = http.createServer(async (req, res) => {
      try {
        const body = await call(origin, req.url);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      } catch (_) {
        res.writeHead(502);
        res.end();
      }
    });
    server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
      console.log(`${name} listening on 127.0.0.1:${server.address().port}`);
    });
  });
}

function startFetchProxy(name, upstreamDelayMs, fetchOptions) {
  startProxy(name, upstreamDelayMs, async (origin, path) => (await fetch(origin + path, fetchOptions)).text());
}

module.exports = { startProxy, startFetchProxy };
