// A blocked loop's first step, once a pattern of blocking work is recognised
// (analyzer/verdicts/block_patterns.h), is the one text every output shows:
// the terminal's arrow, the Markdown's "First step", the report's first
// recommendation and the JSON's recommendations[0], with the JSON naming
// the pattern.
#include <catch2/catch.hpp>

#include <sstream>

#include "analyzer/analyze.h"
#include "analyzer/render/html_report.h"
#include "analyzer/render/markdown_summary.h"
#include "analyzer/render/terminal_summary.h"
#include "analyzer/verdicts/block_patterns.h"
#include "analyzer/verdicts/blocking_kind.h"
#include "tests/analyzer/render/synthetic.h"

using namespace loopdoctor;
using namespace loopdoctor::render;

TEST_CASE("a pattern's first step reads the same in the terminal, the Markdown, the report and the JSON",
          "[render]") {
  const Timeline tl = testing::synthetic_timeline({});
  Diagnosis dx = testing::synthetic_diagnosis(tl);
  Issue& lead = dx.issues.front();
  REQUIRE(lead.kind == Verdict::kBlockedLoop);
  Hotspot render_call{"renderToString", "react-dom 19.1.0 cjs/react-dom-server-legacy.node.production.js:5890", 0.63,
                      "handler (app.js:22)"};
  render_call.caller_line_text = "const html = renderToString(<App items={items} />);";
  lead.hotspots = {render_call};
  lead.cause = blocking_kind_cause(lead, {}, LoopRef{});
  REQUIRE(lead.cause.pattern == "server-render");
  lead.recommendations.clear();
  std::string err;
  REQUIRE(attach_recommendations(&dx, LOOPDOCTOR_TEMPLATES_DIR, &err));
  const std::string& step = lead.recommendations.front();
  CHECK(step == lead.cause.advice);

  std::ostringstream term;
  print_terminal_summary(term, tl, dx, "", "", false);
  CHECK(term.str().find("  → " + step + "\n") != std::string::npos);
  CHECK(markdown_summary(tl, dx, "").find("**First step:** " + step + "\n") != std::string::npos);
  const auto j = diagnosis_json(tl, dx);
  CHECK(j["issues"][0]["pattern"] == "server-render");
  CHECK(j["recommendations"][0] == step);
  // The report sets code apart from text; the step's own words are there.
  const std::string html = html_report(tl, dx, {LOOPDOCTOR_TEMPLATES_DIR, "", "test"}, &err);
  REQUIRE_FALSE(html.empty());
  CHECK(html.find("Cache or stream the render: cache the HTML of a page that is the same for many requests") !=
        std::string::npos);
}
