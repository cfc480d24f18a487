// Every secret-bearing field of record_secrets.h's list is redacted through
// base/redact.h's rules, every other field and record is left as it was, and
// a second pass changes nothing.
#include <catch2/catch.hpp>

#include <string>

#include "recording/record_secrets.h"
#include "recording/records.h"

using namespace loopdoctor::recording;
using loopdoctor::base::Redactor;
using nlohmann::json;

namespace {

// A secret the shell expanded into an argument (an environment value: no
// pattern finds it) and secrets each pattern finds.
const std::string kEnvSecret = "PlantedEnvSecret3";
Redactor redactor() { return Redactor({kEnvSecret}); }

json redacted(json record) {
  redact_record(&record, redactor());
  return record;
}

// No planted secret anywhere in the record's text.
void check_clean(const json& record) {
  const std::string text = to_line(record);
  for (const char* s : {"PlantedEnvSecret3", "PlantedPw1", "PlantedTok2", "PlantedUrlPw4", "PlantedQueryTok5",
                        "PlantedMsgTok6"})
    CHECK(text.find(s) == std::string::npos);
  CHECK(text.find("[REDACTED]") != std::string::npos);
}

LoadConfig config(const std::string& url) {
  LoadConfig c;
  c.url = url;
  c.method = "GET";
  c.connections = 5;
  return c;
}

}  // namespace

TEST_CASE("the meta's command is redacted as an argv") {
  Meta m;
  m.command = {"node", "server.js", "--password=PlantedPw1", "--token", "PlantedTok2", kEnvSecret};
  const json r = redacted(encode(m));
  check_clean(r);
  CHECK(r["command"] == json({"node", "server.js", "--password=[REDACTED]", "--token", "[REDACTED]", "[REDACTED]"}));
  CHECK(r["host"] == encode(m)["host"]);
}

TEST_CASE("a hello's argv, job, names and fallback message are redacted; the rest is kept") {
  Hello h;
  h.pid = 4242;
  h.runtime = "node";
  h.argv = {"/usr/bin/node", "/app/server.js", "--token", "PlantedTok2"};
  h.probe_fallback = "no addon at /opt/x?token=PlantedQueryTok5";
  h.thread_name = "worker 1 (" + kEnvSecret + ".js)";
  h.process_name = "cluster worker 2";
  json in = encode(h);
  in["job"] = "job-" + kEnvSecret;
  const json r = redacted(in);
  check_clean(r);
  CHECK(r["argv"] == json({"/usr/bin/node", "/app/server.js", "--token", "[REDACTED]"}));
  CHECK(r["job"] == "job-[REDACTED]");
  CHECK(r["process_name"] == "cluster worker 2");
  CHECK(r["pid"] == 4242);
  CHECK(r["runtime"] == "node");
  CHECK(decode_hello(r).thread_name == "worker 1 ([REDACTED].js)");
}

TEST_CASE("the load's URL and command are redacted in load-start and load-summary") {
  const std::string url = "http://user:PlantedUrlPw4@127.0.0.1:3000/?token=PlantedQueryTok5";
  const json start = redacted(encode(LoadStart{12, "builtin", url, config(url)}));
  check_clean(start);
  CHECK(start["command"] == "http://[REDACTED]@127.0.0.1:3000/?token=[REDACTED]");
  CHECK(start["config"]["url"] == start["command"]);
  CHECK(start["config"]["connections"] == 5);

  const json shell = redacted(encode(LoadStart{12, "on-port", "wrk -H 'Authorization: Bearer PlantedTok2' "
                                                                "http://127.0.0.1:{port}/", std::nullopt}));
  check_clean(shell);

  loopdoctor::recording::LoadSummary s;  // (the analyzer has a LoadSummary of its own)
  s.requests = 100;
  s.config = config(url);
  const json summary = redacted(encode(s));
  check_clean(summary);
  CHECK(summary["requests"] == 100);
}

TEST_CASE("warning texts, a detach's reason and the target's warning messages are redacted") {
  check_clean(redacted(encode(Warning{3, "the load command 'curl -u me:x http://h/?token=PlantedQueryTok5' failed"})));
  check_clean(redacted(encode(Detach{4, "gave up on " + kEnvSecret})));

  ProcessWarnings pw;
  pw.t = 5;
  ProcessWarning w;
  w.name = "Warning";
  w.message = "connecting with password=PlantedMsgTok6";
  w.count = 2;
  w.frame = {"connect", "/app/db.js", 10, 3};
  pw.warnings = {w, w};
  const json r = redacted(encode(pw));
  check_clean(r);
  const ProcessWarnings back = decode_process_warnings(r);
  REQUIRE(back.warnings.size() == 2);
  CHECK(back.warnings[1].message == "connecting with password=[REDACTED]");
  CHECK(back.warnings[1].frame == w.frame);
  CHECK(back.warnings[1].count == 2);
}

TEST_CASE("records without secret-bearing fields are left exactly as they were") {
  Sample s;
  s.t = 10;
  s.delay.p99 = 3;
  Block b;
  b.frames = {{"spin", "/app/token=PlantedQueryTok5/s.js", 3, 1}};  // code locations stay as they are
  for (const json& r : {encode(s), encode(b), encode(Gc{1, "major", 2.5}), encode(Exit{}),
                        encode(Interrupt{1, "SIGINT"})}) {
    CHECK_FALSE(may_hold_secrets(type_of(r["type"].get<std::string>())));
    CHECK(redacted(r) == r);
  }
  for (Type t : {Type::kMeta, Type::kHello, Type::kLoadStart, Type::kLoadSummary, Type::kWarning, Type::kDetach,
                 Type::kProcessWarnings})
    CHECK(may_hold_secrets(t));
}

TEST_CASE("redacting twice gives what redacting once gave") {
  Meta m;
  m.command = {"node", "s.js", "--password=PlantedPw1", "--token", "PlantedTok2", "http://u:p@h/?key=abc"};
  const json once = redacted(encode(m));
  CHECK(redacted(once) == once);
  const std::string url = "http://user:PlantedUrlPw4@h/?token=PlantedQueryTok5";
  const json start = redacted(encode(LoadStart{1, "builtin", url, config(url)}));
  CHECK(redacted(start) == start);
}

TEST_CASE("fields of an unexpected type, and records without a type, are left alone") {
  const json odd_argv = {{"type", "hello"}, {"argv", {"node", 3, "--password=PlantedPw1"}}, {"job", 7}};
  const json r = redacted(odd_argv);
  CHECK(r["argv"] == json({"node", 3, "--password=[REDACTED]"}));
  CHECK(r["job"] == 7);
  const json odd_config = {{"type", "load-start"}, {"config", "http://u:PlantedUrlPw4@h/"}};
  CHECK(redacted(odd_config) == odd_config);
  const json odd_warnings = {{"type", "process-warnings"}, {"warnings", {1, "x", {{"message", 2}}}}};
  CHECK(redacted(odd_warnings) == odd_warnings);
  const json untyped = {{"argv", {"--password=PlantedPw1"}}};
  CHECK(redacted(untyped) == untyped);
  json not_object = json::array({"--password=PlantedPw1"});
  redact_record(&not_object, redactor());
  CHECK(not_object == json::array({"--password=PlantedPw1"}));
}
