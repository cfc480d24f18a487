// `loopdoctor agent`: the long-running mode (agent/exporter/agent.h).
#include <iostream>
#include <memory>

#include "agent/exporter/agent.h"
#include "agent/exporter/http_server.h"
#include "agent/exporter/process_match.h"
#include "agent/exporter/socket_path.h"
#include "base/duration.h"
#include "cli/commands.h"
#include "cli/paths.h"

namespace loopdoctor::cli {
namespace {

// Under 5 s a window at the default 1 s probe interval cannot reach the
// analyzer's 20-sample minimum at any setting; refuse it as a usage error.
constexpr double kMinWindowMs = 5'000;
// Beyond an hour, memory per process grows with no better verdict: the
// report's charts and the alerting rules look at minutes.
constexpr double kMaxWindowMs = 3'600'000;
// Attached probes' sampling period. Under 10 ms the probe's timer costs a
// busy server more than the agent keeps (it merges samples down to
// kMaxSamplesPerWindow); 60 s is the probe's own upper bound.
constexpr double kMinSampleIntervalMs = 10;
constexpr double kMaxSampleIntervalMs = 60'000;

struct AgentArgs {
  std::string listen = "127.0.0.1:9464";
  std::string socket;
  std::vector<int> attach;
  std::string attach_match;
  std::string sample_interval;  // "": the probe's agent default
  std::string window = "60s";
  bool public_reports = false;
  bool no_redact = false;
};

// The line said at start when the HTTP port is reachable from other hosts.
std::string exposure_warning(const std::string& listen, bool public_reports) {
  if (public_reports)
    return "loopdoctor agent: warning: serving /metrics, /processes and /report/<pid> on " + listen +
           " to anyone who can reach it: they show the observed processes' command lines and code\n";
  return "loopdoctor agent: warning: serving /metrics on " + listen +
         " to anyone who can reach it; /processes and /report/<pid> answer clients on this host only "
         "(--public-reports to serve them there too)\n";
}

int agent_command(const AgentArgs& a) {
  exporter::AgentOptions o;
  std::string err;
  if (!base::parse_duration_ms(a.window, &o.window_ms, &err)) {
    std::cerr << "loopdoctor agent: --window: " << err << "\n";
    return kExitUsage;
  }
  if (o.window_ms < kMinWindowMs || o.window_ms > kMaxWindowMs) {
    std::cerr << "loopdoctor agent: --window " << a.window << " is outside 5s..1h\n";
    return kExitUsage;
  }
  std::string host;
  int port = 0;
  if (!exporter::parse_listen_address(a.listen, &host, &port)) {
    std::cerr << "loopdoctor agent: --listen '" << a.listen
              << "' is not host:port (e.g. 127.0.0.1:9464)\n";
    return kExitUsage;
  }
  if (!exporter::is_loopback_host(host)) std::cerr << exposure_warning(a.listen, a.public_reports);
  for (int pid : a.attach)
    if (pid <= 0) {
      std::cerr << "loopdoctor agent: --attach " << pid << " is not a process id\n";
      return kExitUsage;
    }
  if (!a.attach_match.empty() && !exporter::compile_command_pattern(a.attach_match, &err)) {
    std::cerr << "loopdoctor agent: --attach-match: " << err << "\n";
    return kExitUsage;
  }
  if (!a.sample_interval.empty()) {
    if (!base::parse_duration_ms(a.sample_interval, &o.sample_interval_ms, &err)) {
      std::cerr << "loopdoctor agent: --sample-interval: " << err << "\n";
      return kExitUsage;
    }
    if (o.sample_interval_ms < kMinSampleIntervalMs || o.sample_interval_ms > kMaxSampleIntervalMs) {
      std::cerr << "loopdoctor agent: --sample-interval must be between 10ms and 60s, not '" << a.sample_interval
                << "'\n";
      return kExitUsage;
    }
  }
  DataPaths paths;
  if (!find_data_paths(&paths, &err)) {
    std::cerr << "loopdoctor agent: " << err << "\n";
    return kExitFailed;
  }
  o.listen = a.listen;
  o.socket_path = a.socket.empty() ? exporter::default_socket_path() : a.socket;
  o.attach = a.attach;
  o.attach_match = a.attach_match;
  o.probe_js = paths.probe_js;
  o.native_dir = paths.native_dir;
  o.details_public = a.public_reports;
  o.redact = !a.no_redact;
  o.templates_dir = paths.templates_dir;
  o.version = LOOPDOCTOR_VERSION;
  return exporter::run_agent(o);
}

}  // namespace

Command add_agent(CLI::App& root) {
  auto a = std::make_shared<AgentArgs>();
  CLI::App* s = root.add_subcommand(
      "agent",
      "Run as a long-lived agent: probes connect over a Unix socket (preloaded with `loopdoctor env`, "
      "or loaded into running processes with --attach and --attach-match), Prometheus scrapes "
      "/metrics, /report/<pid> serves a doctor report of a process's last window");
  s->add_option("--listen", a->listen, "HTTP address for /metrics, /processes, /report/<pid>")
      ->capture_default_str();
  s->add_option("--socket", a->socket,
                "Unix socket probes connect to (default " + exporter::default_socket_path() +
                    "); its directory is created with mode 0700");
  s->add_option("--attach", a->attach,
                "Load the probe into this running Node.js process, started without it (no restart: SIGUSR1 "
                "and its inspector, as `loopdoctor attach`, closed again once the probe runs); it reports "
                "until the agent stops or it exits, then detaches and leaves no trace. A process that "
                "refuses (not Node, SIGUSR1 not Node's...) is logged and observed from /proc only; "
                "repeatable");
  s->add_option("--attach-match", a->attach_match,
                "Load the probe, as --attach does, into every process whose command line (argv joined by "
                "spaces) matches this ECMAScript regular expression, now and as processes start (looked "
                "for every 3 s); one that refuses is logged once and skipped, one whose probe reports "
                "here already is left as it is");
  s->add_option("--sample-interval", a->sample_interval,
                "Sampling period of the probes the agent attaches (default 1s, as a preloaded probe's; "
                "those take theirs from LOOPDOCTOR_INTERVAL_MS)");
  s->add_flag("--public-reports", a->public_reports,
              "Serve /processes and /report/<pid> (command lines, code) to remote clients too, not "
              "only to this host's, when --listen is not a loopback address");
  s->add_flag("--no-redact", a->no_redact,
              "Keep what looks like a secret in the observed processes' command lines and job "
              "names (--password=..., token=, URL userinfo, long keys, secret environment values) "
              "in /processes, /report/<pid>, the job label and the log; by default it is replaced "
              "with [REDACTED]");
  s->add_option("--window", a->window, "Rolling analysis window per process")->capture_default_str();
  return {s, [a] { return agent_command(*a); }};
}

}  // namespace loopdoctor::cli
