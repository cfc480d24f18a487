'use strict';
// Probe overhead: hello-world under wrk, with and without the probe (endpoint
// mode to a sink that discards), interleaved pairs, median throughput loss.
//
//   node tests/agent/probes/node/overhead.js [--pairs 5] [--duration 5] [--interval 10] [--sample hello-world]
const net = require('net');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, execFile } = require('child_process');

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const PROBE = path.join(ROOT, 'agent', 'probes', 'node', 'probe.js');
const START_TIMEOUT_MS = 10000;

const opts = { pairs: 5, duration: 5, interval: 10, sample: 'hello-world', connections: 50 };
for (let i = 2; i < process.argv.length; i++) {
  const k = process.argv[i].replace(/^--/, '');
  opts[k] = k === 'sample' ? process.argv[++i] : Number(process.argv[++i]);
}

function startServer(withProbe, sockPath) {
  const env = Object.assign({}, process.env, { PORT: '0' });
  if (withProbe) {
    env.NODE_OPTIONS = `--require ${PROBE}`;
    env.LOOPDOCTOR_ENDPOINT = sockPath;
    env.LOOPDOCTOR_INTERVAL_MS = String(opts.interval);
  }
  const child = spawn(process.execPath, [path.join(ROOT, 'samples', 'node', opts.sample, 'server.js')],
    { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => { child.kill(); reject(new Error('server did not start')); }, START_TIMEOUT_MS);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /:(\d+)\s*$/m.exec(out);
      if (m) { clearTimeout(t); resolve({ child, port: Number(m[1]) }); }
    });
  });
}

// utime + stime of a process, in ms (clock ticks are 10 ms on Linux; over a
// 5 s run that is precise enough for a ratio).
const TICK_MS = 10;
function cpuMs(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_MS;  // fields 14 and 15
  } catch (_) {
    return NaN;
  }
}

function wrk(port) {
  return new Promise((resolve) => {
    execFile('wrk', ['-t1', `-c${opts.connections}`, `-d${opts.duration}s`, `http://127.0.0.1:${port}/`],
      { timeout: (opts.duration + 30) * 1000 }, (err, stdout) => {
        const m = /Requests\/sec:\s+([\d.]+)/.exec(stdout || '');
        const n = /(\d+) requests in/.exec(stdout || '');
        resolve({ rps: m ? Number(m[1]) : NaN, requests: n ? Number(n[1]) : NaN });
      });
  });
}

async function once(withProbe, sockPath) {
  const { child, port } = await startServer(withProbe, sockPath);
  const exited = new Promise((r) => child.on('exit', r));
  try {
    const c0 = cpuMs(child.pid);
    const w = await wrk(port);
    const cpu = cpuMs(child.pid) - c0;
    return { rps: w.rps, cpu_us_per_req: (cpu * 1000) / w.requests };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (a) => { const s = [...a].sort((x, y) => x - y); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };

async function main() {
  const sockPath = path.join(os.tmpdir(), `loopdoctor-overhead-${process.pid}.sock`);
  try { fs.unlinkSync(sockPath); } catch (_) { /* none */ }
  let bytes = 0;
  const sink = net.createServer((c) => { c.on('data', (d) => { bytes += d.length; }); c.on('error', () => {}); });
  await new Promise((r) => sink.listen(sockPath, r));
  const base = [], probed = [], losses = [], cpuOff = [], cpuOn = [];
  for (let i = 0; i < opts.pairs; i++) {
    // Alternate which goes first so drift in machine load hits both sides.
    const first = i % 2 === 0;
    const a = await once(!first, sockPath);
    const b = await once(first, sockPath);
    const [ro, rn] = first ? [a, b] : [b, a];
    const off = ro.rps, on = rn.rps;
    base.push(off); probed.push(on); losses.push(1 - on / off);
    cpuOff.push(ro.cpu_us_per_req); cpuOn.push(rn.cpu_us_per_req);
    console.error(`pair ${i + 1}: without ${off.toFixed(0)} req/s (${ro.cpu_us_per_req.toFixed(1)} us CPU/req), ` +
      `with ${on.toFixed(0)} req/s (${rn.cpu_us_per_req.toFixed(1)} us CPU/req), loss ${((1 - on / off) * 100).toFixed(1)} %`);
  }
  sink.close();
  const result = {
    sample: opts.sample, interval_ms: opts.interval, pairs: opts.pairs,
    median_rps_without: Math.round(median(base)), median_rps_with: Math.round(median(probed)),
    median_pair_loss_pct: Number((median(losses) * 100).toFixed(2)),
    loss_of_medians_pct: Number(((1 - median(probed) / median(base)) * 100).toFixed(2)),
    median_cpu_us_per_req_without: Number(median(cpuOff).toFixed(2)),
    median_cpu_us_per_req_with: Number(median(cpuOn).toFixed(2)),
    cpu_per_req_overhead_pct: Number(((median(cpuOn) / median(cpuOff) - 1) * 100).toFixed(2)),
    probe_bytes_per_s: Math.round(bytes / (opts.pairs * opts.duration)),
  };
  console.log(JSON.stringify(result));
}

main().catch((e) => { console.error(e); process.exit(2); });
