'use strict';
// The app supervisor.js runs: every request sorts a copy of the whole
// catalogue by its discounted price to return the cheapest items (a sort of
// 100,000 objects, ~100 ms of its loop on a quiet core), so under load its
// loop is blocked.
const http = require('http');

const ITEMS = 100000;
const catalogue = Array.from({ length: ITEMS }, (_, i) => ({ sku: i, price: ((i * 7919) % 9973) / 100 }));

function cheapestItems(discount, n) {
  const priced = catalogue.map((it) => ({ sku: it.sku, price: Math.round(it.price * (1 - discount) * 100) / 100 }));
  priced.sort((a, b) => a.price - b.price || a.sku - b.sku);
  return priced.slice(0, n);
}

const server = http.createServer((req, res) => {
  const body = JSON.stringify(cheapestItems((req.url.length % 10) / 100, 20));
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`supervisor app listening on 127.0.0.1:${server.address().port}`);
});
