#include <cmath>

#include "analyzer/analyze.h"
#include "analyzer/figures.h"

namespace loopdoctor {
namespace {

using nlohmann::json;

// Linux caps pids at 2^22 (pid_max); the probe protocol accepts up to 2^31
// (protocol/message_check.cc). Past that a pid is damage, not a process.
constexpr double kMaxPid = 2147483648.0;

// Figures are rounded for people and diffs; 3 decimals keep sub-ms detail.
double r3(double v) { return std::isfinite(v) ? std::round(v * 1000.0) / 1000.0 : 0.0; }

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kNotEnoughData: return "not-enough-data";
    case Outcome::kNormal: return "normal";
    case Outcome::kAbnormal: return "abnormal";
  }
  return "not-enough-data";
}

json evidence_json(const std::vector<Evidence>& ev) {
  json a = json::array();
  for (const auto& e : ev)
    a.push_back({{"signal", e.signal}, {"value", r3(e.value)}, {"threshold", r3(e.threshold)},
                 {"text", e.text}});
  return a;
}

json hotspots_json(const std::vector<Hotspot>& hotspots) {
  json hs = json::array();
  for (const auto& h : hotspots) {
    json hj = {{"function", h.function}, {"location", h.location}, {"share", r3(h.share)}};
    if (!h.caller.empty()) hj["caller"] = h.caller;
    if (!h.caller_line_text.empty()) hj["caller_line_text"] = h.caller_line_text;
    if (!h.hot_line.empty()) hj["hot_line"] = h.hot_line;
    if (!h.hot_line_text.empty()) hj["hot_line_text"] = h.hot_line_text;
    if (!h.generated_location.empty()) hj["generated_location"] = h.generated_location;
    hs.push_back(std::move(hj));
  }
  return hs;
}

json or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

// docs/contracts.md "Memory by site": every field always there (null where
// it does not apply), so a reader needs no existence checks.
json allocation_hotspots_json(const std::vector<AllocationHotspot>& sites) {
  json a = json::array();
  for (const AllocationHotspot& h : sites) {
    const bool live = h.kind == AllocKind::kLive;
    json points = json::array();
    for (const auto& [t, bytes] : h.points) points.push_back({{"t_ms", r3(t)}, {"bytes", std::round(bytes)}});
    json j = {{"function", h.function},
              {"location", h.location},
              {"caller", or_null(h.caller)},
              {"hot_line_text", or_null(h.hot_line_text)},
              {"package", h.package_name.empty() ? json(nullptr)
                                                 : json{{"name", h.package_name}, {"version", h.package_version}}},
              {"kind", to_string(h.kind)},
              {"bytes", std::round(h.bytes)},
              {"share", r3(h.share)},
              {"growth_bytes_per_s", live ? json(r3(h.growth_bytes_per_s)) : json(nullptr)},
              {"bytes_per_s", live ? json(nullptr) : json(r3(h.bytes_per_s))},
              {"pattern", or_null(to_string(h.pattern))},
              {"generated_location", or_null(h.generated_location)}};
    if (live) j["points"] = std::move(points);
    a.push_back(std::move(j));
  }
  return a;
}

// docs/contracts.md "The user's call sites": every field always there.
json call_sites_json(const std::vector<CallSiteShare>& sites) {
  json a = json::array();
  for (const CallSiteShare& c : sites)
    a.push_back({{"site", or_null(c.site)}, {"line_text", or_null(c.line_text)}, {"into", or_null(c.into)},
                 {"share", r3(c.share)}});
  return a;
}

// `blocks`: the window's block stacks. Recordings without them keep the
// fields they always had; with them, each issue says where its hotspots
// come from.
json issue_json(const Issue& i, const BlockSummary& blocks) {
  json j = {{"kind", to_string(i.kind)},
            {"severity", to_string(i.severity)},
            {"confidence", r3(i.confidence)},
            {"summary", i.summary},
            {"evidence", evidence_json(i.evidence)},
            {"hotspots", hotspots_json(i.hotspots)},
            {"hotspots_scope", i.hotspots_blocked_time ? "blocked-time" : "window"},
            {"recommendations", i.recommendations}};
  // Only when one was found: recordings without keep the fields they had.
  if (i.cause.present()) {
    j["cause"] = to_string(i.cause.kind);
    j["cause_text"] = i.cause.line();
  }
  if (!i.cause.pattern.empty()) j["pattern"] = i.cause.pattern;
  if (blocks.blocks > 0) j["hotspots_source"] = to_string(i.hotspots_source);
  if (!i.block_hotspots.empty()) j["block_hotspots"] = hotspots_json(i.block_hotspots);
  if (!i.call_sites.empty()) j["call_sites"] = call_sites_json(i.call_sites);
  // Only with allocation sampling's sites: recordings without keep their fields.
  if (!i.allocation_hotspots.empty()) j["allocation_hotspots"] = allocation_hotspots_json(i.allocation_hotspots);
  return j;
}

// The target's own warnings (process.on('warning')), apart from `warnings`,
// which says what went wrong in loopdoctor's recording.
json process_warnings_json(const std::vector<WarningSummary>& ws) {
  json a = json::array();
  for (const WarningSummary& w : ws) {
    json j = {{"name", w.name}, {"message", w.message}, {"count", w.count}, {"first_at_ms", r3(w.first_at_ms)}};
    if (!w.code.empty()) j["code"] = w.code;
    if (!w.location.empty()) j["location"] = w.location;
    a.push_back(std::move(j));
  }
  return a;
}

json block_stacks_json(const BlockSummary& b) {
  return {{"blocks", b.blocks},
          {"blocked_ms", r3(b.blocked_ms)},
          {"longest_ms", r3(b.longest_ms)},
          {"longest_in", b.longest_in}};
}

json findings_json(const std::vector<Finding>& fs) {
  json findings = json::array();
  for (const auto& f : fs)
    findings.push_back({{"signal", to_string(f.signal)},
                        {"outcome", outcome_name(f.outcome)},
                        {"note", f.note},
                        {"evidence", evidence_json(f.evidence)}});
  return findings;
}

// A pid no process has (a damaged or hand-made recording's 1e300) is
// written as 0, as for a recording without a hello, not cast out of range.
long long pid_json(double pid) {
  return pid >= 1 && pid <= kMaxPid ? static_cast<long long>(pid) : 0;
}

json target_json(const Timeline& tl, const ExitDescription& ed) {
  json target;
  target["command"] = tl.command;
  target["pid"] = pid_json(tl.pid);
  target["runtime"] = tl.runtime.empty() ? json(nullptr) : json(tl.runtime);
  target["versions"] = tl.versions;
  if (!tl.probe_kind.empty()) target["probe"] = tl.probe_kind;
  if (!tl.probe_fallback.empty()) target["probe_fallback"] = tl.probe_fallback;
  json exit = {{"code", nullptr}, {"signal", nullptr}};
  if (tl.exit.present) {
    if (tl.exit.code) exit["code"] = *tl.exit.code;
    if (tl.exit.signal) exit["signal"] = *tl.exit.signal;
    exit["t_ms"] = r3(tl.exit.t);
    exit["stopped_by_loopdoctor"] = tl.exit.stopped_by_loopdoctor;
    if (!tl.exit.oom.empty()) exit["oom"] = tl.exit.oom;
    if (tl.exit.heap_limit_mb > 0) exit["heap_limit_mb"] = tl.exit.heap_limit_mb;
    // Only when it did (exit_description.h): a crash, or a server's own end.
    if (ed.died) exit["died"] = true;
  }
  target["exit"] = exit;
  if (tl.attach.present) {
    // The pid the user attached to (the host's); a container's own beside it.
    target["attached"] = true;
    if (tl.attach.host_pid > 0) target["pid"] = tl.attach.host_pid;
    if (tl.attach.ns_pid > 0 && tl.attach.ns_pid != tl.attach.host_pid) target["ns_pid"] = tl.attach.ns_pid;
    target["container"] = tl.attach.container;
    if (tl.detach_t >= 0) target["detached_t_ms"] = r3(tl.detach_t);
  }
  return target;
}

// Without the built-in generator (e.g. --on-port wrk) the probe's
// server-side counts are the best view of the load there is: the window's
// figures (WindowStats), as the terminal and the Markdown state them.
void set_probe_load(json& load, const WindowStats& st) {
  load["requests"] = r3(st.http_requests);
  load["rps"] = r3(st.http_rps);
  load["latency_ms"] = {{"p50", nullptr}, {"p99", nullptr}, {"max", r3(st.http_latency_max_ms)},
                        {"mean", r3(st.http_latency_mean_ms)}};
  load["source"] = "probe";
}

// What the load measured (load_outcome.h), each only when it holds: a
// recording without keeps the fields it had.
void set_load_outcome(json& load, const Diagnosis& dx) {
  const LoadFailure& f = dx.load_failure;
  if (f.failed) {
    load["failure"] = {{"share", r3(f.share)},
                       {"failed", r3(f.failures)},
                       {"attempts", r3(f.attempts)},
                       {"top", f.top.empty() ? json(nullptr) : json(f.top)},
                       {"top_is_status", f.top_is_status},
                       {"top_count", r3(f.top_count)},
                       {"text", f.text}};
  }
  const Saturation& sat = dx.saturation;
  if (sat.saturated) {
    load["saturation"] = {{"elu_mean", r3(sat.elu)},
                          {"rps", r3(sat.rps)},
                          {"latency_p99_ms", sat.client_p99_ms ? json(r3(*sat.client_p99_ms)) : json(nullptr)},
                          {"text", sat.text}};
  }
}

json load_json(const Timeline& tl, const Diagnosis& dx) {
  const WindowStats& st = dx.stats;
  const LoadSummary& ls = tl.load_summary;
  json load = {{"requests", r3(ls.requests)},
               {"rps", r3(ls.rps)},
               {"latency_ms", {{"p50", r3(ls.p50)}, {"p99", r3(ls.p99)}, {"max", r3(ls.max)}}},
               {"errors", r3(ls.errors)},
               {"non_2xx", r3(ls.non_2xx)}};
  if (!ls.present && !tl.samples.empty()) set_probe_load(load, st);
  else if (ls.present) load["source"] = "load-generator";
  if (!tl.load_kind.empty()) load["kind"] = tl.load_kind;
  if (!tl.load_command.empty()) load["command"] = tl.load_command;
  // The built-in load as configured (docs/contracts.md "Contracts"): which load ran.
  if (tl.load_config) load["config"] = recording::encode(*tl.load_config);
  set_load_outcome(load, dx);
  return load;
}

json issues_json(const Diagnosis& dx) {
  json issues = json::array();
  for (const auto& i : dx.issues)
    if (is_problem(i.kind)) issues.push_back(issue_json(i, dx.blocks));
  return issues;
}

// DESIGN "Extensions agreed": one entry per loop, worst first (loops.h).
json loops_json(const Timeline& tl, const Diagnosis& dx) {
  json loops = json::array();
  for (const LoopDiagnosis& l : dx.loops) {
    const Timeline* lt = &tl;
    for (const Timeline& o : tl.other_loops)
      if (o.loop == l.loop) lt = &o;
    json j = {{"pid", pid_json(l.pid)},
              {"thread", pid_json(l.loop.thread)},
              {"name", l.name},
              {"verdict", to_string(l.dx.verdict)},
              {"summary", l.dx.lead().summary},
              {"issues", issues_json(l.dx)},
              {"figures", figures_json(figures_of(*lt, l.dx))}};
    if (!l.waited_on.empty()) j["waited_on"] = l.waited_on;
    if (l.dx.blocks.blocks > 0) j["block_stacks"] = block_stacks_json(l.dx.blocks);
    loops.push_back(std::move(j));
  }
  return loops;
}

}  // namespace

json diagnosis_json(const Timeline& tl, const Diagnosis& dx) {
  json j;
  j["schema"] = "loopdoctor.diagnosis/1";
  j["verdict"] = to_string(dx.verdict);
  // `issues` lists problems only; a healthy or insufficient-data run has none,
  // and its sentence and advice are in `summary` and `recommendations`.
  j["issues"] = issues_json(dx);
  j["summary"] = dx.lead().summary;
  j["recommendations"] = dx.lead().recommendations;
  j["notes"] = dx.notes;
  j["findings"] = findings_json(dx.findings);
  j["target"] = target_json(tl, dx.exit);
  j["load"] = load_json(tl, dx);
  j["window"] = {{"start_ms", r3(dx.window.start)},
                 {"end_ms", r3(dx.window.end)},
                 {"samples", dx.window_samples}};
  j["figures"] = figures_json(figures_of(tl, dx));
  if (dx.blocks.blocks > 0) j["block_stacks"] = block_stacks_json(dx.blocks);
  // A load that mostly failed first, then the reader's warnings and the
  // collector's: all that went wrong in the run and its recording.
  json warnings = json::array();
  if (dx.load_failure.failed) warnings.push_back(dx.load_failure.text);
  for (const auto& w : tl.warnings) warnings.push_back(w);
  for (const auto& w : tl.recorded_warnings) warnings.push_back(w);
  j["warnings"] = warnings;
  // Only when the target warned: recordings without keep the fields they had.
  if (!dx.warnings.empty()) j["process_warnings"] = process_warnings_json(dx.warnings);
  // Only a recording of more than one loop has them: one loop's JSON stays
  // as it was.
  if (!dx.loops.empty()) {
    j["loops"] = loops_json(tl, dx);
    if (dx.folded_loops > 0) j["loops_folded"] = dx.folded_loops;
  }
  return j;
}

}  // namespace loopdoctor
