// `loopdoctor run [options] -- <command> [args...]`: one-shot diagnosis.
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "agent/collector/session.h"
#include "base/duration.h"
#include "base/file.h"
#include "cli/commands.h"
#include "cli/paths.h"
#include "cli/report_outputs.h"
#include "cli/text_files.h"

namespace loopdoctor::cli {
namespace {

struct RunArgs {
  std::vector<std::string> command;
  std::string load_target, on_port, duration = "", sample_interval = "10ms";
  int connections = 50, pipelining = 1, threads = 1;
  double rate = 0;
  std::string method = "GET", body, timeout = "10s";
  std::vector<std::string> headers;
  std::string output, json, markdown, record;
  std::vector<std::string> fail_on;
  bool open = false;
  bool no_profile = false;
  std::string profile_interval;  // empty: the probe's default (1ms)
};

// The sampler and probe cost grows as the interval shrinks; under 1 ms the
// probe's own timer would dominate a small server's loop.
constexpr double kMinSampleIntervalMs = 1;
constexpr double kMaxSampleIntervalMs = 10000;
// V8's sampler cannot usefully go below ~50 µs (each sample walks the stack
// on a signal); above 100 ms a profile of a 10 s run has too few samples to
// rank functions.
constexpr double kMinProfileIntervalMs = 0.05;
constexpr double kMaxProfileIntervalMs = 100;
constexpr double kUsPerMs = 1000;
// Without --duration the built-in load runs this long (autocannon's default).
constexpr double kDefaultLoadDurationMs = 10000;

int usage(const std::string& msg) {
  std::cerr << "loopdoctor run: " << msg << "\n";
  return kExitUsage;
}

int run_command(const RunArgs& a) {
  if (a.command.empty()) return usage("no target command: loopdoctor run [options] -- node server.js");
  if (!a.load_target.empty() && !a.on_port.empty())
    return usage("--load and --on-port both given; choose the built-in load or an external one");
  std::string err;
  if (!check_fail_on(a.fail_on, &err)) return usage(err);

  collector::RunOptions ro;
  ro.command = a.command;
  ro.on_port = a.on_port;
  ro.loopdoctor_version = LOOPDOCTOR_VERSION;
  if (!base::parse_duration_ms(a.sample_interval, &ro.sample_interval_ms, &err))
    return usage("--sample-interval: " + err);
  if (ro.sample_interval_ms < kMinSampleIntervalMs || ro.sample_interval_ms > kMaxSampleIntervalMs)
    return usage("--sample-interval must be between 1ms and 10s, not '" + a.sample_interval + "'");
  ro.profile = !a.no_profile;
  if (!a.profile_interval.empty()) {
    double ms = 0;
    if (!base::parse_duration_ms(a.profile_interval, &ms, &err))
      return usage("--profile-interval: " + err);
    if (ms < kMinProfileIntervalMs || ms > kMaxProfileIntervalMs)
      return usage("--profile-interval must be between 50us and 100ms, not '" +
                   a.profile_interval + "'");
    ro.profile_interval_us = ms * kUsPerMs;
  }
  double duration_ms = 0;
  if (!a.duration.empty() && !base::parse_duration_ms(a.duration, &duration_ms, &err))
    return usage("--duration: " + err);

  if (!a.load_target.empty()) {
    load::Config cfg;
    if (!load::parse_target(a.load_target, &cfg, &err)) return usage("--load: " + err);
    cfg.connections = a.connections;
    cfg.threads = a.threads;
    cfg.rate = a.rate;
    cfg.method = a.method;
    cfg.headers = a.headers;
    cfg.pipelining = a.pipelining;
    cfg.duration_s = (duration_ms > 0 ? duration_ms : kDefaultLoadDurationMs) / 1000.0;
    double timeout_ms = 0;
    if (!base::parse_duration_ms(a.timeout, &timeout_ms, &err)) return usage("--timeout: " + err);
    cfg.timeout_s = timeout_ms / 1000.0;
    cfg.body = a.body;
    if (a.body.starts_with("@") && !base::read_file(a.body.substr(1), &cfg.body, &err))
      return usage("--body: " + err);
    if (cfg.connections < 1) return usage("-c/--connections must be at least 1");
    ro.load = cfg;
  } else {
    ro.duration_ms = duration_ms;
  }

  DataPaths paths;
  if (!find_data_paths(&paths, &err)) {
    std::cerr << "loopdoctor: " << err << "\n";
    return kExitFailed;
  }
  ro.probe_path = paths.probe_js;
  // The target's pid is known only once it runs: record under our own pid
  // and rename afterwards to the documented <pid>.ndjson.gz.
  const bool default_record = a.record.empty();
  ro.record_path = default_record
                       ? ".loopdoctor/run-" + std::to_string(getpid()) + ".ndjson.gz"
                       : a.record;
  ro.live_status = isatty(STDERR_FILENO) == 1;

  collector::RunResult res;
  if (!collector::run_session(ro, &res)) {
    std::cerr << "loopdoctor: " << res.error << "\n";
    return kExitFailed;
  }
  std::string record = res.record_path.empty() ? ro.record_path : res.record_path;
  if (default_record && res.pid > 0) {
    std::error_code ec;
    std::string final_path = ".loopdoctor/" + std::to_string(res.pid) + ".ndjson.gz";
    std::filesystem::rename(record, final_path, ec);
    if (!ec) record = final_path;
  }

  OutputOptions oo;
  oo.html_path = a.output.empty() ? "loopdoctor-" + std::to_string(res.pid) + ".html" : a.output;
  oo.json_path = a.json;
  oo.markdown_path = a.markdown;
  oo.fail_on = a.fail_on;
  oo.open = a.open;
  int rc = analyze_and_report(record, oo);
  if (rc == kExitOk && res.target_exited_early && !res.interrupted) {
    std::cerr << "loopdoctor: the target ended before the run did ("
              << (res.exit_signal ? "killed by " + *res.exit_signal
                                  : "exit code " + std::to_string(res.exit_code.value_or(-1)))
              << "); the report covers the run up to then\n";
    const bool failed = res.exit_signal || res.exit_code.value_or(0) != 0;
    if (failed) rc = kExitFailed;
  }
  return rc;
}

}  // namespace

Command add_run(CLI::App& root) {
  auto a = std::make_shared<RunArgs>();
  CLI::App* s = root.add_subcommand("run", "Run a target under load and diagnose its event loop");
  s->add_option("--load", a->load_target, "Built-in HTTP load: a path (/api?x=1) or URL, sent once the target listens");
  s->add_option("-c,--connections", a->connections, "Load connections")->capture_default_str();
  s->add_option("-t,--threads", a->threads, "Load generator threads")->capture_default_str();
  s->add_option("-d,--duration", a->duration,
                "With --load: how long it runs (default 10s). Without load: stop the target after this long (else on Ctrl-C or exit)");
  s->add_option("--rate", a->rate, "Constant request rate, req/s (latency from intended send times)");
  s->add_option("-m,--method", a->method, "HTTP method")->capture_default_str();
  s->add_option("-H,--header", a->headers, "Request header 'Name: value' (repeatable)");
  s->add_option("-b,--body", a->body, "Request body, inline or @file");
  s->add_option("-p,--pipelining", a->pipelining, "Requests in flight per connection")->capture_default_str();
  s->add_option("--timeout", a->timeout, "Request timeout")->capture_default_str();
  s->add_option("--on-port", a->on_port,
                "External load command run once the target listens; {port} and $PORT carry the port; the run ends when it exits");
  s->add_option("--sample-interval", a->sample_interval, "Probe and /proc sampling period")->capture_default_str();
  s->add_flag("--no-profile", a->no_profile,
              "Do not record a CPU profile of the target during the load, or of the whole run without load (it names the functions that block the loop)");
  s->add_option("--profile-interval", a->profile_interval,
                "CPU profile sampling interval (default 1ms)");
  s->add_option("-o,--output", a->output, "HTML report (default ./loopdoctor-<pid>.html)");
  s->add_option("--json", a->json, "Diagnosis as JSON ('-' for stdout)");
  s->add_option("--markdown", a->markdown, "Short Markdown summary for a bug ticket ('-' for stdout)");
  s->add_option("--record", a->record, "Keep the recording here (default ./.loopdoctor/<pid>.ndjson.gz)");
  s->add_option("--fail-on", a->fail_on, "Exit 3 when the verdict is one of these (comma-separated)")->delimiter(',');
  s->add_flag("--open", a->open, "Open the report in a browser");
  s->add_option("command", a->command, "The target command, after --");
  return {s, [a] { return run_command(*a); }};
}

}  // namespace loopdoctor::cli
