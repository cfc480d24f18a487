'use strict';
// gc-pressure (leak outside the JS heap): an orders API that keeps a copy of
// every response body for an audit-log shipper, as a Buffer queued in
// `auditQueue` until the shipper uploads it. The shipper is not started here
// (no AUDIT_URL), so nothing drains the queue: serveOrder (line 29) pushes a
// 17 KB Buffer.from(body) per request (line 32) and every one stays. The
// Buffers' bytes live outside the JS heap (external memory,
// process.memoryUsage().arrayBuffers): RSS grows by tens of MB/s while heap
// used stays small — only the Buffer objects themselves (a hundred bytes
// each) are on the heap. The fix: queue only when a shipper runs, and bound
// the queue (drop or spill to disk when the shipper falls behind).
const http = require('http');

const ORDER_LINES = 250;
// Bodies waiting for the audit shipper, oldest first.
const auditQueue = [];

function renderOrder(id) {
  const lines = [];
  for (let i = 0; i < ORDER_LINES; i++) {
    lines.push({ sku: `SKU-${(id * 7 + i) % 9973}`, name: `Item ${i} of order ${id}`, qty: 1 + (i % 4), cents: 499 + i });
  }
  return JSON.stringify({ id, status: 'confirmed', lines });
}

let nextId = 0;

// The request handler: renders the order, queues a copy for the audit log.
function serveOrder(req, res) {
  const id = nextId++;
  const body = renderOrder(id);
  auditQueue.push({ requestId: id, at: Date.now(), copy: Buffer.from(body) });
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
}

const server = http.createServer(serveOrder);
server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`buffer-leak listening on 127.0.0.1:${server.address().port}`);
});
