'use strict';
// blocked-loop, on React 19: a server-rendered orders page — every request
// renders the whole <OrdersPage> (4,000 rows) with react-dom/server's
// renderToString (line 47, in renderPage, line 45). renderToString is
// synchronous: tens of milliseconds of rendering per request on the loop,
// allocating as it goes (a churning heap, but the render is what holds the
// loop). The fix: cache the rendered page while the orders do not change,
// stream it (renderToPipeableStream) so the loop turns between chunks, or
// paginate.
// React's production build, as a deployed server runs it (the development
// build checks props and warns, several times slower).
process.env.NODE_ENV = process.env.NODE_ENV || 'production';
const http = require('http');
const React = require('react');
const { renderToString } = require('react-dom/server');

const h = React.createElement;
const ROWS = 4000;
const orders = Array.from({ length: ROWS }, (_, i) => ({
  id: 100000 + i,
  customer: `Customer ${i % 317}`,
  items: 1 + (i % 7),
  total: (1999 + i * 13) / 100,
  status: ['paid', 'shipped', 'refunded'][i % 3],
}));

function OrderRow({ order }) {
  return h('tr', { className: `status-${order.status}` },
    h('td', null, order.id),
    h('td', null, order.customer),
    h('td', null, order.items),
    h('td', null, order.total.toFixed(2)),
    h('td', null, h('span', { className: 'badge' }, order.status)));
}

function OrdersPage({ title, orders: rows }) {
  return h('html', null,
    h('head', null, h('title', null, title)),
    h('body', null,
      h('h1', null, title),
      h('table', null, h('tbody', null, rows.map((o) => h(OrderRow, { key: o.id, order: o }))))));
}

// The whole page, rendered on every request.
function renderPage() {
  return '<!DOCTYPE html>' +
    renderToString(h(OrdersPage, { title: 'Orders', orders }));
}

const server = http.createServer((req, res) => {
  const html = renderPage();
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(html);
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`ssr-react listening on 127.0.0.1:${server.address().port}`);
});
