'use strict';
// io-bound, cause connection-pool, behind a database driver: the database
// answers fast (~10 ms a query) but the driver's pool holds 2 connections
// (lib/line-driver.js, in the shape of pg's or mysql2's pool), so under
// load requests queue in the pool's own JS queue while the loop sits idle.
// The queue publishes nothing, as pg-pool's does not: the probe sees the 2
// connections busy all the time and the requests in flight at the server.
// (Real case: the issue's "50 requests queue for a database pool of 2
// connections"; `max: 2` copied from an example.)
const http = require('http');
const { createClient } = require('../lib/line-driver');
const { startUpstream } = require('../lib/spawn-upstream');

const QUERY_MS = 10;
const POOL_CONNECTIONS = 2;

startUpstream(QUERY_MS, (dbPort) => {
  const db = createClient(dbPort, { max: POOL_CONNECTIONS });
  const server = http.createServer((req, res) => {
    db.get(req.url, (err, row) => {
      if (err) { res.writeHead(502); res.end(); return; }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ row }));
    });
  });
  server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
    console.log(`db-pool listening on 127.0.0.1:${server.address().port}`);
  });
}, 'raw-upstream.js');
