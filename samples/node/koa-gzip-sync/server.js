'use strict';
// blocked-loop, on Koa 3 with @koa/router: a reports endpoint that builds an
// 850 KB CSV of the day's orders and compresses it with zlib.gzipSync (line
// 29) inside the route (exportOrders, line 24) on every request. gzipSync
// runs on the loop's thread: ~35 ms a request during which no other request,
// timer or socket is served. The fix: zlib.gzip (the thread pool) or a
// stream (ctx.body = a gzip stream), and caching the export while the
// day's orders do not change.
const Koa = require('koa');
const Router = require('@koa/router');
const zlib = require('zlib');

const ROWS = 15000;
const header = 'id,sku,quantity,unit_cents,customer,created_at\n';
const rows = [];
for (let i = 0; i < ROWS; i++) {
  rows.push(`${i},SKU-${(i * 7919) % 100000},${1 + (i % 9)},${499 + (i % 1000)},customer-${(i * 31) % 5000},2026-12-06T${String(i % 24).padStart(2, '0')}:00:00Z\n`);
}

const app = new Koa();
const router = new Router();

// The day's orders as a gzipped CSV download.
function exportOrders(ctx) {
  const csv = header + rows.join('');
  ctx.set('content-type', 'text/csv');
  ctx.set('content-encoding', 'gzip');
  ctx.set('content-disposition', 'attachment; filename="orders.csv"');
  ctx.body = zlib.gzipSync(csv);
}

router.get('/', exportOrders);
app.use(router.routes());

const server = app.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`koa-gzip-sync listening on 127.0.0.1:${server.address().port} (${((header + rows.join('')).length / 1024).toFixed(0)} KB)`);
});
