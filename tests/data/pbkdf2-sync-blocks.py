#!/usr/bin/env python3
"""Writes pbkdf2-sync-blocks.ndjson.gz: the recording pbkdf2-sync-2s with the
CPU profile taken out, `hello.probe` set to "native", and the `block` lines the
native probe's watchdog sends (DESIGN "Extensions agreed") added for each
stall the probe's samples show. Stand-in until a real native-probe recording
replaces it; seeded, so it writes the same file every time.

  python3 tests/data/pbkdf2-sync-blocks.py
"""
import gzip
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
SRC, DST = "pbkdf2-sync-2s.ndjson.gz", "pbkdf2-sync-blocks.ndjson.gz"
THRESHOLD_MS, EVERY_MS = 50, 20  # the watchdog's defaults
SERVER = "/work/wt/dx/samples/node/pbkdf2-sync/server.js"
BELOW = [("emit", "node:events", 517, 28), ("parserOnIncoming", "node:_http_server", 1143, 12),
         ("parserOnHeadersComplete", "node:_http_common", 119, 17)]
# What a capture finds running, with its weight: pbkdf2Sync inside its C++
# binding (the interrupt cannot run there), or the JS around it.
STACKS = [
    (0.78, True, [("pbkdf2Sync", "node:internal/crypto/pbkdf2", 64, 38), ("", SERVER, 16, 23)]),
    (0.10, False, [("end", "node:_http_outgoing", 1034, 23), ("", SERVER, 19, 7)]),
    (0.07, False, [("writeHead", "node:_http_server", 350, 3), ("", SERVER, 18, 7)]),
    (0.05, False, []),  # between requests: Node's HTTP parser, no application frame
]


def frames(stack):
    return [{"function": f, "url": u, "line": l, "column": c} for f, u, l, c in stack + BELOW]


def blocks_for(sample, rng):
    """The captures of the block a stalled sample ends."""
    delay = sample["delay"]["max"]
    if delay < THRESHOLD_MS:
        return []
    start = round(sample["t"] - delay - 4.0, 3)
    out, d = [], THRESHOLD_MS + rng.uniform(0.1, 1.5)
    while d < delay + 4.0:
        r, acc = rng.random(), 0.0
        for weight, native, stack in STACKS:
            acc += weight
            if r < acc:
                break
        out.append({"rt": sample["rt"], "type": "block", "t": round(start + d, 3), "start": start,
                    "duration_ms": round(d, 3), "in": "native" if native else "js",
                    "frames": frames(stack)})
        d += EVERY_MS + rng.uniform(0.0, 1.5)
    return out


def main():
    rng = random.Random(12)
    lines = []
    with gzip.open(os.path.join(HERE, SRC), "rt") as f:
        for line in f:
            r = json.loads(line)
            if r["type"] == "profile":
                continue
            if r["type"] == "hello":
                r["probe"] = "native"
            if r["type"] == "sample":
                lines += [json.dumps(b, separators=(",", ":")) for b in blocks_for(r, rng)]
            lines.append(json.dumps(r, separators=(",", ":")))
    with gzip.GzipFile(os.path.join(HERE, DST), "wb", mtime=0) as f:
        f.write(("\n".join(lines) + "\n").encode())


if __name__ == "__main__":
    main()
