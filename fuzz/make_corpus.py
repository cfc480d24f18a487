#!/usr/bin/env python3
"""Seed corpora for the fuzz targets (fuzz/*_fuzz.cc).

usage: make_corpus.py SOURCE_DIR OUT_DIR

Writes OUT_DIR/<target>/<name> for each target, from the recordings in
SOURCE_DIR/tests/data (cut into pieces of whole lines under the target's
max_len, their CPU profiles shrunk to the nodes the samples hit most), from
hand-made probe lines, HTTP responses and profiles, and from the inputs in
SOURCE_DIR/tests/data/fuzz-regressions named <target>-<what>. Deterministic:
the same tree gives the same seeds.
"""
import base64
import gzip
import json
import os
import sys
from collections import Counter
from pathlib import Path

# Must match bench/fuzz's -max_len per target: a seed over it is cut anyway.
MAX_LEN = {"recording": 4096, "recording_gz": 4096, "probe_lines": 4096,
           "load_response": 4096, "cpuprofile": 8192, "sourcemap": 4096,
           "recording_full": 8192, "probe_lines_agent": 8192}
# Hot records kept in a recording's skeleton seed: enough for the analysers'
# minimum of samples to be reached in some mutations, few enough to fit.
SKELETON_HOT = {"sample": 6, "proc": 6, "gc": 3, "load": 2}
CHUNKS_PER_RECORDING = 6


def compact(obj):
    return json.dumps(obj, separators=(",", ":")).encode()


def shrink_profile(profile, max_nodes, max_samples):
    """The nodes most samples hit (and their ancestors), the samples on
    them (every k-th, time deltas summed so times stay right)."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    parent = {c: n["id"] for n in profile["nodes"] for c in n.get("children", [])}
    keep = set()
    for node_id, _ in Counter(profile["samples"]).most_common():
        path = []
        while node_id is not None and node_id not in keep:
            path.append(node_id)
            node_id = parent.get(node_id)
        if len(keep) + len(path) > max_nodes:
            break
        keep.update(path)
    kept_nodes = []
    for n in profile["nodes"]:
        if n["id"] in keep:
            m = dict(n, children=[c for c in n.get("children", []) if c in keep])
            m.pop("positionTicks", None)
            kept_nodes.append(m)
    hits = [(s, d) for s, d in zip(profile["samples"], profile["timeDeltas"])]
    on_kept = sum(1 for s, _ in hits if s in keep)
    step = max(1, on_kept // max_samples)
    samples, deltas, carry, seen = [], [], 0, 0
    for s, d in hits:
        carry += d
        if s not in keep:
            continue
        seen += 1
        if seen % step:
            continue
        samples.append(s)
        deltas.append(carry)
        carry = 0
    return {"nodes": kept_nodes, "startTime": profile["startTime"],
            "endTime": profile["endTime"], "samples": samples, "timeDeltas": deltas}


def read_recording(path):
    with gzip.open(path, "rb") as f:
        return [line.rstrip(b"\n") for line in f if line.strip()]


def record_type(line):
    try:
        return json.loads(line).get("type")
    except ValueError:
        return None


def small_profile_line(line, max_nodes=12, max_samples=80):
    rec = json.loads(line)
    rec["profile"] = shrink_profile(rec["profile"], max_nodes, max_samples)
    return compact(rec)


def skeleton(lines):
    """Every record type once or more, in file order, hot ones capped."""
    taken, out = Counter(), []
    for line in lines:
        kind = record_type(line)
        if kind == "profile":
            out.append(small_profile_line(line))
            continue
        taken[kind] += 1
        if taken[kind] <= SKELETON_HOT.get(kind, 1 << 30):
            out.append(line)
    return b"\n".join(out) + b"\n"


def chunks(lines, max_len, count):
    """Up to `count` runs of consecutive lines under max_len, spread evenly."""
    lines = [l for l in lines if record_type(l) != "profile" and len(l) < max_len]
    out = []
    for k in range(count):
        start = k * len(lines) // count
        data = b""
        for line in lines[start:]:
            if len(data) + len(line) + 1 > max_len:
                break
            data += line + b"\n"
        if data:
            out.append(data)
    return out


def probe_stream(lines, max_len):
    """What the probe sends: its own messages without the collector's rt."""
    out = b""
    for line in lines:
        kind = record_type(line)
        if kind not in ("hello", "listen", "sample", "gc", "bye", "profile"):
            continue
        rec = json.loads(small_profile_line(line, 8, 40) if kind == "profile" else line)
        rec.pop("rt", None)
        text = compact(rec) + b"\n"
        if len(out) + len(text) > max_len:
            break
        out += text
    return out


HAND_PROBE = [
    b'{"type":"hello","t":0,"pid":1,"argv":["node","a.js"]}\r\n{"type":"sample","t":10,"delay":{"max":300}}\r\n',
    b'{"type":"hello","t":0,"pid":1}\nnot json\n{"type":"sample","delay":"slow"}\n{"type":"gc","kind":"major","duration_ms":12}\n',
    b'{"type":"hello","t":0,"pid":1,"job":"api"}\n{"type":"sample","t":1,"handles":{"total":2,"by_type":{"TCP":1,"Timer":1}}}\n{"type":"hello","pid":2}\n',
    b'  {"type":"sample","t":3}\n{"rt":1,"type":"gc"}\n{"type":"profile","t":0,"profile":{}}\n',
    # allocation sampling: a churn phase, two live points, heap spaces, a snapshot
    b'{"type":"hello","t":0,"pid":1,"argv":["node","/srv/app/server.js"]}\n'
    b'{"type":"sample","t":10,"mem":{"rss":9e7,"heap_used":2e7,"heap_total":3e7},"spaces":{"new":1e6,"old":1.5e7,"code":1e6,"large_object":3e6}}\n'
    b'{"type":"alloc","t":2000,"since":0,"mode":"churn","interval_bytes":131072,"total_bytes":9e6,"dropped_bytes":0,"nodes":[{"id":1,"parent":0,"fn":"","url":"file:///srv/app/server.js","line":19,"column":34,"self":0},{"id":2,"parent":1,"fn":"buildSession","url":"file:///srv/app/server.js","line":11,"column":22,"self":9e6}]}\n'
    b'{"type":"alloc","t":4000,"since":2000,"mode":"live","nodes":[{"id":1,"parent":0,"fn":"buildSession","url":"/srv/app/server.js","line":11,"self":2e6},{"id":2,"parent":1,"fn":"x","self":1}]}\n'
    b'{"type":"alloc","t":6000,"since":2000,"mode":"live","nodes":[{"id":1,"parent":1,"fn":"buildSession","url":"/srv/app/server.js","line":11,"self":8e6}]}\n'
    b'{"type":"heap-snapshot","t":6100,"path":"/tmp/a.heapsnapshot","bytes":5e7,"pause_ms":800}\n',
]

HAND_HTTP = [
    b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n0\r\nX-T: 1\r\n\r\n",
    b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
    b"HTTP/1.0 200 OK\r\n\r\nbody until close",
    b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhiHTTP/1.1 200 OK\r\n\r\n",
    b"HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\nHTTP/1.1 500 Oops\r\nContent-Length: 1\r\n\r\nx",
    b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n\x81\x00",
]

HAND_PROFILE = compact({
    "nodes": [
        {"id": 1, "callFrame": {"functionName": "(root)", "url": "", "lineNumber": -1}, "children": [2, 5]},
        {"id": 2, "callFrame": {"functionName": "handler", "url": "file:///srv/app/src/server.js",
                                "lineNumber": 13, "columnNumber": 2}, "children": [3]},
        {"id": 3, "callFrame": {"functionName": "pbkdf2Sync", "url": "node:internal/crypto/pbkdf2",
                                "lineNumber": 61}, "children": [4]},
        {"id": 4, "callFrame": {"functionName": "run", "url": ""}},
        {"id": 5, "callFrame": {"functionName": "(garbage collector)", "url": ""}},
    ],
    "startTime": 0, "endTime": 2000000,
    "samples": [4] * 150 + [5] * 20 + [2] * 30,
    "timeDeltas": [10000] * 200,
})


# sourcemap_fuzz.cc's header: mode, script lines, 8 (line, column) pairs.
SOURCEMAP_LOOKUPS = [(0, 0), (0, 12), (1, 4), (2, 30), (3, 0), (5, 17), (9, 2), (40, 199)]


def sourcemap_header(mode):
    head = bytes([mode, 24])
    for line, column in SOURCEMAP_LOOKUPS:
        head += line.to_bytes(2, "big") + column.to_bytes(2, "big")
    return head


def source_maps(source):
    """(name, map text) of the maps in tests/data and the samples, the
    bundled sample's inline map decoded."""
    found = []
    for base in ("tests/data/sourcemaps", "samples/node/ts-pricing"):
        for path in sorted((source / base).rglob("*.map")):
            found.append(("-".join(path.relative_to(source / base).parts), path.read_bytes()))
    bundle = (source / "samples/node/bundled/server.js").read_text()
    marker = "sourceMappingURL=data:application/json;base64,"
    if marker in bundle:
        found.append(("bundled-inline", base64.b64decode(bundle.split(marker)[-1].split()[0])))
    return found


def write_sourcemap_seeds(source, out_dir):
    for name, text in source_maps(source):
        write(out_dir, "sourcemap", name, sourcemap_header(0) + text)
        try:
            m = json.loads(text)
        except ValueError:
            continue
        maps = [s["map"] for s in m.get("sections", []) if "map" in s] or [m]
        for i, inner in enumerate(maps):
            if isinstance(inner.get("mappings"), str):
                counts = bytes([len(inner.get("sources", [])) % 16, len(inner.get("names", [])) % 16])
                write(out_dir, "sourcemap", f"{name}-mappings-{i}",
                      sourcemap_header(1) + counts + inner["mappings"].encode())


def write(out_dir, target, name, data):
    if len(data) > MAX_LEN[target]:
        data = data[:MAX_LEN[target]]
    d = out_dir / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


def main():
    source, out_dir = Path(sys.argv[1]), Path(sys.argv[2])
    # Parameters the targets read off the front (fuzz_support.h's Params).
    gz_intact = bytes([0x64, 0, 0])     # level 6, no damage
    gz_cut = bytes([0x65, 0x01, 0x00])  # level 6, cut at byte 256
    cuts = bytes([0x12, 0x34, 0x00, 0x40])  # seed, reads of up to 64 bytes
    for path in sorted((source / "tests/data").glob("*.ndjson.gz")):
        name = path.name.split(".")[0]
        lines = read_recording(path)
        skel = skeleton(lines)
        # The whole-path targets take the same kinds of seed, longer.
        for target in ("recording", "recording_full"):
            write(out_dir, target, name + "-skeleton", skel)
            write(out_dir, target, name + "-skeleton.gz", gzip.compress(skel, mtime=0))
            for i, c in enumerate(chunks(lines, MAX_LEN[target], CHUNKS_PER_RECORDING)):
                write(out_dir, target, f"{name}-{i}", c)
        write(out_dir, "recording_gz", name, gz_intact + skel)
        write(out_dir, "recording_gz", name + "-cut", gz_cut + skel)
        for target in ("probe_lines", "probe_lines_agent"):
            stream = probe_stream(lines, MAX_LEN[target] - len(cuts))
            if stream:
                write(out_dir, target, name, cuts + stream)
        for line in lines:
            if record_type(line) == "profile":
                prof = json.loads(line)["profile"]
                write(out_dir, "cpuprofile", name, compact(shrink_profile(prof, 24, 240)))
                write(out_dir, "cpuprofile", name + "-tiny", compact(shrink_profile(prof, 8, 50)))
    for i, s in enumerate(HAND_PROBE):
        for target in ("probe_lines", "probe_lines_agent"):
            write(out_dir, target, f"hand-{i}", cuts + s)
    # The allocation stream as a recording of its own: the whole analysis of it.
    for target in ("recording", "recording_full"):
        write(out_dir, target, "hand-alloc", HAND_PROBE[-1])
    for i, s in enumerate(HAND_HTTP):
        write(out_dir, "load_response", f"hand-{i}", bytes([0x02 * (i + 1), 0x12, 0x34]) + s * 2)
    write(out_dir, "load_response", "head", bytes([0x03, 0, 7]) + HAND_HTTP[0][:-5] * 3)
    write(out_dir, "cpuprofile", "hand", HAND_PROFILE)
    write_sourcemap_seeds(source, out_dir)
    # Inputs that once broke a target (named <target>-<what>): every run
    # starts from them, so a fix that regresses fails the smoke at once.
    for path in sorted((source / "tests/data/fuzz-regressions").glob("*-*")):
        target = path.name.split("-")[0]
        if target in MAX_LEN:
            write(out_dir, target, "regression-" + path.name, path.read_bytes())
    for target in MAX_LEN:
        print(f"{target}: {len(os.listdir(out_dir / target))} seeds")


if __name__ == "__main__":
    main()
