'use strict';
// A broken or hostile probe for agent_hostile.sh. Connects to the agent's
// socket, sends what `mode` names, and reports whether the agent closed the
// connection (exit 0) or left it open (exit 1) within a bounded wait.
const net = require('net');
const [mode, socketPath] = process.argv.slice(2);
const WAIT_MS = 5000;

const hello = JSON.stringify({ type: 'hello', t: 0, pid: 900000 + process.pid % 1000, runtime: 'node',
                               job: 'hostile-' + mode, interval_ms: 1000 }) + '\n';
const payloads = {
  oversized: () => hello + '{"type":"sample","pad":"' + 'x'.repeat(2 * 1024 * 1024) + '"}\n',
  badjson: () => hello + '{"type":"sample", this is not json\n',
  wrongtypes: () => hello + '{"type":"sample","t":1,"delay":{"p99":"very high"}}\n',
  nohello: () => '{"type":"sample","t":1,"delay":{"p99":1}}\n',
  flood: () => hello + ('{"type":"gc","t":1,"kind":"minor","duration_ms":0.1}\n').repeat(40000),
};
if (!payloads[mode]) { console.error('unknown mode ' + mode); process.exit(2); }

const sock = net.connect(socketPath);
let closed = false;
sock.on('error', () => {});
sock.on('close', () => { closed = true; console.log('closed'); process.exit(0); });
sock.on('connect', () => sock.write(payloads[mode]()));
setTimeout(() => { if (!closed) { console.log('still-open'); process.exit(1); } }, WAIT_MS);
