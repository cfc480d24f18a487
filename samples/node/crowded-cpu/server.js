'use strict';
// cpu-starved, cause run-queue: a light endpoint (~0.2 ms of CPU per
// request, a small JSON answer) whose CPU is shared with busy processes
// (../lib/crowd.js: this process and four spinners pinned to one CPU, each
// in a session of its own, so each gets an equal share). Its code never
// holds the loop long: alone on a core it is healthy (CROWD_SPINNERS=0).
// Beside the spinners its loop stalls because its thread waits in the run
// queue for the CPU they are using. The fix is on the machine, not here.
require('../lib/crowd');
const http = require('http');

// Iterations of the stand-in work, ~0.2 ms of CPU here. Counted in work,
// not in wall time: a process waiting for a CPU must not do more per request.
const WORK = Math.round(60000 * (Number(process.env.WORK) || 1));

function quote(url) {
  let x = 0;
  for (let i = 0; i < WORK; i++) x = (x * 31 + url.length + i) % 1000003;
  return x;
}

const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ url: req.url, quote: quote(req.url) }));
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`crowded-cpu listening on 127.0.0.1:${server.address().port}`);
});
