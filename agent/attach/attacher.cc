#include "agent/attach/attacher.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "agent/attach/inspector_client.h"
#include "agent/attach/inspector_open.h"
#include "agent/attach/listening_sockets.h"
#include "agent/attach/probe_expression.h"
#include "agent/attach/probe_files.h"
#include "agent/attach/proc_facts.h"
#include "agent/attach/refusals.h"
#include "agent/attach/worker_session.h"
#include "base/random_hex.h"

namespace loopdoctor::attach {
namespace {

// An evaluate runs at the process's next interrupt: at once when its loop
// is free, after the running callback when it is blocked in JS, after the
// call when it is inside one long native call (a 2 s pbkdf2Sync). 15 s
// covers a server blocked for seconds at a time and still ends a hung one.
constexpr int kEvaluateTimeoutMs = 15000;
// NodeWorker calls and a worker's resume answer from the main thread's
// inspector thread, not its loop: quick.
constexpr int kControlTimeoutMs = 5000;
// The probe closes the inspector a moment after our session ended
// (probe_expression.cc): the port is free well within this.
constexpr int kPortFreeTimeoutMs = 3000;
constexpr int kPortPollMs = 50;

// Connections from the main thread, its workers and --tree's processes
// arrive while loopdoctor is still attaching (before its loop reads them).
constexpr int kEndpointBacklog = 128;

// A listening Unix socket at `path` (as we reach it), connectable by `owner`
// alone (the attached process's uid; root may always connect).
UniqueFd listen_unix(const std::string& path, uid_t owner, std::string* error) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    *error = "its path is too long for a Unix socket: " + path;
    return {};
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const auto fail = [&](const char* what) {
    *error = fmt::format("{} {}: {}", what, path, std::strerror(errno));
    return UniqueFd();
  };
  if (!fd) return fail("socket for");
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return fail("bind");
  if (::chmod(path.c_str(), 0600) != 0) return fail("chmod");
  if (owner != ::geteuid() && ::chown(path.c_str(), owner, static_cast<gid_t>(-1)) != 0) return fail("chown");
  if (::listen(fd.get(), kEndpointBacklog) != 0) return fail("listen on");
  return fd;
}


}  // namespace

// One process, through its own inspector.
struct ProcessLink {
  ProcFacts facts;
  AttachedProcess info;
  std::unique_ptr<InspectorClient> client;
  bool opened_inspector = false;  // we sent SIGUSR1: closed again at the end
  bool touched = false;  // SIGUSR1 went, or a session was opened (Attacher::touched)
};

struct Attacher::Impl {
  AttachOptions opt;
  ProcessLink root;
  std::vector<ProcessLink> children;  // --tree
  UniqueFd endpoint;
  std::string endpoint_name;  // the socket's path as the process sees it
  ProbeFiles files;
  std::string token = base::random_hex(8);

  // Worker threads, existing and new: their attachedToWorker events arrive
  // on the client's I/O thread, where no call may wait; this thread loads
  // the probe into each.
  std::mutex mu;
  std::condition_variable cv;
  std::deque<WorkerInfo> pending;
  bool stopping = false;
  std::thread worker_loader;
  std::map<std::string, std::unique_ptr<WorkerSession>> workers;  // by session id
  bool loading_worker = false;  // the loader thread is inside load_worker()
  std::condition_variable idle_cv;  // pending emptied and no worker loading
  bool released = false;
  // The process is exiting and Node waits for our session to end before it
  // does (NodeRuntime.waitingForDisconnect): the loader thread ends it.
  bool disconnect = false;

  nlohmann::json settings(bool close_inspector, bool tree_child = false) const {
    const ProbeSettings& p = opt.probe;
    nlohmann::json s = {{"endpoint", endpoint_name},
                        {"profile", p.profile},
                        {"nativeDir", files.native_dir()},
                        {"closeInspector", close_inspector},
                        {"token", token}};
    if (p.interval_ms > 0) s["intervalMs"] = p.interval_ms;
    if (p.agent) s["agent"] = true;
    if (!p.alloc) s["alloc"] = false;
    if (p.profile_interval_us > 0) s["profileIntervalUs"] = p.profile_interval_us;
    if (p.block_threshold_ms > 0) s["blockThresholdMs"] = p.block_threshold_ms;
    if (p.block_interval_ms > 0) s["blockIntervalMs"] = p.block_interval_ms;
    if (!p.probe_choice.empty()) s["probe"] = p.probe_choice;
    if (!p.job.empty()) s["job"] = p.job;
    if (tree_child) s["treeChild"] = true;
    else s["removeDir"] = files.folder();
    return s;
  }

  std::string load_into(ProcessLink& l, bool keep_inspector);
  void close_inspector(ProcessLink& l);
  void wait_inspector_closed(const ProcessLink& l) const;
  void stop_worker_loader();
  void close_root_inspector();
  void on_root_event(const std::string& method, const nlohmann::json& params);
  void load_workers();
  void load_worker(const WorkerInfo& w);
};

Attacher::Attacher(AttachOptions options) : impl_(std::make_unique<Impl>()) { impl_->opt = std::move(options); }

Attacher::~Attacher() { release(); }

std::string Attacher::prepare() {
  Impl& m = *impl_;
  std::string error;
  auto facts = read_proc_facts(m.opt.pid, &error);
  if (!facts) return unreadable_refusal(m.opt.pid, ::geteuid(), error);
  if (std::string why = refusal(*facts, ::geteuid()); !why.empty()) return why;
  m.root.facts = *facts;
  m.root.info.pid = facts->pid;
  m.root.info.ns_pid = facts->pid_in_own_ns();
  m.root.info.argv = facts->argv;
  if (m.opt.tree)
    for (pid_t child : read_descendants(m.opt.pid)) {
      auto f = read_proc_facts(child, &error);
      if (!f || f->node == NodeEvidence::none) continue;
      if (std::string why = refusal(*f, ::geteuid()); !why.empty()) {
        spdlog::warn("--tree: {}", why);
        continue;
      }
      ProcessLink l;
      l.facts = *f;
      l.info = {f->pid, f->pid_in_own_ns(), 0, false, "", f->argv};
      m.children.push_back(std::move(l));
    }
  const uid_t owner = facts->ids.effective_uid;
  if (std::string why = m.files.place(m.opt.pid, facts->same_mnt(), owner, m.opt.probe_js, m.opt.native_dir);
      !why.empty())
    return fmt::format("cannot attach to process {}: {}", m.opt.pid, why);
  m.endpoint = listen_unix(m.files.socket_path_here(), owner, &error);
  if (!m.endpoint) return fmt::format("cannot make the probe's socket for process {}: {}", m.opt.pid, error);
  m.endpoint_name = m.files.socket_path();
  return "";
}

int Attacher::app_port(std::string* address) const {
  auto sockets = listening_sockets(impl_->root.facts.pid);
  if (!sockets) return 0;
  for (const ListeningSocket& s : *sockets) {
    if (s.port == impl_->root.info.inspector_port) continue;
    const bool any = s.address == "0.0.0.0" || s.address == "::";
    *address = any ? "127.0.0.1" : s.address;
    return s.port;
  }
  return 0;
}

std::string Attacher::enter_network() const {
  if (impl_->root.facts.same_net()) return "";
  const std::string path = fmt::format("/proc/{}/ns/net", impl_->root.facts.pid);
  UniqueFd ns(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!ns || ::setns(ns.get(), CLONE_NEWNET) != 0)
    return fmt::format("cannot enter the network namespace of process {} for the load: {}", impl_->root.facts.pid,
                       std::strerror(errno));
  return "";
}

UniqueFd Attacher::take_endpoint() { return std::move(impl_->endpoint); }
const std::string& Attacher::endpoint_name() const { return impl_->endpoint_name; }
const AttachedProcess& Attacher::root() const { return impl_->root.info; }

bool Attacher::touched() const { return impl_->root.touched; }

bool Attacher::container() const {
  const ProcFacts& f = impl_->root.facts;
  return !f.same_net() || !f.same_mnt() || !f.same_pid_ns();
}

nlohmann::json Attacher::meta() const {
  const AttachedProcess& r = impl_->root.info;
  return {{"host_pid", r.pid},
          {"ns_pid", r.ns_pid},
          {"container", container()},
          {"inspector_port", r.inspector_port},
          {"inspector_was_open", r.inspector_was_open}};
}

// Opens the process's inspector, checks its Node, starts its probe. Its
// inspector stays open (the root: new workers are reached through it, and
// the probe closes it when it detaches) or closes once the probe runs
// (--tree's others: every Node process takes port 9229 by default, and the
// next cannot open its own while this one holds it).
std::string Attacher::Impl::load_into(ProcessLink& l, bool keep_inspector) {
  InspectorAccess in;
  std::string error = open_inspector(l.facts, sigusr1_port(l.facts), &in);
  l.touched = in.sent_sigusr1 || error.empty();
  if (!error.empty()) return error;
  l.info.inspector_port = in.port;
  l.info.inspector_was_open = in.was_open;
  l.info.node_version = in.node_version;
  l.opened_inspector = !in.was_open;
  const bool root = &l == &this->root;
  l.client = connect_session(l.facts.pid, in, root ? [this](const std::string& method, const nlohmann::json& p) {
    on_root_event(method, p);
  } : InspectorClient::EventHandler(), &error);
  if (!l.client) {
    if (l.opened_inspector) spdlog::warn("the inspector of process {} stays open: {}", l.facts.pid, error);
    return error;
  }
  if (std::string why = version_refusal(in.node_version); !why.empty()) {
    close_inspector(l);
    return fmt::format("process {}: {}", l.facts.pid, why);
  }
  // Without opt.keep_inspector we close the root's ourselves once it is
  // loaded: the probe must not close one opened later (a debugger's).
  const bool probe_closes = keep_inspector && l.opened_inspector && opt.keep_inspector;
  CdpReply r = l.client->call("Runtime.evaluate",
                              evaluate_params(attach_expression(files.attach_js(), settings(probe_closes, !root))),
                              kEvaluateTimeoutMs);
  ProbeStart start = r.ok() ? parse_attach_result(r.result)
                            : ProbeStart{false, "", "", "the process did not answer the probe's attach: " + r.error};
  if (!start.ok) {
    l.client->call("Runtime.evaluate", evaluate_params(detach_expression()), kControlTimeoutMs);
    close_inspector(l);
    return fmt::format("the probe did not start in process {}: {}", l.facts.pid, start.error);
  }
  if (!keep_inspector) close_inspector(l);
  return "";
}

// An inspector this attach opened is closed again; one that was open stays.
// Returns once its port is free (--tree's next process opens the same one),
// or after kPortFreeTimeoutMs.
void Attacher::Impl::close_inspector(ProcessLink& l) {
  if (!l.client) return;
  if (l.opened_inspector)
    l.client->call("Runtime.evaluate", evaluate_params(close_inspector_expression()), kControlTimeoutMs);
  l.client->close();
  l.client.reset();
  if (l.opened_inspector) wait_inspector_closed(l);
}

// Until the inspector this attach opened no longer listens, or
// kPortFreeTimeoutMs: the attach ends with the process as it found it, so
// an attach right after it (--tree's next process, --repeat's next run, a
// script's) finds the inspector closed and opens its own, not one it would
// take for the user's and leave open.
void Attacher::Impl::wait_inspector_closed(const ProcessLink& l) const {
  for (int waited = 0; waited < kPortFreeTimeoutMs; waited += kPortPollMs) {
    auto sockets = listening_sockets(l.facts.pid);
    if (!sockets || std::none_of(sockets->begin(), sockets->end(),
                                 [&](const ListeningSocket& s) { return s.port == l.info.inspector_port; }))
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds(kPortPollMs));
  }
  spdlog::warn("the inspector of process {} (port {}) did not close within {} s", l.facts.pid,
               l.info.inspector_port, kPortFreeTimeoutMs / 1000);
}

std::string Attacher::load_probe() {
  Impl& m = *impl_;
  for (ProcessLink& c : m.children)
    if (std::string why = m.load_into(c, false); !why.empty()) spdlog::warn("--tree: {}", why);
  if (std::string why = m.load_into(m.root, true); !why.empty()) return why;
  m.worker_loader = std::thread([&m] { m.load_workers(); });
  // Without it an attached process that exits hangs: Node waits for every
  // session to end first ("Waiting for the debugger to disconnect...").
  m.root.client->call("NodeRuntime.notifyWhenWaitingForDisconnect", {{"enabled", true}}, kControlTimeoutMs);
  // A worker told to wait for us at its start would wait for good once the
  // session closes: without keep_inspector, a new one is loaded where it is.
  CdpReply r = m.root.client->call("NodeWorker.enable", {{"waitForDebuggerOnStart", m.opt.keep_inspector}},
                                   kControlTimeoutMs);
  if (!r.ok()) spdlog::warn("worker threads of process {} will not be probed: {}", m.root.facts.pid, r.error);
  if (!m.opt.keep_inspector) m.close_root_inspector();
  return "";
}

// The workers that exist were announced before NodeWorker.enable answered
// (Node sends their attachedToWorker events first, on the same session):
// once the loader has loaded those, the inspector may close. Each load is
// bounded by its own calls' timeouts; a process that keeps starting workers
// is cut off at kEvaluateTimeoutMs, the rest of them unprobed.
void Attacher::Impl::close_root_inspector() {
  {
    std::unique_lock lock(mu);
    if (!idle_cv.wait_for(lock, std::chrono::milliseconds(kEvaluateTimeoutMs),
                          [this] { return stopping || disconnect || (pending.empty() && !loading_worker); }))
      spdlog::warn("process {}: its inspector closes with {} worker thread(s) not probed yet", root.facts.pid,
                   pending.size() + (loading_worker ? 1 : 0));
  }
  stop_worker_loader();
  close_inspector(root);
}

void Attacher::Impl::stop_worker_loader() {
  {
    std::lock_guard lock(mu);
    stopping = true;
    cv.notify_one();
  }
  if (worker_loader.joinable()) worker_loader.join();
  workers.clear();
}

void Attacher::Impl::on_root_event(const std::string& method, const nlohmann::json& params) {
  if (method == "NodeRuntime.waitingForDisconnect") {
    std::lock_guard lock(mu);
    disconnect = true;
    cv.notify_one();
    idle_cv.notify_all();
    return;
  }
  if (method != "NodeWorker.attachedToWorker") return;
  auto w = parse_attached_to_worker(params);
  if (!w) return;
  std::lock_guard lock(mu);
  pending.push_back(std::move(*w));
  cv.notify_one();
}

void Attacher::Impl::load_workers() {
  for (;;) {
    WorkerInfo w;
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [this] { return stopping || disconnect || !pending.empty(); });
      if (stopping) return;
      if (disconnect) {
        // Its exit waits on us: the session ends now, its workers with it.
        lock.unlock();
        root.client->close();
        return;
      }
      w = std::move(pending.front());
      pending.pop_front();
      loading_worker = true;
    }
    load_worker(w);
    std::lock_guard lock(mu);
    loading_worker = false;
    idle_cv.notify_all();
  }
}

// A worker started during the attach waits at its start, before Node has
// set it up (no process.argv, a require that throws): it is let run to the
// break on its first line, where the probe is loaded before any of its
// script runs, then resumed. One that existed is loaded where it is.
void Attacher::Impl::load_worker(const WorkerInfo& w) {
  // Shared with the session's handler, which may outlive this call.
  struct Pause {
    std::mutex mu;
    std::condition_variable cv;
    bool paused = false;
  };
  auto pause = std::make_shared<Pause>();
  auto s = std::make_unique<WorkerSession>(*root.client, w.session_id,
                                           [pause](const std::string& method, const nlohmann::json&) {
                                             if (method != "Debugger.paused") return;
                                             std::lock_guard lock(pause->mu);
                                             pause->paused = true;
                                             pause->cv.notify_one();
                                           });
  if (w.waiting_for_debugger) {
    s->call("Debugger.enable", nlohmann::json::object(), kControlTimeoutMs);
    s->call("Runtime.runIfWaitingForDebugger", nullptr, kControlTimeoutMs);
    std::unique_lock lock(pause->mu);
    pause->cv.wait_for(lock, std::chrono::milliseconds(kEvaluateTimeoutMs), [&] { return pause->paused; });
  }
  CdpReply r = s->call("Runtime.evaluate", evaluate_params(attach_expression(files.attach_js(), settings(false))),
                       kEvaluateTimeoutMs);
  const ProbeStart start = r.ok() ? parse_attach_result(r.result) : ProbeStart{false, "", "", r.error};
  if (!start.ok)
    spdlog::warn("worker {} ({}) of process {} is not probed: {}", w.worker_id, w.url, root.facts.pid, start.error);
  if (w.waiting_for_debugger) {
    s->call("Debugger.resume", nullptr, kControlTimeoutMs);
    s->call("Debugger.disable", nullptr, kControlTimeoutMs);
  }
  std::lock_guard lock(mu);
  workers[w.session_id] = std::move(s);
}

void Attacher::release() {
  Impl& m = *impl_;
  if (m.released) return;
  m.released = true;
  m.stop_worker_loader();
  if (m.root.client) {
    m.root.client->close();
    m.root.client.reset();
    // With keep_inspector the probe closes the inspector it was loaded
    // through as our session ends (probe_expression.cc).
    if (m.root.opened_inspector) m.wait_inspector_closed(m.root);
  }
  m.files.remove();
}

}  // namespace loopdoctor::attach
