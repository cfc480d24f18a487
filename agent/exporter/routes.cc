#include "agent/exporter/routes.h"

#include <unistd.h>

#include <chrono>
#include <ctime>

#include <nlohmann/json.hpp>

#include "agent/exporter/metrics.h"
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

nlohmann::json process_json(const ProcessState& p) {
  nlohmann::json issues = nlohmann::json::array();
  for (Verdict v : p.verdict.issue_kinds) issues.push_back(to_string(v));
  nlohmann::json j = {
      {"pid", p.id.pid},
      {"job", p.id.job},
      {"runtime", p.id.runtime.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.id.runtime)},
      {"argv", p.id.argv},
      {"probe", p.has_probe},
      {"connected", p.has_probe && p.connected},
      {"verdict", p.verdict.analysed ? to_string(p.verdict.verdict) : "insufficient-data"},
      {"issues", issues},
      {"summary", p.verdict.summary},
      {"window_samples", p.verdict.window_samples},
      {"loop_delay_p99_ms", p.verdict.delay_p99_ms},
      {"elu", p.verdict.elu_mean},
      {"report", "/report/" + std::to_string(p.id.pid)},
  };
  if (!p.id.probe.empty()) j["probe_kind"] = p.id.probe;
  if (!p.id.probe_fallback.empty()) j["probe_fallback"] = p.id.probe_fallback;
  if (auto it = p.id.versions.find("node"); it != p.id.versions.end()) j["node"] = it->second;
  if (p.id.start_time_s > 0) j["start_time"] = iso_time(static_cast<std::time_t>(p.id.start_time_s));
  if (p.has_probe && p.have_latest) j["rss_bytes"] = p.latest.rss;
  else if (!p.has_probe) j["rss_bytes"] = p.proc_rss;
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
    for (const auto& [id, p] : table.all()) list.push_back(process_json(*p));
  }
  nlohmann::json body = {{"schema", "loopdoctor.processes/1"}, {"processes", std::move(list)}};
  return {200, "application/json", body.dump(2) + "\n"};
}

HttpResponse report_response(ProcessTable& table, long pid, double now_ms, const ReportContext& ctx) {
  Timeline tl;
  {
    std::lock_guard lock(table.mutex());
    ProcessState* p = table.find(table.find_by_pid(pid));
    if (!p)
      return {404, "text/plain",
              "no process with pid " + std::to_string(pid) + " is observed by this agent; see /processes\n"};
    tl = p->timeline(now_ms);
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
