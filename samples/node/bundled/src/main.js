// blocked-loop, bundled: esbuild turns src/ into ../server.js with an inline
// source map (see ../README.md); the time goes to scoreInventory in report.js.
import http from 'node:http';
import { scoreInventory } from './report.js';

const rows = [];
for (let i = 0; i < 2000; i++) rows.push({ id: i, name: `item-${i}` });
const categories = [];
for (let i = 0; i < 200; i++) categories.push(`category-${i}`);

const server = http.createServer((req, res) => {
  const score = scoreInventory(rows, categories);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ score }));
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`bundled listening on 127.0.0.1:${server.address().port}`);
});
