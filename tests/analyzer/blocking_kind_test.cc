// The kind of work behind a blocked loop (analyzer/verdicts/blocking_kind.cc), from
// hotspots and flames shaped as Node 20's profiles show them (measured:
// pbkdf2Sync at node:internal/crypto/pbkdf2, Hash.update at
// node:internal/crypto/hash, gzipSync as syncBufferWrapper at node:zlib,
// readFileSync at node:fs, "RegExp: ^(a+)+b$" with no URL; JSON.stringify
// inlined into its caller).
#include <catch2/catch.hpp>

#include "analyzer/verdicts/blocking_kind.h"
#include "analyzer/verdicts/causes.h"

using namespace loopdoctor;
using profile::FlameNode;
using profile::FrameKind;

namespace {

const LoopRef kMainThread{};
const LoopRef kWorkerThread{0, 1};

// The cause attach_causes gives a blocked-loop issue with no listener
// warning: blocking_kind_cause's.
void attach_blocking_kind(const profile::Attribution& a, const LoopRef& loop, Diagnosis* dx) {
  Issue& i = dx->issues.front();
  if (!i.cause.present()) i.cause = blocking_kind_cause(i, a, loop);
}

Diagnosis blocked_with(Hotspot top) {
  Diagnosis dx;
  Issue i;
  i.kind = Verdict::kBlockedLoop;
  i.hotspots.push_back(std::move(top));
  dx.issues.push_back(i);
  return dx;
}

CauseKind kind_for(Hotspot top, const profile::Attribution& a = {}) {
  Diagnosis dx = blocked_with(std::move(top));
  attach_blocking_kind(a, kMainThread, &dx);
  return dx.issues.front().cause.kind;
}

Hotspot node_call(std::string fn, std::string loc, double share = 0.84) {
  Hotspot h;
  h.function = std::move(fn), h.location = std::move(loc), h.share = share;
  h.caller = "handler (server.js:16)";
  return h;
}

}  // namespace

TEST_CASE("the top hotspot's call into Node names the kind of blocking work") {
  CHECK(kind_for(node_call("pbkdf2Sync", "node:internal/crypto/pbkdf2:62")) == CauseKind::kSyncCrypto);
  CHECK(kind_for(node_call("update", "node:internal/crypto/hash:131")) == CauseKind::kSyncCrypto);
  CHECK(kind_for(node_call("readFileSync", "node:fs:440")) == CauseKind::kSyncFs);
  CHECK(kind_for(node_call("syncBufferWrapper", "node:zlib:765")) == CauseKind::kSyncZlib);
  CHECK(kind_for(node_call("gzipSync", "node:zlib:765")) == CauseKind::kSyncZlib);
  // Asynchronous forms, other modules and a small share say nothing.
  CHECK(kind_for(node_call("readFile", "node:fs:300")) == CauseKind::kNone);
  CHECK(kind_for(node_call("end", "node:_http_outgoing:1034")) == CauseKind::kNone);
  CHECK(kind_for(node_call("pbkdf2Sync", "node:internal/crypto/pbkdf2:62", 0.2)) == CauseKind::kNone);
  CHECK(kind_for(node_call("readFileSync", "node:fsx:1")) == CauseKind::kNone);
}

TEST_CASE("the first recommendation of sync crypto names the call and its asynchronous form") {
  Diagnosis dx = blocked_with(node_call("pbkdf2Sync", "node:internal/crypto/pbkdf2:62"));
  attach_blocking_kind({}, kMainThread, &dx);
  const Cause& c = dx.issues.front().cause;
  CHECK(c.line() == "sync-crypto pbkdf2Sync (node:internal/crypto/pbkdf2:62), 84 % of the time the loop was blocked");
  CHECK(c.advice.starts_with("`pbkdf2Sync` (node:internal/crypto/pbkdf2:62), called from handler (server.js:16), "
                             "ran during 84 % of the time the loop was blocked. A synchronous crypto call"));
  CHECK(c.advice.find("`crypto.pbkdf2`") != std::string::npos);
}

TEST_CASE("sync crypto on a worker thread's loop is not sent to a worker thread") {
  Diagnosis main = blocked_with(node_call("pbkdf2Sync", "node:internal/crypto/pbkdf2:62"));
  attach_blocking_kind({}, kMainThread, &main);
  const std::string& off_main = main.issues.front().cause.advice;
  CHECK(off_main.ends_with("hash a large body in chunks as it arrives, or in a worker thread."));
  Diagnosis worker = blocked_with(node_call("pbkdf2Sync", "node:internal/crypto/pbkdf2:62"));
  attach_blocking_kind({}, kWorkerThread, &worker);
  const Cause& c = worker.issues.front().cause;
  CHECK(c.kind == CauseKind::kSyncCrypto);
  CHECK(c.advice.find("`crypto.pbkdf2`") != std::string::npos);
  CHECK(c.advice.find("in a worker thread") == std::string::npos);
  CHECK(c.advice.ends_with("hash a large body in chunks as it arrives. This loop is a worker thread's already: "
                           "if it also runs other jobs, give these a worker (or a pool) of their own so the "
                           "others stop queuing behind them."));
}

TEST_CASE("a hot line calling JSON names json") {
  Hotspot h = node_call("render", "server.js:24", 0.6);
  h.hot_line_text = "const json = JSON.stringify(doc);";
  Diagnosis dx = blocked_with(h);
  attach_blocking_kind({}, kMainThread, &dx);
  CHECK(dx.issues.front().cause.kind == CauseKind::kJson);
  CHECK(dx.issues.front().cause.advice.find("its hottest line calls JSON: `const json = JSON.stringify(doc);`") !=
        std::string::npos);
}

TEST_CASE("compiled regular expressions that hold the blocked time name regex") {
  FlameNode re{"RegExp: ^(a+)+b$", "", FrameKind::kNative, 56, {}};
  FlameNode rx{"rx", "server.js:6", FrameKind::kApplication, 71, {re}};
  profile::Attribution a;
  a.present = true, a.samples = 100;
  a.flame = FlameNode{"(root)", "", FrameKind::kRoot, 100, {rx}};
  Diagnosis dx = blocked_with(node_call("rx", "server.js:6", 0.71));
  attach_blocking_kind(a, kMainThread, &dx);
  CHECK(dx.issues.front().cause.line() == "regex /^(a+)+b$/, 56 % of the time the loop was blocked");
  a.flame.children[0].children[0].samples = 10;
  dx.issues.front().cause = {};
  attach_blocking_kind(a, kMainThread, &dx);
  CHECK_FALSE(dx.issues.front().cause.present());
}

TEST_CASE("attach_causes: an issue with a cause keeps it and other verdicts get no blocking kind") {
  const Timeline tl;
  const WindowStats st;
  const profile::Attribution none;
  const std::vector<WarningSummary> no_warnings;
  const CauseInputs in{tl, Window{}, st, none, no_warnings};
  Diagnosis dx = blocked_with(node_call("pbkdf2Sync", "node:internal/crypto/pbkdf2:62"));
  dx.issues.front().cause.kind = CauseKind::kListenerLeak;
  attach_causes(in, &dx);
  CHECK(dx.issues.front().cause.kind == CauseKind::kListenerLeak);
  dx = blocked_with(node_call("pbkdf2Sync", "node:internal/crypto/pbkdf2:62"));
  attach_causes(in, &dx);
  CHECK(dx.issues.front().cause.kind == CauseKind::kSyncCrypto);
  dx = blocked_with(node_call("pbkdf2Sync", "node:internal/crypto/pbkdf2:62"));
  dx.issues.front().kind = Verdict::kGcPressure;
  attach_causes(in, &dx);
  CHECK_FALSE(dx.issues.front().cause.present());
}

TEST_CASE("a hotspot that runs as a listener with no warning recorded says so and what to check") {
  Hotspot h = node_call("bus.on('request') listener", "server.js:18", 0.6);
  h.hot_line_text = "lastAudit = JSON.stringify({ route, seq: info.seq });";
  FlameNode listener{h.function, "server.js:18", FrameKind::kApplication, 60, {}};
  FlameNode emit{"emit", "node:events:471", FrameKind::kNode, 62, {listener}};
  FlameNode handler{"(anonymous)", "server.js:15", FrameKind::kApplication, 100, {emit}};
  profile::Attribution a;
  a.present = true, a.samples = 100;
  a.flame = FlameNode{"(root)", "", FrameKind::kRoot, 100, {handler}};
  Diagnosis dx = blocked_with(h);
  attach_blocking_kind(a, kMainThread, &dx);
  CHECK(dx.issues.front().cause.kind == CauseKind::kJson);
  // Before the kind's advice: the listeners' count, not JSON, may be the problem.
  CHECK(dx.issues.front().cause.advice.find("compare `emitter.listenerCount(event)` over time. JSON.stringify walks") !=
        std::string::npos);
  CHECK(dx.issues.front().cause.pattern == "stringify-per-request");
  // Emitted by node itself (an HTTP server's request handler): not a listener
  // of the application's event.
  a.flame.children[0].kind = FrameKind::kNode;
  dx = blocked_with(h);
  attach_blocking_kind(a, kMainThread, &dx);
  CHECK(dx.issues.front().cause.advice.find("event listener") == std::string::npos);
  // Not under emit: no such sentence.
  a.flame.children[0].kind = FrameKind::kApplication;
  a.flame.children[0].children[0].function = "dispatch";
  dx = blocked_with(h);
  attach_blocking_kind(a, kMainThread, &dx);
  CHECK(dx.issues.front().cause.advice.find("event listener") == std::string::npos);
}
