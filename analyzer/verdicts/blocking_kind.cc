#include "analyzer/verdicts/blocking_kind.h"

#include <string_view>

#include <fmt/format.h>

#include "analyzer/verdicts/block_patterns.h"

namespace loopdoctor {
namespace {

bool is_emit(const profile::FlameNode& n) { return n.function == "emit" && n.location.starts_with("node:events"); }

// True when a flame frame at `location` is called by EventEmitter's emit
// from the application's own code: a listener of an event the application
// emits (an HTTP server's request handler, emitted by node:_http_server,
// is not one).
bool called_by_emit(const profile::FlameNode& n, const std::string& location) {
  for (const auto& e : n.children) {
    if (n.kind == profile::FrameKind::kApplication && is_emit(e))
      for (const auto& c : e.children)
        if (c.location == location) return true;
    if (called_by_emit(e, location)) return true;
  }
  return false;
}

// Said of a listener whose kind is named while Node gave no
// MaxListenersExceededWarning (else the cause is listener-leak): only what
// the profile shows, and what to check.
constexpr const char* kListenerNote =
    " It runs as an event listener (EventEmitter's emit calls it) and no MaxListenersExceededWarning "
    "was recorded: if one is added per request and never removed (a raised or removed limit hides the "
    "warning), every emit runs them all; compare `emitter.listenerCount(event)` over time.";

// Where a large hash can go besides the threadpool (chunks fit any loop). A
// main thread can hand it to a worker thread. A worker's loop already is
// one, and another worker would only move its queue: what fits there is a
// worker or pool of its own for these jobs, so the others stop waiting.
constexpr const char* kCryptoOffMainThread = ", or in a worker thread.";
constexpr const char* kCryptoOnWorker =
    ". This loop is a worker thread's already: if it also runs other jobs, give these a worker (or a "
    "pool) of their own so the others stop queuing behind them.";

// The first step of a pattern as this loop takes it.
std::string step_for(const BlockPatternEntry& e, bool on_worker) {
  std::string step(e.step);
  if (e.pattern == BlockPattern::kSyncCrypto) step += on_worker ? kCryptoOnWorker : kCryptoOffMainThread;
  return step;
}

}  // namespace

Cause blocking_kind_cause(const Issue& issue, const profile::Attribution& a, const LoopRef& loop) {
  const bool on_worker = loop.thread != 0;
  const std::string of = issue.hotspots_blocked_time ? "of the time the loop was blocked" : "of the CPU profile";
  const std::optional<PatternMatch> m = best_block_pattern({issue, a, of});
  if (!m) return {};
  const BlockPatternEntry& e = block_pattern(m->pattern);
  // Before the pattern's advice: the listeners' count, not their work, may be the problem.
  const bool listener = a.present && !m->location.empty() && called_by_emit(a.flame, m->location);
  Cause c{e.cause, m->subject, m->detail,
          fmt::format("{}.{} {} {}", m->seen, listener ? kListenerNote : "", e.why, step_for(e, on_worker))};
  c.pattern = e.name;
  return c;
}

}  // namespace loopdoctor
