'use strict';
// A process supervisor: `node supervisor.js` starts the app with
// child_process.spawn (`node app.js`, not fork: no IPC channel, as pm2's
// fork mode or a hand-written runner does), restarts it when it crashes and
// passes SIGTERM/SIGINT on. Its own loop does nothing: a probe that sees
// only the first process calls this healthy while the app blocks.
const path = require('path');
const { spawn } = require('child_process');

const APP = path.join(__dirname, 'app.js');
const RESTART_DELAY_MS = 500;
let child = null;
let stopping = false;

function start() {
  child = spawn(process.execPath, [APP], { stdio: 'inherit', env: process.env });
  child.on('exit', (code, signal) => {
    child = null;
    if (stopping) process.exit(0);
    console.error(`supervisor: app exited (${signal || code}), restarting`);
    setTimeout(start, RESTART_DELAY_MS);
  });
}

for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => {
    stopping = true;
    if (child) child.kill(sig);
    else process.exit(0);
  });
}
start();
