// A healthy server whose every request costs a fixed amount of CPU: the
// CI gate's sample (bench/gate, tests/integration/gate.sh). COST_US sets the
// handler's synchronous work per request in µs (default 400); a "head" build
// with COST_US=520 is the same code with a 30 % costlier handler, the kind
// of regression a refactor brings and one run cannot tell from noise.
'use strict';
const http = require('http');

const costUs = Number(process.env.COST_US || 400);

// Spins for `us` of this process's CPU time, not of wall time: on a crowded
// machine a wall-clock spin is descheduled part of the way and costs less
// CPU, which would make the cost itself noisy.
function work(us) {
  const start = process.cpuUsage();
  let x = 0;
  for (;;) {
    for (let i = 0; i < 200; i++) x += Math.sqrt(x + 1);
    const used = process.cpuUsage(start);
    if (used.user + used.system >= us) return x;
  }
}

const server = http.createServer((req, res) => {
  const x = work(costUs);
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ ok: true, x: x > 0 }));
});
server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  console.log(`per-request-cost (${costUs} µs) listening on 127.0.0.1:${server.address().port}`);
});
