// `loopdoctor attach [options] PID`: the diagnosis of `run`, for a Node.js
// process that is already running (agent/attach/attacher.h).
#include <csignal>
#include <iostream>

#include "agent/attach/attacher.h"
#include "agent/collector/session.h"
#include "cli/commands.h"
#include "cli/repeat.h"
#include "cli/session_args.h"

namespace loopdoctor::cli {
namespace {

attach::ProbeSettings attach_probe_settings(const collector::RunOptions& ro) {
  attach::ProbeSettings p;
  p.interval_ms = ro.sample_interval_ms;
  p.profile = !ro.profile ? "off" : ro.profile_on_block ? "on-block" : "on";
  p.profile_interval_us = ro.profile_interval_us;
  p.alloc = ro.alloc;
  p.block_threshold_ms = ro.block_threshold_ms;
  p.block_interval_ms = ro.block_interval_ms;
  return p;
}

int one_attach(const SessionArgs& a) {
  std::signal(SIGXFSZ, SIG_IGN);  // as run: a full disk fails a write, not loopdoctor
  collector::RunOptions ro;
  if (std::string err = session_options(a, SessionKind::kAttach, &ro); !err.empty()) {
    std::cerr << "loopdoctor attach: " << err << "\n";
    return kExitUsage;
  }
  if (std::string err = session_setup(a, &ro); !err.empty()) {
    std::cerr << "loopdoctor: " << err << "\n";
    return kExitFailed;
  }
  attach::Attacher attacher({a.pid, a.tree, ro.probe_path, ro.native_dir, attach_probe_settings(ro)});
  collector::RunResult res;
  SessionFiles files;
  if (std::string why = attacher.prepare(); !why.empty()) {
    res.error = why;
    return session_failed(a, ro, res, files);
  }
  ro.command = attacher.root().argv;
  // Named after the process's script, known now (the Attacher read its argv).
  if (std::string why = name_session_files(a, &ro, &files); !why.empty()) {
    res.error = why;
    return session_failed(a, ro, res, files);
  }
  ro.attach = collector::AttachTarget{
      .pid = a.pid,
      .endpoint_fd = attacher.take_endpoint().release(),
      .endpoint_name = attacher.endpoint_name(),
      .load_probe = [&attacher] { return attacher.load_probe(); },
      .release = [&attacher] { attacher.release(); },
      .app_port = [&attacher](std::string* address) { return attacher.app_port(address); },
      .meta = [&attacher] { return attacher.meta(); }};
  if (std::string why = attacher.enter_network(); !why.empty()) {
    res.error = why;
    return session_failed(a, ro, res, files);
  }
  std::cerr << "loopdoctor: attaching to process " << a.pid << " (" << (ro.command.empty() ? "?" : ro.command[0])
            << ")\n";
  if (!collector::run_session(ro, &res)) return session_failed(a, ro, res, files);
  attacher.release();
  return report_session(a, ro, res, files);
}

int attach_command(const SessionArgs& a) {
  if (std::string err = check_repeat(a); !err.empty()) {
    std::cerr << "loopdoctor attach: " << err << "\n";
    return kExitUsage;
  }
  return a.repeat > 1 ? repeat_sessions(a, one_attach) : one_attach(a);
}

}  // namespace

Command add_attach(CLI::App& root) {
  auto a = std::make_shared<SessionArgs>();
  CLI::App* s = root.add_subcommand(
      "attach", "Diagnose a Node.js process that is already running (no restart): SIGUSR1 opens its "
                "inspector, the probe is loaded through it and leaves no trace when it detaches");
  s->add_option("pid", a->pid, "The process to attach to")->required();
  s->add_flag("--tree", a->tree,
              "Also every Node process below it (a cluster's workers, a supervisor's children), each "
              "through its own inspector");
  add_session_options(s, a.get(), SessionKind::kAttach);
  return {s, [a] { return attach_command(*a); }};
}

}  // namespace loopdoctor::cli
