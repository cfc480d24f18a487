'use strict';
// Shared by the samples that call a slow upstream (slow-upstream, fetch-upstream
// and fetch-pool through fetch-proxy.js,
// slow-upstream-light, small-pool; raw-upstream with raw-upstream.js); this
// folder has no label, so it is not a sample itself.
// Starts upstream.js (or `script`) as a child process with a clean environment (so no
// preloaded probe follows it) and makes sure it dies with us: we kill it on
// exit and on SIGINT/SIGTERM, and it exits by itself when its stdin (a pipe
// from us) closes, which also covers SIGKILL.
const { spawn } = require('child_process');
const path = require('path');

function startUpstream(delayMs, onReady, script = 'upstream.js') {
  const child = spawn(process.execPath, [path.join(__dirname, script), String(delayMs)], {
    env: { PATH: process.env.PATH },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const kill = () => { try { child.kill('SIGTERM'); } catch (_) { /* already gone */ } };
  process.on('exit', kill);
  for (const sig of ['SIGINT', 'SIGTERM']) {
    // Kill the child, then die of the same signal so our exit status is
    // what the default handler would have produced.
    process.once(sig, () => { kill(); process.kill(process.pid, sig); });
  }
  child.on('exit', (code, signal) => {
    if (!exiting) console.error(`upstream exited (${signal || code})`);
  });
  let exiting = false;
  process.once('exit', () => { exiting = true; });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', function onData(d) {
    out += d;
    const nl = out.indexOf('\n');
    if (nl < 0) return;
    child.stdout.removeListener('data', onData);
    child.stdout.resume();
    onReady(Number(out.slice(0, nl)));
  });
  return child;
}

module.exports = { startUpstream };
