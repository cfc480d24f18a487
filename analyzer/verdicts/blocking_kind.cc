#include "analyzer/verdicts/blocking_kind.h"

#include <string_view>

#include <fmt/format.h>

#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"

namespace loopdoctor {
namespace {

bool in(std::string_view location, std::string_view module) {
  return location.starts_with(module) &&
         (location.size() == module.size() || location[module.size()] == ':' || location[module.size()] == '/');
}

bool sync_call(const Hotspot& h) { return std::string_view(h.function).ends_with("Sync"); }

// The kind of a hotspot that is a call into Node (or a line calling JSON).
CauseKind kind_of(const Hotspot& h) {
  const std::string_view loc = h.location;
  if (in(loc, "node:internal/crypto") || in(loc, "node:crypto"))
    return sync_call(h) || in(loc, "node:internal/crypto/hash") ? CauseKind::kSyncCrypto : CauseKind::kNone;
  if (in(loc, "node:fs") || in(loc, "node:internal/fs")) return sync_call(h) ? CauseKind::kSyncFs : CauseKind::kNone;
  // zlib's *Sync functions are made by syncBufferWrapper, which the profile names.
  if (in(loc, "node:zlib"))
    return sync_call(h) || h.function == "syncBufferWrapper" ? CauseKind::kSyncZlib : CauseKind::kNone;
  if (h.hot_line_text.find("JSON.parse(") != std::string::npos ||
      h.hot_line_text.find("JSON.stringify(") != std::string::npos)
    return CauseKind::kJson;
  return CauseKind::kNone;
}

constexpr std::string_view kRegExpPrefix = "RegExp: ";

// Samples in compiled regular expressions, and the busiest one's source.
void regexp_samples(const profile::FlameNode& n, double* samples, double* top, std::string* source) {
  if (std::string_view(n.function).starts_with(kRegExpPrefix)) {
    *samples += n.samples;
    if (n.samples > *top) *top = n.samples, *source = n.function.substr(kRegExpPrefix.size());
    return;
  }
  for (const auto& c : n.children) regexp_samples(c, samples, top, source);
}

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

std::string named(const Hotspot& h) {
  return fmt::format("`{}` ({}){}", h.function, h.location, h.caller.empty() ? "" : ", called from " + h.caller + ",");
}

// Where a large hash can go besides the threadpool (chunks fit any loop). A
// main thread can hand it to a worker thread. A worker's loop already is
// one, and another worker would only move its queue: what fits there is a
// worker or pool of its own for these jobs, so the others stop waiting.
constexpr const char* kCryptoOffMainThread = ", or in a worker thread.";
constexpr const char* kCryptoOnWorker =
    ". This loop is a worker thread's already: if it also runs other jobs, give these a worker (or a "
    "pool) of their own so the others stop queuing behind them.";

std::string kind_advice(CauseKind k, bool on_worker) {
  switch (k) {
    case CauseKind::kSyncCrypto:
      return std::string("A synchronous crypto call holds the loop for its whole run. Use its asynchronous form "
                         "(`crypto.pbkdf2`, `crypto.scrypt`, `crypto.randomBytes` with a callback, or "
                         "`crypto.subtle`), which runs on the threadpool; hash a large body in chunks as it "
                         "arrives") +
             (on_worker ? kCryptoOnWorker : kCryptoOffMainThread);
    case CauseKind::kSyncFs:
      return "A synchronous fs call waits for the disk on the loop. Use `fs.promises` (or a stream for "
             "a large file), or read a file that does not change once at start-up and keep it in memory.";
    case CauseKind::kSyncZlib:
      return "Synchronous compression holds the loop for the whole body. Use `zlib.gzip` with a "
             "callback (on the threadpool) or a stream (`zlib.createGzip()` piped into the response), "
             "or compress a body that does not change once and cache it.";
    case CauseKind::kJson:
      return "JSON.parse and JSON.stringify run on the loop for the whole size of the object. Send "
             "and accept less (paginate, pick fields, cap body size), cache the serialised string of "
             "an object that does not change, or stream it with a streaming serialiser or parser.";
    case CauseKind::kRegex:
      return "A regular expression that backtracks takes time exponential in its input. Rewrite it "
             "without nested or overlapping quantifiers (`(a+)+`, `(.*)*`), bound the input's length "
             "before matching, or use a linear-time engine (re2).";
    default: return "";
  }
}

// `listener`: the sentence of a hotspot that runs as an event listener, said
// before the kind's advice (its count, not its kind, may be the problem).
Cause hotspot_cause(const Hotspot& h, CauseKind k, const std::string& of, const std::string& listener,
                    bool on_worker) {
  const std::string what = k == CauseKind::kJson ? fmt::format("its hottest line calls JSON: `{}`", h.hot_line_text)
                                                 : std::string("a synchronous call");
  return {k, fmt::format("{} ({})", h.function, h.location),
          fmt::format("{} {}{}", analysers::pct(h.share), of,
                      k == CauseKind::kJson ? ", on a line calling JSON" : ""),
          fmt::format("{} ran during {} {}{}.{} {}", named(h), analysers::pct(h.share), of,
                      k == CauseKind::kJson ? "; " + what : "", listener, kind_advice(k, on_worker))};
}

Cause regex_cause(const profile::Attribution& a, const std::string& of) {
  double samples = 0, top = 0;
  std::string source;
  regexp_samples(a.flame, &samples, &top, &source);
  const double share = a.samples > 0 ? samples / static_cast<double>(a.samples) : 0;
  if (share < thresholds::kBlockingKindShare) return {};
  return {CauseKind::kRegex, "/" + source + "/", fmt::format("{} {}", analysers::pct(share), of),
          fmt::format("The regular expression `/{}/` ran during {} {}. {}", source, analysers::pct(share), of,
                      kind_advice(CauseKind::kRegex, false))};
}

}  // namespace

Cause blocking_kind_cause(const Issue& issue, const profile::Attribution& a, const LoopRef& loop) {
  const bool on_worker = loop.thread != 0;
  const std::string of = issue.hotspots_blocked_time ? "of the time the loop was blocked" : "of the CPU profile";
  if (!issue.hotspots.empty()) {
    const Hotspot& top = issue.hotspots.front();
    if (const CauseKind k = kind_of(top); k != CauseKind::kNone && top.share >= thresholds::kBlockingKindShare) {
      const bool listener = a.present && called_by_emit(a.flame, top.location);
      return hotspot_cause(top, k, of, listener ? kListenerNote : "", on_worker);
    }
  }
  if (a.present && issue.hotspots_source == HotspotSource::kCpuProfile) return regex_cause(a, of);
  return {};
}

}  // namespace loopdoctor
