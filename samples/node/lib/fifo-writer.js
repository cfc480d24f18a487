'use strict';
// The slow device behind the threadpool-saturated sample: opens the FIFO
// named by argv[2] for writing and writes one byte every argv[3] ms, so each
// blocking read() of it on a threadpool thread returns only then -- a slow
// network mount, in miniature. Runs as its own process (no probe), and
// exits when its stdin (a pipe from the sample) closes.
const fs = require('fs');
const { exitWithParent } = require('./exit-with-parent');

const fifo = process.argv[2];
const everyMs = Number(process.argv[3]) || 5;
const fd = fs.openSync(fifo, 'w');  // blocks until the sample opens it for reading
const one = Buffer.from('x');
setInterval(() => {
  try { fs.writeSync(fd, one); } catch (_) { process.exit(0); }
}, everyMs);
exitWithParent();
