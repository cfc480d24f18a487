// blocked-loop, as an ES module ("type": "module" in package.json): no
// `require`, no `process.mainModule`. Every request ranks the whole price
// list with a synchronous sort and serializes the top of it: ~15 ms on the
// loop each time, so 50 clients queue behind each other. `loopdoctor attach`
// must load its probe into such a process too (the probe is CommonJS).
import { createServer } from 'node:http';
import { rankPrices } from './rank.js';

const PRICES = Array.from({ length: 60000 }, (_, i) => ({ sku: `sku-${i}`, price: (i * 7919) % 10007 }));

const server = createServer((req, res) => {
  const top = rankPrices(PRICES, 20);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ route: req.url, top }));
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`esm-blocked listening on 127.0.0.1:${server.address().port}`);
});
