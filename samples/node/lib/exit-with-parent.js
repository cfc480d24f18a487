'use strict';
// For the helper processes the samples start (upstream.js, raw-upstream.js,
// fifo-writer.js): their stdin is a pipe from the sample (spawn-upstream.js
// and the sample's own spawn), so its end means the sample died, even by
// SIGKILL, and the helper exits with it.
function exitWithParent() {
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  process.stdin.resume();
}

module.exports = { exitWithParent };
