'use strict';
// The `alloc` line (docs/contracts.md, "Memory by site"): V8's sampling
// heap profile, its tree flattened into `nodes`, cut to fit the collector's
// line limit by dropping the smallest sites.
const { r3 } = require('./state.js');

// V8's positions are 0-based, -1 when unknown; the protocol's are 1-based,
// 0 when unknown.
function oneBased(n) {
  return Number.isInteger(n) && n >= 0 ? n + 1 : 0;
}

// The tree as a list in preorder, V8's root left out (its children have
// parent 0), each node with the bytes of its subtree (`sub`) and its depth;
// nodes with no bytes beneath them are left out. Iterative: a deep stack
// must not overflow the probe's.
function flatten(head) {
  const out = [];
  if (!head || !Array.isArray(head.children)) return out;
  // Subtree sizes first (postorder), then the preorder walk keeps the
  // nodes with bytes.
  const sub = new Map();
  const order = [];
  const stack = [head];
  while (stack.length) {
    const n = stack.pop();
    order.push(n);
    if (Array.isArray(n.children)) for (const c of n.children) stack.push(c);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const n = order[i];
    let s = Number(n.selfSize) > 0 ? Number(n.selfSize) : 0;
    if (Array.isArray(n.children)) for (const c of n.children) s += sub.get(c);
    sub.set(n, s);
  }
  let nextId = 1;
  const walk = [];
  for (let i = head.children.length - 1; i >= 0; i--) walk.push([head.children[i], 0, 0]);
  while (walk.length) {
    const [n, parent, depth] = walk.pop();
    if (sub.get(n) <= 0) continue;
    const id = nextId++;
    const f = n.callFrame || {};
    out.push({
      id, parent, depth, sub: sub.get(n),
      fn: typeof f.functionName === 'string' ? f.functionName : '',
      url: typeof f.url === 'string' ? f.url : '',
      line: oneBased(f.lineNumber), column: oneBased(f.columnNumber),
      self: Number(n.selfSize) > 0 ? Number(n.selfSize) : 0,
    });
    if (Array.isArray(n.children)) {
      for (let j = n.children.length - 1; j >= 0; j--) walk.push([n.children[j], id, depth + 1]);
    }
  }
  return out;
}

function nodeJson(n) {
  return JSON.stringify({ id: n.id, parent: n.parent, fn: n.fn, url: n.url, line: n.line, column: n.column, self: n.self });
}

// Drops the smallest sites until the nodes' text fits `budget` bytes:
// smallest subtree first, the deeper of two equal ones first, so a node
// goes only after everything below it (a child's subtree is never larger
// than its parent's) and every kept node's parent is kept. Returns the
// bytes dropped.
function fit(nodes, texts, budget) {
  const bytes = texts.map((t) => Buffer.byteLength(t) + 1);
  let size = bytes.reduce((a, b) => a + b, 0);
  if (size <= budget) return 0;
  const order = nodes.map((_, i) => i).sort((a, b) => nodes[a].sub - nodes[b].sub || nodes[b].depth - nodes[a].depth);
  let dropped = 0;
  for (const i of order) {
    if (size <= budget) break;
    size -= bytes[i];
    dropped += nodes[i].self;
    texts[i] = null;
  }
  return dropped;
}

// The line (with its '\n') for a profile of HeapProfiler.getSamplingProfile
// or stopSampling: `mode` "churn" or "live", sampled from `since` to `t`
// (probe ms), kept under maxBytes; {line, total}: total_bytes. readMs:
// how long reading the profile held the loop (through the inspector V8
// runs a full collection first: the `gc` line of that collection is the
// probe's, not the target's), sent as read_ms, a field the contract did
// not name.
function allocLine(profile, mode, since, t, intervalBytes, maxBytes, readMs = 0) {
  const nodes = flatten(profile && profile.head);
  let total = 0;
  for (const n of nodes) total += n.self;
  const texts = nodes.map(nodeJson);
  const head = '{"type":"alloc","t":' + r3(t) + ',"since":' + r3(since) + ',"mode":"' + mode +
    '","interval_bytes":' + intervalBytes + ',"read_ms":' + r3(readMs) + ',"total_bytes":' + total + ',"dropped_bytes":';
  // The envelope's own bytes, with room for dropped_bytes' digits.
  const envelope = Buffer.byteLength(head) + 40;
  const dropped = fit(nodes, texts, maxBytes - envelope);
  const line = head + dropped + ',"nodes":[' + texts.filter((s) => s !== null).join(',') + ']}\n';
  return { line, total };
}

module.exports = { allocLine, flatten };
