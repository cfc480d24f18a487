// A `profile` message's cpuprofile as the analyzer takes it: JSON ->
// parse_cpuprofile -> attribute() over a small fixed run (2 s, a sample
// every 10 ms, the loop blocked in every other 100 ms) -> the diagnosis and
// its JSON and Markdown, where hotspot names and locations end up.
#include <cstddef>
#include <cstdint>
#include <sstream>

#include "analyzer/analyze.h"
#include "analyzer/profile.h"
#include "analyzer/timeline.h"
#include "cli/terminal_summary.h"
#include "fuzz/fuzz_support.h"

namespace {

using loopdoctor::fuzz::check;
using nlohmann::json;

constexpr double kRunMs = 2000;
constexpr double kIntervalMs = 10;
constexpr double kBlockedDelayMs = 300;

loopdoctor::Timeline fixed_run() {
  loopdoctor::Timeline tl;
  tl.format_version = 1;
  tl.command = {"node", "src/server.js"};
  tl.probe_connected = true;
  tl.runtime = "node";
  tl.probe_interval_ms = kIntervalMs;
  for (double t = kIntervalMs; t <= kRunMs; t += kIntervalMs) {
    loopdoctor::ProbeSample s;
    s.t = t;
    s.interval = kIntervalMs;
    const bool blocked = static_cast<int>(t / 100) % 2 == 1;
    s.delay = {0, blocked ? kBlockedDelayMs / 2 : 1, blocked ? kBlockedDelayMs : 2, 1, 1,
               blocked ? kBlockedDelayMs : 2, 1};
    s.elu = blocked ? 1 : 0.2;
    s.cpu_user_us = kIntervalMs * (blocked ? 1000 : 200);
    tl.samples.push_back(s);
  }
  tl.load_window = loopdoctor::Window{0, kRunMs};
  tl.end_t = kRunMs;
  tl.profile_t = 0;
  return tl;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  json j = json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  std::string error;
  if (!loopdoctor::profile::parse_cpuprofile(j, &error))
    check(!error.empty(), "parse_cpuprofile refused a profile without saying why");
  if (!j.is_object()) return 0;  // the timeline keeps a profile only when it is an object

  static const loopdoctor::Timeline base = fixed_run();
  loopdoctor::Timeline tl = base;
  tl.profile = std::move(j);
  loopdoctor::Diagnosis dx = loopdoctor::analyze(tl);
  const std::string text = loopdoctor::diagnosis_json(tl, dx).dump(2);
  check(json::parse(text, nullptr, false).is_object(), "the diagnosis JSON does not parse back");
  (void)loopdoctor::cli::markdown_summary(tl, dx, "report.html");
  return 0;
}
