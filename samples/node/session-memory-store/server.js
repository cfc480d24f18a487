'use strict';
// gc-pressure (leak), on Express 5 with express-session: a storefront that
// keeps its sessions in express-session's default MemoryStore (session()
// with no `store` option, line 28) and writes the visitor's recently viewed
// products into the session on every page (rememberViewed, line 40, about
// 90 KB once serialised). Clients that send no cookie back (crawlers,
// health checks, the load here) get a new session on every request, and
// MemoryStore keeps each one until its cookie expires a day later: the
// allocation that stays is MemoryStore's `set` (express-session
// session/memory.js:119), which keeps JSON.stringify(session) per session
// id, and nothing evicts it. The heap grows by MBs per second under load.
// The fix: a store with eviction (connect-redis, a bounded store) and
// saveUninitialized: false.
const express = require('express');
const session = require('express-session');

const PRODUCTS_PER_SESSION = 1200;
const CATALOGUE_SIZE = 5000;
const catalogue = Array.from({ length: CATALOGUE_SIZE }, (_, i) => ({
  sku: `SKU-${i}`,
  title: `Product ${i}`,
  category: ['shoes', 'bags', 'hats'][i % 3],
  price: 100 + i,
}));

const app = express();
app.use(
  session({
    secret: 'loopdoctor-sample-not-a-secret',
    resave: false,
    saveUninitialized: true,
    cookie: { maxAge: 24 * 60 * 60 * 1000 },
  }),
);

let pageViews = 0;

// The session's "recently viewed" list: the catalogue entries shown on the
// page, kept in the session (and so, serialised, in the store).
function rememberViewed(sess, category) {
  const from = (pageViews++ * 17) % (CATALOGUE_SIZE - PRODUCTS_PER_SESSION);
  sess.viewed = catalogue.slice(from, from + PRODUCTS_PER_SESSION);
  sess.category = category;
}

app.get('/', (req, res) => {
  rememberViewed(req.session, req.query.c || 'shoes');
  res.json({ session: req.sessionID, viewed: req.session.viewed.length });
});

const server = app.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`session-memory-store listening on 127.0.0.1:${server.address().port}`);
});
