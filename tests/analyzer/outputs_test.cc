// The text outputs (terminal, Markdown) format the one diagnosis: the same
// figures, the same issues.
#include <catch2/catch.hpp>

#include <sstream>

#include <fmt/format.h>

#include "analyzer/analyze.h"
#include "recording/records.h"
#include "analyzer/render/markdown_summary.h"
#include "analyzer/render/terminal_summary.h"
#include "synthetic.h"

using namespace loopdoctor;

namespace {
std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("Markdown lists each hotspot once and the further issues, like the terminal") {
  loopdoctor::testing::Scenario s;  // stalls GC does not explain: blocked-loop, gc-pressure second
  s.stall_ms = 300, s.stall_every = 1, s.elu = 0.99, s.cpu_cores = 1.0;
  s.inflight = 50, s.latency_ms = 600, s.rps = 150, s.gc_minor_ms_per_s = 130;
  Timeline tl = build_timeline(loopdoctor::testing::make_recording(s));
  Diagnosis dx = analyze(tl);
  REQUIRE(dx.issues.size() == 2);
  // As attach_profile does: every issue carries the profile's hotspots.
  for (Issue& i : dx.issues) i.hotspots = {{"pbkdf2Sync", "node:internal/crypto/pbkdf2:62", 0.89, "server.js:14"}};
  const std::string md = render::markdown_summary(tl, dx, "");
  std::ostringstream term;
  render::print_terminal_summary(term, tl, dx, "", "", false);
  CHECK(count(md, "pbkdf2Sync") == 1);
  CHECK(count(term.str(), "pbkdf2Sync") == 1);
  const std::string also = "also: gc-pressure — " + dx.issues[1].summary;
  CHECK(count(md, also) == 1);
  CHECK(count(term.str(), also) == 1);
}

TEST_CASE("A hotspot's hot line and its code read the same in the terminal the Markdown and the JSON") {
  loopdoctor::testing::Scenario s;
  s.stall_ms = 300, s.stall_every = 1, s.elu = 0.99, s.cpu_cores = 1.0;
  s.inflight = 50, s.latency_ms = 600, s.rps = 150;
  Timeline tl = build_timeline(loopdoctor::testing::make_recording(s));
  Diagnosis dx = analyze(tl);
  REQUIRE_FALSE(dx.issues.empty());
  dx.issues[0].hotspots = {{"priceQuote", "src/pricing.ts:18", 0.76, "src/server.ts:10", "src/pricing.ts:23",
                            "if (p.sku !== `x`) continue;", "dist/pricing.js:12"}};
  const std::string md = render::markdown_summary(tl, dx, "");
  CHECK(count(md, "- hotspot `priceQuote` at `src/pricing.ts:23, function starts at line 18` called from "
                  "`src/server.ts:10` (76 %)\n  `` if (p.sku !== `x`) continue; ``\n") == 1);
  std::ostringstream term;
  render::print_terminal_summary(term, tl, dx, "", "", false);
  CHECK(count(term.str(), "hotspot: priceQuote (src/pricing.ts:23, function starts at line 18) called from "
                          "src/server.ts:10, 76 %\n           | if (p.sku !== `x`) continue;\n") == 1);
  const auto j = diagnosis_json(tl, dx)["issues"][0]["hotspots"][0];
  CHECK(j["location"] == "src/pricing.ts:18");
  CHECK(j["hot_line"] == "src/pricing.ts:23");
  CHECK(j["hot_line_text"] == "if (p.sku !== `x`) continue;");
  CHECK(j["generated_location"] == "dist/pricing.js:12");
}

namespace {
// A recording whose load-start says which built-in load ran (recording::LoadConfig).
std::vector<nlohmann::json> with_load_config(std::vector<nlohmann::json> recs) {
  for (auto& r : recs)
    if (r["type"] == "load-start") {
      r["kind"] = "builtin";
      r["command"] = "http://127.0.0.1:8080/slow";
      r["config"] = recording::encode(recording::LoadConfig{"http://127.0.0.1:8080/slow", "GET", 20, 2,
                                                            1, 500, 5, 2});
    }
  return recs;
}
}  // namespace

TEST_CASE("JSON, Markdown and the report say which built-in load ran") {
  Timeline tl = build_timeline(with_load_config(loopdoctor::testing::make_recording({})));
  REQUIRE(tl.load_config);
  Diagnosis dx = analyze(tl);
  const nlohmann::json j = diagnosis_json(tl, dx);
  CHECK(j["load"]["config"] == nlohmann::json{{"url", "http://127.0.0.1:8080/slow"}, {"method", "GET"},
                                              {"connections", 20}, {"threads", 2}, {"pipelining", 1},
                                              {"rate", 500.0}, {"duration_s", 5.0}, {"timeout_s", 2.0}});
  const std::string said = "GET http://127.0.0.1:8080/slow, 20 connections, 2 threads, no pipelining, "
                           "500 req/s, 5 s planned";
  CHECK(count(render::markdown_summary(tl, dx, ""), "- load: `" + said + "`") == 1);
}

TEST_CASE("a recording made before load config: the load's URL as before, no config") {
  loopdoctor::testing::Scenario s;
  auto recs = loopdoctor::testing::make_recording(s);
  for (auto& r : recs)
    if (r["type"] == "load-start") r["command"] = "wrk -c 10 http://127.0.0.1:8080/";
  Timeline tl = build_timeline(recs);
  Diagnosis dx = analyze(tl);
  CHECK(!diagnosis_json(tl, dx)["load"].contains("config"));
  CHECK(count(render::markdown_summary(tl, dx, ""), "- load: `wrk -c 10 http://127.0.0.1:8080/`") == 1);
}

TEST_CASE("the JSON's warnings carry the collector's warning records") {
  auto recs = loopdoctor::testing::make_recording({});
  recs.push_back(recording::encode(recording::Warning{300, "the built-in load generator did not start"}));
  Timeline tl = build_timeline(recs);
  const nlohmann::json j = diagnosis_json(tl, analyze(tl));
  CHECK(j["warnings"] == nlohmann::json{"the built-in load generator did not start"});
}

TEST_CASE("the JSON's probe-based load is the window statistics, as the Markdown states them") {
  // Every other probe sample lost (a loop too busy to send them): the
  // requests counted are those of the samples there are, over the time those
  // samples cover. Over the whole window they read half the rate (250 req/s).
  auto recs = loopdoctor::testing::make_recording({});  // 500 req/s, probe view only
  std::vector<nlohmann::json> kept;
  int n = 0;
  for (auto& r : recs)
    if (r["type"] != "sample" || n++ % 2 == 0) kept.push_back(r);
  Timeline tl = build_timeline(kept);
  Diagnosis dx = analyze(tl);
  const nlohmann::json load = diagnosis_json(tl, dx)["load"];
  REQUIRE(load["source"] == "probe");
  CHECK(load["rps"].get<double>() == Approx(dx.stats.http_rps).epsilon(1e-3));
  CHECK(load["rps"].get<double>() == Approx(500).epsilon(0.05));
  CHECK(load["requests"].get<double>() == Approx(dx.stats.http_requests).epsilon(1e-3));
  CHECK(load["latency_ms"]["mean"].get<double>() == Approx(dx.stats.http_latency_mean_ms));
  CHECK(count(render::markdown_summary(tl, dx, ""), fmt::format("{:.0f} req/s", load["rps"].get<double>())) >= 1);
}

namespace {
// The recording's hello as a probe of this round sends it.
std::vector<nlohmann::json> with_probe(std::vector<nlohmann::json> records, const char* kind,
                                       const char* fallback) {
  for (auto& r : records)
    if (r.value("type", "") == "hello") {
      r["probe"] = kind;
      if (*fallback) r["probe_fallback"] = fallback;
    }
  return records;
}
}  // namespace

TEST_CASE("the outputs say which probe watched the loop and why the native one did not") {
  Timeline native = build_timeline(with_probe(loopdoctor::testing::make_recording({}), "native", ""));
  Diagnosis dx = analyze(native);
  CHECK(diagnosis_json(native, dx)["target"]["probe"] == "native");
  CHECK(count(render::markdown_summary(native, dx, ""), " samples (native probe)") == 1);

  const char* why = "no addon built for Node ABI 127 (looked in /x)";
  Timeline js = build_timeline(with_probe(loopdoctor::testing::make_recording({}), "js", why));
  dx = analyze(js);
  const nlohmann::json j = diagnosis_json(js, dx);
  CHECK(j["target"]["probe"] == "js");
  CHECK(j["target"]["probe_fallback"] == why);
  std::ostringstream term;
  render::print_terminal_summary(term, js, dx, "", "", false);
  CHECK(count(term.str(), std::string("(JS probe: ") + why + ")") == 1);

  // A recording from before the probe said: nothing claimed.
  Timeline old = build_timeline(loopdoctor::testing::make_recording({}));
  CHECK_FALSE(diagnosis_json(old, analyze(old))["target"].contains("probe"));
}

TEST_CASE("Markdown and the terminal name block stacks as the hotspots' source") {
  loopdoctor::testing::Scenario s;
  s.stall_ms = 300, s.stall_every = 1, s.elu = 0.99, s.cpu_cores = 1.0;
  s.inflight = 50, s.latency_ms = 600, s.rps = 150;
  Timeline tl = build_timeline(loopdoctor::testing::make_recording(s));
  Diagnosis dx = analyze(tl);
  REQUIRE(dx.verdict == Verdict::kBlockedLoop);
  auto outputs = [&] {
    std::ostringstream term;
    render::print_terminal_summary(term, tl, dx, "", "", false);
    return std::pair{render::markdown_summary(tl, dx, ""), term.str()};
  };
  CHECK(count(outputs().first, "block stacks") == 0);
  dx.blocks = {2, 390, 330, "spin (server.js:5)"};
  Issue& is = dx.issues.front();
  is.hotspots = {{"spin", "server.js:5", 0.85, "server.js:14"}};
  is.hotspots_source = HotspotSource::kBlockStacks;
  auto [md, term] = outputs();
  CHECK(count(md, "- hotspot `spin` at `server.js:5` called from `server.js:14` (85 %)\n"
                  "- source: block stacks (2 blocks, 0.4 s)\n") == 1);
  CHECK(count(term, "  source: block stacks (2 blocks, 0.4 s)\n") == 1);
  // With a profile its hotspots lead and the block stacks' top one follows.
  is.hotspots_source = HotspotSource::kCpuProfile;
  is.block_hotspots = is.hotspots;
  is.hotspots = {{"pbkdf2Sync", "node:internal/crypto/pbkdf2:62", 0.89, "server.js:14"}};
  std::tie(md, term) = outputs();
  CHECK(count(md, "- block stacks (2 blocks, 0.4 s): `spin` at `server.js:5` (85 %)\n") == 1);
  CHECK(count(term, "  block stacks (2 blocks, 0.4 s): spin (server.js:5), 85 %\n") == 1);
}

TEST_CASE("the JSON says where hotspots come from only when the run had block stacks") {
  loopdoctor::testing::Scenario s;
  s.stall_ms = 300, s.stall_every = 1, s.elu = 0.99, s.cpu_cores = 1.0;
  s.inflight = 50, s.latency_ms = 600, s.rps = 150;
  std::vector<nlohmann::json> recs = loopdoctor::testing::make_recording(s);
  Timeline plain = build_timeline(recs);
  nlohmann::json j = diagnosis_json(plain, analyze(plain));
  REQUIRE(j["issues"].size() >= 1);
  CHECK_FALSE(j["issues"][0].contains("hotspots_source"));
  CHECK_FALSE(j.contains("block_stacks"));
  // One block during load (probe clock; the run clock is 40 ms later).
  for (double d : {50.0, 70.0, 90.0})
    recs.push_back({{"type", "block"}, {"t", 1000 + d}, {"start", 1000}, {"duration_ms", d}, {"in", "js"},
                    {"frames", {{{"function", "spin"}, {"url", "/app/server.js"}, {"line", 5}, {"column", 3}},
                                {{"function", ""}, {"url", "/app/server.js"}, {"line", 14}, {"column", 5}}}}});
  Timeline tl = build_timeline(recs);
  Diagnosis dx = analyze(tl);
  REQUIRE(attach_recommendations(&dx, LOOPDOCTOR_SOURCE_DIR "/report_templates", nullptr));
  j = diagnosis_json(tl, dx);
  REQUIRE(j["issues"][0]["kind"] == "blocked-loop");
  CHECK(j["issues"][0]["hotspots_source"] == "block-stacks");
  CHECK(j["issues"][0]["hotspots"][0]["function"] == "spin");
  CHECK(j["issues"][0]["hotspots"][0]["share"] == 1.0);
  CHECK_FALSE(j["issues"][0].contains("block_hotspots"));
  CHECK(j["block_stacks"] == nlohmann::json{{"blocks", 1}, {"blocked_ms", 90.0}, {"longest_ms", 90.0},
                                            {"longest_in", "spin (server.js:5)"}});
  CHECK(j["issues"][0]["recommendations"].dump().find("Start with `spin` (server.js:5)") != std::string::npos);
  CHECK(j["issues"][0]["recommendations"].dump().find("then run the same command again") != std::string::npos);
  // The agent's report has no command to run again (issue 35 item 5), an
  // attach none of its own either: each is told how it sees the server again.
  for (const auto& [agent, attached, words] :
       {std::tuple{true, false, "watch the agent's next windows under the same traffic"},
        std::tuple{false, true, "attach again with the same options"}}) {
    Timeline other = tl;
    other.agent_window = agent;
    other.attach.present = attached;
    Diagnosis d2 = analyze(other);
    REQUIRE(attach_recommendations(&d2, LOOPDOCTOR_SOURCE_DIR "/report_templates", nullptr));
    const std::string all = diagnosis_json(other, d2)["issues"][0]["recommendations"].dump();
    CHECK(all.find("same command") == std::string::npos);
    CHECK(all.find("{again}") == std::string::npos);
    CHECK(all.find("{confirm}") == std::string::npos);
    CHECK(all.find(words) != std::string::npos);
  }
}

// Seen while writing fuzz/recording_fuzz.cc, which reproduces both (UBSan:
// float-cast-overflow): a hello's pid and a sample's time far past what an
// integer holds were cast to one, in the diagnosis JSON and in the per-second
// heap and GC figures. A damaged recording must still give every output.
TEST_CASE("a recording with a pid and times no integer holds still gives its JSON") {
  using nlohmann::json;
  Timeline tl = build_timeline({
      {{"type", "meta"}, {"format", 1}, {"command", {"node", "a.js"}}},
      {{"type", "hello"}, {"t", 0}, {"rt", 1}, {"pid", 1e300}, {"interval_ms", 10}},
      {{"type", "sample"}, {"t", 1e22}, {"rt", 2}, {"mem", {{"heap_used", 1e6}}}},
      {{"type", "sample"}, {"t", 3e22}, {"rt", 3}, {"mem", {{"heap_used", 2e6}}}},
      {{"type", "gc"}, {"t", 2e22}, {"rt", 4}, {"kind", "major"}, {"duration_ms", 5}},
  });
  const json j = diagnosis_json(tl, analyze(tl));
  CHECK(j["target"]["pid"] == 0);
  CHECK(j["verdict"].is_string());
}

TEST_CASE("an issue's cause reads the same in the terminal the Markdown the JSON and the report") {
  loopdoctor::testing::Scenario s;  // slow responses, idle loop: io-bound
  s.elu = 0.05, s.cpu_cores = 0.05, s.inflight = 40, s.latency_ms = 200, s.rps = 200;
  Timeline tl = build_timeline(loopdoctor::testing::make_recording(s));
  Diagnosis dx = analyze(tl);
  REQUIRE(dx.verdict == Verdict::kIoBound);
  dx.issues[0].cause = {CauseKind::kUpstream, "127.0.0.1:9001", "p50 180 ms of 190 ms per request", ""};
  const std::string line = "upstream 127.0.0.1:9001, p50 180 ms of 190 ms per request";
  std::ostringstream term;
  render::print_terminal_summary(term, tl, dx, "", "", false);
  CHECK(count(term.str(), "  io-bound — cause: " + line + "  (medium severity") == 1);
  CHECK(count(render::markdown_summary(tl, dx, ""), "**cause:** " + line + "\n") == 1);
  const auto j = diagnosis_json(tl, dx)["issues"][0];
  CHECK(j["cause"] == "upstream");
  CHECK(j["cause_text"] == line);
  // Without a cause the JSON keeps the fields it always had.
  dx.issues[0].cause = {};
  CHECK_FALSE(diagnosis_json(tl, dx)["issues"][0].contains("cause"));
}

TEST_CASE("every cause has its JSON word and none is empty but none") {
  for (CauseKind k : {CauseKind::kUpstream, CauseKind::kConnectionPool, CauseKind::kThreadpool,
                      CauseKind::kCpuQuota, CauseKind::kRunQueue})
    CHECK(std::string(to_string(k)).size() > 0);
  CHECK(std::string(to_string(CauseKind::kNone)).empty());
  Verdict v;
  REQUIRE(parse_verdict("cpu-starved", &v));
  CHECK(v == Verdict::kCpuStarved);
}

TEST_CASE("A load that mostly failed is said first in the terminal, the Markdown and the JSON") {
  loopdoctor::testing::ClientView c;
  c.status = {{"404", 21307}};
  loopdoctor::testing::Scenario s;
  s.elu = 0.4, s.cpu_cores = 0.4, s.rps = 2000;
  Timeline tl = build_timeline(loopdoctor::testing::with_client_view(loopdoctor::testing::make_recording(s), c));
  Diagnosis dx = analyze(tl);
  REQUIRE(dx.verdict == Verdict::kInsufficientData);
  const std::string said = "Every response to GET / was 404 Not Found (21307 of 21307 requests) — check the --load path.";
  REQUIRE(dx.load_failure.text == said);
  std::ostringstream term;
  render::print_terminal_summary(term, tl, dx, "", "", false);
  // Its first line, before the verdict.
  CHECK(term.str().starts_with("\n  " + said + "\n\n  insufficient-data\n"));
  CHECK(count(term.str(), "No problem found") == 0);
  const std::string md = render::markdown_summary(tl, dx, "");
  CHECK(md.starts_with("### loopdoctor: `insufficient-data`\n\n**" + said + "**\n\n> No verdict on the server's health"));
  const auto j = diagnosis_json(tl, dx);
  CHECK(j["verdict"] == "insufficient-data");
  REQUIRE(j["warnings"].size() >= 1);
  CHECK(j["warnings"][0] == said);
  CHECK(j["load"]["failure"]["text"] == said);
  CHECK(j["load"]["failure"]["top"] == "404");
  CHECK(j["load"]["failure"]["share"] == 1.0);
  CHECK(j["load"]["non_2xx"] == 21307);
  // A load that did not fail keeps the JSON as it was.
  Timeline ok = build_timeline(loopdoctor::testing::with_client_view(loopdoctor::testing::make_recording(s), {}));
  const auto jo = diagnosis_json(ok, analyze(ok));
  CHECK_FALSE(jo["load"].contains("failure"));
  CHECK(jo["warnings"].empty());
}

TEST_CASE("A saturated healthy run says so in the terminal, the Markdown and the JSON") {
  Timeline tl = build_timeline(loopdoctor::testing::with_client_view(
      loopdoctor::testing::make_recording(loopdoctor::testing::saturated_healthy()),
      loopdoctor::testing::saturated_clients()));
  Diagnosis dx = analyze(tl);
  REQUIRE(dx.verdict == Verdict::kHealthy);
  const std::string sat = dx.saturation.text;
  REQUIRE_FALSE(sat.empty());
  std::ostringstream term;
  render::print_terminal_summary(term, tl, dx, "", "", false);
  CHECK(term.str().starts_with("\n  healthy\n  " + sat));
  CHECK(count(term.str(), "No problem found") == 0);
  CHECK(count(render::markdown_summary(tl, dx, ""), "> " + sat) == 1);
  const auto j = diagnosis_json(tl, dx);
  CHECK(j["summary"].get<std::string>().starts_with(sat));
  CHECK(j["load"]["saturation"]["text"] == sat);
  CHECK(j["load"]["saturation"]["latency_p99_ms"] == 8274);
  for (const auto& f : j["findings"])
    if (f["signal"] == "http") CHECK(f["outcome"] == "abnormal");
}

TEST_CASE("A target that died is never healthy in the terminal, the Markdown or the JSON") {
  loopdoctor::testing::Scenario s;
  s.elu = 0.4, s.cpu_cores = 0.4, s.seconds = 2;
  Timeline tl = build_timeline(
      loopdoctor::testing::ended_by_itself(loopdoctor::testing::make_recording(s), 1.5, 1, std::nullopt));
  Diagnosis dx = analyze(tl);
  std::ostringstream term;
  render::print_terminal_summary(term, tl, dx, "", "", false);
  CHECK(term.str().starts_with("\n  insufficient-data\n  The target exited with code 1 at 1.7 s"));
  CHECK(count(term.str(), "No problem found") == 0);
  const std::string md = render::markdown_summary(tl, dx, "");
  CHECK(md.starts_with("### loopdoctor: `insufficient-data`\n\n> The target exited with code 1 at 1.7 s"));
  CHECK(count(md, "No problem found") == 0);
  const auto j = diagnosis_json(tl, dx);
  CHECK(j["verdict"] == "insufficient-data");
  CHECK(j["target"]["exit"]["died"] == true);
}

TEST_CASE("One throughput: the load's, in the verdict's sentence, the terminal, the Markdown and the JSON") {
  // The probe counted 150 req/s of the server's; the load generator 84211
  // (a saturated hello-world's pair, issue 30): every output says the load's.
  loopdoctor::testing::Scenario s;
  s.rps = 150;
  loopdoctor::testing::ClientView c;
  c.rps = 84211;
  const Timeline tl = build_timeline(loopdoctor::testing::with_client_view(loopdoctor::testing::make_recording(s), c));
  const Diagnosis dx = analyze(tl);
  REQUIRE(dx.verdict == Verdict::kHealthy);
  CHECK(count(dx.issues[0].summary, "84211 req/s") == 1);
  const std::string md = render::markdown_summary(tl, dx, "");
  std::ostringstream term;
  render::print_terminal_summary(term, tl, dx, "", "", false);
  for (const std::string& out : {md, term.str(), diagnosis_json(tl, dx).dump()}) {
    CHECK(count(out, "84211 req/s") >= 1);
    CHECK(count(out, "150 req/s") == 0);
  }
}
