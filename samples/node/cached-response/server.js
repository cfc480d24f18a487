'use strict';
// healthy: an API that serves a precomputed JSON document from memory (the
// usual fix for json-hash): the work is done once at start, each request only
// writes bytes.
const http = require('http');

const CATALOG_ITEMS = 200;
const catalog = [];
for (let i = 0; i < CATALOG_ITEMS; i++) {
  catalog.push({ id: i, name: `product-${i}`, price: (i * 7919) % 10000 / 100, tags: ['a', 'b'] });
}
const body = Buffer.from(JSON.stringify({ items: catalog }));
const etag = `"${require('crypto').createHash('sha1').update(body).digest('hex')}"`;

const server = http.createServer((req, res) => {
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': body.length,
    etag,
  });
  res.end(body);
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`cached-response listening on 127.0.0.1:${server.address().port}`);
});
