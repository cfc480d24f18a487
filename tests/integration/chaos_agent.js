'use strict';
// Hostile probes against a running agent (chaos.sh agent-probes): 1000
// probes connecting and disconnecting, slow probes (a byte a second), a
// probe sending a 100 MB line, probes sending invalid UTF-8; meanwhile
// /metrics is scraped and the agent's RSS read, and the well-behaved
// process (job "good") must keep its series moving.
//   node chaos_agent.js SOCKET PORT AGENT_PID
// Prints one JSON object of what it measured; chaos.sh asserts on it.
const net = require('net');
const http = require('http');
const fs = require('fs');

const [socketPath, port, agentPid] = process.argv.slice(2);
const CHURN_PROBES = 1000;
const CHURN_AT_ONCE = 50;
const SLOW_PROBES = 20;
const HUGE_LINE_BYTES = 100 * 1024 * 1024;
const SCRAPE_EVERY_MS = 200;
// Long enough for the slow probes to outlive the agent's 10 s hello timeout.
const RUN_MS = 14000;

const hello = (job, extra = {}) =>
  JSON.stringify({ type: 'hello', t: 0, pid: process.pid, runtime: 'node', job, interval_ms: 1000, ...extra }) + '\n';
const sample = (t) => JSON.stringify({ type: 'sample', t, interval: 1000, delay: { max: 1, p99: 1 } }) + '\n';

const out = { scrapes: 0, scrape_failures: [], max_scrape_ms: 0, max_rss_mb: 0, invalid_utf8_bodies: 0,
              good_values: [], good_missing: 0, churned: 0, churn_errors: 0, slow_closed: 0,
              slow_hello_open_ms: [], huge_sent_bytes: 0, huge_closed: false,
              utf8_closed: { job: false, sample: false }, last_metrics: '' };

function rssMb() {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${agentPid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

// The good process's CPU counter: it moves with every sample its probe sends.
function goodValue(body) {
  const m = /^process_cpu_seconds_total\{[^}]*job="good"[^}]*\} (\S+)$/m.exec(body);
  return m ? Number(m[1]) : null;
}

function scrape() {
  const start = process.hrtime.bigint();
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/metrics', timeout: 10000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        const buf = Buffer.concat(chunks);
        out.scrapes++;
        out.max_scrape_ms = Math.max(out.max_scrape_ms, ms);
        if (res.statusCode !== 200) out.scrape_failures.push(`status ${res.statusCode}`);
        let body = '';
        try { body = new TextDecoder('utf-8', { fatal: true }).decode(buf); } catch (_) { out.invalid_utf8_bodies++; }
        const v = goodValue(body);
        if (v === null) out.good_missing++; else out.good_values.push([Date.now(), v]);
        out.last_metrics = body;
        resolve();
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (e) => { out.scrape_failures.push(e.message); resolve(); });
  });
}

// One short-lived probe: connects, says hello (or not), maybe a sample, and
// goes away, half of them by a reset rather than an orderly close.
function churnOne(i) {
  return new Promise((resolve) => {
    const s = net.connect(socketPath);
    const done = () => { out.churned++; resolve(); };
    s.on('error', () => { out.churn_errors++; });
    s.on('close', done);
    s.on('connect', () => {
      if (i % 4 !== 0) s.write(hello(`churn-${i % 10}`) + (i % 2 ? sample(1) : ''));
      setTimeout(() => (i % 2 ? s.end() : s.destroy()), i % 7);
    });
  });
}

async function churn() {
  for (let i = 0; i < CHURN_PROBES; i += CHURN_AT_ONCE) {
    const batch = [];
    for (let k = i; k < Math.min(CHURN_PROBES, i + CHURN_AT_ONCE); k++) batch.push(churnOne(k));
    await Promise.all(batch);
  }
}

// A byte a second: half of them never finish their hello (the agent's
// hello timeout must close them), half send a hello and then crawl through
// a sample (a slow but legal probe: it may stay).
function slowProbes() {
  for (let i = 0; i < SLOW_PROBES; i++) {
    const s = net.connect(socketPath);
    const text = i % 2 ? hello(`slow-${i}`).slice(0, -1) : '';
    const opened = Date.now();
    let at = 0;
    if (i % 2 === 0) s.on('connect', () => s.write(hello(`slow-${i}`)));
    const body = text || sample(1);
    const timer = setInterval(() => { if (at < body.length) s.write(body[at++]); }, 1000);
    s.on('error', () => {});
    s.on('close', () => {
      clearInterval(timer);
      out.slow_closed++;
      if (text) out.slow_hello_open_ms.push(Date.now() - opened);
    });
    setTimeout(() => { clearInterval(timer); s.destroy(); }, RUN_MS + 2000).unref();
  }
}

// A hello, then one line of 100 MB: the agent must cut it off at its line
// limit instead of buffering it.
function hugeLine() {
  return new Promise((resolve) => {
    const s = net.connect(socketPath);
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    let closed = false;
    s.on('error', () => {});
    s.on('close', () => { closed = true; out.huge_closed = out.huge_sent_bytes < HUGE_LINE_BYTES; resolve(); });
    const pump = () => {
      while (!closed && out.huge_sent_bytes < HUGE_LINE_BYTES) {
        out.huge_sent_bytes += chunk.length;
        if (!s.write(chunk)) return s.once('drain', pump);
      }
      if (!closed) s.end();
    };
    s.on('connect', () => { s.write(hello('huge') + '{"type":"sample","pad":"'); pump(); });
  });
}

// Invalid UTF-8 in a label (the hello's job) and in a later message.
function invalidUtf8(kind) {
  return new Promise((resolve) => {
    const s = net.connect(socketPath);
    const bad = Buffer.from([0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22]);  // "\xff\xfe\xc3(" as a JSON string
    s.on('error', () => {});
    s.on('close', () => { out.utf8_closed[kind] = true; resolve(); });
    s.on('connect', () => {
      if (kind === 'job') {
        s.write(Buffer.concat([Buffer.from('{"type":"hello","t":0,"pid":' + process.pid + ',"job":'), bad, Buffer.from('}\n')]));
      } else {
        s.write(hello('utf8'));
        s.write(Buffer.concat([Buffer.from('{"type":"sample","t":1,"note":'), bad, Buffer.from('}\n')]));
      }
    });
    setTimeout(() => { s.destroy(); resolve(); }, 5000).unref();
  });
}

async function main() {
  const end = Date.now() + RUN_MS;
  let scraping = true;
  const scraper = (async () => {
    while (scraping) {
      out.max_rss_mb = Math.max(out.max_rss_mb, rssMb());
      await Promise.all([scrape(), new Promise((r) => setTimeout(r, SCRAPE_EVERY_MS))]);
    }
  })();
  slowProbes();
  await Promise.all([churn(), hugeLine(), invalidUtf8('job'), invalidUtf8('sample')]);
  while (Date.now() < end) await new Promise((r) => setTimeout(r, 200));
  scraping = false;
  await scraper;
  out.max_rss_mb = Math.max(out.max_rss_mb, rssMb());
  const metrics = out.last_metrics;
  delete out.last_metrics;
  out.processes = Number((/^loopdoctor_agent_processes (\S+)$/m.exec(metrics) || [])[1]);
  out.protocol_errors = Number((/^loopdoctor_agent_probe_protocol_errors_total (\S+)$/m.exec(metrics) || [])[1]);
  out.good_connected = /^loopdoctor_probe_connected\{[^}]*job="good"[^}]*\} 1$/m.test(metrics);
  console.log(JSON.stringify(out));
  process.exit(0);
}

main();
