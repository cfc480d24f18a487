'use strict';
// blocked-loop, on pino: an inventory API that logs at debug level — every
// stock check of the request's 300 items logs a line with the item's stock
// record (checkStock, line 39: log.debug(...) at line 41) — through a
// synchronous destination (pino.destination({ sync: true }), line 22), the
// setting often copied to keep logs in order on a crash. Each line is
// serialised and written (write(2) to the log file) on the loop's thread:
// pino's speed is for asynchronous destinations; with sync: true and debug
// on, the loop spends its time logging. The fix: raise the level to info in
// production, or use an asynchronous destination (pino.destination({ sync:
// false }) or a transport on a worker thread).
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const pino = require('pino');

const ITEMS_PER_REQUEST = 300;
const logFile = path.join(os.tmpdir(), `pino-sync-${process.pid}.log`);
const log = pino(
  { level: process.env.LOG_LEVEL || 'debug' },
  pino.destination({ dest: logFile, sync: true }),
);
// The sample keeps no log: the file is unlinked once open (its space is
// freed when the process ends, however it ends); the writes stay real.
fs.unlinkSync(logFile);

const stock = new Map();
for (let i = 0; i < 500; i++) {
  stock.set(`SKU-${i}`, {
    units: (i * 37) % 90,
    warehouse: ['north', 'south'][i % 2],
    bins: [`A-${i % 40}`, `B-${i % 17}`],
    supplier: { id: i % 23, name: `Supplier ${i % 23}`, leadDays: 3 + (i % 9) },
    history: [{ at: '2026-12-01', delta: -2 }, { at: '2026-12-03', delta: 10 }],
  });
}

function checkStock(requestId, sku) {
  const entry = stock.get(sku);
  log.debug({ requestId, sku, entry }, 'stock checked');
  return entry.units > 0;
}

let nextRequest = 0;
const server = http.createServer((req, res) => {
  const requestId = nextRequest++;
  let available = 0;
  for (let i = 0; i < ITEMS_PER_REQUEST; i++) {
    if (checkStock(requestId, `SKU-${(requestId + i * 7) % 500}`)) available++;
  }
  log.info({ requestId, available }, 'request served');
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ requestId, available }));
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`pino-sync listening on 127.0.0.1:${server.address().port}, logging to a file at debug level`);
});
