// Every number the rules use, with its unit and the reason for it.
// Measured figures behind these are in docs/thresholds.md.
#pragma once

#include <cstddef>

namespace loopdoctor::thresholds {

// --- enough data -----------------------------------------------------------
// Under 1 s of window a percentile is noise.
inline constexpr double kMinWindowMs = 1000;
// A blocked loop sends few samples (one per stall: 12 in 5 s for a GC-bound
// sample), so the count alone cannot be the test; what matters is that the
// probe's intervals cover the window. Five intervals is the least that shows
// a pattern rather than one event.
inline constexpr double kMinProbeSamples = 5;
// Share of the window the probe's intervals must cover: less means the probe
// connected late, stopped early or dropped data.
inline constexpr double kMinProbeCoverage = 0.5;
// The run length the insufficient-data messages suggest, seconds: the same
// blocked server needed 5 s to leave its warm-up (a 2 s run shows the heap
// still growing with no full collection yet).
inline constexpr double kSuggestedRunS = 5;

// --- event-loop delay ------------------------------------------------------
// A request that waits 100 ms for the loop is felt by a person (the RAIL
// "instant" budget), and prom-client users alert at this level.
inline constexpr double kDelayP99LimitMs = 100;
// Above 250 ms a single stall is visible as a hang; severity becomes high.
inline constexpr double kDelayP99HighMs = 250;
// An interval whose max delay exceeds this counts as "blocked" time. 50 ms is
// half the user-visible budget and ~5 timer periods at the default 10 ms.
inline constexpr double kBlockedIntervalMs = 50;
// Share of the window spent in blocked intervals that is a finding by itself
// even when the p99 is under its limit (many medium stalls).
inline constexpr double kBlockedShareLimit = 0.25;
// A loop saturated by the requests' own synchronous work is blocked though
// no single call holds it past the limits above: each request costs this
// much CPU or more, the loop was busy kSaturatedElu of the window, and
// callbacks waited kSyncRequestDelayMs at p99, behind the requests queued
// before them. Measured at saturation under -c 50, probes
// on: a server's own cost is a fraction of that (hello world and Fastify 5
// 0.02 ms a request, Express 5 res.json 0.19 ms); pino-sync's debug logging
// to a synchronous destination 1.3-1.6 ms (p99 delay 70-88 ms, under
// kDelayP99LimitMs), 4 ms of crypto, a 63 ms render. 1 ms caps one
// loop under 1000 req/s.
inline constexpr double kSyncRequestCpuMs = 1.0;
// Two of the probe's 10 ms timer periods: a queue of requests, not one. With
// one connection a request's own cost delays no one else's callback; a
// cluster worker hashing 4 ms a request with ~10 connections of its own
// measured p99 37 ms, pino-sync 50-88 ms; a saturated Express app
// (0.19 ms a request, below the cost cut anyway) 16 ms.
inline constexpr double kSyncRequestDelayMs = 20;
// The probe's own pauses (a block line with "probe":true: the inspector's
// CPU profile starting walks every compiled function, 30-170 ms) are not
// the app's stalls: samples within one of them, or this long after its last
// capture, count no delay. The last capture comes up to one block interval
// (20 ms by default) before the pause ends, and the sample holding the turn
// that ends it up to a 10 ms tick after; 50 ms covers both. A 2 s run of a
// healthy server was called blocked-loop on one such 100 ms pause (p99).
inline constexpr double kProbePauseSlackMs = 50;

// --- utilisation and CPU ---------------------------------------------------
// The loop's thread waited in a run queue for at least this share of the
// window: a share of its "busy" time and of its delays was the machine's,
// not the code's, and every output says so. Measured here: 2-6 % on an idle
// 2-core machine, 45-80 % with a compiler build running beside the target.
inline constexpr double kCpuWaitNotable = 0.2;
// A loop busy over 90 % of the time has no headroom: a queue forms.
inline constexpr double kEluBusy = 0.9;
// At 90 % of one core or more the process is CPU-bound: the same headroom
// line as a busy loop (kEluBusy).
inline constexpr double kCpuBoundCores = kEluBusy;

// --- garbage collection ----------------------------------------------------
// Share of wall time inside GC pauses. Measured under wrk -c50 (docs/thresholds.md):
// healthy and blocked samples stay at or under 6 %, allocation churn reaches
// 25 % and a never-evicting cache 64 %. 12 % sits between with margin both sides.
inline constexpr double kGcShareLimit = 0.12;
inline constexpr double kGcShareHigh = 0.30;
// When GC pauses account for this much of the loop's busy time, a high loop
// delay is the collector's doing: the verdict is gc-pressure, delay is evidence.
// Blocked samples measure <= 6 % (their stalls are the application's own
// code), GC-bound ones >= 25 %.
inline constexpr double kGcShareOfBusyForCause = 0.15;
// Heap used over this fraction of V8's limit: the next step is an OOM crash.
inline constexpr double kHeapNearLimit = 0.85;
// Heap growth over the window that marks a leak-like trend, bytes per second.
// Blocked and healthy samples grow 0.5-2 MB/s while warming up.
inline constexpr double kHeapGrowthLeakBytesPerS = 5.0 * 1024 * 1024;
// A leak that would exhaust V8's heap limit, or the container's memory limit
// (whichever it meets first), within this long is the first
// problem to fix, whatever else stalls the loop: a growing Map rehashes and
// old-space collections lengthen, so the stalls are the leak's doing too.
// (unbounded-cache: 80 MB/s, limit ~4 GB -> under a minute.)
inline constexpr double kLeakExhaustionS = 600;
// The share of a container's memory limit V8's heap may take: the rest is
// the process's code, thread stacks, Buffers and native allocations (RSS
// runs 20-30 % above the heap on the samples). A heap limit above it is
// flagged with the --max-old-space-size that fits.
inline constexpr double kHeapShareOfMemLimit = 0.75;

// --- memory outside the JS heap ---------------------------------------------
// Native memory (RSS minus heap_total) growing this fast, with the JS heap
// under kHeapGrowthLeakBytesPerS, is memory kept outside the heap: Buffers
// or native code. RSS warms up too (code, JIT, thread stacks): on the 24
// recordings in tests/data (2-6 s runs) native memory grew at most
// 6 MB/s (unbounded-cache, worker-stall 5.4), so the line sits above that.
inline constexpr double kNativeGrowthLeakBytesPerS = 10.0 * 1024 * 1024;
// ... and by at least this much over the window: the same recordings' RSS
// rose at most 30 MB outside the heap while warming up, so a short run's
// steep start is not called a leak.
inline constexpr double kNativeGrowthMinBytes = 64.0 * 1024 * 1024;
// External memory (Buffers) growing at least this share of native memory's
// growth names Buffers as what grows, not native code: half of it.
inline constexpr double kExternalShareOfNativeGrowth = 0.5;

// --- allocation sites (the probe's allocation sampling) ---------------------
// At most this many allocation sites are listed, as for the CPU's hotspots
// (profile_attribution.h kMaxHotspots): past the first few a table of
// shares stops being read.
inline constexpr std::size_t kMaxAllocationSites = 8;
// A site under 3 % of the growth or of the bytes allocated is not where the
// memory goes. At the probe's default interval (one sample per 128 KiB) a
// 2 s churn phase of 50 MB/s holds ~800 samples: 3 % is ~24 of them, above
// the sampling's noise.
inline constexpr double kMinAllocationShare = 0.03;
// A site's live bytes growing slower than this are not growth: between two
// points 2 s apart one sample more or less (128 KiB) moves a site's slope
// by 64 KiB/s, so twice that is the least that is not the sampling's noise.
inline constexpr double kMinSiteGrowthBytesPerS = 128.0 * 1024;

// --- I/O -------------------------------------------------------------------
// Evidence of load: at least this many requests per second reached the server.
inline constexpr double kMinLoadRps = 5;
// Server-side response time that counts as slow while the loop is idle.
inline constexpr double kIoLatencyMs = 50;
// Requests open at once, on average, that show queueing behind I/O.
inline constexpr double kIoMinInflight = 2;
// A request waits on I/O when its response takes at least this many times
// what the loop's own work explains: its CPU time, stretched by the queue for
// a loop that busy (S / (1 - busy), the response time of a single server with
// that utilisation). At 4x, three quarters of each request's time went
// waiting elsewhere. Measured (built-in load, 50 connections): io-bound
// samples 14-400x; loop-bound ones (hello-world at saturation, blocked
// samples) under 2x. No CPU or utilisation cut: a server whose requests spend
// 1.9 ms of CPU and 180 ms waiting is waiting at 0.3 cores or at 0.6.
inline constexpr double kIoWaitFactor = 4;
// Under this utilisation with no slow responses, the load was too light to judge.
inline constexpr double kLightLoadElu = 0.05;

// --- what the load measured (analyzer/timeline/load_outcome.h, analysers/http.cc) --
// Share of the load's requests that failed (a non-2xx status, or one of the
// load generator's errors: connect, read, write, timeout, parse) from which
// the run measured the failures, not the server's work: "most of them".
// Past half, every figure (req/s, latency, the loop's busy time) is mostly
// the server answering a 404 or a refusal -- 21307 of 21307 requests to an
// Express app with no `/` route answered 404 at 10228 req/s, "healthy" --
// so the run cannot vouch for the server's health. A failure share under
// it still shows in the key figures ("N failed").
inline constexpr double kLoadFailedShare = 0.5;
// A loop busy this share of the window or more while requests arrived had
// no idle time left: the load saturated the server, its req/s is its
// capacity at this load and its clients' latency is mostly the queue for
// it. The line a queue forms at (kEluBusy). Measured: hello-world and
// cached-response under -c 50 run at 0.84-0.93 on this 2-core machine,
// depending on what else runs; every blocked and GC-bound sample at 0.99+.
inline constexpr double kSaturatedElu = kEluBusy;
// The clients' latency p99 (the load generator's) from which the server's
// own, much shorter response time is no longer "normal" beside it: 1 s is
// where a person's flow of thought breaks (Nielsen's response-time limits),
// "seconds of latency"...
inline constexpr double kClientLatencyMs = 1000;
// ... when it is at least this many times the server-side mean response:
// three quarters or more of what a client waited passed before the server's
// handler saw its request (in the socket's queue, behind a busy loop). A
// server 35 ms per response beside clients' p99 of 8274 ms is 236x; a
// server waiting 2 s on an upstream, its clients 2.1 s, is 1.05x (that is
// io-bound's slow response, said by its own rule).
inline constexpr double kClientQueueFactor = 4;

// --- causes of an io-bound verdict (analyzer/verdicts/causes.cc) -------------------
// Outbound time to one destination per request, as a share of the server's
// response time, that makes it the cause: "most of each request's time".
inline constexpr double kUpstreamShare = 0.5;
// A pool is the bottleneck when its sockets stay at (at least this share
// of) their most, requests queue for one (at least this many on average)
// and the server holds this many times more requests in flight than there
// are sockets. small-pool (2 sockets, 50 connections): 48 waiting, 25x.
inline constexpr double kPoolSocketsSteady = 0.9;
inline constexpr double kPoolMinWaiting = 1;
inline constexpr double kPoolInflightFactor = 4;
// A pool whose queue publishes nothing (a database driver's over raw TCP,
// undici's without fetch) is full when its connections carried calls at
// least this share of the time (Little's law: calls x their time on the
// wire, over the time its lines cover and the connections open), with the server holding
// kPoolInflightFactor times more requests in flight. A full pool's
// connection idles only from a reply to the next queued call (the driver's
// turn through a free loop: well under a ms against a 10 ms query; measured
// 100 % on db-pool, 95 % on undici-pool), a pool with room far less while
// requests pile up at the server.
inline constexpr double kPoolBusyShare = 0.8;
// A one-byte job on the threadpool comes back in well under a millisecond
// on an idle pool (measured 0.05-0.5 ms), plus the loop's own delay in
// running its callback: on this shared machine under load, 1-30 ms (p50 of
// the intervals) with no threadpool use at all (slow-upstream). So the
// wait counts only past the loop's delay (p50 of its interval maxima): by
// this much, and this many times over it.
inline constexpr double kThreadpoolWaitMs = 20;
inline constexpr double kThreadpoolOverLoopDelay = 3;

// --- causes of a blocked loop (analyzer/timeline/process_warnings.cc) ---------------
// The listener Node warned about (MaxListenersExceededWarning) is the cause
// when it ran during at least half of the blocked time: then most of the
// stall is listeners piling up, not the work one request needs. A leaked
// listener's share only grows with the requests served (n listeners per emit).
inline constexpr double kListenerLeakShare = 0.5;
// The top hotspot (or all regular expressions together) names the kind of
// work that blocks when it ran during at least this share of the blocked
// time: then the advice for that kind fits most of the stall (pbkdf2-sync:
// 85 %; a second hotspot is rarely over 10 %).
inline constexpr double kBlockingKindShare = 0.3;

// --- cpu-starved -----------------------------------------------------------
// The cgroup throttled the process in this share of its scheduler periods
// (cpu.stat nr_throttled / nr_periods): at a quarter of periods, stalls of
// up to a period's remainder (tens of ms at the 100 ms default) recur
// several times a second.
inline constexpr double kThrottledPeriodsShare = 0.25;
// Without a quota, the stalls are the machine's when the loop's thread
// spent at least this share of them waiting in a run queue (three times
// as long as it ran, at most) ... A share, not a ratio to its run: a
// stall the thread spends neither running nor waiting (throttled by a
// quota, asleep) is no one's run-queue wait. A loop blocked by its own
// code runs through its stalls on a quiet machine; on a busy one it waits
// too: the recordings of blocked samples in tests/data, made on this
// shared machine, wait up to 77 % of their stalls (worker-stall), and the
// next test has to tell those apart anyway.
inline constexpr double kRunQueueStallWaitShare = 0.75;
// ... and, the wait taken out, no stall would remain: their p99 times the
// share of the p99-scale stalls' time the thread ran
// (WindowStats::stall_own_p99_ms) is under kBlockedIntervalMs, the line a
// stalled interval crosses. That
// product is about the CPU the loop's own work takes per turn: a blocked
// loop's is what stalls it (pbkdf2-sync, a batch of 10 ms hashes per turn:
// ~100 ms left beside four spinners on its CPU, where it waited 82 % of its
// stalls),
// a starved light server's a few ms stretched by the queue for a CPU
// (crowded-cpu beside the same spinners: ~30 ms). A stall timed by the wall clock (worker-stall's `while (Date.now() <
// end)`) runs less the more it waits: its recording here, made while it
// waited 77 % of its stalls, has 55 ms left, and stays blocked-loop.
// Under the stall limits (no blocked loop), a loop whose thread waited for a
// CPU this share of the whole window, delayed at p99 by kSyncRequestDelayMs
// or more, with no stall of its own once the wait is out, is starved too:
// crowded-cpu beside two spinners waited 71 % (72 % of its stalls), p99
// 86 ms, and read healthy; beside one, 55 % and p99 60 ms. Two thirds: the
// thread ran at most half as long as it waited.
inline constexpr double kRunQueueWindowWaitShare = 2.0 / 3.0;
// At least this much stalled time must lie between schedstat readings
// (five of the collector's 100 ms reads) for the shares to mean anything.
inline constexpr double kMinStallSchedMs = 500;
// When the loop's stalls were mostly a wait for a CPU (their wait share at
// least kRunQueueStallWaitShare), GC pauses stretch about twice as much as
// the code around them: V8's parallel scavenger hands work to helper
// threads that wait in the same run queue. Measured with 4 and 8 spinners
// on the target's CPU (samples/node/lib/crowd.js): scavenges 0.39 -> 5.3 ms
// mean while the thread ran 15 % of the time (a 6.5x stretch would be its
// share); blocked-queue's GC share 6-7 % alone, 14 % / 18-23 % crowded
// (with a wall-clock render 25-33 %: read as gc-pressure); alloc-churn
// 22-26 % alone, 44 % crowded; churn-buffers 41 %. So there GC explains the
// stalls only at twice kGcShareOfBusyForCause of the loop's busy time.
inline constexpr double kGcShareOfBusyForCauseCrowded = 2 * kGcShareOfBusyForCause;

}  // namespace loopdoctor::thresholds
