'use strict';
// A probe that lies about its pid (agent_basics.sh lying-probe): says hello
// as `claimedPid` with job `job`, then sends samples whose loop delay
// (p99 and max 9999 ms) no honest target here reaches, so a series that
// shows it was written by this process. Prints its own pid, stays connected
// until killed.
const net = require('net');
const [socketPath, claimedPid, job] = process.argv.slice(2);

const line = (o) => JSON.stringify(o) + '\n';
const sample = (t) => line({ type: 'sample', t, interval_ms: 250, elu: 0.5,
                             delay: { min: 1, mean: 5000, max: 9999, p50: 5000, p90: 9000, p99: 9999, count: 1 },
                             cpu: { user_us: 1000, system_us: 100 },
                             mem: { rss: 5e7, heap_used: 1e7, heap_total: 2e7, external: 1e6, array_buffers: 0 },
                             handles: { total: 1, by_type: { Timeout: 1 } } });

const sock = net.connect(socketPath);
sock.on('error', (e) => { console.error(String(e)); process.exit(1); });
sock.on('connect', () => {
  sock.write(line({ type: 'hello', t: 0, v: 1, pid: Number(claimedPid), runtime: 'node', job,
                    interval_ms: 250, argv: ['node', 'liar.js'], versions: { node: process.versions.node } }));
  let t = 0;
  setInterval(() => { t += 250; sock.write(sample(t)); }, 250);
  console.log(process.pid);
});
sock.on('close', () => process.exit(0));
