'use strict';
// Measures labelled samples with the probe: for each sample folder, starts a
// Unix-socket sink, runs the server with the probe preloaded (endpoint mode),
// waits for its `listen` message, runs wrk against the port, then prints the
// per-run aggregates the analyzer's thresholds are set from.
//
//   node tests/agent/probes/node/measure.js [--duration 5] [--connections 50] [--json] [sample ...]
//
// With no sample names, every folder of samples/node is measured. Needs wrk.
const net = require('net');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, execFile } = require('child_process');

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const PROBE = path.join(ROOT, 'agent', 'probes', 'node', 'probe.js');
const SAMPLES = path.join(ROOT, 'samples', 'node');
const LISTEN_TIMEOUT_MS = 15000;   // readfile-sync writes 8 MB before listening
const EXIT_TIMEOUT_MS = 5000;

function parseArgs(argv) {
  const o = { duration: 5, connections: 50, json: false, interval: 10, names: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--duration') o.duration = Number(argv[++i]);
    else if (a === '--connections') o.connections = Number(argv[++i]);
    else if (a === '--interval') o.interval = Number(argv[++i]);
    else if (a === '--json') o.json = true;
    else o.names.push(a);
  }
  if (o.names.length === 0) {
    o.names = fs.readdirSync(SAMPLES).filter((d) => fs.existsSync(path.join(SAMPLES, d, 'label'))).sort();
  }
  return o;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)];
}

function runWrk(port, opts) {
  return new Promise((resolve) => {
    const args = ['-t1', `-c${opts.connections}`, `-d${opts.duration}s`, '--latency', `http://127.0.0.1:${port}/`];
    execFile('wrk', args, { timeout: (opts.duration + 30) * 1000 }, (err, stdout) => {
      const rps = /Requests\/sec:\s+([\d.]+)/.exec(stdout || '');
      const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(stdout || '');
      const unit = p99 ? { us: 0.001, ms: 1, s: 1000 }[p99[2]] : 0;
      resolve({ rps: rps ? Number(rps[1]) : 0, p99_ms: p99 ? Number(p99[1]) * unit : 0, raw: stdout });
    });
  });
}

// Collects every message of one probe connection, stamped with receive time.
function startSink(sockPath) {
  const msgs = [];
  const waiters = [];
  const server = net.createServer((c) => {
    let buf = '';
    c.setEncoding('utf8');
    c.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        try {
          const m = JSON.parse(line);
          m.rt = performance.now();
          msgs.push(m);
          for (const w of waiters.splice(0)) w();
        } catch (_) { /* ignore */ }
      }
    });
    c.on('error', () => {});
  });
  server.listen(sockPath);
  const waitFor = (pred, ms) => new Promise((resolve) => {
    const deadline = Date.now() + ms;
    const check = () => {
      const m = msgs.find(pred);
      if (m) return resolve(m);
      if (Date.now() > deadline) return resolve(null);
      waiters.push(check);
      setTimeout(check, 50).unref();
    };
    check();
  });
  return { msgs, waitFor, close: () => server.close() };
}

function aggregate(msgs, winStart, winEnd) {
  // Shift probe times to the sink clock with the least-delayed offset.
  let off = Infinity;
  for (const m of msgs) if (typeof m.t === 'number') off = Math.min(off, m.rt - m.t);
  const inWin = (m) => m.t + off >= winStart && m.t + off < winEnd;
  const samples = msgs.filter((m) => m.type === 'sample' && inWin(m));
  const gcs = msgs.filter((m) => m.type === 'gc' && inWin(m));
  const windowMs = winEnd - winStart;
  const maxes = samples.filter((s) => s.delay.count > 0).map((s) => s.delay.max).sort((a, b) => a - b);
  let eluW = 0, span = 0, resp = 0, latSum = 0, latMax = 0, inflight = 0, heapMax = 0, heapMin = Infinity;
  let cpuUs = 0;
  for (const s of samples) {
    eluW += s.elu * s.interval_ms;
    span += s.interval_ms;
    resp += s.http.responses;
    latSum += s.http.latency_mean_ms * s.http.responses;
    latMax = Math.max(latMax, s.http.latency_max_ms);
    inflight += s.http.inflight;
    heapMax = Math.max(heapMax, s.mem.heap_used);
    heapMin = Math.min(heapMin, s.mem.heap_used);
    cpuUs += s.cpu.user_us + s.cpu.system_us;
  }
  const gcBy = {};
  let gcMs = 0;
  for (const g of gcs) { gcMs += g.duration_ms; gcBy[g.kind] = (gcBy[g.kind] || 0) + g.duration_ms; }
  const r = (x, d = 1) => Number(x.toFixed(d));
  return {
    samples: samples.length,
    expected_samples: Math.round(windowMs / 10),
    delay_p99_ms: r(percentile(maxes, 99)),
    delay_max_ms: r(maxes.length ? maxes[maxes.length - 1] : 0),
    delay_p50_ms: r(percentile(maxes, 50)),
    elu_mean: r(span ? eluW / span : 0, 3),
    cpu_share: r(cpuUs / 1000 / windowMs, 2),
    gc_share: r(gcMs / windowMs, 3),
    gc_by_kind_share: Object.fromEntries(Object.entries(gcBy).map(([k, v]) => [k, r(v / windowMs, 3)])),
    gc_count: gcs.length,
    gc_max_ms: r(gcs.reduce((a, g) => Math.max(a, g.duration_ms), 0)),
    inflight_mean: r(samples.length ? inflight / samples.length : 0),
    resp_mean_ms: r(resp ? latSum / resp : 0),
    resp_max_ms: r(latMax),
    probe_rps: r(resp / (windowMs / 1000)),
    heap_used_mb: [r((heapMin === Infinity ? 0 : heapMin) / 1048576), r(heapMax / 1048576)],
    dropped: msgs.filter((m) => m.type === 'sample').reduce((a, s) => Math.max(a, s.dropped), 0),
  };
}

async function measure(name, opts) {
  const sockPath = path.join(os.tmpdir(), `loopdoctor-measure-${process.pid}.sock`);
  try { fs.unlinkSync(sockPath); } catch (_) { /* none */ }
  const sink = startSink(sockPath);
  const env = Object.assign({}, process.env, {
    LOOPDOCTOR_ENDPOINT: sockPath,
    LOOPDOCTOR_INTERVAL_MS: String(opts.interval),
    NODE_OPTIONS: `--require ${PROBE}`,
    PORT: '0',
  });
  const child = spawn(process.execPath, [path.join(SAMPLES, name, 'server.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const result = { name, label: fs.readFileSync(path.join(SAMPLES, name, 'label'), 'utf8').trim() };
  try {
    const listen = await sink.waitFor((m) => m.type === 'listen', LISTEN_TIMEOUT_MS);
    if (!listen) throw new Error('no listen message');
    const start = performance.now();
    const wrk = await runWrk(listen.port, opts);
    const end = performance.now();
    Object.assign(result, aggregate(sink.msgs, start, end), { wrk_rps: wrk.rps, wrk_p99_ms: wrk.p99_ms });
  } catch (e) {
    result.error = String(e.message || e);
  } finally {
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, EXIT_TIMEOUT_MS))]);
    sink.close();
  }
  return result;
}

function table(rows) {
  const cols = ['name', 'label', 'delay_p99_ms', 'delay_max_ms', 'elu_mean', 'cpu_share', 'gc_share',
    'gc_max_ms', 'inflight_mean', 'resp_mean_ms', 'probe_rps', 'wrk_rps', 'wrk_p99_ms', 'samples'];
  const lines = ['| ' + cols.join(' | ') + ' | gc by kind | heap MB |', '|' + cols.map(() => '---').join('|') + '|---|---|'];
  for (const r of rows) {
    if (r.error) { lines.push(`| ${r.name} | ${r.label} | error: ${r.error} |`); continue; }
    const kinds = Object.entries(r.gc_by_kind_share).map(([k, v]) => `${k} ${v}`).join(', ');
    lines.push('| ' + cols.map((c) => r[c]).join(' | ') + ` | ${kinds} | ${r.heap_used_mb.join('→')} |`);
  }
  return lines.join('\n');
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const rows = [];
  for (const name of opts.names) {
    const r = await measure(name, opts);
    rows.push(r);
    if (opts.json) console.log(JSON.stringify(r));
    else console.error(`measured ${name}`);
  }
  if (!opts.json) console.log(table(rows));
}

main().catch((e) => { console.error(e); process.exit(2); });
