#include "analyzer/timeline/process_warnings.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "analyzer/analysers/analysers.h"
#include "analyzer/attribution/profile_place.h"
#include "analyzer/thresholds.h"

namespace loopdoctor {
namespace {

constexpr std::string_view kMaxListenersName = "MaxListenersExceededWarning";

WarningSummary summary_of(const recording::ProcessWarning& w, const profile::PathNamer& names,
                          sourcemap::Mapper* mapper) {
  WarningSummary s{w.name, w.message, w.code, 0, w.first_t, "", ""};
  if (w.frame.line > 0 && !w.frame.url.empty()) {
    const profile::Frame f{w.frame.function, w.frame.url, static_cast<int>(w.frame.line),
                           static_cast<int>(w.frame.column)};
    const profile::Place p = profile::place_running(f, names, mapper);
    s.location = p.location, s.line_text = p.hot_line_text;
  }
  return s;
}

}  // namespace

std::vector<WarningSummary> summarize_warnings(const Timeline& tl, sourcemap::Mapper* mapper) {
  const profile::PathNamer names(tl.command);
  std::map<std::tuple<std::string, std::string, std::string>, WarningSummary> by_key;
  for (const auto& line : tl.process_warnings)
    for (const auto& w : line.warnings) {
      auto key = std::make_tuple(w.name, w.code, w.message);
      auto it = by_key.find(key);
      if (it == by_key.end()) {
        if (by_key.size() >= kMaxWarningSummaries) continue;
        it = by_key.emplace(key, summary_of(w, names, mapper)).first;
      }
      it->second.count += w.count;
      it->second.first_at_ms = std::min(it->second.first_at_ms, w.first_t);
    }
  std::vector<WarningSummary> out;
  for (auto& [key, s] : by_key) out.push_back(std::move(s));
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.count != b.count ? a.count > b.count : a.first_at_ms < b.first_at_ms;
  });
  return out;
}

std::optional<ListenerWarning> parse_max_listeners(std::string_view m) {
  constexpr std::string_view kAdded = " listeners added to [";
  const std::size_t added = m.find(kAdded);
  if (added == std::string_view::npos) return std::nullopt;
  const std::size_t close = m.find(']', added + kAdded.size());
  if (close == std::string_view::npos) return std::nullopt;
  // "... detected. 11 request listeners": the count is the last number
  // before the event's name (which may hold spaces: "Symbol(a b)").
  std::size_t digits_end = m.rfind(". ", added);
  digits_end = digits_end == std::string_view::npos ? 0 : digits_end + 2;
  std::size_t space = digits_end;
  while (space < added && std::isdigit(static_cast<unsigned char>(m[space]))) ++space;
  if (space == digits_end || space >= added || m[space] != ' ') return std::nullopt;
  ListenerWarning w;
  w.listeners = std::stod(std::string(m.substr(digits_end, space - digits_end)));
  w.event = std::string(m.substr(space + 1, added - space - 1));
  w.emitter = std::string(m.substr(added + kAdded.size(), close - added - kAdded.size()));
  if (w.event.empty() || w.emitter.empty()) return std::nullopt;
  return w;
}

namespace {

struct LeakWarning {
  ListenerWarning parsed;
  const WarningSummary* summary = nullptr;
};

std::vector<LeakWarning> listener_warnings(const std::vector<WarningSummary>& ws) {
  std::vector<LeakWarning> out;
  for (const auto& w : ws)
    if (w.name == kMaxListenersName)
      if (auto p = parse_max_listeners(w.message)) out.push_back({*p, &w});
  return out;
}

// Samples at or below flame frames at `location` (the outermost, so a
// recursive listener is counted once).
double samples_at(const profile::FlameNode& n, const std::string& location) {
  if (n.kind != profile::FrameKind::kRoot && n.location == location) return n.samples;
  double s = 0;
  for (const auto& c : n.children) s += samples_at(c, location);
  return s;
}

std::string subject(const LeakWarning& w) {
  return fmt::format("{} \"{}\" listeners, added at {}", w.parsed.emitter, w.parsed.event,
                     w.summary->location.empty() ? "an unknown line" : w.summary->location);
}

std::string advice(const LeakWarning& w, const std::string& what) {
  const std::string code = w.summary->line_text.empty() ? "" : " (`" + w.summary->line_text + "`)";
  return fmt::format(
      "A listener for \"{}\" is added to a long-lived {} again and again at {}{}: Node warned at {:.0f} "
      "listeners, and every emit runs all of them. {} Add the listener once, outside the request path, "
      "or remove it when its request ends (`once`, `off`/`removeListener`); raising the limit with "
      "`setMaxListeners` only hides the warning.",
      w.parsed.event, w.parsed.emitter, w.summary->location.empty() ? "one place" : w.summary->location, code,
      w.parsed.listeners, what);
}

Cause blocked_cause(const LeakWarning& w, const profile::Attribution& a, Issue* issue) {
  if (!a.present || a.samples == 0 || w.summary->location.empty()) return {};
  const double share = samples_at(a.flame, w.summary->location) / static_cast<double>(a.samples);
  if (share < thresholds::kListenerLeakShare) return {};
  const std::string of = a.blocked_only ? "of the time the loop was blocked" : "of the CPU profile";
  issue->evidence.push_back(analysers::evidence(
      "listener_leak_share", share, thresholds::kListenerLeakShare,
      fmt::format("Node warned that {:.0f} \"{}\" listeners were added to a {} (MaxListenersExceededWarning); "
                  "the listener added at {} ran during {} {}",
                  w.parsed.listeners, w.parsed.event, w.parsed.emitter, w.summary->location,
                  analysers::pct(share), of)));
  return {CauseKind::kListenerLeak, subject(w),
          fmt::format("{} {} in them", analysers::pct(share), of),
          advice(w, fmt::format("That listener ran during {} {}.", analysers::pct(share), of))};
}

Cause memory_cause(const LeakWarning& w, const WindowStats& st, Issue* issue) {
  if (st.heap_growth_bytes_per_s < thresholds::kHeapGrowthLeakBytesPerS) return {};
  const double mb_s = st.heap_growth_bytes_per_s / 1048576.0;
  issue->evidence.push_back(analysers::evidence(
      "max_listeners_warning", w.parsed.listeners, 0,
      fmt::format("Node warned that {:.0f} \"{}\" listeners were added to a {} (MaxListenersExceededWarning, "
                  "at {}) while the heap grew {:.1f} MB/s",
                  w.parsed.listeners, w.parsed.event, w.parsed.emitter,
                  w.summary->location.empty() ? "an unknown line" : w.summary->location, mb_s)));
  return {CauseKind::kListenerLeak, subject(w), fmt::format("the heap grew {:.1f} MB/s", mb_s),
          advice(w, "Each one keeps what it closes over (the request, its body) alive.")};
}

}  // namespace

Cause listener_leak_cause(const std::vector<WarningSummary>& warnings, const profile::Attribution& a,
                          const WindowStats& st, Issue* issue) {
  for (const LeakWarning& w : listener_warnings(warnings)) {
    Cause c;
    if (issue->kind == Verdict::kBlockedLoop) c = blocked_cause(w, a, issue);
    if (issue->kind == Verdict::kGcPressure) c = memory_cause(w, st, issue);
    if (c.present()) return c;
  }
  return {};
}

}  // namespace loopdoctor
