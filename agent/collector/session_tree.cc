// The session's side of the target's tree: the run's socket, the
// loops that connect to it, and what their messages mean for the run. The
// first process's own connection (the inherited fd) is session.cc's.
#include <spdlog/spdlog.h>

#include "agent/collector/session_impl.h"
#include "recording/proc_record.h"
#include "recording/records.h"

namespace loopdoctor::collector::detail {
namespace {

constexpr int kMaxPort = 65535;  // TCP ports are 16-bit

}  // namespace

// Before the spawn: without the socket the run goes on with the first
// process alone, and says so.
void Session::open_tree_endpoint() {
  std::string why = endpoint_.open(&loop_, endpoint_tmp_dir(),
                                   [this](uv_stream_t* server) { tree_.accept(server); });
  if (!why.empty())
    spdlog::warn("{}: worker threads and child processes of the target will not be probed", why);
}

void Session::start_tree(int root_pid) {
  tree_.init(&loop_, root_pid, interval_ms(),
             {[this] { return clock_.now_ms(); },
              [this](std::string_view raw, const nlohmann::json& msg, double rt, LoopTag tag) {
                writer_.write_message(raw, msg, rt, tag);
              },
              [this](nlohmann::json r) { return emit(std::move(r)); },
              [this](recording::Type type, const nlohmann::json& m, ProbeConnection* from) {
                on_loop_message(type, m, from);
              },
              [this] {
                bye_settled();
                maybe_finish();
              },
              [this] { return stop_.begun(); }});
}

void Session::on_proc_sample(const ProcSample& s) {
  nlohmann::json j = recording::encode(recording::proc_record(s, 0));
  tree_.root_threads().annotate(tree_.root_pid(), clock_.now_ms(), &j);
  double t = emit(std::move(j));  // emit stamps t
  model_.on_proc(t, s.cpu_ms);
}

// Without load there is no load window: the analysis looks at the whole run,
// so the profile covers it too (the probe stops it after its first 5
// minutes). With load it starts when the load does (on_listen), and a loop
// that joins later starts at once.
bool Session::profile_due() const {
  return opts_.profile && !stop_.begun() && (!load_requested() || result_->load_ran);
}

// Allocation sampling starts when the profile would (its live heap is
// judged over the same window), whether or not the profile is on.
bool Session::alloc_due() const {
  return opts_.alloc && !stop_.begun() && (!load_requested() || result_->load_ran);
}

// The first process's hello, on the inherited fd or (attach) the tree's socket.
void Session::on_root_hello(const recording::Hello& hello) {
  hello_ = true;
  result_->probe_connected = true;
  heap_limit_bytes_ = hello.heap_limit;
}

// Attach: the main thread's connection comes through the tree's socket too;
// what session_events.cc's on_probe_message does for the inherited fd.
void Session::on_root_message(recording::Type type, const nlohmann::json& msg) {
  switch (type) {
    case recording::Type::kHello:
      on_root_hello(recording::decode_hello(msg));
      if (opts_.attach->app_port && load_requested())
        hint_timer_.start(kAttachListenWaitMs, [this] {
          std::string address;
          if (port_ != 0) return;
          if (const int port = opts_.attach->app_port(&address); port > 0) on_listen(port, address);
        });
      break;
    case recording::Type::kSample:
      model_.on_probe_sample(clock_.now_ms(), recording::decode_sample(msg, interval_ms()));
      break;
    case recording::Type::kBye:
      root_bye_ = true;
      break;
    default:
      break;
  }
}

void Session::on_loop_message(recording::Type type, const nlohmann::json& msg, ProbeConnection* from) {
  if (attached() && tree_.is_root(from)) on_root_message(type, msg);
  if (type == recording::Type::kHello) {
    if (profile_due()) from->send(R"({"type":"profile-start"})");
    if (alloc_due()) from->send(R"({"type":"alloc-start"})");
    // The heap snapshot is the first process's main heap only.
    const bool root = from == &probe_ || (attached() && tree_.is_root(from));
    if (root && !opts_.heap_snapshot_path.empty()) {
      nlohmann::json take = {{"type", "heap-snapshot-take"}, {"path", opts_.heap_snapshot_path}};
      if (opts_.heap_snapshot_on_growth) take["when"] = "on-growth";
      from->send(take.dump());
    }
  } else if (type == recording::Type::kHeapSnapshot) {
    if (from == &probe_ || (attached() && tree_.is_root(from))) on_heap_snapshot(recording::decode_heap_snapshot(msg));
  } else if (type == recording::Type::kListen) {
    // Any loop of the tree may be the server (cluster workers share the
    // primary's port); the first port reported is the one loaded.
    const recording::Listen listen = recording::decode_listen(msg);
    if (listen.port && *listen.port > 0 && *listen.port <= kMaxPort && port_ == 0)
      on_listen(*listen.port, listen.address);
  }
}

// The first process's bye (or its connection's end) and every other loop's
// that was asked for one: the stop sequence may go on to the signals.
void Session::bye_settled() {
  const bool root_settled = root_bye_ || (attached() && hello_ && !tree_.root_open());
  if (root_settled && !tree_.waiting_for_bye()) stop_.on_bye();
}

void Session::close_probes() {
  probe_.close("");
  tree_.close_all();
}

}  // namespace loopdoctor::collector::detail
