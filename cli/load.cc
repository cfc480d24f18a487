// `loopdoctor load URL`: the built-in load generator on its own, like
// autocannon or wrk.
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <iostream>
#include <memory>

#include "base/duration.h"
#include "agent/load/load.h"
#include "agent/load/summary_text.h"
#include "cli/commands.h"
#include "cli/load_options.h"

namespace loopdoctor::cli {

namespace {

constexpr int kJsonIndent = 2;

struct LoadOptions {
  std::string url;
  LoadFlags flags;
  std::uint64_t requests = 0;
  std::string json;
};

int usage_error(const std::string& message) {
  std::cerr << "loopdoctor load: " << message << "\n";
  return kExitUsage;
}

// Builds the Config from the options; an empty string means success.
std::string build_config(const LoadOptions& o, load::Config* cfg) {
  std::string error;
  if (!load::parse_target(o.url, cfg, &error)) return error;
  if (o.url.rfind("http://", 0) != 0)
    return "invalid target '" + o.url + "': expected an absolute URL such as http://127.0.0.1:8080/";
  if (error = apply_load_flags(o.flags, kDefaultLoadDurationMs, cfg); !error.empty()) return error;
  // -n alone runs until the count is reached; -d alone or both: whichever
  // comes first.
  cfg->max_requests = o.requests;
  if (o.requests > 0 && o.flags.duration.empty()) cfg->duration_s = 0;
  return load::validate(*cfg);
}

// Event-loop side of one standalone run.
struct Session {
  uv_loop_t loop{};
  uv_signal_t sigint{};
  std::unique_ptr<load::Runner> runner;
  std::vector<nlohmann::json> seconds;
  nlohmann::json summary;
  bool tty = false;
  double total_s = 0;
  double elapsed_s = 0;
};

void on_sigint(uv_signal_t* s, int) {
  auto* session = static_cast<Session*>(s->data);
  if (session->runner) session->runner->stop();
}

void on_second(Session& s, const nlohmann::json& rec) {
  s.seconds.push_back(rec);
  s.elapsed_s += rec.value("interval_s", 1.0);
  const std::string line = load::status_line(rec, s.elapsed_s, s.total_s);
  // A terminal gets one line rewritten in place; a pipe or file gets one
  // line per second it can keep.
  if (s.tty)
    std::cerr << "\r\033[K" << line << std::flush;
  else
    std::cerr << line << std::endl;
}

int write_json(const std::string& where, const nlohmann::json& j) {
  if (where == "-") {
    std::cout << j.dump(kJsonIndent) << "\n";
    return kExitOk;
  }
  std::ofstream out(where);
  out << j.dump(kJsonIndent) << "\n";
  if (!out) {
    std::cerr << "loopdoctor load: cannot write --json file '" << where << "'\n";
    return kExitFailed;
  }
  return kExitOk;
}

int run_load(const LoadOptions& o) {
  load::Config cfg;
  if (std::string error = build_config(o, &cfg); !error.empty()) return usage_error(error);

  Session s;
  s.tty = isatty(STDERR_FILENO) == 1;
  s.total_s = cfg.duration_s;
  uv_loop_init(&s.loop);
  uv_signal_init(&s.loop, &s.sigint);
  s.sigint.data = &s;
  uv_signal_start(&s.sigint, &on_sigint, SIGINT);
  std::cerr << "Running load against " << o.url << ": " << cfg.connections << " connections";
  if (cfg.threads > 1) std::cerr << ", " << cfg.threads << " threads";
  if (cfg.rate > 0) std::cerr << ", " << cfg.rate << " req/s";
  if (cfg.duration_s > 0) std::cerr << ", for " << cfg.duration_s << "s";
  if (cfg.max_requests) std::cerr << ", up to " << cfg.max_requests << " requests";
  std::cerr << std::endl;
  s.runner = load::start(
      &s.loop, cfg, [&s](const nlohmann::json& rec) { on_second(s, rec); },
      [&s](const nlohmann::json& summary) {
        s.summary = summary;
        uv_close(reinterpret_cast<uv_handle_t*>(&s.sigint), nullptr);
      });
  if (!s.runner) {
    uv_close(reinterpret_cast<uv_handle_t*>(&s.sigint), nullptr);
    uv_run(&s.loop, UV_RUN_DEFAULT);
    uv_loop_close(&s.loop);
    return usage_error("could not start the load for '" + o.url + "'");
  }
  uv_run(&s.loop, UV_RUN_DEFAULT);
  s.runner.reset();
  uv_loop_close(&s.loop);
  if (s.tty) std::cerr << "\r\033[K" << std::flush;

  // With the JSON on stdout, the tables go to stderr so stdout stays parseable.
  std::ostream& human = o.json == "-" ? std::cerr : std::cout;
  human << load::summary_text(s.summary, s.seconds);
  human.flush();
  int rc = kExitOk;
  if (!o.json.empty()) rc = write_json(o.json, s.summary);
  if (rc == kExitOk && s.summary.value("requests", 0) == 0) {
    std::cerr << "loopdoctor load: no response from " << o.url << "\n";
    rc = kExitFailed;
  }
  return rc;
}

}  // namespace

Command add_load(CLI::App& root) {
  auto o = std::make_shared<LoadOptions>();
  CLI::App* app = root.add_subcommand(
      "load", "HTTP/1.1 load against a URL (like autocannon or wrk) with a latency summary");
  app->add_option("url", o->url, "target, http://host[:port]/path")->required();
  add_load_options(app, &o->flags, "how long: 10s, 500ms, 2m or plain seconds (default 10s)");
  app->add_option("-n,--requests", o->requests,
                  "stop after this many requests (without -d: no time limit)");
  app->add_option("--json", o->json, "write the summary as JSON to this file ('-' for stdout)");
  return {app, [o] { return run_load(*o); }};
}

}  // namespace loopdoctor::cli
