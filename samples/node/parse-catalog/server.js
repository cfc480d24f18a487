'use strict';
// blocked-loop: a catalogue endpoint that reads a 7.5 MB JSON file with
// readFileSync and JSON.parse's it on every request, in a function of its
// own, then answers with a cheap filter. The read and the parse hold the
// loop (~60 ms here); the filter costs under a millisecond. Both are native
// calls V8 runs no interrupt inside, so a stack read at the next JS stack
// check finds the filter, after loadCatalog has returned.
// The file is generated at start in the OS temp dir.
const http = require('http');
const fs = require('fs');
const os = require('os');
const path = require('path');

const FILE_BYTES = 7.5 * 1024 * 1024;
const file = path.join(os.tmpdir(), `loopdoctor-parse-catalog-${process.pid}.json`);

function generate() {
  const items = [];
  let size = 0;
  for (let i = 0; size < FILE_BYTES; i++) {
    const item = { sku: `sku-${i}`, name: `Item number ${i}`, price: (i * 37) % 10000 / 100,
                   stock: i % 13, tags: ['catalog', `group-${i % 50}`], active: i % 5 !== 0 };
    items.push(item);
    size += JSON.stringify(item).length + 1;
  }
  fs.writeFileSync(file, JSON.stringify({ generated: new Date(0).toISOString(), items }));
}
generate();
const cleanup = () => { try { fs.unlinkSync(file); } catch (_) { /* already gone */ } };
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => { cleanup(); process.kill(process.pid, sig); });
}

function loadCatalog() {
  const text = fs.readFileSync(file, 'utf8');
  return JSON.parse(text);
}

const server = http.createServer((req, res) => {
  const catalog = loadCatalog();
  const onSale = catalog.items.filter((item) => item.active && item.price < 1);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ items: catalog.items.length, on_sale: onSale.length }));
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`parse-catalog listening on 127.0.0.1:${server.address().port}`);
});
