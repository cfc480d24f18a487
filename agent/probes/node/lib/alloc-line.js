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

// A live point's bytes per V8 node id that were sampled up to `upto` (the
// highest ordinal an earlier point saw) and are still alive: what survived
// the collections since that point, where the rest of a point's bytes can
// be young garbage no scavenge has freed yet. Null without V8's samples.
function keptByNode(profile, upto) {
  if (!profile || !Array.isArray(profile.samples)) return null;
  const kept = new Map();
  for (const s of profile.samples) {
    if (!(Number(s.ordinal) <= upto) || !(Number(s.size) > 0)) continue;
    kept.set(s.nodeId, (kept.get(s.nodeId) || 0) + Number(s.size));
  }
  return kept;
}

// The highest sample ordinal in a profile (0 with none).
function lastOrdinal(profile) {
  let last = 0;
  if (profile && Array.isArray(profile.samples)) {
    for (const s of profile.samples) if (Number(s.ordinal) > last) last = Number(s.ordinal);
  }
  return last;
}

// The tree as a list in preorder, V8's root left out (its children have
// parent 0), each node with the bytes of its subtree (`sub`) and its depth;
// nodes with no bytes beneath them are left out; `kept` (keptByNode) adds
// each node's kept bytes. Iterative: a deep stack must not overflow the
// probe's.
function flatten(head, kept = null) {
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
    const node = {
      id, parent, depth, sub: sub.get(n),
      fn: typeof f.functionName === 'string' ? f.functionName : '',
      url: typeof f.url === 'string' ? f.url : '',
      line: oneBased(f.lineNumber), column: oneBased(f.columnNumber),
      self: Number(n.selfSize) > 0 ? Number(n.selfSize) : 0,
    };
    if (kept !== null) node.kept = kept.get(n.id) || 0;
    out.push(node);
    if (Array.isArray(n.children)) {
      for (let j = n.children.length - 1; j >= 0; j--) walk.push([n.children[j], id, depth + 1]);
    }
  }
  return out;
}

function nodeJson(n) {
  const o = { id: n.id, parent: n.parent, fn: n.fn, url: n.url, line: n.line, column: n.column, self: n.self };
  if (n.kept > 0) o.kept = n.kept;
  return JSON.stringify(o);
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
// not name. keep ({t, upto}: an earlier live point of the phase, its
// probe time and last sample ordinal) adds each node's `kept` bytes and
// the line's `kept_since` (t), when the profile has V8's samples.
function allocLine(profile, mode, since, t, intervalBytes, maxBytes, readMs = 0, keep = null) {
  const kept = keep === null ? null : keptByNode(profile, keep.upto);
  const nodes = flatten(profile && profile.head, kept);
  let total = 0;
  for (const n of nodes) total += n.self;
  const texts = nodes.map(nodeJson);
  const keptSince = kept === null ? '' : ',"kept_since":' + r3(keep.t);
  const head = '{"type":"alloc","t":' + r3(t) + ',"since":' + r3(since) + keptSince + ',"mode":"' + mode +
    '","interval_bytes":' + intervalBytes + ',"read_ms":' + r3(readMs) + ',"total_bytes":' + total + ',"dropped_bytes":';
  // The envelope's own bytes, with room for dropped_bytes' digits.
  const envelope = Buffer.byteLength(head) + 40;
  const dropped = fit(nodes, texts, maxBytes - envelope);
  const line = head + dropped + ',"nodes":[' + texts.filter((s) => s !== null).join(',') + ']}\n';
  return { line, total };
}

module.exports = { allocLine, flatten, lastOrdinal };
