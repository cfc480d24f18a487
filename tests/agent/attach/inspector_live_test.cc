// End to end against real Node 20 and 22: SIGUSR1, the new listener, a
// connection made in the target's network namespace, /json/list, the
// WebSocket session, Runtime.evaluate, and workers through NodeWorker -- for
// a Node in our namespaces and for one in a container of its own.
#include <signal.h>

#include <condition_variable>
#include <deque>
#include <mutex>

#include <catch2/catch.hpp>

#include "agent/attach/inspector_client.h"
#include "agent/attach/listening_sockets.h"
#include "agent/attach/netns.h"
#include "agent/attach/proc_facts.h"
#include "agent/attach/worker_session.h"
#include "tests/agent/attach/live_util.h"

using namespace loopdoctor::attach;
using namespace loopdoctor::attach::test;
using Clock = std::chrono::steady_clock;

namespace {

const std::string kApp =
    "require('http').createServer((q, r) => r.end('ok')).listen(0, '127.0.0.1'); setInterval(() => {}, 1000)";
const std::string kAppWithWorker =
    "new (require('worker_threads').Worker)('setInterval(() => {}, 1000)', {eval: true}); " + kApp;

std::vector<ListeningSocket> listeners_of(pid_t pid) {
  return listening_sockets(pid).value_or(std::vector<ListeningSocket>{});
}

// Waits for the app's own port and SIGUSR1's handler, sends SIGUSR1 and
// returns the listener that appears: the inspector's, wherever it is.
ListeningSocket open_inspector(pid_t pid, std::vector<ListeningSocket>* app_ports) {
  REQUIRE(wait_until([&] {
    auto f = read_proc_facts(pid, nullptr);
    return f && f->sigusr1 == Sigusr1::caught && !listeners_of(pid).empty();
  }, kStartTimeoutMs));
  *app_ports = listeners_of(pid);
  REQUIRE(::kill(pid, SIGUSR1) == 0);
  std::vector<ListeningSocket> fresh;
  REQUIRE(wait_until([&] { return !(fresh = new_listeners(*app_ports, listeners_of(pid))).empty(); }, kStartTimeoutMs));
  REQUIRE(fresh.size() == 1);
  return fresh[0];
}

UniqueFd connect_to(pid_t pid, const ListeningSocket& at, int timeout_ms = kCallTimeoutMs) {
  std::string error;
  UniqueFd fd = connect_tcp_in_netns(pid, at.address, at.port, timeout_ms, &error);
  INFO(error);
  REQUIRE(fd);
  return fd;
}

std::unique_ptr<InspectorClient> open_session(pid_t pid, const ListeningSocket& inspector,
                                              InspectorClient::EventHandler on_event = {}) {
  std::string host = host_header(inspector.address, inspector.port), error;
  auto targets = fetch_targets(connect_to(pid, inspector), host, kCallTimeoutMs, &error);
  INFO(error);
  REQUIRE(targets);
  REQUIRE(targets->size() == 1);
  CHECK((*targets)[0].type == "node");
  auto path = websocket_path((*targets)[0].websocket_url);
  REQUIRE(path);
  auto client = InspectorClient::open(connect_to(pid, inspector), host, *path, kCallTimeoutMs, std::move(on_event), &error);
  INFO(error);
  REQUIRE(client);
  return client;
}

template <class Session>
nlohmann::json evaluate(Session& session, const std::string& expression) {
  nlohmann::json params = {{"expression", expression}, {"returnByValue", true}, {"includeCommandLineAPI", true}};
  CdpReply r = session.call("Runtime.evaluate", params, kCallTimeoutMs);
  INFO(expression << ": " << r.error);
  REQUIRE(r.ok());
  INFO(r.result.dump());
  REQUIRE_FALSE(r.result.contains("exceptionDetails"));
  return r.result["result"]["value"];
}

// A session's events, handed from its I/O thread to the test's.
struct Events {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::pair<std::string, nlohmann::json>> seen;

  InspectorClient::EventHandler handler() {
    return [this](const std::string& method, const nlohmann::json& params) {
      std::lock_guard lock(mu);
      seen.emplace_back(method, params);
      cv.notify_all();
    };
  }
  // The params of the next event named `method`; the others before it are dropped.
  nlohmann::json next(const std::string& method) {
    std::unique_lock lock(mu);
    for (;;) {
      while (!seen.empty() && seen.front().first != method) seen.pop_front();
      if (!seen.empty()) break;
      INFO("waiting for " << method);
      REQUIRE(cv.wait_for(lock, std::chrono::milliseconds(kCallTimeoutMs), [&] { return !seen.empty(); }));
    }
    nlohmann::json params = seen.front().second;
    seen.pop_front();
    return params;
  }
  WorkerInfo next_worker() {
    auto info = parse_attached_to_worker(next("NodeWorker.attachedToWorker"));
    REQUIRE(info);
    return *info;
  }
};

std::string version_of(pid_t pid, const ListeningSocket& inspector) {
  std::string error;
  auto v = fetch_version(connect_to(pid, inspector), host_header(inspector.address, inspector.port), kCallTimeoutMs, &error);
  INFO(error);
  REQUIRE(v);
  return v->browser;
}

void attach_in_our_namespace(const std::string& node, const std::string& major) {
  // --inspect-port=0: a random inspector port, so nothing may assume 9229
  // (and another test on this machine holding 9229 changes nothing).
  Child app({node, "--inspect-port=0", "-e", kApp});
  std::vector<ListeningSocket> app_ports;
  ListeningSocket inspector = open_inspector(app.pid(), &app_ports);
  REQUIRE(app_ports.size() == 1);
  CHECK(version_of(app.pid(), inspector).rfind("node.js/v" + major + ".", 0) == 0);

  auto client = open_session(app.pid(), inspector);
  CHECK(evaluate(*client, "process.pid") == app.pid());
  CHECK(evaluate(*client, "1+1") == 2);
  CdpReply bad = client->call("NoSuch.method", nlohmann::json::object(), kCallTimeoutMs);
  CHECK(bad.status == CdpReply::Status::cdp_error);
  CHECK(bad.error.find("wasn't found") != std::string::npos);

  // A debugger already attached: only the count of sessions on the port
  // shows it; a second session is accepted and works.
  // (Waited for: the /json/list connections are closed by Node a moment after.)
  CHECK(wait_until([&] { return established_on_port(app.pid(), inspector.port) == 1; }, kCallTimeoutMs));
  auto second = open_session(app.pid(), inspector);
  CHECK(wait_until([&] { return established_on_port(app.pid(), inspector.port) == 2; }, kCallTimeoutMs));
  CHECK(evaluate(*second, "2+2") == 4);
  second->close();

  // The app's own port is no inspector: clear errors, within the timeout.
  std::string host = host_header(app_ports[0].address, app_ports[0].port), error;
  auto start = Clock::now();
  CHECK_FALSE(fetch_targets(connect_to(app.pid(), app_ports[0]), host, kShortTimeoutMs, &error));
  CHECK(error.find("not a DevTools target list: 'ok'") != std::string::npos);
  CHECK_FALSE(InspectorClient::open(connect_to(app.pid(), app_ports[0]), host, "/x", kShortTimeoutMs, {}, &error));
  CHECK(error.find("WebSocket handshake") != std::string::npos);
  CHECK(Clock::now() - start < std::chrono::milliseconds(2 * kShortTimeoutMs + 1000));

  // A target that exits while a session is open waits for the debugger to
  // disconnect ("Waiting for the debugger to disconnect..." on its stderr),
  // and says so when asked to: the session must then be closed.
  Events events;
  auto watcher = open_session(app.pid(), inspector, events.handler());
  client->close();
  REQUIRE(watcher->call("NodeRuntime.notifyWhenWaitingForDisconnect", {{"enabled", true}}, kCallTimeoutMs).ok());
  evaluate(*watcher, "setTimeout(() => process.exit(0), 10); 0");
  events.next("NodeRuntime.waitingForDisconnect");
  CHECK(read_proc_facts(app.pid(), nullptr));  // still there, for us
  watcher->close();
  CHECK(wait_until([&] { return !read_proc_facts(app.pid(), nullptr); }, kCallTimeoutMs));
}

void peer_dies_during_a_call(const std::string& node) {
  Child app({node, "--inspect-port=0", "-e", kApp});
  std::vector<ListeningSocket> app_ports;
  ListeningSocket inspector = open_inspector(app.pid(), &app_ports);
  auto client = open_session(app.pid(), inspector);
  std::thread killer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(app.pid(), SIGKILL);
  });
  // A promise that never settles: the reply can only be the peer's death.
  auto start = Clock::now();
  CdpReply r = client->call("Runtime.evaluate", {{"expression", "new Promise(() => {})"}, {"awaitPromise", true}},
                            kCallTimeoutMs);
  killer.join();
  CHECK(r.status == CdpReply::Status::closed);
  CHECK(r.error == "the inspector closed the connection");
  CHECK(Clock::now() - start < std::chrono::milliseconds(kCallTimeoutMs / 2));
  CHECK(client->end_reason() == r.error);
}

void attach_in_a_container(const std::string& node) {
  if (!can_unshare()) FAIL("cannot make namespaces here (the test needs root)");
  // No flag of ours: SIGUSR1 opens 9229 on the container's own loopback.
  Child box({"unshare", "--net", "--pid", "--mount", "--fork", "sh", "-c",
             "ip link set lo up && exec " + node + " -e \"" + kAppWithWorker + "\""});
  pid_t pid = 0;
  REQUIRE(wait_until([&] {
    auto children = read_children(box.pid());
    auto f = children.size() == 1 ? read_proc_facts(children[0], nullptr) : std::nullopt;
    if (f && f->node == NodeEvidence::exe_name) pid = f->pid;
    return pid != 0;
  }, kStartTimeoutMs));
  auto facts = read_proc_facts(pid, nullptr);
  REQUIRE(facts);
  CHECK_FALSE(facts->same_net());
  CHECK_FALSE(facts->same_pid_ns());
  CHECK_FALSE(facts->same_mnt());
  CHECK(facts->pid_in_own_ns() == 1);  // sh exec'd node: it is the namespace's init

  std::vector<ListeningSocket> app_ports;
  ListeningSocket inspector = open_inspector(pid, &app_ports);
  CHECK(inspector.port == 9229);
  CHECK(inspector.address == "127.0.0.1");

  Events events;
  auto client = open_session(pid, inspector, events.handler());
  CHECK(evaluate(*client, "process.pid") == facts->pid_in_own_ns());
  CHECK(evaluate(*client, "1+1") == 2);

  // The worker the app started: reported by NodeWorker.enable.
  CdpReply enabled = client->call("NodeWorker.enable", {{"waitForDebuggerOnStart", true}}, kCallTimeoutMs);
  INFO(enabled.error);
  REQUIRE(enabled.ok());
  WorkerInfo first = events.next_worker();
  CHECK_FALSE(first.waiting_for_debugger);
  WorkerSession existing(*client, first.session_id, {});
  CHECK(evaluate(existing, "require('worker_threads').isMainThread") == false);
  CHECK(evaluate(existing, "String(require('worker_threads').threadId)") == first.worker_id);

  // A worker started now waits for us before its first line.
  evaluate(*client, "globalThis.w2 = new (require('worker_threads').Worker)("
                    "'globalThis.started = true; setInterval(() => {}, 1000)', {eval: true}); 0");
  WorkerInfo second = events.next_worker();
  CHECK(second.waiting_for_debugger);
  WorkerSession fresh(*client, second.session_id, {});
  CHECK(evaluate(fresh, "typeof globalThis.started") == "undefined");
  CdpReply run = fresh.call("Runtime.runIfWaitingForDebugger", nlohmann::json::object(), kCallTimeoutMs);
  INFO(run.error);
  REQUIRE(run.ok());
  CHECK(wait_until([&] { return evaluate(fresh, "globalThis.started === true") == true; }, kCallTimeoutMs));

  // A worker that ends: its session's calls fail at once.
  evaluate(*client, "globalThis.w2.terminate(); 0");
  CHECK(wait_until([&] { return !fresh.end_reason().empty(); }, kCallTimeoutMs));
  CHECK(fresh.call("Runtime.evaluate", {{"expression", "1"}}, kCallTimeoutMs).status == CdpReply::Status::closed);
  CHECK(evaluate(existing, "1+1") == 2);
}

}  // namespace

TEST_CASE("Node 20 in our namespaces, on a port SIGUSR1 picked") { attach_in_our_namespace(node20(), "20"); }

TEST_CASE("Node 22 in our namespaces, on a port SIGUSR1 picked") {
  if (!have_node22()) FAIL("no Node 22 in .tools/node22: run scripts/setup.sh --test");
  attach_in_our_namespace(node22(), "22");
}

TEST_CASE("a call ends at once when the target is killed during it") { peer_dies_during_a_call(node20()); }

TEST_CASE("Node 20 in its own net, pid and mount namespaces, and its workers") {
  attach_in_a_container(node20());
}

TEST_CASE("Node 22 in its own net, pid and mount namespaces, and its workers") {
  if (!have_node22()) FAIL("no Node 22 in .tools/node22: run scripts/setup.sh --test");
  attach_in_a_container(node22());
}
