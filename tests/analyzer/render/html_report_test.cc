#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "analyzer/analyze.h"
#include "analyzer/render/flame_svg.h"
#include "analyzer/render/html_report.h"
#include "analyzer/render/text.h"
#include "analyzer/timeline/window_stats.h"
#include "tests/analyzer/render/synthetic.h"
#include "tests/analyzer/alloc_synthetic.h"
#include "tests/analyzer/synthetic.h"

using namespace loopdoctor;
using namespace loopdoctor::render;
using loopdoctor::render::testing::Scenario;
using loopdoctor::render::testing::synthetic_diagnosis;
using loopdoctor::render::testing::synthetic_timeline;

namespace {

constexpr size_t kTenSecondBudgetBytes = 300 * 1024;
constexpr size_t kOneHourBudgetBytes = 2 * 1024 * 1024;

ReportOptions options() {
  return {LOOPDOCTOR_TEMPLATES_DIR, "2024-05-01T10:00:12Z", "0.1.0-test"};
}

std::string render_report(const Timeline& tl, const Diagnosis& dx) {
  std::string err;
  std::string html = html_report(tl, dx, options(), &err);
  INFO(err);
  REQUIRE(!html.empty());
  return html;
}

bool contains(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

// A temporary directory removed at scope exit.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ldrender-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

}  // namespace

TEST_CASE("a blocked-loop report has every section in order", "[render][html]") {
  Timeline tl = synthetic_timeline({});
  Diagnosis dx = synthetic_diagnosis(tl);
  std::string html = render_report(tl, dx);
  CHECK(contains(html, "<!DOCTYPE html>"));
  CHECK(contains(html, "class=\"verdict v-blocked-loop\""));
  CHECK(contains(html, "Blocked event loop"));
  CHECK(contains(html, "confidence <b>92 %</b>"));
  size_t verdict = html.find("aria-label=\"Verdict\"");
  size_t evidence = html.find("id=\"evidence\"");
  size_t recs = html.find("id=\"recommendations\"");
  size_t charts = html.find("id=\"charts\"");
  size_t hotspots = html.find("id=\"hotspots\"");
  size_t run = html.find("id=\"run\"");
  REQUIRE(run != std::string::npos);
  // The hotspots sit between the evidence and the advice that points to them.
  REQUIRE(hotspots != std::string::npos);
  CHECK(verdict < evidence);
  CHECK(evidence < hotspots);
  CHECK(hotspots < recs);
  CHECK(recs < charts);
  CHECK(charts < run);
  for (const char* id : {"cpu", "memory", "delay", "elu", "handles", "gc", "throughput", "latency"}) {
    INFO(id);
    CHECK(contains(html, std::string("id=\"chart-") + id + "\""));
  }
  CHECK(contains(html, "<code>piscina</code>"));   // backticks in recommendations
  CHECK(contains(html, "<code class=\"fn\" title=\"pbkdf2Sync\">pbkdf2Sync</code>")); // hotspots
  CHECK(contains(html, "Loop delay p99"));
  // The banner figures are the analyzer's window statistics, so the report,
  // the JSON and `compare` agree.
  const WindowStats st = compute_window_stats(tl, dx.window);
  CHECK(contains(html, "<div class=\"fig-value\">" + fmt_ms(st.delay_p99_ms) + "</div>"));
  CHECK(contains(html, "max " + fmt_ms(st.delay_max_ms)));
  // Utilisation in the one unit every other output uses (issue 17 item 10: was "1").
  CHECK(contains(html, "<div class=\"fig-value\">" + fmt_percent(st.elu_mean, 0) + "</div>"));
  CHECK(contains(html, "node 20.11.1"));
  CHECK(contains(html, "stopped by loopdoctor"));
  CHECK_FALSE(contains(html, "The target crashed"));
}

TEST_CASE("target strings are HTML-escaped everywhere", "[render][html]") {
  Timeline tl = synthetic_timeline({.duration_s = 3});
  tl.command = {"node", "<script>alert(1)</script>", "\"&'"};
  tl.versions["node"] = "<b>20</b>";
  tl.warnings = {"<script>w</script>"};
  for (auto& s : tl.samples) s.handles_by_type["<img src=x onerror=alert(2)>"] = 99;
  Diagnosis dx = synthetic_diagnosis(tl);
  dx.issues[0].summary = "summary <script>alert(3)</script>";
  dx.issues[0].evidence[0].text = "text <iframe src=\"javascript:1\">";
  dx.issues[0].hotspots[0].function = "<svg onload=alert(4)>";
  dx.issues[0].recommendations = {"use `<script>alert(5)</script>` \"&' carefully"};
  std::string html = render_report(tl, dx);
  CHECK_FALSE(contains(html, "<script"));
  CHECK_FALSE(contains(html, "<img"));
  CHECK_FALSE(contains(html, "<iframe"));
  CHECK_FALSE(contains(html, "<svg onload"));
  CHECK_FALSE(contains(html, "<b>20</b>"));
  CHECK_FALSE(contains(html, "\"&'"));
  CHECK(contains(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  CHECK(contains(html, "<code>&lt;script&gt;alert(5)&lt;/script&gt;</code> &quot;&amp;&apos; carefully"));
  CHECK(contains(html, "&lt;img src=x onerror=alert(2)&gt;"));
}

TEST_CASE("the report references nothing outside itself", "[render][html]") {
  Timeline tl = synthetic_timeline({});
  tl.command = {"node", "server.js", "--upstream=https://api.example.com/v1"};
  std::string html = render_report(tl, synthetic_diagnosis(tl));
  // Plain text (the escaped command, the load URL) may mention http, but no
  // attribute or CSS construct may point anywhere.
  CHECK_FALSE(std::regex_search(html, std::regex(R"(\bsrc\s*=)", std::regex::icase)));
  CHECK_FALSE(std::regex_search(html, std::regex(R"(\bhref\s*=\s*["']?[^"'#\s>])", std::regex::icase)));
  CHECK_FALSE(std::regex_search(html, std::regex(R"(url\(\s*["']?[^"'#\s)])", std::regex::icase)));
  CHECK_FALSE(std::regex_search(html, std::regex(R"(@import|<link\b|<script\b|<img\b|<iframe\b|<object\b|<embed\b)",
                                                 std::regex::icase)));
  CHECK_FALSE(std::regex_search(html, std::regex(R"(xmlns(:\w+)?\s*=)", std::regex::icase)));
  CHECK(contains(html, "default-src &#39;none&#39;") == false);  // CSP is ours, not escaped
  CHECK(contains(html, "default-src 'none'"));
}

TEST_CASE("a missing or broken template is an error, not a crash", "[render][html]") {
  Timeline tl = synthetic_timeline({.duration_s = 2});
  Diagnosis dx = synthetic_diagnosis(tl);
  std::string err;
  CHECK(html_report(tl, dx, {"/nonexistent/loopdoctor", "", ""}, &err).empty());
  CHECK(contains(err, "report.html.mustache"));
  CHECK(html_report(tl, dx, {"/nonexistent/loopdoctor", "", ""}, nullptr).empty());

  TempDir dir;
  write(dir.path / "report.html.mustache", "<html>{{#issues}}never closed</html>");
  err.clear();
  CHECK(html_report(tl, dx, {dir.path.string(), "", ""}, &err).empty());
  CHECK(contains(err, "report.css"));
  write(dir.path / "report.css", "body{}");
  err.clear();
  CHECK(html_report(tl, dx, {dir.path.string(), "", ""}, &err).empty());
  CHECK(contains(err, "bad HTML template"));
}

TEST_CASE("a template loaded once renders each report as html_report does", "[render][html]") {
  std::string err;
  const auto tmpl = ReportTemplate::load(LOOPDOCTOR_TEMPLATES_DIR, &err);
  INFO(err);
  REQUIRE(tmpl.has_value());
  for (const bool blocked : {true, false}) {
    Timeline tl = synthetic_timeline({.duration_s = 3, .blocked = blocked});
    Diagnosis dx = synthetic_diagnosis(tl);
    CHECK(tmpl->render(tl, dx, options(), &err) == render_report(tl, dx));
  }
  CHECK_FALSE(ReportTemplate::load("/nonexistent/loopdoctor", &err).has_value());
  CHECK(err == "cannot read HTML template /nonexistent/loopdoctor/report.html.mustache");
}

TEST_CASE("a target without probe renders from /proc and says so", "[render][html]") {
  Timeline tl = synthetic_timeline({.duration_s = 3, .probe = false, .load = false});
  REQUIRE(tl.samples.empty());
  Diagnosis dx = analyze(tl);
  std::string err;
  REQUIRE(attach_recommendations(&dx, LOOPDOCTOR_TEMPLATES_DIR, &err));
  std::string html = render_report(tl, dx);
  CHECK(contains(html, "No probe connected"));
  CHECK(contains(html, "v-insufficient-data"));
  CHECK(contains(html, "id=\"chart-cpu\""));
  CHECK(contains(html, "id=\"chart-memory\""));
  CHECK_FALSE(contains(html, "id=\"chart-delay\""));
  CHECK(contains(html, "Not shown, no data recorded: Event-loop delay"));
  CHECK(contains(html, "sleep 3"));
  // The verdict's own advice.
  CHECK(contains(html, "Check that the probe attached"));
}

TEST_CASE("an empty timeline still renders", "[render][html]") {
  Timeline tl;
  std::string html = render_report(tl, analyze(tl));
  CHECK(contains(html, "Not enough data"));
}

TEST_CASE("a crash is shown prominently", "[render][html]") {
  Timeline tl = synthetic_timeline({.crash = true});
  std::string html = render_report(tl, synthetic_diagnosis(tl));
  CHECK(contains(html, "The target crashed:"));
  CHECK(contains(html, "crashed:</strong> killed by SIGSEGV at 8.0 s"));
  CHECK(std::regex_search(html, std::regex("class=\"mkl[a-z ]* alarm\"[^>]*>exit SIGSEGV<")));  // red exit marker
}

TEST_CASE("a load that mostly failed is said above the verdict", "[render][html]") {
  namespace t = loopdoctor::testing;
  t::Scenario s;
  s.elu = 0.4, s.cpu_cores = 0.4, s.rps = 2000;
  t::ClientView c;
  c.status = {{"404", 21307}};
  Timeline tl = build_timeline(t::with_client_view(t::make_recording(s), c));
  Diagnosis dx = analyze(tl);
  std::string html = render_report(tl, dx);
  const auto alert = html.find("<strong>The load failed:</strong> Every response to GET / was 404 Not Found (21307 "
                               "of 21307 requests) — check the --load path.");
  REQUIRE(alert != std::string::npos);
  CHECK(alert < html.find("aria-label=\"Verdict\""));
  CHECK(contains(html, "<h1>Not enough data</h1>"));
  CHECK_FALSE(contains(html, "<h1>Healthy</h1>"));
}

TEST_CASE("a target that crashed mid-run is not headlined healthy", "[render][html]") {
  namespace t = loopdoctor::testing;
  t::Scenario quiet;
  quiet.elu = 0.4, quiet.cpu_cores = 0.4, quiet.rps = 2000, quiet.seconds = 2;
  Timeline crashed = build_timeline(t::ended_by_itself(t::make_recording(quiet), 1.5, 1, std::nullopt));
  const std::string html = render_report(crashed, analyze(crashed));
  CHECK(contains(html, "The target crashed:"));
  CHECK_FALSE(contains(html, "<h1>Healthy</h1>"));
  CHECK_FALSE(contains(html, "No problem found"));
}

TEST_CASE("a saturated healthy report says the saturation, and its http finding is not normal", "[render][html]") {
  namespace t = loopdoctor::testing;
  Timeline tl = build_timeline(t::with_client_view(t::make_recording(t::saturated_healthy()), t::saturated_clients()));
  Diagnosis dx = analyze(tl);
  REQUIRE(dx.verdict == Verdict::kHealthy);
  std::string html = render_report(tl, dx);
  CHECK(contains(html, "<p class=\"summary\">The load saturated the server"));
  CHECK_FALSE(contains(html, "No problem found"));
  CHECK(std::regex_search(html, std::regex("<td>http</td><td><span class=\"pill bad\">abnormal</span>")));
}

TEST_CASE("reports stay small", "[render][html][size]") {
  Timeline ten = synthetic_timeline({.duration_s = 10, .interval_ms = 10});
  std::string a = render_report(ten, synthetic_diagnosis(ten));
  INFO("10 s report bytes: " << a.size());
  CHECK(a.size() < kTenSecondBudgetBytes);

  Timeline hour = synthetic_timeline({.duration_s = 3600, .interval_ms = 10, .proc_interval_ms = 100});
  REQUIRE(hour.samples.size() >= 359000);
  std::string b = render_report(hour, synthetic_diagnosis(hour));
  INFO("1 h report bytes: " << b.size());
  CHECK(b.size() < kOneHourBudgetBytes);
}

TEST_CASE("block stacks: the report captions each hotspot table with its source", "[render][html]") {
  Timeline tl = synthetic_timeline({});
  Diagnosis dx = synthetic_diagnosis(tl);
  std::string plain = render_report(tl, dx);
  CHECK_FALSE(contains(plain, "From the CPU profile"));  // a run without block stacks: as before
  dx.blocks = {12, 3449, 412, "spin (server.js:5)"};
  dx.issues[0].block_hotspots = {{"spin", "server.js:5", 0.91, "server.js:14"}};
  std::string both = render_report(tl, dx);
  const size_t profile = both.find("From the CPU profile");
  const size_t blocks = both.find("From block stacks (12 blocks, 3.4 s)");
  REQUIRE(profile != std::string::npos);
  REQUIRE(blocks != std::string::npos);
  CHECK(profile < both.find("<code>pbkdf2Sync</code>"));
  CHECK(blocks < both.find("<code>spin</code>"));
  dx.issues[0].hotspots_source = HotspotSource::kBlockStacks;
  dx.issues[0].hotspots = dx.issues[0].block_hotspots;
  dx.issues[0].block_hotspots.clear();
  std::string only = render_report(tl, dx);
  CHECK(contains(only, "From block stacks (12 blocks, 3.4 s)"));
  CHECK_FALSE(contains(only, "From the CPU profile"));
  CHECK(contains(only, "Share of blocked time"));
}

TEST_CASE("block stacks: the report of a recording without a profile shows them", "[render][html]") {
  std::string err;
  auto tl = load_timeline(LOOPDOCTOR_DATA_DIR "/pbkdf2-sync-blocks.ndjson.gz", &err);
  INFO(err);
  REQUIRE(tl);
  std::string html = render_report(*tl, analyze(*tl));
  CHECK(contains(html, "<h3 class=\"sub\">From block stacks (13 blocks, 1.8 s)</h3>"));
  // Its native lines name no function (issue 35): said so, in every row and sentence.
  CHECK(contains(html, "title=\"(native code, entered from an unknown call)\">(native code, entered from an "
                       "unknown call)</code></td><td class=\"loc\">"));
  CHECK(contains(html, "the longest in (native code, entered from an unknown call)"));
  CHECK_FALSE(contains(html, "id=\"flame\""));  // no profile, no flame view
  CHECK_FALSE(contains(html, "of the main thread;"));  // one loop: its figures need no caption
}

// The lane of each loop carries its own figures (issue 13): the worker that
// blocked first, with its thread's CPU from /proc; the main thread's CPU is
// its process's.
TEST_CASE("loops: each lane shows the loop's own figures worst first", "[render][html]") {
  std::string err;
  auto tl = load_timeline(LOOPDOCTOR_DATA_DIR "/worker-stall.ndjson.gz", &err);
  INFO(err);
  REQUIRE(tl);
  const std::string html = render_report(*tl, analyze(*tl));
  const size_t section = html.find("<section id=\"loops\">");
  REQUIRE(section != std::string::npos);
  const size_t worker = html.find("</span> worker 1 (stall-worker.js) <span", section);
  const size_t main = html.find("</span> main <span", section);
  REQUIRE(worker != std::string::npos);
  REQUIRE(main != std::string::npos);
  CHECK(worker < main);
  const std::string worker_lane = html.substr(worker, main - worker);
  CHECK(contains(worker_lane, "class=\"figures lane-figures\""));
  CHECK(contains(worker_lane, "<div class=\"figure alarm\"><div class=\"fig-label\">Delay p99</div>"));
  CHECK(contains(worker_lane, "this thread, of one core"));
  CHECK(contains(worker_lane, "peak, this thread"));
  const std::string main_lane = html.substr(main, html.find("</section>", main) - main);
  CHECK(contains(main_lane, "the process, of one core"));
  CHECK(contains(main_lane, "peak, main thread"));
  CHECK_FALSE(contains(main_lane, "this thread"));
  // The key figures and findings at the top are the main thread's, and say so.
  const std::string whose =
      "of the main thread; worker 1 (stall-worker.js)&apos;s, which the verdict is about, are under Loops.";
  CHECK(contains(html.substr(0, section), "Key figures " + whose));
  CHECK(contains(html.substr(0, section), "Findings " + whose));
}

// A loop of another process is named by its pid: the lane does not say it twice.
TEST_CASE("loops: a child process's lane names its pid once", "[render][html]") {
  std::string err;
  auto tl = load_timeline(LOOPDOCTOR_DATA_DIR "/cluster-blocked.ndjson.gz", &err);
  INFO(err);
  REQUIRE(tl);
  const std::string html = render_report(*tl, analyze(*tl));
  const std::regex twice(R"(</span> pid (\d+) \(cluster worker \d\) <span class="muted">pid \1</span>)");
  CHECK_FALSE(std::regex_search(html, twice));
  CHECK(contains(html, " (cluster worker 1)</h3>"));
  CHECK(contains(html, "</span> main <span class=\"muted\">pid "));
}

// Issue 35 item 7: the report uses a wide window, breaks code only at
// separators, and fills the key figures' rows.
TEST_CASE("layout: the page grows with the window and code never breaks inside a name", "[render][html][layout]") {
  Timeline tl = synthetic_timeline({});
  Diagnosis dx = synthetic_diagnosis(tl);
  const std::string html = render_report(tl, dx);
  CHECK(contains(html, "--page-max: 1400px"));
  CHECK(contains(html, ".page { max-width: var(--page-max);"));
  CHECK_FALSE(contains(html, "max-width: 980px"));
  // "loadCatalo/g": no rule may break a word anywhere.
  CHECK_FALSE(contains(html, "break-all"));
  CHECK_FALSE(contains(html, "word-break: break-word"));
  CHECK(contains(html, "word-break: normal; overflow-wrap: normal;"));
  // A path breaks after its separators; a name has no break point.
  CHECK(contains(html, "<span class=\"where\">node:internal/<wbr>crypto/<wbr>pbkdf2:66</span>"));
  CHECK(contains(html, "title=\"hashPassword\">hashPassword</code>"));
  // Six cards: one row of six in a wide window, two of three at 800 px.
  CHECK(contains(html, "<section class=\"figures\" aria-label=\"Key figures\" style=\"--cards-wide: 6; --cards-mid: 3\">"));
}

TEST_CASE("layout: cards are spread over rows evenly, never one alone", "[render][layout]") {
  CHECK(balanced_columns(7, 8) == 7);
  CHECK(balanced_columns(7, 4) == 4);  // 4 + 3, not 6 + 1
  CHECK(balanced_columns(5, 4) == 3);  // 3 + 2
  CHECK(balanced_columns(9, 8) == 5);  // 5 + 4
  CHECK(balanced_columns(8, 4) == 4);
  CHECK(balanced_columns(0, 4) == 1);
}

TEST_CASE("hotspots: the hot line first, its code, then where the function starts", "[render][html]") {
  Timeline tl = synthetic_timeline({});
  Diagnosis dx = synthetic_diagnosis(tl);
  Hotspot h{"loadCatalog", "server.js:8", 0.79};
  h.hot_line = "server.js:10";
  h.hot_line_text = "const catalog = JSON.parse(text);";
  dx.issues.front().hotspots = {h};
  const std::string html = render_report(tl, dx);
  CHECK(contains(html, "<td class=\"loc\"><span class=\"where\">server.js:10</span> "
                       "<span class=\"starts\">(function starts at line 8)</span>"
                       "<br><code class=\"hot-line\">const catalog = JSON.parse(text);</code>"));
  CHECK_FALSE(contains(html, "server.js:10 in the function at server.js:8"));
}

TEST_CASE("recommendations: those this run's evidence supports first, the general ones folded", "[render][html]") {
  Timeline tl = synthetic_timeline({});
  Diagnosis dx = synthetic_diagnosis(tl);
  dx.issues.front().applicable_recommendations = 1;
  const std::string html = render_report(tl, dx);
  const auto fold = html.find("<details class=\"general-recs\">");
  REQUIRE(fold != std::string::npos);
  CHECK(contains(html, "<summary>2 general checks for this verdict"));
  const auto first = html.find("Move CPU-heavy work off the event loop");
  const auto general = html.find("Replace <code>crypto.pbkdf2Sync</code>");
  CHECK(first < fold);
  CHECK(general > fold);
}

TEST_CASE("recommendations: a real blocked-loop run folds the checklist its evidence does not support", "[render][html]") {
  std::string err;
  auto tl = load_timeline(LOOPDOCTOR_DATA_DIR "/json-hash.ndjson.gz", &err);
  INFO(err);
  REQUIRE(tl);
  Diagnosis dx = analyze(*tl);
  REQUIRE(attach_recommendations(&dx, LOOPDOCTOR_TEMPLATES_DIR, &err));
  REQUIRE(!dx.issues.empty());
  const Issue& is = dx.issues.front();
  INFO(is.recommendations.size());
  CHECK(is.applicable_recommendations < is.recommendations.size());
  const std::string html = render_report(*tl, dx);
  const auto fold = html.find("<details class=\"general-recs\">");
  REQUIRE(fold != std::string::npos);
  // A general checklist item sits behind the fold; the fix's check before it.
  CHECK(html.find("Check for accidental quadratic work") > fold);
  CHECK(html.find("Confirm the fix") < fold);
  CHECK_FALSE(contains(html, "[general"));
}

TEST_CASE("flame: a frame's own time shows the line that called a built-in", "[render][flame]") {
  profile::FlameNode root;
  root.function = "(root)";
  root.samples = 100;
  profile::FlameNode fn{"loadCatalog", "server.js:11", profile::FrameKind::kApplication, 100, {}};
  fn.self_samples = 80;
  fn.self_line = "server.js:13";
  fn.self_line_text = "const catalog = JSON.parse(text);";
  fn.children.push_back({"readFileSync", "node:fs:441", profile::FrameKind::kNode, 20, {}});
  root.children.push_back(fn);
  const std::string svg = flame_svg(root, "blocked time");
  CHECK(contains(svg, "<g class=\"fs\"><title>loadCatalog&#39;s own time on server.js:13: "
                      "const catalog = JSON.parse(text);"));
  CHECK(contains(svg, "A built-in such as JSON.parse called on this line has no frame of its own"));
  CHECK(contains(svg, ">const catalog = JSON.parse(text);</text>"));
}

TEST_CASE("a leak's report lists its allocation sites and stacks the heap's spaces in the memory chart",
          "[render][html]") {
  loopdoctor::testing::Scenario s;
  s.heap_growth_per_s = 40e6, s.gc_major_ms_per_s = 100, s.elu = 0.6, s.cpu_cores = 0.7;
  Timeline tl = build_timeline(loopdoctor::testing::with_heap_spaces(
      loopdoctor::testing::with_live_sites(loopdoctor::testing::make_recording(s))));
  Diagnosis dx = analyze(tl);
  std::string err;
  REQUIRE(attach_recommendations(&dx, LOOPDOCTOR_TEMPLATES_DIR, &err));
  REQUIRE(dx.lead().allocation_hotspots.size() == 2);
  const std::string html = render_report(tl, dx);
  CHECK(contains(html, "Allocation sites: what stays alive, by the growth of each site&apos;s live bytes"));
  CHECK(contains(html, "<th class=\"num\">Share of the growth</th>"));
  CHECK(contains(html, "title=\"buildSession\">buildSession</code>"));
  CHECK(contains(html, "+3.0 MB/s"));
  CHECK(contains(html, "96 %"));
  CHECK(contains(html, "resident set size, V8 heap by space, external memory"));
  for (const char* legend : {"new space", "+ old space", "+ code space", "+ large objects", "external (Buffers)"})
    CHECK(contains(html, legend));
  // Without spaces or sites, the report is as it was.
  Timeline plain = build_timeline(loopdoctor::testing::make_recording(s));
  const std::string before = render_report(plain, analyze(plain));
  CHECK_FALSE(contains(before, "Allocation sites"));
  CHECK_FALSE(contains(before, "new space"));
}
