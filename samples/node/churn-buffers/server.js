'use strict';
// gc-pressure (churn): a CSV export that builds every row as its own Buffer,
// keeps them all in an array until the end, then concatenates them. Nothing
// outlives the request — the heap stays flat — but the thousands of small
// Buffer objects alive at once survive scavenges and get copied and promoted,
// so the collector runs constantly on short-lived garbage.
const http = require('http');

const ROWS_PER_REQUEST = 20000;
const FIELDS = ['id', 'name', 'score'];

const COMMA = Buffer.from(',');
const NEWLINE = Buffer.from('\n');

function exportCsv(q) {
  const parts = [];
  for (let i = 0; i < ROWS_PER_REQUEST; i++) {
    // One small Buffer per field and per separator, as a naive row encoder does.
    for (let f = 0; f < FIELDS.length; f++) {
      const cell = Buffer.allocUnsafe(8);
      cell.writeUInt32LE((i * 7919 + f) >>> 0, 0);
      parts.push(cell, f < FIELDS.length - 1 ? COMMA : NEWLINE);
    }
  }
  parts.push(Buffer.from(q));
  return Buffer.concat(parts);
}

const server = http.createServer((req, res) => {
  const csv = exportCsv(req.url);
  res.writeHead(200, { 'content-type': 'text/csv' });
  res.end(csv.subarray(0, 64));
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`churn-buffers listening on 127.0.0.1:${server.address().port}`);
});
