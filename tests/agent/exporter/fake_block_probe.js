'use strict';
// A stand-in for the native probe's block lines (until a real target sends
// them in these tests): connects to the agent's socket as job `job`, says
// hello as a native probe, then sends the captures of two blocks, the first
// captured three times while it lasts (50, 70, 90 ms: one block of 90 ms),
// the second once (60 ms), with samples around them. Stays connected until
// killed, so the agent keeps its series.
const net = require('net');
const [socketPath, job] = process.argv.slice(2);
// Its own pid: the agent labels a connection with the pid it comes from.
const pid = process.pid;

const line = (o) => JSON.stringify(o) + '\n';
const frames = [{ function: 'spin', url: 'file:///srv/app.js', line: 12, column: 3 },
                { function: 'handler', url: 'file:///srv/app.js', line: 30, column: 5 }];
const sample = (t) => line({ type: 'sample', t, interval_ms: 250, elu: 0.9,
                             delay: { min: 1, mean: 40, max: 90, p50: 30, p90: 80, p99: 90, count: 10 },
                             cpu: { user_us: 200000, system_us: 10000 },
                             mem: { rss: 5e7, heap_used: 1e7, heap_total: 2e7, external: 1e6, array_buffers: 0 },
                             handles: { total: 2, by_type: { TCPServerWrap: 1, Timeout: 1 } } });
const block = (t, start, durationMs) => line({ type: 'block', t, start, duration_ms: durationMs, frames, in: 'js' });

const sock = net.connect(socketPath);
sock.on('error', (e) => { console.error(String(e)); process.exit(1); });
sock.on('connect', () => {
  sock.write(line({ type: 'hello', t: 0, v: 1, pid, runtime: 'node', job, interval_ms: 250,
                    probe: 'native', versions: { node: process.versions.node } }));
  sock.write(sample(250) + block(1050, 1000, 50) + block(1070, 1000, 70) + block(1090, 1000, 90) +
             sample(1250) + block(2060, 2000, 60) + sample(2250));
  console.log(pid);
});
sock.on('close', () => process.exit(0));
