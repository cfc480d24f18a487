'use strict';
// blocked-loop (with a queue): each request first looks up its session
// asynchronously (a file stat, as a session store would), then renders a
// report synchronously for ~WORK_MS. The async step lets the server accept and
// start every connection's request before the work runs, so dozens of
// requests sit in flight and their handles pile up — but they wait for the
// loop, not for I/O: the synchronous render is the cause, the queue its
// consequence.
const http = require('http');
const fs = require('fs');

const WORK_ROUNDS = 110000;  // ~30 ms of CPU on this project's 2-core VM

function renderReport(url) {
  // Synchronous CPU work, like a template render or a big JSON transform.
  // Counted in work, not wall time: on a crowded CPU a time budget shrinks
  // the work while GC pauses stretch, which read as gc-pressure.
  let acc = 0;
  let rounds = 0;
  while (rounds < WORK_ROUNDS) {
    acc = (acc + JSON.stringify({ url, rounds, acc }).length) % 1000003;
    rounds++;
  }
  return { url, rounds, acc };
}

const server = http.createServer((req, res) => {
  fs.stat(__filename, (err) => {
    if (err) { res.writeHead(500); res.end(); return; }
    const report = renderReport(req.url);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(report));
  });
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`blocked-queue listening on 127.0.0.1:${server.address().port}`);
});
