'use strict';
// blocked-loop inside a dependency: each request serialises the catalogue
// through a (vendored, tiny) package that pretty-prints every record with
// JSON.stringify on the main thread. The hotspot is the package's function
// (tiny-serialize 1.4.2 lib/index.js); the line to change is the
// application's call of it, in the request handler.
const http = require('http');
const { toPrettyJSON } = require('tiny-serialize');

const catalogue = [];
for (let i = 0; i < 3000; i++) {
  catalogue.push({ sku: `sku-${i}`, price: (i % 97) + 0.99, tags: ['a', 'b', `t${i % 13}`], stock: i % 41 });
}

const server = http.createServer((req, res) => {
  const body = toPrettyJSON(catalogue);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(`{"bytes":${body.length}}`);
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`vendored-serialize listening on 127.0.0.1:${server.address().port}`);
});
