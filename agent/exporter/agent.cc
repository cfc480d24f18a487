#include "agent/exporter/agent.h"

#include <csignal>
#include <limits>
#include <map>
#include <memory>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <uv.h>

#include "agent/exporter/attached_processes.h"
#include "agent/exporter/cpu_wait_sweep.h"
#include "agent/exporter/http_server.h"
#include "agent/exporter/job_name.h"
#include "agent/exporter/peer_check.h"
#include "agent/exporter/probe_link.h"
#include "agent/exporter/probe_listener.h"
#include "agent/exporter/process_loops.h"
#include "agent/exporter/process_match.h"
#include "agent/exporter/routes.h"
#include "agent/exporter/sample_convert.h"
#include "recording/proc_record.h"
#include "analyzer/analyze.h"
#include "base/exit_codes.h"
#include "base/redact.h"
#include "base/proc_stats.h"
#include "base/run_clock.h"
#include "base/timer.h"

namespace loopdoctor::exporter {
namespace {

using nlohmann::json;
using Id = ProcessTable::Id;
using recording::Type;

struct Link {
  std::unique_ptr<ProbeLink> link;
  Id process = 0;  // 0 until hello
  double thread = 0;  // the hello's threadId: which worker of a folded entry it is
  // probe clock -> agent clock: the smallest (receive time - t) seen, as the
  // one-shot timeline does with `rt`.
  double offset = std::numeric_limits<double>::infinity();
};

class Agent {
 public:
  explicit Agent(const AgentOptions& o) : opt_(o) {}

  int run() {
    uv_loop_init(&loop_);
    std::string error;
    if (!start(&error)) {
      spdlog::error("{}", error);
      shutdown();
      uv_run(&loop_, UV_RUN_DEFAULT);
      uv_loop_close(&loop_);
      return base::kExitFailed;
    }
    uv_run(&loop_, UV_RUN_DEFAULT);
    uv_loop_close(&loop_);
    spdlog::info("loopdoctor agent stopped");
    return base::kExitOk;
  }

 private:
  bool start(std::string* error) {
    for (int pid : opt_.attach)
      if (!base::process_alive(pid)) {
        *error = "--attach " + std::to_string(pid) + ": no such process";
        return false;
      }
    if (!listener_.open(&loop_, opt_.socket_path, [this](uv_stream_t* s) { accept(s); }, error))
      return false;
    HttpRoutes routes;
    routes.details_public = opt_.details_public;
    routes.metrics = [this] { return metrics_response(table_); };
    routes.processes = [this] { return processes_response(table_, clock_.now_ms()); };
    routes.report = [this](long pid) {
      return report_response(table_, pid, clock_.now_ms(), {opt_.templates_dir, opt_.version});
    };
    if (!http_.start(opt_.listen, std::move(routes), error)) return false;
    std::string host;
    int port = 0;
    parse_listen_address(opt_.listen, &host, &port);
    spdlog::info("loopdoctor agent: serving http://{}:{}/metrics ; probes connect to {} ; window {:.0f} s",
                 host.find(':') != std::string::npos ? "[" + host + "]" : host, http_.port(),
                 opt_.socket_path, opt_.window_ms / 1000);
    if (listener_.access().private_) spdlog::info("{}", listener_.access().text);
    else spdlog::warn("{}", listener_.access().text);

    sweep_timer_.init(&loop_);
    sweep_timer_.start(kSweepPeriodMs, [this] { sweep(); }, true);
    analysis_timer_.init(&loop_);
    analysis_timer_.start(kAnalysisPeriodMs, [this] { analyse_all(); }, true);
    attached_ = std::make_unique<AttachedProcesses>(&loop_, attach_targets(), AttachedProcesses::Hooks{
        .accept = [this](uv_stream_t* s) { accept(s); },
        .probed = [this](int pid) { return probed(pid); },
        .observe_from_proc = [this](int pid) { observe_from_proc(pid); },
        .stop_observing = [this](int pid) { stop_observing(pid); }});
    attached_->start();
    for (int sig : {SIGTERM, SIGINT}) {
      auto& h = signals_[sig];
      uv_signal_init(&loop_, &h);
      h.data = this;
      uv_signal_start(&h, [](uv_signal_t* s, int signum) {
        spdlog::info("received {}; shutting down", signum == SIGTERM ? "SIGTERM" : "SIGINT");
        static_cast<Agent*>(s->data)->shutdown();
      }, sig);
    }
    return true;
  }

  AttachTargets attach_targets() const {
    AttachTargets t;
    t.pids = opt_.attach;
    if (!opt_.attach_match.empty()) {
      std::string ignored;  // the CLI checked it
      t.match = compile_command_pattern(opt_.attach_match, &ignored);
      t.match_text = opt_.attach_match;
    }
    t.attach.probe_js = opt_.probe_js;
    t.attach.native_dir = opt_.native_dir;
    t.attach.keep_inspector = false;
    t.attach.probe.agent = true;
    t.attach.probe.interval_ms = opt_.sample_interval_ms;
    // The agent never asks a probe for a CPU profile; block stacks name
    // what blocks (as for its preloaded probes).
    t.attach.probe.profile = "off";
    return t;
  }

  // A probe, preloaded or attached, reports for `pid` (or did within the
  // window: a preloaded one reconnects on its own).
  bool probed(int pid) {
    std::lock_guard lock(table_.mutex());
    for (const auto& [id, p] : table_.all())
      if (p->has_probe && p->peer_pid == pid) return true;
    return false;
  }

  // An --attach process the probe cannot enter: its CPU, memory and the CPU
  // it waited for, from /proc.
  void observe_from_proc(int pid) {
    ProcessIdentity id;
    id.pid = pid;
    id.argv = base::process_cmdline(pid);
    id.job = job_from_argv(id.argv);
    redact_identity(&id);
    id.start_time_s = base::process_start_time_s(pid);
    auto p = std::make_unique<ProcessState>(std::move(id), opt_.window_ms);
    p->has_probe = false;
    p->peer_pid = pid;
    std::lock_guard lock(table_.mutex());
    proc_only_[pid] = table_.add(std::move(p));
  }

  // It was attached on a retry: its probe reports now.
  void stop_observing(int pid) {
    auto it = proc_only_.find(pid);
    if (it == proc_only_.end()) return;
    std::lock_guard lock(table_.mutex());
    table_.remove(it->second);
    proc_only_.erase(it);
  }

  void accept(uv_stream_t* server) {
    auto owned = std::make_unique<ProbeLink>();
    ProbeLink* raw = owned.get();
    links_[raw].link = std::move(owned);
    const bool over = links_.size() > kMaxProbeConnections;
    ProbeLink::Handlers h;
    h.on_message = [this, raw](const json& m) { on_message(raw, m); };
    h.on_close = [this, raw](const std::string& reason, bool protocol) { on_close(raw, reason, protocol); };
    h.on_released = [this, raw] { links_.erase(raw); };
    if (raw->accept(&loop_, server, std::move(h)) != 0) return;
    std::lock_guard lock(table_.mutex());
    table_.counters.connections_accepted += 1;
    if (over) {
      table_.counters.connections_rejected += 1;
      raw->close("the agent holds its maximum of " + std::to_string(kMaxProbeConnections) +
                     " probe connections",
                 false);
    }
  }

  void on_message(ProbeLink* raw, const json& m) {
    Link& l = links_[raw];
    const recording::Envelope e = recording::decode_envelope(m);
    const double t = agent_time(&l, e.t);
    if (e.type == Type::kHello) return on_hello(raw, l, recording::decode_hello(m));
    std::lock_guard lock(table_.mutex());
    ProcessState* p = table_.find(l.process);
    if (!p) return;
    apply_record(p, m, e.type, t, l.thread);
  }

  // A message's time on the agent's clock: probe clock -> agent clock by the
  // link's offset, which its messages keep bringing down; now for a message
  // without a time.
  double agent_time(Link* l, std::optional<double> probe_t) const {
    const double now = clock_.now_ms();
    if (!probe_t) return now;
    l->offset = std::min(l->offset, now - *probe_t);
    return *probe_t + l->offset;
  }

  void on_hello(ProbeLink* raw, Link& l, recording::Hello hello) {
    ProcessIdentity id = identity_from_hello(std::move(hello));
    const int peer = raw->peer_pid();
    const std::vector<long> ns_pids = peer > 0 ? read_ns_pids(peer) : std::vector<long>{};
    const PidCheck check = check_claimed_pid(id.pid, peer, ns_pids);
    if (!check.accept) return raw->close(check.reason, true);
    redact_identity(&id);
    if (!check.reason.empty()) spdlog::warn("probe job {}: {}", id.job, check.reason);
    id.pid = check.pid;
    // A worker's tid names a thread of /proc/<peer>/task only when the probe
    // lives in this agent's pid namespace (one NSpid, its pid the peer's).
    if (ns_pids.size() > 1 || id.pid != peer) id.tid = 0;
    id.start_time_s = base::process_start_time_s(peer > 0 ? peer : static_cast<int>(id.pid));

    std::vector<ProbeLink*> replaced;
    {
      std::lock_guard lock(table_.mutex());
      register_hello(l, std::move(id), peer, &replaced);
    }
    // Closed outside the lock: on_close takes it.
    for (ProbeLink* old : replaced) old->close("replaced by a new connection from the same process", false);
  }

  void register_hello(Link& l, ProcessIdentity id, int peer,
                      std::vector<ProbeLink*>* replaced) {
    l.thread = id.thread;
    Id existing = find_process(id.pid, id.job, id.thread);
    if (existing && owned_by_another(*table_.find(existing), peer)) {
      // Same pid and job from another process (two containers' pid
      // namespaces): this agent's view of the pid tells them apart, and
      // neither takes over the other's window.
      id.pid = peer;
      existing = find_process(id.pid, id.job, id.thread);
      // A contained process whose own pid is `peer` holds that label: a
      // second entry, never a takeover.
      if (existing && owned_by_another(*table_.find(existing), peer)) existing = 0;
    }
    if (!existing && id.thread != 0 && loops_counted(table_, id.pid, id.job) >= kMaxThreadsPerProcess)
      return fold(l, std::move(id), peer);
    if (existing) {
      ProcessState* p = table_.find(existing);
      if (p->connected) detach_links_of(existing, replaced);
      // A reconnecting probe keeps its window: the verdict does not restart.
      p->id = std::move(id);
      p->connected = true;
      p->peer_pid = peer;
      l.process = existing;
    } else {
      auto p = std::make_unique<ProcessState>(std::move(id), opt_.window_ms);
      p->peer_pid = peer;
      l.process = table_.add(std::move(p));
    }
    const ProcessState* p = table_.find(l.process);
    spdlog::info("probe connected: pid {} job {} thread {} ({} {})", p->id.pid, p->id.job,
                 thread_label(p->id.thread), p->id.runtime,
                 p->id.versions.count("node") ? p->id.versions.at("node") : "");
  }

  // A worker past kMaxThreadsPerProcess: its messages go to the process's one
  // thread="other" entry.
  void fold(Link& l, ProcessIdentity id, int peer) {
    l.process = fold_worker(table_, std::move(id), opt_.window_ms, peer);
    const ProcessState* p = table_.find(l.process);
    spdlog::info("probe connected: pid {} job {}: a worker past the {} loops of one process, folded "
                 "into thread=\"other\"", p->id.pid, p->id.job, kMaxThreadsPerProcess);
  }

  // Where a process's command line and job enter the agent: /processes,
  // /report/<pid>, the `job` label and the log show them redacted
  // (base/redact.h), unless the agent runs with --no-redact.
  void redact_identity(ProcessIdentity* id) const {
    if (!opt_.redact) return;
    id->argv = redactor_.argv(id->argv);
    id->job = redactor_.text(id->job);
  }

  // True when `p`'s series belong to a live process other than `peer`. A
  // process that is gone leaves its window to the next one with its pid and
  // job (a restarted server, the pid reused).
  static bool owned_by_another(const ProcessState& p, int peer) {
    return p.peer_pid > 0 && p.peer_pid != peer && (p.connected || base::process_alive(p.peer_pid));
  }

  Id find_process(long pid, const std::string& job, double thread) {
    for (const auto& [id, p] : table_.all())
      if (p->has_probe && p->id.pid == pid && p->id.job == job && p->id.thread == thread) return id;
    return 0;
  }

  void detach_links_of(Id process, std::vector<ProbeLink*>* out) {
    for (auto& [raw, l] : links_)
      if (l.process == process && raw->is_open()) {
        l.process = 0;  // its state now belongs to the new connection
        out->push_back(raw);
      }
  }

  void on_close(ProbeLink* raw, const std::string& reason, bool protocol) {
    Link& l = links_[raw];
    std::lock_guard lock(table_.mutex());
    if (protocol) table_.counters.probes_disconnected_for_protocol += 1;
    ProcessState* p = table_.find(l.process);
    std::string who = p ? fmt::format("pid {} job {}", p->id.pid, p->id.job)
                        : fmt::format("peer pid {} (before hello)", raw->peer_pid());
    if (protocol) spdlog::warn("probe {} disconnected: {}", who, reason);
    else if (!reason.empty()) spdlog::info("probe {} disconnected: {}", who, reason);
    else spdlog::info("probe {} disconnected", who);
    if (p) p->end_source(l.thread);
    if (p && (p->id.thread != kFoldedThread || release_folded(p))) {
      p->connected = false;
      p->disconnected_at_ms = clock_.now_ms();
    }
    l.process = 0;
  }

  // Once a second: hello timeouts, the CPU each known process waited for
  // (cpu_wait_sweep.h), departed processes, /proc samples of attached
  // processes, and trimming every window.
  void sweep() {
    const double now = clock_.now_ms();
    const double loop_now = static_cast<double>(uv_now(&loop_));
    for (auto& [raw, l] : links_)
      if (raw->is_open() && !raw->said_hello() && loop_now - raw->opened_at_ms() > kHelloTimeoutMs)
        raw->close("no hello within " + std::to_string(static_cast<int>(kHelloTimeoutMs / 1000)) + " s",
                   true);
    cpu_wait_.run(table_, now);
    std::map<int, std::optional<base::ProcSample>> proc;
    for (const auto& [pid, id] : proc_only_) proc[pid] = base::read_proc_sample(pid);
    if (attached_) attached_->sweep();

    std::lock_guard lock(table_.mutex());
    for (auto it = proc_only_.begin(); it != proc_only_.end();) {
      const auto& s = proc[it->first];
      ProcessState* p = table_.find(it->second);
      if (!s || !base::process_alive(it->first)) {
        spdlog::info("attached process {} exited; its series are removed", it->first);
        table_.remove(it->second);
        it = proc_only_.erase(it);
        continue;
      }
      p->add_proc(recording::proc_record(*s, now));
      ++it;
    }
    std::vector<Id> gone;
    for (auto& [id, p] : table_.all()) {
      p->trim(now);
      // A disconnected probe may be reconnecting (agent restart, backoff):
      // its series stay while the process lives, for at most one window.
      if (p->has_probe && !p->connected &&
          (now - p->disconnected_at_ms > opt_.window_ms || !base::process_alive(p->peer_pid)))
        gone.push_back(id);
    }
    for (Id id : gone) table_.remove(id);
  }

  // Every kAnalysisPeriodMs: each window through the one-shot analyzer. The
  // loop thread is the only writer of the windows, so it reads them without
  // the lock and takes it only to publish the verdicts.
  // A process's loops are analysed together (process_loops.h): each loop's
  // verdict and the run's are the analyzer's combination of them.
  void analyse_all() {
    const double now = clock_.now_ms();
    std::vector<std::pair<Id, VerdictState>> results;
    for (const auto& [id, p] : table_.all())
      if (!p->has_probe) results.emplace_back(id, verdict_state(analyze(p->timeline(now))));
    std::vector<LoopVerdicts> processes;
    for (const auto& [key, g] : group_loops(table_)) processes.push_back(analyse_loops(table_, g, now));
    std::lock_guard lock(table_.mutex());
    for (auto& [id, v] : results)
      if (ProcessState* p = table_.find(id)) p->verdict = std::move(v);
    for (const LoopVerdicts& v : processes) publish_loop_verdicts(table_, v);
  }

  void shutdown() {
    if (stopping_) return;
    stopping_ = true;
    listener_.close();  // removes the socket file: probes back off, then retry
    for (auto& [raw, l] : links_) raw->close("the agent is shutting down", false);
    if (attached_) attached_->stop();
    sweep_timer_.stop();
    analysis_timer_.stop();
    http_.stop();
    for (auto& [sig, h] : signals_)
      if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(&h)))
        uv_close(reinterpret_cast<uv_handle_t*>(&h), nullptr);
    // base::Timer keeps its handle private; walking the loop closes them.
    uv_walk(&loop_, [](uv_handle_t* h, void*) {
      if (h->type == UV_TIMER && !uv_is_closing(h)) uv_close(h, nullptr);
    }, nullptr);
  }

  AgentOptions opt_;
  base::Redactor redactor_ = base::Redactor::from_environment();
  uv_loop_t loop_{};
  base::RunClock clock_;
  ProcessTable table_;
  ProbeListener listener_;
  HttpServer http_;
  std::map<ProbeLink*, Link> links_;
  std::map<int, Id> proc_only_;  // --attach processes that refused the probe: pid -> process
  std::unique_ptr<AttachedProcesses> attached_;
  CpuWaitSweep cpu_wait_;
  std::map<int, uv_signal_t> signals_;
  base::Timer sweep_timer_, analysis_timer_;
  bool stopping_ = false;
};

}  // namespace

int run_agent(const AgentOptions& options) {
  // A probe that vanishes mid-write must not kill the agent with SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  // A daemon's log goes to stderr (journald, a container's log), one line
  // per event with a sortable time; stdout stays free.
  auto logger = spdlog::stderr_logger_mt("loopdoctor-agent");
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %l %v");
  spdlog::set_default_logger(logger);
  Agent agent(options);
  return agent.run();
}

}  // namespace loopdoctor::exporter
