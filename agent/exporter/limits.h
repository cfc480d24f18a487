// Every bound the agent enforces, with its unit and the reason for it. The
// agent runs for weeks next to production processes, so each bound protects
// memory, CPU or cardinality against a long uptime or a hostile probe.
#pragma once

#include <cstddef>

#include "analyzer/timeline/timeline.h"

namespace loopdoctor::exporter {

// --- rolling analysis --------------------------------------------------------
// The window each process is diagnosed over (`--window`). One minute matches
// the usual `for: 1m` of alerting rules and holds 60 samples at 1 Hz, more than
// the analyzer's minimum of 20.
inline constexpr double kDefaultWindowMs = 60'000;
// How often each process's verdict is recomputed. Alerting rules hold a
// condition for a minute; a few seconds of lag is invisible there and keeps
// 500 analyses well under 1 % of a core.
inline constexpr double kAnalysisPeriodMs = 2'000;
// How often disconnected and vanished processes are swept and attached
// processes sampled from /proc.
inline constexpr double kSweepPeriodMs = 1'000;

// --- memory per process --------------------------------------------------------
// At most this many probe samples are kept per window; a faster probe has
// consecutive samples merged (max, worst percentile, sums) before they are
// stored, so no spike is lost and memory stays ~0.5 MB per process at 100 Hz.
inline constexpr std::size_t kMaxSamplesPerWindow = 600;
// GC events kept per window. A GC storm (hundreds of scavenges a second)
// beyond this has new events merged into the previous one of the same kind:
// the total pause time, which the verdict uses, is kept.
inline constexpr std::size_t kMaxGcEventsPerWindow = 3'000;
// Block captures kept per window, for the report's attribution. The native
// probe captures a blocked loop every 20 ms: 1 500 is 30 s of a loop blocked
// without pause, half a default window, and at most ~1 500 x 16 frames of
// ~150 bytes (~3.6 MB) for a process blocked all the time. Older captures go
// first; the counters (/metrics) count every line whatever is kept.
inline constexpr std::size_t kMaxBlockCapturesPerWindow = 1'500;
// The allocation sampling a window keeps (docs/contracts.md, "Memory by
// site"): the probe's last churn phase, and the points of its current live
// phase (one every 10 s for 60 s: 7 with the one at its end). A line is
// under 1 MiB, so a process keeps at most ~8 MiB of them.
inline constexpr std::size_t kMaxAllocPointsPerWindow = 7;
// Frames kept of each capture: the attribution reads the innermost frames
// (the blocking function and its callers); the probe sends up to 64.
inline constexpr std::size_t kMaxBlockFramesKept = 16;
// How often the CPU each known process waited for is read (cpu_wait_sweep.h).
// The figures are counters, so a slower read loses nothing but freshness
// (Prometheus scrapes every 15 s or so); measured at 60 us a process (7
// threads: a task listing and 7 schedstat files) on this 2-core machine under
// a load average of 8, 500 processes cost ~30 ms a read: every 5 s, ~0.6 %
// of a core.
inline constexpr double kCpuWaitPeriodMs = 5'000;
// /proc samples kept per window for attached processes (1 Hz sampling).
inline constexpr std::size_t kMaxProcSamplesPerWindow = 600;

// --- hostile or broken probes ---------------------------------------------------
// A probe at 100 Hz sends ~100 samples and a few hundred GC events a second.
// Ten times that, sustained, is a flood; the burst allows a reconnecting probe
// to flush what it held.
inline constexpr double kFloodMessagesPerSecond = 5'000;
inline constexpr double kFloodBurstMessages = 20'000;
// Bytes per second at the same margin (a sample is ~0.5 KB).
inline constexpr double kFloodBytesPerSecond = 8.0 * 1024 * 1024;
inline constexpr double kFloodBurstBytes = 32.0 * 1024 * 1024;
// A connection must say hello this soon, or it holds a socket for nothing.
inline constexpr double kHelloTimeoutMs = 10'000;
// Loops of one process with series of their own (its main thread
// included): the analyzer's bound (kMaxLoopsPerProcess), so every loop the
// agent exports is also one it diagnoses. The probe samples at most 64
// workers; a worker past this bound has its series folded into one
// thread="other" entry per process and counted (loopdoctor_threads_folded).
inline constexpr std::size_t kMaxThreadsPerProcess = kMaxLoopsPerProcess;
// Each handle type becomes a series: cap them (Node has ~30 resource types).
inline constexpr std::size_t kMaxHandleTypes = 64;
inline constexpr std::size_t kMaxLabelValueBytes = 128;
// argv is shown in /processes and the report; a huge argv is truncated.
inline constexpr std::size_t kMaxArgvEntries = 32;
// File descriptors are the limit on connections; beyond this, new ones are
// refused with a log line instead of starving the HTTP server of fds.
inline constexpr std::size_t kMaxProbeConnections = 4'096;

// --- HTTP ---------------------------------------------------------------------------
// Scrapes, /processes and reports are served by this many civetweb threads: a
// report render does not hold up a scrape.
inline constexpr int kHttpThreads = 4;

}  // namespace loopdoctor::exporter
