'use strict';
// gc-pressure: a search endpoint that materialises every candidate row as an
// object, decorates it, filters it, and keeps each result set so that the
// next page can be served from memory — the last RESULT_SETS_KEPT searches.
// Every request allocates a few MB of small objects that live for about
// sixteen requests: long enough to be copied by young-generation scavenges and
// promoted, then to die in old space. That is the worst lifetime for a
// generational collector; the heap stays bounded, and the time goes to GC.
const http = require('http');

const ROWS_PER_REQUEST = 5000;
const RESULT_SETS_KEPT = 16;
const PAGE = 10;

const resultSets = new Array(RESULT_SETS_KEPT);
let nextSet = 0;

function search(q) {
  const rows = [];
  for (let i = 0; i < ROWS_PER_REQUEST; i++) {
    rows.push({ id: i, title: `item ${i} ${q}`, score: (i * 7919) % 1000, tags: [q, 'x'] });
  }
  const decorated = rows.map((r) => ({ ...r, rank: r.score / 1000, key: `${r.id}:${r.score}` }));
  const hits = decorated.filter((r) => r.score > 500);  // catalogue order: newest first
  const id = nextSet;
  resultSets[id] = hits;  // kept for page 2..n
  nextSet = (nextSet + 1) % RESULT_SETS_KEPT;
  return { id, total: hits.length, page: hits.slice(0, PAGE).map((r) => r.key) };
}

function page(id, n) {
  const hits = resultSets[id];
  return hits ? hits.slice(n * PAGE, (n + 1) * PAGE).map((r) => r.key) : null;
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  const more = url.searchParams.get('results');
  const body = more !== null
    ? { page: page(Number(more), Number(url.searchParams.get('page')) || 1) }
    : search(url.pathname);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`alloc-churn listening on 127.0.0.1:${server.address().port}`);
});
