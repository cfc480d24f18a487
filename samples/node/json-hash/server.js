'use strict';
// blocked-loop: an endpoint that serialises a large in-memory document and
// computes its ETag (sha256) on every request. JSON.stringify and the hash
// both run on the main thread; the document does not change between requests,
// so this is pure wasted CPU on the loop.
const http = require('http');
const crypto = require('crypto');

const RECORDS = 2000;
const doc = { generated: new Date(0).toISOString(), records: [] };
for (let i = 0; i < RECORDS; i++) {
  doc.records.push({
    id: i,
    name: `record-${i}`,
    score: (i * 2654435761) % 1000,
    flags: { active: i % 3 === 0, archived: i % 7 === 0 },
    history: [i, i + 1, i + 2, i + 3],
  });
}

// Re-hashing the serialised document several times mimics content-addressed
// caches that hash each chunk: CPU-bound, with few allocations.
const HASH_ROUNDS = 40;

const server = http.createServer((req, res) => {
  const json = JSON.stringify(doc);
  let digest = json;
  for (let i = 0; i < HASH_ROUNDS; i++) {
    digest = crypto.createHash('sha256').update(json).update(digest).digest('hex');
  }
  res.writeHead(200, { 'content-type': 'application/json', etag: `"${digest}"` });
  res.end(`{"size":${json.length},"etag":"${digest}"}`);
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`json-hash listening on 127.0.0.1:${server.address().port}`);
});
