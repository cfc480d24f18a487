'use strict';
// Crowds this process's CPU (loaded with -r, or required first by a
// sample): pins every thread of the process to one CPU with taskset and
// starts busy processes (spinners) pinned to the same CPU, each in a session
// of its own (detached: setsid), so Linux's autogroup scheduling gives
// each the same share as this process. A server that wants more than its
// share then waits in the run queue, whatever its code does.
//   CROWD_CPU       the CPU (default 0)
//   CROWD_SPINNERS  how many spinners (default 4: this process gets a fifth
//                   of the CPU, or less)
// The spinners end with this process: killed on exit and on SIGINT/SIGTERM,
// and each checks every ~50 ms that this process still lives (covers
// SIGKILL); none outlives CROWD_MAX_S seconds (default 300) in any case.
// taskset (util-linux) missing: exits 77, which the tests read as SKIP.
const { spawn, spawnSync } = require('child_process');

const cpu = String(Number(process.env.CROWD_CPU) || 0);
const count = Number(process.env.CROWD_SPINNERS || 4);
const maxSeconds = Number(process.env.CROWD_MAX_S) || 300;

function pinSelf() {
  const r = spawnSync('taskset', ['-a', '-p', '-c', cpu, String(process.pid)], { stdio: 'ignore' });
  if (r.error || r.status !== 0) {
    console.error(`crowd: taskset could not pin pid ${process.pid} to CPU ${cpu}` +
                  (r.error ? ` (${r.error.code})` : ` (exit ${r.status})`));
    process.exit(77);
  }
}

// A busy loop in bash that closes every descriptor it inherited (the
// probe's socket among them: the collector must see it close with us) and
// stops once this process is gone.
const SPIN = `
for fd in /proc/$$/fd/*; do n=\${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done 2>/dev/null
while kill -0 "$1" 2>/dev/null; do for ((i = 0; i < 20000; i++)); do :; done; done`;

function startSpinners() {
  const children = [];
  for (let k = 0; k < count; k++) {
    children.push(spawn('taskset', ['-c', cpu, 'timeout', String(maxSeconds), 'bash', '-c', SPIN, 'spin',
                                    String(process.pid)],
                        { detached: true, stdio: 'ignore', env: { PATH: process.env.PATH } }));
  }
  const kill = () => {
    for (const c of children) try { process.kill(-c.pid, 'SIGKILL'); } catch (_) { /* gone */ }
  };
  process.on('exit', kill);
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.once(sig, () => { kill(); process.kill(process.pid, sig); });
  }
  for (const c of children) c.unref();
}

pinSelf();
startSpinners();
