// The user's call sites (Issue::call_sites) come first in the terminal, the
// Markdown and the report when they gather more than the top hotspot; the
// JSON always lists them. One line per site, formatted once
// (summary_lines.h call_site_line).
#include <catch2/catch.hpp>

#include <sstream>

#include "analyzer/analyze.h"
#include "analyzer/render/html_report.h"
#include "analyzer/render/markdown_summary.h"
#include "analyzer/render/summary_lines.h"
#include "analyzer/render/terminal_summary.h"
#include "tests/analyzer/render/synthetic.h"

using namespace loopdoctor;
using namespace loopdoctor::render;

namespace {

// ejs-template's run: the compiled template is the top hotspot (70 %); the
// user's render line gathers it with ejs's escapeXML (85 %).
Diagnosis with_call_sites(const Timeline& tl, double top_hotspot_share) {
  Diagnosis dx = testing::synthetic_diagnosis(tl);
  Issue& lead = dx.issues.front();
  lead.hotspots = {Hotspot{"(anonymous)", "views/orders.ejs:33", top_hotspot_share, "handler (app.js:28)"}};
  lead.call_sites = {{"handler (app.js:29)", "const html = ejs.render(template, data);", "ejs 7.0.2", 0.85},
                     {"handler (app.js:30)", "res.send(html);", "express 5.3.0", 0.11},
                     {"", "", "node:http", 0.03}};
  return dx;
}

std::string terminal(const Timeline& tl, const Diagnosis& dx) {
  std::ostringstream out;
  print_terminal_summary(out, tl, dx, "", "", false);
  return out.str();
}

}  // namespace

TEST_CASE("call sites: the user's lines first in every output when they gather more than the top hotspot",
          "[render]") {
  const Timeline tl = testing::synthetic_timeline({});
  const Diagnosis dx = with_call_sites(tl, 0.70);
  REQUIRE(dx.lead().kind == Verdict::kBlockedLoop);
  CHECK(call_site_line(dx.lead().call_sites[0], false) == "handler (app.js:29) → ejs 7.0.2, 85 %");
  CHECK(call_site_line(dx.lead().call_sites[2], true) == "outside your code: `node:http`, 3 %");
  CHECK(call_site_line({"work (app.js:9)", "", "", 0.4}, false) == "work (app.js:9), its own code, 40 %");

  const std::string term = terminal(tl, dx);
  const auto first = term.find("  your code: handler (app.js:29) → ejs 7.0.2, 85 %\n"
                               "           | const html = ejs.render(template, data);\n");
  CHECK(first != std::string::npos);
  CHECK(first < term.find("  hotspot: "));
  const std::string md = markdown_summary(tl, dx, "");
  CHECK(md.find("- your code: `handler (app.js:29)` → `ejs 7.0.2`, 85 %\n") != std::string::npos);
  std::string err;
  const std::string html = html_report(tl, dx, {LOOPDOCTOR_TEMPLATES_DIR, "", "test"}, &err);
  CHECK(html.find("Your code: the lines that spent the time") != std::string::npos);
  CHECK(html.find("The functions that ran, from the CPU profile") != std::string::npos);
  const auto j = diagnosis_json(tl, dx);
  CHECK(j["issues"][0]["call_sites"][0]["into"] == "ejs 7.0.2");
  CHECK(j["issues"][0]["call_sites"][2]["site"].is_null());
}

TEST_CASE("call sites: not shown where they would repeat the hotspots; the JSON keeps them", "[render]") {
  const Timeline tl = testing::synthetic_timeline({});
  const Diagnosis dx = with_call_sites(tl, 0.84);  // one function did the line's work
  CHECK(listed_call_sites(dx) == 0);
  CHECK(terminal(tl, dx).find("your code:") == std::string::npos);
  CHECK(markdown_summary(tl, dx, "").find("your code:") == std::string::npos);
  std::string err;
  CHECK(html_report(tl, dx, {LOOPDOCTOR_TEMPLATES_DIR, "", "test"}, &err).find("Your code:") == std::string::npos);
  CHECK(diagnosis_json(tl, dx)["issues"][0]["call_sites"].size() == 3);
}
