// What is behind a verdict (DESIGN "Extensions agreed": issues[].cause), from
// a fixed vocabulary documented in docs/verdicts.md ("What is behind it: causes").
// Every output formats one Cause: JSON, report, Markdown and terminal.
#pragma once

#include <string>
#include <string_view>

namespace loopdoctor {

enum class CauseKind {
  kNone,            // no cause found or none looked for
  kUpstream,        // io-bound: outbound calls to one destination take most of each request
  kConnectionPool,  // io-bound: requests wait for one of N sockets to a destination
  kThreadpool,      // io-bound: work waits in libuv's threadpool queue
  kCpuQuota,        // cpu-starved: the cgroup's CPU quota throttled the process
  kRunQueue,        // cpu-starved: the loop's thread waited in a run queue through its stalls
  kListenerLeak,    // blocked-loop / gc-pressure: a listener added per request piles up
  // blocked-loop: the kind of work the top hotspot does (blocking_kind.h)
  kSyncCrypto,      // pbkdf2Sync, scryptSync, createHash().update/digest
  kJson,            // JSON.parse / JSON.stringify on the hottest line
  kRegex,           // compiled regular expressions ("RegExp: ..." frames)
  kSyncFs,          // readFileSync and the other fs *Sync calls
  kSyncZlib,        // gzipSync and the other zlib *Sync calls
  kServerRender,    // a server-side render (react-dom's renderToString, ...)
  kTemplateCompile, // a template engine compiling templates per request
  kTemplateRender,  // a template engine rendering large pages (compiled once or not)
  kSyncLogger,      // a logger or console.log writing synchronously
};

// The JSON word: "upstream", "connection-pool", ...; "" for kNone.
const char* to_string(CauseKind k);

struct Cause {
  CauseKind kind = CauseKind::kNone;
  // What it names: a destination ("127.0.0.1:9001"), a pool ("4 threads"),
  // the quota ("10 ms per 100 ms"); may be empty.
  std::string subject;
  // The figures behind it, for a person: "p50 180 ms of 190 ms per request".
  std::string detail;
  // The first recommendation, naming the subject (precedes the verdict's own).
  std::string advice;
  // The pattern of blocking work whose first step `advice` gives, as the
  // JSON names it (block_patterns.h: "stringify-per-request"); "" for none.
  std::string_view pattern = {};

  bool present() const { return kind != CauseKind::kNone; }
  // "upstream 127.0.0.1:9001, p50 180 ms of 190 ms per request": the one
  // phrase every output shows after "cause:".
  std::string line() const;
};

}  // namespace loopdoctor
