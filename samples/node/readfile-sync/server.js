'use strict';
// blocked-loop: a report endpoint that reads a large CSV with readFileSync on
// every request and scans it on the main thread. The read and the scan both
// hold the loop. The file is generated at start in the OS temp dir.
const http = require('http');
const fs = require('fs');
const os = require('os');
const path = require('path');

const FILE_BYTES = 8 * 1024 * 1024;
const file = path.join(os.tmpdir(), `loopdoctor-readfile-sync-${process.pid}.csv`);

function generate() {
  const rows = ['id,timestamp,customer,amount,status\n'];
  let size = rows[0].length;
  for (let i = 0; size < FILE_BYTES; i++) {
    const row = `${i},2024-01-01T00:00:${String(i % 60).padStart(2, '0')}Z,cust-${i % 977},${(i * 31) % 10000},ok\n`;
    rows.push(row);
    size += row.length;
  }
  fs.writeFileSync(file, rows.join(''));
}
generate();
const cleanup = () => { try { fs.unlinkSync(file); } catch (_) { /* already gone */ } };
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => { cleanup(); process.kill(process.pid, sig); });
}

const NEWLINE = 10;
const COMMA = 44;

// Sums the 4th column without building strings: CPU-bound, no garbage.
function totalAmount(buf) {
  let total = 0, col = 0, value = 0;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (c === NEWLINE) { col = 0; total += value; value = 0; } else if (c === COMMA) col++;
    else if (col === 3) value = value * 10 + (c - 48);
  }
  return total;
}

const server = http.createServer((req, res) => {
  const buf = fs.readFileSync(file);
  const total = totalAmount(buf);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(`{"bytes":${buf.length},"total":${total}}`);
});

server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`readfile-sync listening on 127.0.0.1:${server.address().port}`);
});
