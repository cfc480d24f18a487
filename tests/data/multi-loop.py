#!/usr/bin/env python3
"""Writes two recordings of more than one event loop, in the format the probe
and the collector use for them (DESIGN "Extensions agreed"): a worker
thread's lines carry "thread", another process's lines carry "pid", proc
records carry the sampled loops' "loop_threads" (docs/contracts.md, "Every loop of the
target"). Collector records are written as the collector's encoders write
them (sorted keys, counts as integers), so they re-encode to the same bytes.
Stand-ins until real recordings
of samples/node/worker-stall and cluster-blocked replace them; seeded, so
they are the same file every time.

  synthetic-worker-pool: a server whose main thread hands each request to
    worker 1 (pool.js), whose loop stalls ~300 ms every ~500 ms; worker 2
    idles. The main loop is free while its requests wait.
  synthetic-cluster: a cluster primary that does nothing, cluster worker 1
    answering fast, cluster worker 2 blocking on every request.

  python3 tests/data/multi-loop.py
"""
import gzip
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
INTERVAL_MS = 10
LOAD_START, LOAD_S = 300.0, 6
OFFSET = 35.0  # every probe's clock starts 35 ms after the run's (rt - t)


def hello(t, pid, **extra):
    h = {"type": "hello", "t": t, "rt": t + OFFSET, "v": 1, "pid": pid, "runtime": "node",
         "versions": {"node": "20.19.2", "v8": "11.3.244.8-node.29"}, "argv": ["node", "server.js"],
         "interval_ms": INTERVAL_MS, "heap_limit": 4345298944, "probe": "js"}
    h.update(extra)
    return h


def loop_lines(rng, tag, stall_ms, stall_every_ms, elu, http=None):
    """Samples and GCs of one loop over the run; `tag` adds pid/thread."""
    out, t, next_stall, heap = [], 100.0, LOAD_START + 200, 12e6
    end = LOAD_START + LOAD_S * 1000 + 200
    while t < end:
        in_load = LOAD_START <= t < end - 200
        interval = INTERVAL_MS * rng.uniform(0.95, 1.05)
        delay = rng.uniform(0.2, 1.5)
        if in_load and stall_ms and t >= next_stall:
            delay = stall_ms * rng.uniform(0.95, 1.05)
            interval += delay
            next_stall = t + stall_every_ms
        t += interval
        k = 1.0 if in_load else 0.02
        busy = min(1.0, elu * k + (delay / interval if delay > 50 else 0))
        heap = 12e6 + (heap - 12e6 + 2e5) % 6e6
        s = {"type": "sample", "t": round(t, 3), "rt": round(t + OFFSET + 0.2, 3),
             "interval_ms": round(interval, 3),
             "delay": {"min": 0.0, "mean": round(delay / 2, 3), "max": round(delay, 3),
                       "p50": round(delay / 2, 3), "p90": round(delay * 0.9, 3),
                       "p99": round(delay, 3), "count": 1},
             "elu": round(busy, 4),
             "cpu": {"user_us": round(busy * interval * 900), "system_us": round(busy * interval * 100)},
             "mem": {"rss": 70000000, "heap_used": round(heap), "heap_total": round(heap * 1.4),
                     "external": 1.2e6, "array_buffers": 1e5},
             "handles": {"total": 4, "by_type": {"MessagePort": 1}}}
        if http:
            rps, inflight, latency = http
            s["http"] = {"requests": round(rps * k * interval / 1000, 3),
                         "responses": round(rps * k * interval / 1000, 3),
                         "inflight": round(inflight * k, 3), "latency_mean_ms": latency,
                         "latency_max_ms": latency * 1.6}
        s.update(tag)
        out.append(s)
        if in_load and rng.random() < 0.08:
            out.append(dict({"type": "gc", "t": round(t - 1, 3), "rt": round(t + OFFSET, 3),
                             "kind": "minor", "duration_ms": round(rng.uniform(0.5, 2), 3)}, **tag))
    return out


def run_records(name):
    end = LOAD_START + LOAD_S * 1000
    head = [{"type": "meta", "format": 1, "loopdoctor_version": "0.1.0",
             "command": ["node", name + ".js"], "start_time": "2026-12-03T16:00:00.000Z",
             "host": "synthetic", "interval_ms": float(INTERVAL_MS), "pid": 4300},
            {"type": "load-start", "t": LOAD_START, "kind": "builtin",
             "command": "http://127.0.0.1:8080/"}]
    tail = [{"type": "load-end", "t": end, "exit_code": None},
            {"type": "exit", "t": end + 300, "code": None, "signal": "SIGINT",
             "stopped_by_loopdoctor": True}]
    return head, tail


def proc_lines(pid_tag, cpu_cores, threads=None):
    out, cpu = [], 0.0
    for i in range(1, int((LOAD_START + LOAD_S * 1000 + 200) / 100)):
        t = i * 100.0
        cpu += cpu_cores * 100
        p = {"type": "proc", "t": t, "cpu_ms": round(cpu, 3), "rss": 70000000.0, "threads": 11,
             "fds": 24, "ctx_voluntary": i * 10, "ctx_involuntary": i}
        if threads:
            p["loop_threads"] = [{"tid": tid, "thread": th, "cpu_ms": round(share * t, 3),
                                  "sched_wait_ms": round(0.01 * t, 3)} for tid, th, share in threads]
        p.update(pid_tag)
        out.append(p)
    return out


def load_summary(rps, p99, mx):
    return {"type": "load-summary", "t": LOAD_START + LOAD_S * 1000, "requests": rps * LOAD_S,
            "sent": rps * LOAD_S, "duration_s": float(LOAD_S), "rps": float(rps),
            "bytes": rps * LOAD_S * 120,
            "latency_ms": {"p50": p99 / 2, "p90": p99 * 0.9, "p99": float(p99), "max": float(mx)},
            "errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0, "parse": 0},
            "status": {"200": rps * LOAD_S}, "non_2xx": 0}


def worker_pool(rng):
    head, tail = run_records("worker-pool")
    recs = head + [hello(0, 4300), {"type": "listen", "t": 60, "rt": 95, "port": 8080,
                                    "address": "127.0.0.1"},
                   hello(40, 4300, thread=1, thread_name="worker 1 (pool.js)"),
                   hello(41, 4300, thread=2, thread_name="worker 2 (pool.js)")]
    recs += loop_lines(rng, {}, 0, 0, 0.05, http=(40, 6, 290))
    recs += loop_lines(rng, {"thread": 1}, 300, 500, 0.3)
    recs += loop_lines(rng, {"thread": 2}, 0, 0, 0.01)
    recs += proc_lines({}, 0.7, threads=[(4300, 0, 0.06), (4301, 1, 0.6), (4302, 2, 0.01)])
    recs.append(load_summary(40, 560, 610))
    return recs + tail


def cluster(rng):
    head, tail = run_records("cluster")
    recs = head + [hello(0, 4300, argv=["node", "cluster.js"]),
                   hello(0, 4312, parent_pid=4300, process_name="cluster worker 1"),
                   hello(0, 4313, parent_pid=4300, process_name="cluster worker 2"),
                   {"type": "listen", "t": 60, "rt": 95, "port": 8080, "address": "::",
                    "pid": 4312}]
    recs += loop_lines(rng, {}, 0, 0, 0.005)
    recs += loop_lines(rng, {"pid": 4312}, 0, 0, 0.1, http=(300, 1, 1.5))
    recs += loop_lines(rng, {"pid": 4313}, 220, 240, 0.9, http=(4, 3, 480))
    recs += proc_lines({}, 0.01) + proc_lines({"pid": 4312}, 0.12) + proc_lines({"pid": 4313}, 0.95)
    recs.append(load_summary(304, 470, 520))
    exits = [{"type": "exit", "t": LOAD_START + LOAD_S * 1000 + 280, "code": 0, "signal": None,
              "stopped_by_loopdoctor": False, "pid": pid} for pid in (4312, 4313)]
    return recs + exits + tail


def write(name, recs):
    # Probe lines interleave with the collector's in time order, as written.
    def when(r):
        return r.get("rt", r.get("t", 0)) if r["type"] != "meta" else -1
    recs.sort(key=when)
    with gzip.GzipFile(os.path.join(HERE, name + ".ndjson.gz"), "wb", mtime=0) as f:
        for r in recs:
            f.write((json.dumps(r, separators=(",", ":"), sort_keys=True) + "\n").encode())


if __name__ == "__main__":
    write("synthetic-worker-pool", worker_pool(random.Random(13)))
    write("synthetic-cluster", cluster(random.Random(14)))
