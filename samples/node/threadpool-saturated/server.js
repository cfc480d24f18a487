'use strict';
// io-bound, cause threadpool: every request reads from a slow device (a FIFO
// a helper process feeds one byte every BYTE_EVERY_MS, standing in for a
// slow network mount). Node runs each fs.read on libuv's threadpool, whose
// 4 threads all sit blocked in read() while the other requests' reads queue
// behind them: the loop is idle, the CPU too, and every other fs call,
// dns.lookup, crypto and zlib job of the process waits in the same queue.
// UV_THREADPOOL_SIZE is the lever (and the slow device).
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { spawn, execFileSync } = require('child_process');

const BYTE_EVERY_MS = 5;      // ~200 reads/s: 50 connections wait ~250 ms each
const READ_BYTES = 65536;     // a read takes what is buffered, so bytes never pile up

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdoctor-fifo-'));
const fifo = path.join(dir, 'device');
execFileSync('mkfifo', [fifo]);
const writer = spawn(process.execPath, [path.join(__dirname, '../lib/fifo-writer.js'), fifo, String(BYTE_EVERY_MS)], {
  env: { PATH: process.env.PATH },
  stdio: ['pipe', 'inherit', 'inherit'],
});
const cleanup = () => {
  try { writer.kill('SIGTERM'); } catch (_) { /* gone */ }
  try { fs.rmSync(dir, { recursive: true, force: true }); } catch (_) { /* gone */ }
};
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => { cleanup(); process.kill(process.pid, sig); });

const fd = fs.openSync(fifo, 'r');  // blocking: returns once the writer has opened it
const server = http.createServer((req, res) => {
  fs.read(fd, Buffer.allocUnsafe(READ_BYTES), 0, READ_BYTES, null, (err, n) => {
    res.writeHead(err ? 500 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ read: n || 0 }));
  });
});
server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`threadpool-saturated listening on 127.0.0.1:${server.address().port}`);
});
