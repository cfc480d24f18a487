#include "agent/exporter/routes.h"

#include <unistd.h>

#include <chrono>
#include <ctime>

#include <nlohmann/json.hpp>

#include "agent/exporter/metrics.h"
#include "agent/exporter/process_loops.h"
#include "analyzer/analyze.h"
#include "analyzer/render/html_report.h"

namespace loopdoctor::exporter {
namespace {

std::string iso_time(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string hostname() {
  char buf[256] = {};
  return gethostname(buf, sizeof buf - 1) == 0 ? buf : "";
}

std::string verdict_text(const VerdictState& v) {
  return v.analysed ? to_string(v.verdict) : "insufficient-data";
}

// One loop of a process: its label, its hello's name and its own verdict.
nlohmann::json loop_json(const ProcessState& p) {
  nlohmann::json j = {{"thread", thread_label(p.id.thread)},
                      {"name", p.id.thread == 0 ? "main" : p.id.thread_name},
                      {"connected", p.connected}};
  if (p.id.thread > 0) j["thread_id"] = p.id.thread;
  if (p.id.thread == kFoldedThread) j["folded"] = p.folded_workers().links();
  else j["verdict"] = verdict_text(p.verdict);
  return j;
}

// `p` is the process's main-thread entry (or its only entry): the process's
// verdict is the run's over its loops, listed in `loops` main first.
nlohmann::json process_json(const ProcessTable& table, const ProcessLoops& g, const ProcessState& p) {
  const VerdictState& run = p.has_probe && p.id.thread == 0 ? p.process_verdict : p.verdict;
  nlohmann::json issues = nlohmann::json::array();
  for (Verdict v : run.issue_kinds) issues.push_back(to_string(v));
  nlohmann::json j = {
      {"pid", p.id.pid},
      {"job", p.id.job},
      {"runtime", p.id.runtime.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.id.runtime)},
      {"argv", p.id.argv},
      {"probe", p.has_probe},
      {"connected", p.has_probe && p.connected},
      {"verdict", verdict_text(run)},
      {"issues", issues},
      {"summary", run.summary},
      {"window_samples", run.window_samples},
      {"loop_delay_p99_ms", run.delay_p99_ms},
      {"elu", run.elu_mean},
      {"report", "/report/" + std::to_string(p.id.pid)},
  };
  if (!p.id.probe.empty()) j["probe_kind"] = p.id.probe;
  if (!p.id.probe_fallback.empty()) j["probe_fallback"] = p.id.probe_fallback;
  if (p.id.attached) j["attached"] = true;
  if (auto it = p.id.versions.find("node"); it != p.id.versions.end()) j["node"] = it->second;
  if (p.id.start_time_s > 0) j["start_time"] = iso_time(static_cast<std::time_t>(p.id.start_time_s));
  if (p.has_probe && p.counters().have_sample()) j["rss_bytes"] = p.counters().latest().rss;
  else if (!p.has_probe) j["rss_bytes"] = p.counters().proc_rss();
  if (p.has_probe) {
    nlohmann::json loops = nlohmann::json::array();
    if (g.main) loops.push_back(loop_json(*table.all().at(g.main)));
    for (ProcessTable::Id id : g.workers) loops.push_back(loop_json(*table.all().at(id)));
    if (g.folded) loops.push_back(loop_json(*table.all().at(g.folded)));
    j["loops"] = std::move(loops);
  }
  return j;
}

}  // namespace

HttpResponse metrics_response(ProcessTable& table) {
  return {200, "text/plain; version=0.0.4; charset=utf-8", render_metrics(table)};
}

HttpResponse processes_response(ProcessTable& table, double) {
  nlohmann::json list = nlohmann::json::array();
  {
    std::lock_guard lock(table.mutex());
    for (const auto& [id, p] : table.all())
      if (!p->has_probe) list.push_back(process_json(table, {}, *p));
    // A process with probes is listed once, from its main thread's entry (or
    // its first worker's while its main thread has not said hello).
    for (const auto& [key, g] : group_loops(table)) {
      const ProcessTable::Id first = g.main ? g.main : (g.workers.empty() ? g.folded : g.workers.front());
      if (first) list.push_back(process_json(table, g, *table.all().at(first)));
    }
  }
  nlohmann::json body = {{"schema", "loopdoctor.processes/1"}, {"processes", std::move(list)}};
  return {200, "application/json", body.dump(2) + "\n"};
}

HttpResponse report_response(ProcessTable& table, long pid, double now_ms, const ReportContext& ctx) {
  Timeline tl;
  {
    std::lock_guard lock(table.mutex());
    const ProcessTable::Id id = table.find_by_pid(pid);
    ProcessState* p = table.find(id);
    if (!p)
      return {404, "text/plain",
              "no process with pid " + std::to_string(pid) + " is observed by this agent; see /processes\n"};
    // Every loop of the process, as the CLI's analyzer takes a recording's.
    tl = p->has_probe ? loops_timeline(table, loops_of(table, id), now_ms) : p->timeline(now_ms);
  }
  // The report's header shows when its window began, in wall time.
  const double first_t = tl.samples.empty() ? (tl.proc.empty() ? now_ms : tl.proc.front().t)
                                            : tl.samples.front().t - tl.samples.front().interval;
  const std::time_t wall_now = std::time(nullptr);
  tl.start_time = iso_time(wall_now - static_cast<std::time_t>((now_ms - first_t) / 1000.0));
  tl.host = hostname();
  tl.loopdoctor_version = ctx.version;

  Diagnosis dx = analyze(tl);
  std::string error;
  attach_recommendations(&dx, ctx.templates_dir, &error);  // a missing text is not fatal here
  render::ReportOptions opt{ctx.templates_dir, iso_time(wall_now), ctx.version};
  std::string html = render::html_report(tl, dx, opt, &error);
  if (html.empty()) return {500, "text/plain", "the report could not be rendered: " + error + "\n"};
  return {200, "text/html; charset=utf-8", std::move(html)};
}

}  // namespace loopdoctor::exporter
