'use strict';
// gc-pressure (churn): a quote service that keeps its partner's price feed as
// the raw response text (a 290 KB JSON body, cached as received) and, on every
// request, parses the whole body again with JSON.parse to price one basket:
// quoteBasket (line 36) calls JSON.parse(feedBody) (line 37). Nothing is kept
// — the heap's baseline stays flat — but each request makes ~10,000 objects,
// and the parsed feed stays alive across the await on the stock lookup (line
// 39) with the other requests in flight, so it survives scavenges, is copied,
// promoted and dies in old space: the collector runs all the time. The fix:
// parse the feed once when it arrives and keep the parsed prices (a Map by
// SKU), or ask the partner for the SKUs needed.
const http = require('http');
const { setTimeout: sleep } = require('timers/promises');

const FEED_ITEMS = 2000;
const BASKET = ['SKU-17', 'SKU-256', 'SKU-1024', 'SKU-3999'];
// What the stock service takes to answer: the parsed feed is held meanwhile.
const STOCK_LOOKUP_MS = 5;

// The partner's last response, as received (a refresher would replace it).
function partnerFeedBody() {
  const items = [];
  for (let i = 0; i < FEED_ITEMS; i++) {
    items.push({
      sku: `SKU-${i}`,
      title: `Partner item ${i}`,
      prices: [{ currency: 'EUR', cents: 1000 + i }, { currency: 'USD', cents: 1100 + i }],
      tags: ['partner', i % 2 ? 'odd' : 'even'],
    });
  }
  return JSON.stringify({ partner: 'acme', generated: Date.now(), items });
}
const feedBody = partnerFeedBody();

// The request handler: parses the whole feed for four SKUs, every time.
async function quoteBasket(req, res) {
  const feed = JSON.parse(feedBody);
  const lines = feed.items.filter((item) => BASKET.includes(item.sku));
  await sleep(STOCK_LOOKUP_MS); // the stock service; feed is still referenced below
  const total = lines.reduce((sum, item) => sum + item.prices[0].cents, 0);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ partner: feed.partner, lines: lines.length, total }));
}

const server = http.createServer(quoteBasket);
server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`parse-churn listening on 127.0.0.1:${server.address().port} (feed ${(feedBody.length / 1024).toFixed(0)} KB)`);
});
