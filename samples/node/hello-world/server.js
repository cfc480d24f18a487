'use strict';
// healthy: the smallest possible HTTP server; the baseline every other
// sample is compared against, and the target of the probe overhead benchmark.
const http = require('http');

const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('Hello World\n');
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`hello-world listening on 127.0.0.1:${server.address().port}`);
});
