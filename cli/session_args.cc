// The options and the reporting `run` and `attach` share (session_args.h).
#include "cli/session_args.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "agent/collector/run_limits.h"
#include "agent/protocol/block_limits.h"
#include "agent/load/validate.h"
#include "base/duration.h"
#include "base/redact.h"
#include "base/units.h"
#include "analyzer/verdicts/verdicts.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "cli/paths.h"
#include "cli/private_recording.h"
#include "cli/repeat.h"
#include "cli/report_outputs.h"
#include "cli/target_label.h"

namespace loopdoctor::cli {
namespace {

// The sampler and probe cost grows as the interval shrinks; under 1 ms the
// probe's own timer would dominate a small server's loop.
constexpr double kMinSampleIntervalMs = 1;
constexpr double kMaxSampleIntervalMs = 10000;
// V8's sampler cannot usefully go below ~50 µs (each sample walks the stack
// on a signal); above 100 ms a profile of a 10 s run has too few samples to
// rank functions.
constexpr double kMinProfileIntervalMs = 0.05;
constexpr double kMaxProfileIntervalMs = 100;
// Under 1 s not even a hello-world Node server has loaded its modules; past
// 10 minutes a server that has not listened is waiting on something else.
constexpr double kMinListenTimeoutMs = 1000;
constexpr double kMaxListenTimeoutMs = 600000;
// Block stacks' defaults and range: agent/protocol/block_limits.h.
using protocol::kDefaultBlockIntervalMs;
using protocol::kDefaultBlockThresholdMs;
using protocol::kMaxBlockMs;
using protocol::kMinBlockMs;
using base::kUsPerMs;
// --heap-snapshot's values: alone (CLI11 gives a bare flag "true"), always;
// =on-growth, when the live heap grew.
constexpr char kHeapSnapshotBare[] = "true";
constexpr char kHeapSnapshotAlways[] = "always";
constexpr char kHeapSnapshotOnGrowth[] = "on-growth";
constexpr char kHeapSnapshotExt[] = ".heapsnapshot";

// The snapshot beside the recording (its name without .ndjson[.gz]), or
// beside the report when the recording is not kept; absolute, since the
// target's working folder is not ours.
std::string heap_snapshot_path(const SessionArgs& a, const collector::RunOptions& ro, const SessionFiles& files) {
  std::string base = a.no_record ? files.report : ro.record_path;
  for (const char* ext : {".gz", ".ndjson", ".html"})
    if (base.size() > std::strlen(ext) && base.ends_with(ext)) base.resize(base.size() - std::strlen(ext));
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(base + kHeapSnapshotExt, ec);
  return ec ? base + kHeapSnapshotExt : abs.string();
}

// Where the heap snapshot went, or why there is none: one line for stderr.
std::string heap_snapshot_said(const collector::RunResult& res) {
  const collector::HeapSnapshotResult& h = res.heap_snapshot;
  if (!h.answered) return "no heap snapshot: the probe did not answer (it never connected, or the process ended first)";
  if (!h.error.empty()) return "no heap snapshot: " + h.error;
  if (!h.skipped.empty()) return "no heap snapshot (--heap-snapshot=on-growth): " + h.skipped;
  char size[64];
  std::snprintf(size, sizeof size, "%.1f MB; it paused the process %.1f s", h.bytes / 1e6, h.pause_ms / 1000);
  return "heap snapshot: " + h.path + " (" + size +
         "); open it in Chrome DevTools (Memory, Load) and look at what the growing sites' objects are retained by";
}

// Parses a duration option and checks it against [min_ms, max_ms]; "" or a
// message naming the option, the value and the accepted range.
std::string duration_in_range(const std::string& option, const std::string& text, double min_ms,
                              double max_ms, const std::string& range, double* ms) {
  std::string err;
  if (!base::parse_duration_ms(text, ms, &err)) return option + ": " + err;
  if (*ms < min_ms || *ms > max_ms)
    return option + " must be between " + range + ", not '" + text + "'";
  return {};
}

// A block setting as the help and the errors write it: whole ms or s.
std::string block_ms_text(double ms) {
  return ms >= 1000 && static_cast<long>(ms) % 1000 == 0 ? std::to_string(static_cast<long>(ms) / 1000) + "s"
                                                        : std::to_string(static_cast<long>(ms)) + "ms";
}

std::string block_range_text() { return block_ms_text(kMinBlockMs) + " and " + block_ms_text(kMaxBlockMs); }

std::string block_help(const std::string& what, double default_ms) {
  return what + " (default " + block_ms_text(default_ms) + "; " + block_ms_text(kMinBlockMs) + " to " +
         block_ms_text(kMaxBlockMs) + ")";
}

// --block-threshold and --block-interval; unset, block_limits.h's defaults
// (RunOptions starts with them).
std::string block_options(const SessionArgs& a, collector::RunOptions* ro) {
  std::string err;
  if (!a.block_threshold.empty())
    err = duration_in_range("--block-threshold", a.block_threshold, kMinBlockMs, kMaxBlockMs,
                            block_range_text(), &ro->block_threshold_ms);
  if (err.empty() && !a.block_interval.empty())
    err = duration_in_range("--block-interval", a.block_interval, kMinBlockMs, kMaxBlockMs,
                            block_range_text(), &ro->block_interval_ms);
  return err;
}

std::string probe_options(const SessionArgs& a, collector::RunOptions* ro) {
  std::string err = duration_in_range("--sample-interval", a.sample_interval, kMinSampleIntervalMs,
                                      kMaxSampleIntervalMs, "1ms and 10s", &ro->sample_interval_ms);
  if (!err.empty()) return err;
  if (err = block_options(a, ro); !err.empty()) return err;
  ro->profile = !a.no_profile;
  ro->profile_on_block = !a.profile;
  ro->alloc = !a.no_alloc;
  if (!a.heap_snapshot.empty()) {
    if (a.heap_snapshot != kHeapSnapshotBare && a.heap_snapshot != kHeapSnapshotAlways &&
        a.heap_snapshot != kHeapSnapshotOnGrowth)
      return "--heap-snapshot takes no value (always) or =on-growth, not '" + a.heap_snapshot + "'";
    ro->heap_snapshot_on_growth = a.heap_snapshot == kHeapSnapshotOnGrowth;
    if (ro->heap_snapshot_on_growth && a.no_alloc)
      return "--heap-snapshot=on-growth judges growth by allocation sampling's live points; drop "
             "--no-alloc-sampling, or take the snapshot always (--heap-snapshot)";
  }
  if (a.profile_interval.empty()) return {};
  double ms = 0;
  err = duration_in_range("--profile-interval", a.profile_interval, kMinProfileIntervalMs,
                          kMaxProfileIntervalMs, "50us and 100ms", &ms);
  ro->profile_interval_us = ms * kUsPerMs;
  return err;
}

std::string load_options(const SessionArgs& a, collector::RunOptions* ro) {
  std::string err = duration_in_range("--listen-timeout", a.listen_timeout, kMinListenTimeoutMs,
                                      kMaxListenTimeoutMs, "1s and 10m", &ro->listen_timeout_ms);
  if (!err.empty()) return err;
  ro->on_port = a.on_port;
  if (a.load_target.empty()) {  // -d: how long the run lasts
    if (!load_duration_ms(a.load, &ro->duration_ms, &err)) return "--duration: " + err;
    return {};
  }
  load::Config cfg;
  if (!load::parse_target(a.load_target, &cfg, &err)) return "--load: " + err;
  if (err = apply_load_flags(a.load, kDefaultLoadDurationMs, &cfg); !err.empty()) return err;
  // A path gets its port when the target listens; everything else is
  // checked now, not after the target started.
  load::Config check = cfg;
  if (check.port == 0) check.port = 1;
  if (err = load::validate(check); !err.empty()) return "--load: " + err;
  ro->load = cfg;
  return {};
}

// The run's own (a command) or the attach's (a pid; without load it watches
// kDefaultAttachWatchMs unless -d says otherwise).
std::string target_options(const SessionArgs& a, SessionKind kind, collector::RunOptions* ro) {
  if (kind == SessionKind::kRun) {
    if (a.command.empty()) return "no target command: loopdoctor run [options] -- node server.js";
    ro->command = a.command;
    return {};
  }
  if (a.pid <= 0) return "no process to attach to: loopdoctor attach [options] PID";
  if (a.load_target.empty() && a.load.duration.empty()) ro->duration_ms = kDefaultAttachWatchMs;
  return {};
}

std::string session_options_impl(const SessionArgs& a, SessionKind kind, collector::RunOptions* ro) {
  if (!a.load_target.empty() && !a.on_port.empty())
    return "--load and --on-port both given; choose the built-in load or an external one";
  std::string err;
  if (!check_fail_on(a.fail_on, &err)) return err;
  if (a.no_record && !a.record.empty())
    return "--record '" + a.record + "' and --no-record both given; keep the recording or not";
  ro->loopdoctor_version = LOOPDOCTOR_VERSION;
  // Our stdout then carries what the user asked for there, nothing else.
  ro->target_stdout_to_stderr = a.json == "-" || a.markdown == "-" || a.stdout_taken;
  if (err = probe_options(a, ro); !err.empty()) return err;
  if (err = load_options(a, ro); !err.empty()) return err;
  return target_options(a, kind, ro);
}

// The exit status once the reports are written (`rc` from writing them).
int run_exit_status(int rc, const collector::RunOptions& ro, const collector::RunResult& res) {
  if (res.interrupted)
    return res.interrupt_signum == SIGTERM ? kExitTerminated : kExitInterrupted;
  if (collector::load_never_ran(ro, res)) return kExitFailed;
  // A target that failed fails the run, whether or not its end was the run's.
  if (rc == kExitOk && res.target_exited_by_itself && collector::target_failed(res)) return kExitFailed;
  return rc;
}

// --no-record: the recording goes once the outputs are written from it; kept
// when they could not be (`rc` not ok), so the run is not lost.
std::string dispose_recording(const SessionArgs& a, const std::string& record, int rc) {
  if (!a.no_record) return record;
  if (rc == kExitFailed) {
    std::cerr << "loopdoctor: kept the recording " << record
              << " despite --no-record, as the outputs could not all be written; `loopdoctor "
                 "analyze "
              << record << "` reads it again\n";
    return record;
  }
  remove_private_recording(record);
  return {};
}

// Files claimed for the run that nothing was written to (a report that
// could not be rendered): an empty file would pass for a run's output.
void drop_unwritten(const SessionFiles& files) {
  std::error_code ec;
  for (const std::string& f : files.claimed)
    if (std::filesystem::is_regular_file(f, ec) && std::filesystem::file_size(f, ec) == 0)
      std::filesystem::remove(f, ec);
}

int report(const SessionArgs& a, const collector::RunOptions& ro, const collector::RunResult& res,
           const SessionFiles& files) {
  const std::string& record = res.record_path.empty() ? ro.record_path : res.record_path;
  // What limited the run comes first: it is why the verdict below may not
  // be the one the user came for.
  for (const std::string& line : collector::run_limits(ro, res))
    std::cerr << "loopdoctor: " << collector::shown_line(ro, line) << "\n";
  if (!ro.heap_snapshot_path.empty())
    std::cerr << "loopdoctor: " << collector::shown_line(ro, heap_snapshot_said(res)) << "\n";
  OutputOptions oo;
  oo.html_path = files.report;
  oo.json_path = a.json;
  oo.markdown_path = a.markdown;
  oo.fail_on = a.fail_on;
  oo.open = a.open;
  oo.redact = !a.no_redact;
  oo.show_recording = !a.no_record;
  // Only a kept recording can be compared later: the line names this one.
  if (!a.no_record) oo.earlier_recording = earlier_recording(files.label, record);
  oo.print_recorded_warnings = false;  // said during the run or among its limits
  oo.quiet_summary = a.quiet;
  if (a.recordings) a.recordings->push_back(record);
  if (a.reports) a.reports->push_back(files.report);
  // A load that never ran is the diagnosis's own no-verdict issue (rules.cc),
  // said alike by every output and matched by the exit status.
  int rc = analyze_and_report(record, oo);
  drop_unwritten(files);
  dispose_recording(a, record, rc);
  return run_exit_status(rc, ro, res);
}

// A session's own outputs: the report, the JSON, the Markdown, the
// recording, --repeat and --fail-on.
void add_outputs(CLI::App* s, SessionArgs* a) {
  s->add_option("-o,--output", a->output,
                "HTML report (default .loopdoctor/<time>-<target>.html, e.g. "
                ".loopdoctor/2026-12-06T10-21-07-server.js.html)");
  s->add_option("--json", a->json,
                "Diagnosis as JSON ('-' for stdout; a run's target's own stdout then goes to stderr)");
  s->add_option("--markdown", a->markdown,
                "Short Markdown summary for a bug ticket ('-' for stdout; a run's target's own "
                "stdout then goes to stderr)");
  s->add_option("--record", a->record,
                "Keep the recording here (default .loopdoctor/<time>-<target>.ndjson.gz, the report's "
                "name; recordings are kept unless --no-record, redacted unless --no-redact)");
  s->add_flag("--no-record", a->no_record,
              "Keep no recording: it goes to a private temporary file, removed once the outputs "
              "are written (kept, and its path printed, if they could not be)");
  s->add_option("--repeat", a->repeat,
                "Run the session N times, keeping every recording; the verdict is the one most runs "
                "reached (said with how many agreed), each figure the runs' median and range")
      ->check(CLI::Range(1, kMaxRepeat));
  s->add_option("--fail-on", a->fail_on, "Exit 3 when the verdict is one of these (comma-separated): " + verdict_names())
      ->delimiter(',');
  s->add_flag("--open", a->open, "Open the report in a browser");
}

// `bench`'s: its runs keep their own recordings and reports; -o, --json and
// --markdown are the comparison's (cli/gate.h).
void add_comparison_outputs(CLI::App* s, SessionArgs* a) {
  s->add_option("-o,--output", a->output, "HTML comparison of the two sides");
  s->add_option("--json", a->json, "The comparison as JSON ('-' for stdout)");
  s->add_option("--markdown", a->markdown, "Markdown summary of the comparison, for a CI comment ('-' for stdout)");
}

}  // namespace

std::string session_setup(const SessionArgs& a, collector::RunOptions* ro) {
  DataPaths paths;
  std::string err;
  if (!find_data_paths(&paths, &err)) return err;
  ro->probe_path = paths.probe_js;
  ro->native_dir = paths.native_dir;
  ro->live_status = isatty(STDERR_FILENO) == 1;
  if (!a.no_redact) ro->redactor = base::Redactor::from_environment();
  return {};
}

std::string name_session_files(const SessionArgs& a, collector::RunOptions* ro, SessionFiles* files) {
  files->label = target_label(ro->command);
  const bool default_record = a.record.empty() && !a.no_record;
  const bool default_report = a.output.empty();
  std::string err, stem;
  // The file the run writes first claims the name (the recording, from
  // the start); a run that keeps neither default needs none.
  if (default_record || default_report) {
    stem = claim_run_stem(files->label, std::time(nullptr), default_record ? kRecordingExt : kReportExt, &err);
    if (stem.empty()) return err;
  }
  if (default_record) files->claimed.push_back(stem + kRecordingExt);
  if (default_report) files->claimed.push_back(stem + kReportExt);
  files->report = default_report ? stem + kReportExt : a.output;
  ro->record_path = a.no_record ? make_private_recording(&err) : default_record ? stem + kRecordingExt : a.record;
  if (!ro->record_path.empty()) {
    if (!a.heap_snapshot.empty()) ro->heap_snapshot_path = heap_snapshot_path(a, *ro, *files);
    return {};
  }
  drop_unwritten(*files);  // the report's name claimed for a run that cannot start
  return err;
}

int session_failed(const SessionArgs& a, const collector::RunOptions& ro, const collector::RunResult& res,
                   const SessionFiles& files) {
  std::cerr << "loopdoctor: " << collector::shown_line(ro, res.error) << "\n";
  if (a.no_record && !ro.record_path.empty()) remove_private_recording(ro.record_path);
  // A run that never started leaves no file named after it.
  std::error_code ec;
  for (const std::string& f : files.claimed) std::filesystem::remove(f, ec);
  return kExitFailed;
}

int report_session(const SessionArgs& a, const collector::RunOptions& ro, const collector::RunResult& res,
                   const SessionFiles& files) {
  return report(a, ro, res, files);
}

std::string session_options(const SessionArgs& a, SessionKind kind, collector::RunOptions* ro) {
  return session_options_impl(a, kind, ro);
}

void add_session_options(CLI::App* s, SessionArgs* a, SessionKind kind) {
  s->add_option("--load", a->load_target,
                "Built-in HTTP load once the target listens: a path (/api?x=1), sent to the port it "
                "listens on, or a full URL, loaded as given");
  add_load_options(s, &a->load,
                   kind != SessionKind::kAttach
                       ? "With --load: how long it runs (default 10s). Without load: stop the target "
                         "after this long (else on Ctrl-C or exit)"
                       : "With --load: how long it runs (default 10s). Without load: detach after this "
                         "long (default 30s; or on Ctrl-C, or when the process exits)");
  s->add_option("--on-port", a->on_port,
                "External load command run once the target listens; {port} and $PORT carry the port; the run ends when it exits");
  s->add_option("--listen-timeout", a->listen_timeout,
                kind != SessionKind::kAttach ? "With --load or --on-port: how long to wait for the target to listen before "
                                            "giving up (exit 2, no verdict)"
                                          : "With --load or --on-port: how long to wait for the process to "
                                            "report a listening port (exit 2, no verdict)")
      ->capture_default_str();
  s->add_option("--sample-interval", a->sample_interval, "Probe and /proc sampling period")->capture_default_str();
  auto* no_profile = s->add_flag(
      "--no-profile", a->no_profile,
      "Do not record a CPU profile of the target (it names the functions and lines that block the loop)");
  s->add_flag("--profile", a->profile,
              "Record the CPU profile from the start of the load (or of the whole run without load). By "
              "default, with the native probe, it starts at the first blocked loop: its block stacks name "
              "what blocks, and a server that never blocks pays nothing for a profiler")
      ->excludes(no_profile);
  s->add_option("--profile-interval", a->profile_interval,
                "CPU profile sampling interval (default 10ms)");
  s->add_flag("--no-alloc-sampling", a->no_alloc,
              "Do not sample allocations (by default the probe names the sites that allocate most and "
              "those whose live memory grows, at about one allocation in every 512 KiB)");
  if (kind != SessionKind::kBench)
    s->add_flag("--heap-snapshot", a->heap_snapshot,
                "Write a V8 heap snapshot at the end, beside the recording (<recording>.heapsnapshot, for "
                "Chrome DevTools); =on-growth: only when the sampled live heap grew. It pauses the "
                "process while written (seconds per 100 MB of heap); never by default")
        ->option_text("[=on-growth]");
  s->add_option("--block-threshold", a->block_threshold,
                block_help("Native probe: a loop that has not turned for this long is blocked, and its "
                           "JS stack is sent",
                           kDefaultBlockThresholdMs));
  s->add_option("--block-interval", a->block_interval,
                block_help("Native probe: the blocked loop's stack again this often while the block lasts",
                           kDefaultBlockIntervalMs));
  if (kind == SessionKind::kBench) {
    add_comparison_outputs(s, a);
  } else {
    add_outputs(s, a);
  }
  add_no_redact_flag(s, &a->no_redact);
}

}  // namespace loopdoctor::cli
