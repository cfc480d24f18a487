'use strict';
// blocked-loop, on Express 5: a catalogue API that answers every request with
// res.json(catalogue) (line 32), a 780 KB object built once at start. Express
// serialises it with JSON.stringify on every request, then hashes the 780 KB
// body for its ETag (express lib/response.js send): ~10 ms of synchronous work
// per request on the loop, and with 50 clients the loop never rests. The
// object never changes, so the fix is to serialise it once and cache the
// string (and its ETag): res.type('json').send(cachedBody).
const express = require('express');

const PRODUCTS = 3900;

function buildCatalogue() {
  const products = [];
  for (let i = 0; i < PRODUCTS; i++) {
    products.push({
      id: i,
      sku: `SKU-${String(i).padStart(6, '0')}`,
      title: `Product number ${i} of the spring catalogue`,
      price: { amount: 1000 + (i % 500), currency: 'EUR' },
      stock: { warehouse: ['north', 'south', 'east'][i % 3], units: (i * 37) % 200 },
      tags: ['spring', i % 2 ? 'outdoor' : 'indoor', `line-${i % 12}`],
    });
  }
  return { version: 7, generated: new Date(0).toISOString(), products };
}

const catalogue = buildCatalogue();
const app = express();

app.get('/', (req, res) => {
  res.json(catalogue);
});

const server = app.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`express-json listening on 127.0.0.1:${server.address().port} (${(JSON.stringify(catalogue).length / 1024).toFixed(0)} KB)`);
});
