'use strict';
// gc-pressure (leak through a timer): a dashboard endpoint that, for every
// request, starts a setInterval to refresh that viewer's widgets "while the
// dashboard is open" and never clears it — the interval outlives the
// response, and nothing calls clearInterval when the client goes away.
// serveDashboard (line 24) builds the viewer's widget state (line 28) and the
// interval's callback (line 31) closes over it, so every request's state
// stays reachable from the timer list forever. The heap grows by tens of
// MB/s under load. The fix: no per-request timer (refresh on the client's
// next request, or one shared timer), or clearInterval on res 'close'.
const http = require('http');

const WIDGETS = 30;
const REFRESH_MS = 60_000;

function refresh(widgets) {
  const now = Date.now();
  for (const w of widgets) w.updated = now;
}

let viewers = 0;

// The request handler: the widgets, and an interval that keeps them.
function serveDashboard(req, res) {
  const viewer = `viewer-${viewers++}`;
  const widgets = [];
  for (let i = 0; i < WIDGETS; i++) {
    widgets.push({ id: `${viewer}-${i}`, kind: i % 3 ? 'chart' : 'counter', points: [i, i + 1, i + 2], updated: 0 });
  }
  // Meant to stop when the viewer leaves; nothing ever clears it.
  setInterval(() => refresh(widgets), REFRESH_MS);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ viewer, widgets: widgets.length }));
}

const server = http.createServer(serveDashboard);
server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`interval-closure-leak listening on 127.0.0.1:${server.address().port}`);
});
