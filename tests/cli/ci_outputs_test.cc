#include <catch2/catch.hpp>

#include "analyzer/attribution/profile.h"
#include "cli/ci_outputs.h"

using namespace loopdoctor;
using namespace loopdoctor::cli;

namespace {

// A comparison whose head's loop delay p99 is 60 ms over 2 runs.
gate::GateComparison delay_comparison() {
  gate::GateComparison g;
  for (const gate::GateFigure& f : gate::gate_figures()) {
    gate::FigureChange c;
    c.figure = &f;
    if (f.key == "loop_delay_p99_ms") {
      c.base = {{40, 40}, 40, 40, 40};
      c.head = {{60, 60}, 60, 60, 60};
      c.change = 0.5;
      c.interval = gate::Interval{0.4, 0.6};
    }
    g.changes.push_back(c);
  }
  return g;
}

std::vector<gate::BudgetResult> judged(const std::string& json, const gate::GateComparison& g) {
  std::vector<gate::Budget> budgets;
  std::string err;
  REQUIRE(gate::parse_budgets(json, &budgets, &err));
  return gate::judge_budgets(budgets, g);
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("junit: markup characters escaped, characters XML forbids replaced") {
  CHECK(junit_escape(R"(a<b> & "c" 'd')") == "a&lt;b&gt; &amp; &quot;c&quot; &#39;d&#39;");
  CHECK(junit_escape("tab\tline\nbell\x07") == "tab\tline\nbell\xEF\xBF\xBD");
  CHECK(junit_escape("−3 % … ok") == "−3 % … ok");  // UTF-8 passes through
}

TEST_CASE("junit: one test case per budget, a failure with its line for a broken one") {
  const gate::GateComparison g = delay_comparison();
  const auto results = judged(R"({"budgets": [{"figure": "loop_delay_p99_ms", "max": 50},
                                              {"figure": "loop_delay_p99_ms", "max": 100},
                                              {"figure": "loop_delay_p99_ms", "max_change": 0.25}]})",
                              g);
  const std::string xml = junit_xml(results, "");
  CHECK(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 0) == 0);
  CHECK(xml.find("<testsuite name=\"loopdoctor budgets\" tests=\"3\" failures=\"2\"") != std::string::npos);
  CHECK(count(xml, "<testcase ") == 3);
  CHECK(count(xml, "<failure ") == 2);
  CHECK(xml.find("name=\"loop_delay_p99_ms max 50\"") != std::string::npos);
  CHECK(xml.find("<failure message=\"budget broken: loop_delay_p99_ms 60 (median of 2 head runs) &gt; 50\"") !=
        std::string::npos);
  CHECK(xml.find("budget broken: loop_delay_p99_ms +50 % (95 % interval +40 % … +60 %) &gt; +25 %</failure>") !=
        std::string::npos);
  CHECK(junit_xml({}, "").find("tests=\"0\" failures=\"0\"") != std::string::npos);
}

TEST_CASE("workflow commands: data and properties escaped as GitHub's runner reads them") {
  CHECK(workflow_data_escape("50 % > 10 %\nnext: a,b") == "50 %25 > 10 %25%0Anext: a,b");
  CHECK(workflow_property_escape("src/a,b:c.ts") == "src/a%2Cb%3Ac.ts");
}

TEST_CASE("application line: the caller's, else the hotspot's own where it is the app's") {
  Hotspot h;
  h.function = "pbkdf2Sync";
  h.location = "node:internal/crypto/pbkdf2:62";
  h.caller = "request handler (createServer callback) (src/orders.ts:40)";
  auto at = application_line(h);
  REQUIRE(at);
  CHECK(at->file == "src/orders.ts");
  CHECK(at->line == 40);
  h.caller = "src/app.ts:14";  // an anonymous caller: its location alone
  REQUIRE(application_line(h));
  CHECK(application_line(h)->line == 14);
  h.caller.clear();  // Node's own frame with no application caller: none
  CHECK_FALSE(application_line(h));
  h.location = std::string(profile::kNativeLocation);
  CHECK_FALSE(application_line(h));
  h.location = "node_modules/lodash/lodash.js:120";
  CHECK_FALSE(application_line(h));
  h.location = "server.js:25";
  h.hot_line = "server.js:26";  // the line most of its samples ran
  REQUIRE(application_line(h));
  CHECK(application_line(h)->line == 26);
}

TEST_CASE("workflow commands: an error per broken budget, an annotation on the blocking line") {
  const gate::GateComparison g = delay_comparison();
  const auto results = judged(R"({"budgets": [{"figure": "loop_delay_p99_ms", "max": 50}]})", g);
  render::CompareSide blocked;
  blocked.figures.verdict = "blocked-loop";
  Hotspot h;
  h.function = "pbkdf2Sync";
  h.location = "node:internal/crypto/pbkdf2:62";
  h.caller = "handler (server.js:16)";
  blocked.hotspots.push_back(h);
  render::CompareSide healthy = blocked;
  healthy.figures.verdict = "healthy";
  const std::string out = github_commands(results, {blocked, blocked, healthy}, "");
  CHECK(out.find("::error title=loopdoctor budget::budget broken: loop_delay_p99_ms 60 (median of 2 head runs) "
                 "> 50\n") != std::string::npos);
  CHECK(out.find("::error file=server.js,line=16,title=loopdoctor%3A blocked loop::pbkdf2Sync "
                 "(node:internal/crypto/pbkdf2:62), called here, is the top hotspot of the blocked loop in 2 of 3 "
                 "head runs\n") != std::string::npos);
  // Every budget holds: the line is a warning, not a failure.
  const auto holds = judged(R"({"budgets": [{"figure": "loop_delay_p99_ms", "max": 100}]})", g);
  const std::string calm = github_commands(holds, {blocked}, "");
  CHECK(calm.rfind("::warning file=server.js,line=16,", 0) == 0);
  CHECK(calm.find("::error") == std::string::npos);
}
