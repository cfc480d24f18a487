// The target's process warnings (analyzer/timeline/process_warnings.cc): summed over
// the run, and a MaxListenersExceededWarning read as the cause listener-leak.
#include <catch2/catch.hpp>

#include "analyzer/timeline/process_warnings.h"

using namespace loopdoctor;
using nlohmann::json;
using profile::FlameNode;
using profile::FrameKind;

namespace {

constexpr const char* kNode20Text =
    "Possible EventEmitter memory leak detected. 11 after listeners added to [App]. Use "
    "emitter.setMaxListeners() to increase limit";

WarningSummary leak_warning(std::string location = "server.js:20") {
  return {"MaxListenersExceededWarning", kNode20Text, "", 1, 250, std::move(location),
          "app.on('after', (done) => { done.etag = bodyHash(body); });"};
}

// 100 blocked samples: `in_listener` of them below the listener defined at
// server.js:20 (handler -> emit -> listener -> bodyHash), the rest in the handler.
profile::Attribution blocked_profile(double in_listener) {
  FlameNode hash{"bodyHash", "util.js:6", FrameKind::kApplication, in_listener, {}};
  FlameNode listener{"(anonymous)", "server.js:20", FrameKind::kApplication, in_listener, {hash}};
  FlameNode emit{"emit", "node:events:517", FrameKind::kNode, in_listener, {listener}};
  FlameNode handler{"(anonymous)", "server.js:18", FrameKind::kApplication, 100, {emit}};
  profile::Attribution a;
  a.present = true, a.blocked_only = true, a.samples = 100;
  a.flame = FlameNode{"(root)", "", FrameKind::kRoot, 100, {handler}};
  return a;
}

Diagnosis blocked_dx() {
  Diagnosis dx;
  Issue i;
  i.kind = Verdict::kBlockedLoop;
  dx.issues.push_back(i);
  return dx;
}

}  // namespace

// As attach_causes does for each issue without a cause.
void attach_listener_leak(const std::vector<WarningSummary>& ws, const profile::Attribution& a, Diagnosis* dx) {
  for (Issue& issue : dx->issues)
    if (!issue.cause.present()) issue.cause = listener_leak_cause(ws, a, dx->stats, &issue);
}

TEST_CASE("parse_max_listeners reads the emitter the event and the count of Node's text") {
  auto w = parse_max_listeners(kNode20Text);
  REQUIRE(w);
  CHECK(w->emitter == "App");
  CHECK(w->event == "after");
  CHECK(w->listeners == 11);
  w = parse_max_listeners(
      "Possible EventTarget memory leak detected. 11 abort listeners added to [AbortSignal]. Use "
      "events.setMaxListeners() to increase limit");
  REQUIRE(w);
  CHECK(w->emitter == "AbortSignal");
  CHECK(w->event == "abort");
  CHECK_FALSE(parse_max_listeners("Buffer() is deprecated"));
  CHECK_FALSE(parse_max_listeners("x listeners added to [A]"));
}

TEST_CASE("a listener Node warned about that holds most of the blocked time is the cause listener-leak") {
  Diagnosis dx = blocked_dx();
  attach_listener_leak({leak_warning()}, blocked_profile(83), &dx);
  const Issue& i = dx.issues.front();
  REQUIRE(i.cause.kind == CauseKind::kListenerLeak);
  CHECK(i.cause.line() ==
        "listener-leak App \"after\" listeners, added at server.js:20, 83 % of the time the loop was blocked in them");
  CHECK(i.cause.advice.find("at server.js:20 (`app.on('after'") != std::string::npos);
  CHECK(i.cause.advice.find("Node warned at 11 listeners") != std::string::npos);
  REQUIRE(i.evidence.size() == 1);
  CHECK(i.evidence[0].signal == "listener_leak_share");
  CHECK(i.evidence[0].value == Approx(0.83));
}

TEST_CASE("no listener-leak cause without the warning or when the listener holds little of the blocked time") {
  Diagnosis dx = blocked_dx();
  attach_listener_leak({}, blocked_profile(83), &dx);
  CHECK_FALSE(dx.issues.front().cause.present());
  attach_listener_leak({leak_warning()}, blocked_profile(30), &dx);
  CHECK_FALSE(dx.issues.front().cause.present());
  // The warning names another line than the one the time went to.
  attach_listener_leak({leak_warning("server.js:44")}, blocked_profile(83), &dx);
  CHECK_FALSE(dx.issues.front().cause.present());
  CHECK(dx.issues.front().evidence.empty());
}

TEST_CASE("a listener warning beside a growing heap is the gc-pressure issue's cause") {
  Diagnosis dx;
  Issue i;
  i.kind = Verdict::kGcPressure;
  dx.issues.push_back(i);
  dx.stats.heap_growth_bytes_per_s = 8 * 1048576.0;
  attach_listener_leak({leak_warning()}, profile::Attribution{}, &dx);
  CHECK(dx.issues.front().cause.line() == "listener-leak App \"after\" listeners, added at server.js:20, the heap grew 8.0 MB/s");
  dx.issues.front().cause = {};
  dx.stats.heap_growth_bytes_per_s = 1 * 1048576.0;
  attach_listener_leak({leak_warning()}, profile::Attribution{}, &dx);
  CHECK_FALSE(dx.issues.front().cause.present());
}

TEST_CASE("warnings are summed over the run and listed most frequent first") {
  auto line = [](double t, json warnings) {
    return json{{"type", "process-warnings"}, {"t", t}, {"interval_ms", 1000}, {"warnings", warnings}};
  };
  const json dep = {{"name", "DeprecationWarning"}, {"message", "Buffer() is deprecated"}, {"code", "DEP0005"},
                    {"count", 2}, {"first_t", 900}};
  json dep2 = dep;
  dep2["count"] = 3, dep2["first_t"] = 1900;
  const json leak = {{"name", "MaxListenersExceededWarning"}, {"message", kNode20Text}, {"count", 1},
                     {"first_t", 400},
                     {"frame", {{"function", ""}, {"url", "/nonexistent/app/server.js"}, {"line", 20}, {"column", 7}}}};
  Timeline tl = build_timeline({line(1000, json::array({dep, leak})), line(2000, json::array({dep2}))});
  const auto ws = summarize_warnings(tl, nullptr);
  REQUIRE(ws.size() == 2);
  CHECK(ws[0].name == "DeprecationWarning");
  CHECK(ws[0].code == "DEP0005");
  CHECK(ws[0].count == 5);
  CHECK(ws[1].name == "MaxListenersExceededWarning");
  CHECK(ws[1].location.ends_with("server.js:20"));
  CHECK(ws[0].first_at_ms == Approx(ws[1].first_at_ms + 500));
}
