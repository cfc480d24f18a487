#include "analyzer/verdicts/advice.h"

namespace loopdoctor {

std::string_view advice_file(Advice a) {
  switch (a) {
    case Advice::kVerdict: return "";
    case Advice::kGcLeak: return "gc-pressure-leak";
    case Advice::kGcGrowth: return "gc-pressure-growth";
    case Advice::kGcNative: return "gc-pressure-native";
    case Advice::kBlockedWorker: return "blocked-loop-worker";
    case Advice::kPoolSaturated: return "blocked-loop-pool-saturated";
    case Advice::kRunQueue: return "cpu-starved-run-queue";
    case Advice::kTargetExited: return "insufficient-data-exited";
    case Advice::kLoadFailed: return "insufficient-data-load-failed";
    case Advice::kNoLoad: return "insufficient-data-no-load";
    case Advice::kSaturated: return "healthy-saturated";
  }
  return "";
}

std::string_view hotspot_action(Advice a) {
  switch (a) {
    case Advice::kBlockedWorker:
    case Advice::kPoolSaturated: return "Split that job into smaller pieces or make it cheaper";
    case Advice::kVerdict:
    case Advice::kRunQueue:
    case Advice::kTargetExited:
    case Advice::kLoadFailed:
    case Advice::kNoLoad:
    case Advice::kSaturated:
    case Advice::kGcLeak:
    case Advice::kGcGrowth:
    case Advice::kGcNative: break;
  }
  return "Make that call asynchronous, move it to a worker thread or make it cheaper";
}

const char* to_string(AllocPattern p) {
  switch (p) {
    case AllocPattern::kNone: return "";
    case AllocPattern::kUnboundedCache: return "unbounded-cache";
    case AllocPattern::kListeners: return "listeners";
    case AllocPattern::kTimerClosure: return "timer-closure";
    case AllocPattern::kSessionStore: return "session-store";
    case AllocPattern::kBuffers: return "buffers";
  }
  return "";
}

std::string_view alloc_pattern_advice(AllocPattern p, bool kept) {
  switch (p) {
    case AllocPattern::kUnboundedCache:
      return "Its line stores into a Map, an array or a cache that nothing evicts from: bound it (an LRU with a "
             "maximum size or a TTL), key it by something that repeats, or hold the values in a WeakMap keyed by "
             "the object that owns them.";
    case AllocPattern::kListeners:
      return "It adds an event listener, and listeners added per request stay until removed: add it once outside "
             "the handler, use `once`, or remove it (`off`) when the request ends.";
    case AllocPattern::kTimerClosure:
      return "It runs under a timer: an interval's callback and everything its closure refers to stay alive "
             "until `clearInterval`; clear it when its work is done, or keep the closure from capturing the "
             "request's objects.";
    case AllocPattern::kSessionStore:
      return "Sessions are kept in an in-memory store (express-session's MemoryStore): every session stays in "
             "the process until it expires, and the store is meant for development only. Use a session store "
             "with eviction (Redis, a database), or shorten `cookie.maxAge` and do not create sessions for "
             "requests that need none (`saveUninitialized: false`).";
    case AllocPattern::kBuffers:
      return "It allocates Buffers, whose bytes live outside the JS heap: find what keeps them (a module-level "
             "array or Map of bodies or chunks, a paused stream) and release them or copy the few bytes you need.";
    case AllocPattern::kNone: break;
  }
  if (!kept)
    return "No known pattern was recognised in its frames or its code: allocate less there -- reuse objects "
           "and buffers, avoid intermediate arrays and copies (`map().filter()` chains, spreads, "
           "`JSON.parse(JSON.stringify(x))`), and stream large results instead of building them whole.";
  return "No known pattern was recognised in its frames or its code: take a heap snapshot under load "
         "(`--heap-snapshot`) and follow the retainers of what it allocates in Chrome DevTools.";
}

}  // namespace loopdoctor
