// The attach sequence's pure parts: what it refuses from /proc's facts alone
// (nothing is sent to such a process), the expression it evaluates, and how
// it reads the probe's answer.
#include <catch2/catch.hpp>

#include "agent/attach/probe_expression.h"
#include "agent/attach/refusals.h"

using namespace loopdoctor::attach;

namespace {

ProcFacts node_process() {
  ProcFacts f;
  f.pid = 4242;
  f.exe = "/usr/bin/node";
  f.argv = {"node", "server.js"};
  f.node = NodeEvidence::exe_name;
  f.sigusr1 = Sigusr1::caught;
  f.ids.effective_uid = 1000;
  return f;
}

}  // namespace

TEST_CASE("a Node process of ours whose SIGUSR1 opens the inspector is not refused") {
  CHECK(refusal(node_process(), 1000).empty());
  CHECK(refusal(node_process(), 0).empty());  // root may attach to anyone's
}

TEST_CASE("attach refuses, with what to do, what it cannot attach to") {
  ProcFacts f = node_process();
  f.node = NodeEvidence::none;
  f.exe = "/usr/bin/python3";
  CHECK_THAT(refusal(f, 1000), Catch::Contains("is not a Node.js process (its executable is /usr/bin/python3)"));

  f = node_process();
  CHECK_THAT(refusal(f, 1001), Catch::Contains("belongs to uid 1000, not to you (uid 1001)"));

  f = node_process();
  f.argv_flags.disable_sigusr1 = true;
  CHECK_THAT(refusal(f, 1000), Catch::Contains("started with --disable-sigusr1"));
  f = node_process();
  f.node_options_flags.disable_sigusr1 = true;  // from NODE_OPTIONS
  CHECK_THAT(refusal(f, 1000), Catch::Contains("--disable-sigusr1"));

  f = node_process();
  f.sigusr1 = Sigusr1::default_action;
  CHECK_THAT(refusal(f, 1000), Catch::Contains("would terminate it"));
  f.sigusr1 = Sigusr1::ignored;
  CHECK_THAT(refusal(f, 1000), Catch::Contains("ignores SIGUSR1"));
  f.sigusr1 = Sigusr1::blocked;
  CHECK_THAT(refusal(f, 1000), Catch::Contains("blocks SIGUSR1"));
}

TEST_CASE("SIGUSR1 opens the inspector where the process's flags say, else on 9229") {
  ProcFacts f = node_process();
  CHECK(sigusr1_port(f) == 9229);
  f.node_options_flags.port = 9333;
  CHECK(sigusr1_port(f) == 9333);
  f.argv_flags.port = 0;  // argv wins: --inspect-port=0, any free port
  CHECK(sigusr1_port(f) == 0);
}

TEST_CASE("Node versions older than the probe's are refused") {
  CHECK(version_refusal("20.20.2").empty());
  CHECK(version_refusal("v22.23.0").empty());
  CHECK(version_refusal("").empty());  // unknown: the probe decides
  CHECK_THAT(version_refusal("16.20.2"), Catch::Contains("needs Node 18 or later"));
}

TEST_CASE("the attach expression requires attach.js by the process's own module system") {
  const std::string e = attach_expression("/tmp/x \"y\"/attach.js", {{"endpoint", std::string("\0n", 2)}});
  CHECK_THAT(e, Catch::Contains("const p = \"/tmp/x \\\"y\\\"/attach.js\""));
  CHECK_THAT(e, Catch::Contains("process.getBuiltinModule('module').createRequire(p)"));
  CHECK_THAT(e, Catch::Contains("process.mainModule.require"));
  CHECK_THAT(e, Catch::Contains(".attach({\"endpoint\":\"\\u0000n\"})"));
  const auto p = evaluate_params(e);
  CHECK(p["returnByValue"] == true);
  CHECK(p["includeCommandLineAPI"] == true);
}

TEST_CASE("the probe's answer to attach is read from Runtime.evaluate's result") {
  auto ok = parse_attach_result(
      {{"result", {{"type", "object"}, {"value", {{"ok", true}, {"probe", "native"}, {"listens", nlohmann::json::array()}}}}}});
  CHECK(ok.ok);
  CHECK(ok.probe == "native");
  auto refused = parse_attach_result({{"result", {{"value", {{"ok", false}, {"error", "already attached"}}}}}});
  CHECK_FALSE(refused.ok);
  CHECK(refused.error == "already attached");
  auto threw = parse_attach_result(
      {{"result", {{"type", "object"}}},
       {"exceptionDetails",
        {{"text", "Uncaught"}, {"exception", {{"description", "Error: Cannot find module '/tmp/attach.js'\n    at x"}}}}}});
  CHECK_FALSE(threw.ok);
  CHECK(threw.error == "loading the probe threw: Error: Cannot find module '/tmp/attach.js'");
  CHECK_FALSE(parse_attach_result(nullptr).ok);
}
