'use strict';
// blocked-loop, on Express 5 with ejs: an orders page rendered from
// views/orders.ejs over 6,000 rows with ejs.render(template, data) (line 29,
// in the route at line 28): tens of milliseconds of template code on the
// loop per request. ejs.render with no `cache` option also compiles the
// template on every request, but this template is small: compiled once it
// renders no faster (measured outside the server: 21 ms a render either
// way). The time is the render's; the fix is to render less (paginate) or
// cache the page's HTML. samples/node/ejs-compile is the other case: a large
// template whose compile is the cost.
const express = require('express');
const ejs = require('ejs');
const fs = require('fs');
const path = require('path');

const ROWS = 6000;
const templatePath = path.join(__dirname, 'views', 'orders.ejs');
const template = fs.readFileSync(templatePath, 'utf8');
const orders = Array.from({ length: ROWS }, (_, i) => ({
  id: 100000 + i,
  customer: `Customer ${i % 317}`,
  items: 1 + (i % 7),
  total: (1999 + i * 13) / 100,
  status: ['paid', 'shipped', 'refunded'][i % 3],
}));

const app = express();
app.get('/', (req, res) => {
  const html = ejs.render(template, { title: 'Orders', orders }, { filename: templatePath });
  res.send(html);
});

const server = app.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`ejs-template listening on 127.0.0.1:${server.address().port}`);
});
