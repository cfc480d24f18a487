'use strict';
// gc-pressure (leak), cause listener-leak: every request subscribes a
// "config changed" listener on a process-wide emitter, to refresh its own
// view if the config changes while it runs, and never unsubscribes. The
// config never changes during the run, so the listeners never fire and cost
// no CPU; but each closure keeps its request context alive, and the retained
// set grows with every request. Unlike ../leak-listeners, the limit is left
// at its default: Node prints a MaxListenersExceededWarning once the
// eleventh listener is added, and loopdoctor names the line that adds them
// as the cause of the growth. (Compare listener-leak-warned, where the
// leaked listeners fire and block the loop.)
const http = require('http');
const { EventEmitter } = require('events');

const config = new EventEmitter();
const CONTEXT_ITEMS = 40;

const server = http.createServer((req, res) => {
  const ctx = {
    url: req.url,
    headers: { ...req.headers },
    started: Date.now(),
    trace: Array.from({ length: CONTEXT_ITEMS }, (_, i) => ({ step: i, note: `step ${i} of ${req.url}` })),
  };
  config.on('changed', (next) => { ctx.config = next; });
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end(`ok ${ctx.trace.length}\n`);
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`leak-listeners-warned listening on 127.0.0.1:${server.address().port}`);
});
