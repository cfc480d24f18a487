// Prints what mozilla/source-map (0.7, GREATEST_LOWER_BOUND) says for chosen generated positions.
const fs = require('fs'), path = require('path');
const { SourceMapConsumer } = require('source-map');
const cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
(async () => {
  for (const c of cases) {
    const js = fs.readFileSync(c.file, 'utf8');
    const lines = js.split('\n');
    const line = c.line;
    const col0 = c.find !== undefined ? lines[line - 1].indexOf(c.find) + (c.plus || 0) : c.col - 1;
    let mapText;
    const m = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(js);
    if (m[1].startsWith('data:')) mapText = Buffer.from(m[1].split(',')[1], 'base64').toString();
    else mapText = fs.readFileSync(path.join(path.dirname(c.file), m[1]), 'utf8');
    const consumer = await new SourceMapConsumer(JSON.parse(mapText));
    const o = consumer.originalPositionFor({ line, column: col0 });
    console.log(JSON.stringify({ file: c.file, line, column: col0 + 1, source: o.source, oline: o.line, ocol: o.column === null ? null : o.column + 1, name: o.name }));
    consumer.destroy();
  }
})();
