'use strict';
// gc-pressure: a search endpoint that materialises every candidate row as an
// object, decorates it, filters, sorts and keeps the top 10 — per request.
// The intermediate arrays are big enough to survive a scavenge, so the young
// generation keeps copying and promoting them and the old generation fills
// with garbage: the time goes to GC, not to the search itself.
const http = require('http');

const ROWS_PER_REQUEST = 5000;

function search(q) {
  const rows = [];
  for (let i = 0; i < ROWS_PER_REQUEST; i++) {
    rows.push({ id: i, title: `item ${i} ${q}`, score: (i * 7919) % 1000, tags: [q, 'x'] });
  }
  const decorated = rows.map((r) => ({ ...r, rank: r.score / 1000, key: `${r.id}:${r.score}` }));
  const hits = decorated.filter((r) => r.score > 500);
  hits.sort((a, b) => b.score - a.score || a.id - b.id);
  return hits.slice(0, 10).map((r) => r.key);
}

const server = http.createServer((req, res) => {
  const top = search(req.url);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ top }));
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`alloc-churn listening on 127.0.0.1:${server.address().port}`);
});
