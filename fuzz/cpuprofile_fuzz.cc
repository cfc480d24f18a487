// A `profile` message's cpuprofile as the analyzer takes it: JSON ->
// parse_cpuprofile -> the samples on the run clock -> attribute() over a
// small fixed run (2 s, a sample every 10 ms, the loop blocked in every
// other 100 ms), frames placed through a Mapper that finds no file (a fuzzed
// URL must not read this machine's files). Invariants: a refused profile
// says why; the hotspots are at most kMaxHotspots, by share, largest first,
// shares within 0..1; every name and place the outputs print is valid for
// JSON. The diagnosis and outputs built around them: `recording_full`.
#include <cstddef>
#include <cstdint>
#include <sstream>

#include <string>
#include <vector>

#include "analyzer/attribution/profile.h"
#include "analyzer/attribution/profile_attribution.h"
#include "analyzer/attribution/sourcemap/mapper.h"
#include "analyzer/timeline/timeline.h"
#include "fuzz/fuzz_support.h"

namespace {

using loopdoctor::fuzz::check;
using nlohmann::json;
namespace profile = loopdoctor::profile;

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

// The run the profile is attributed over, built once per process.
struct Run {
  loopdoctor::Timeline tl = fixed_run();
  loopdoctor::Window window = loopdoctor::analysis_window(tl);
  std::vector<loopdoctor::Window> blocked = profile::blocked_intervals(tl, window);
  profile::PathNamer names{tl.command};
};

// What diagnosis_json and the Markdown print of a hotspot: dump() throws on
// invalid UTF-8, as the CLI's JSON write would.
void check_printable(const loopdoctor::Hotspot& h) {
  for (const std::string* s : {&h.function, &h.location, &h.caller, &h.hot_line, &h.hot_line_text,
                               &h.generated_location, &h.caller_line_text})
    (void)json(*s).dump();
  (void)json(profile::hotspot_place(h)).dump();
}

void check_attribution(const profile::Attribution& a) {
  check(a.hotspots.size() <= profile::kMaxHotspots, "more hotspots than kMaxHotspots");
  check(a.gc_share >= 0 && a.gc_share <= 1, "a GC share outside 0..1");
  for (std::size_t i = 0; i < a.hotspots.size(); ++i) {
    const loopdoctor::Hotspot& h = a.hotspots[i];
    check(h.share > 0 && h.share <= 1 + 1e-9, "a hotspot's share outside 0..1");
    check(i == 0 || a.hotspots[i - 1].share >= h.share, "hotspots not by share, largest first");
    check_printable(h);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const json j = json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  std::string error;
  const auto p = profile::parse_cpuprofile(j, &error);
  if (!p) {
    check(!error.empty(), "parse_cpuprofile refused a profile without saying why");
    return 0;
  }
  static const Run run;
  loopdoctor::sourcemap::Mapper mapper({{"/", "/nonexistent-loopdoctor-fuzz/"}});
  check_attribution(profile::attribute(*p, profile::sample_run_times(*p, run.tl.profile_t), run.blocked,
                                       run.window, run.names, &mapper));
  return 0;
}
