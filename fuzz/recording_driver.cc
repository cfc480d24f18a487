#include "fuzz/recording_driver.h"

#include <map>
#include <sstream>

#include "analyzer/analyze.h"
#include "analyzer/render/html_report.h"
#include "recording/fast_decoder.h"
#include "analyzer/timeline/timeline.h"
#include "analyzer/render/markdown_summary.h"
#include "analyzer/render/terminal_summary.h"
#include "fuzz/fuzz_support.h"

namespace loopdoctor::fuzz {

using nlohmann::json;
using recording::FastKind;

std::optional<Timeline> read_recording(const std::string& path) {
  std::string error;
  auto tl = load_timeline(path, &error);
  if (!tl) {
    check(!error.empty(), "load_timeline failed without saying why");
    return tl;
  }
  std::map<double, std::size_t> loops_of{{tl->loop.pid, 1}};
  for (const Timeline& lt : tl->other_loops) {
    check(lt.loop != tl->loop, "a loop is both the main timeline and another");
    check(++loops_of[lt.loop.pid] <= kMaxLoopsPerProcess, "a process keeps more than kMaxLoopsPerProcess loops");
  }
  check(loops_of.size() <= kMaxProcesses, "the timeline keeps more than kMaxProcesses processes");
  return tl;
}

void analyze_recording(const std::string& path, bool html) {
  std::string error;
  auto tl = read_recording(path);
  if (!tl) return;
  Diagnosis dx = analyze(*tl);
  attach_recommendations(&dx, LOOPDOCTOR_TEMPLATES_DIR, &error);
  // dump() throws on invalid UTF-8: the CLI writes the JSON exactly so.
  const std::string text = diagnosis_json(*tl, dx).dump(2);
  check(json::parse(text, nullptr, false).is_object(), "the diagnosis JSON does not parse back");
  (void)render::markdown_summary(*tl, dx, "report.html");
  std::ostringstream terminal;
  render::print_terminal_summary(terminal, *tl, dx, "report.html", path, true);
  if (!html) return;
  // Read and parsed once per process: parsing it per input took 40 % of the
  // time (perf); html_report() is load + render, so render is what varies.
  static const render::ReportTemplate report = [] {
    std::string why;
    auto t = render::ReportTemplate::load(LOOPDOCTOR_TEMPLATES_DIR, &why);
    check(t.has_value(), "the report template does not load: " + why);
    return *std::move(t);
  }();
  render::ReportOptions ro{LOOPDOCTOR_TEMPLATES_DIR, "2026-01-01T00:00:00Z", "fuzz"};
  check(!report.render(*tl, dx, ro, &error).empty(), "the HTML report failed: " + error);
}

namespace {

// The default sampling interval handed to both decoders of a sample.
constexpr double kDefaultIntervalMs = 7;

// `parsed`: the line through nlohmann, when the caller has it already.
void check_line(recording::FastParser& fast, std::string_view line, const json* parsed = nullptr) {
  recording::FastRecord rec;
  const FastKind kind = fast.parse(line, rec);
  if (kind == FastKind::kFallback) return;
  json own;
  if (!parsed) own = json::parse(line, nullptr, false);
  const json& j = parsed ? *parsed : own;
  if (kind == FastKind::kNotObject) {
    check(j.is_discarded() || !j.is_object(), "fast decoder: not an object, nlohmann: an object");
    return;
  }
  check(j.is_object(), "fast decoder took a line nlohmann rejects: ", line);
  bool same = true;
  switch (kind) {
    case FastKind::kSample:
      rec.sample.interval = rec.interval_ms.value_or(kDefaultIntervalMs);
      same = rec.sample == recording::decode_sample(j, kDefaultIntervalMs);
      break;
    case FastKind::kProc: same = rec.proc == recording::decode_proc(j); break;
    case FastKind::kGc: same = rec.gc == recording::decode_gc(j); break;
    case FastKind::kLoad: same = rec.load == recording::decode_load_second(j); break;
    default: break;
  }
  check(same, "fast and JSON decoders disagree on: ", line);
}

}  // namespace

void check_decoders_agree(std::string_view bytes) {
  recording::FastParser fast;
  while (!bytes.empty()) {
    const std::size_t nl = bytes.find('\n');
    check_line(fast, bytes.substr(0, nl));
    if (nl == std::string_view::npos) break;
    bytes.remove_prefix(nl + 1);
  }
}

void check_decoders_agree(std::string_view line, const json& parsed) {
  static recording::FastParser fast;  // its buffers are reused, as the reader's are
  check_line(fast, line, &parsed);
}

}  // namespace loopdoctor::fuzz
