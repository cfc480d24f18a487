#include <catch2/catch.hpp>

#include "agent/attach/devtools_targets.h"
#include "agent/attach/worker_session.h"

using namespace loopdoctor::attach;

namespace {

// Node 20.20's /json/list, as served after SIGUSR1 on this machine.
const char* kNode20List = R"([ {
  "description": "node.js instance",
  "devtoolsFrontendUrl": "devtools://devtools/bundled/js_app.html?experiments=true&v8only=true&ws=127.0.0.1:9229/d8d90f5b-e485-4b8d-8fed-0d62e9f23658",
  "devtoolsFrontendUrlCompat": "devtools://devtools/bundled/inspector.html?experiments=true&v8only=true&ws=127.0.0.1:9229/d8d90f5b-e485-4b8d-8fed-0d62e9f23658",
  "faviconUrl": "https://nodejs.org/static/images/favicons/favicon.ico",
  "id": "d8d90f5b-e485-4b8d-8fed-0d62e9f23658",
  "title": "node[22093]",
  "type": "node",
  "url": "file://",
  "webSocketDebuggerUrl": "ws://127.0.0.1:9229/d8d90f5b-e485-4b8d-8fed-0d62e9f23658"
} ]
)";

}  // namespace

TEST_CASE("parse_target_list reads Node's target") {
  std::string error;
  auto list = parse_target_list(kNode20List, &error);
  REQUIRE(list);
  REQUIRE(list->size() == 1);
  const DevtoolsTarget& t = (*list)[0];
  CHECK(t.id == "d8d90f5b-e485-4b8d-8fed-0d62e9f23658");
  CHECK(t.type == "node");
  CHECK(t.title == "node[22093]");
  CHECK(t.url == "file://");
  CHECK(t.websocket_url == "ws://127.0.0.1:9229/d8d90f5b-e485-4b8d-8fed-0d62e9f23658");
  CHECK(attach_error(t).empty());
}

TEST_CASE("parse_target_list: a target without webSocketDebuggerUrl is kept, and named") {
  auto list = parse_target_list(R"([{"id":"abc","type":"node","title":"t","url":"file:///a.js"}])", nullptr);
  REQUIRE(list);
  REQUIRE(list->size() == 1);
  CHECK((*list)[0].websocket_url.empty());
  CHECK(attach_error((*list)[0]).find("another debugger") != std::string::npos);
}

TEST_CASE("parse_target_list: what another server answers is an error quoting it") {
  std::string error;
  CHECK_FALSE(parse_target_list("ok", &error));
  CHECK(error.find("'ok'") != std::string::npos);
  CHECK_FALSE(parse_target_list(R"({"id":"x"})", &error));
  CHECK_FALSE(parse_target_list(R"([{"title":"no id"}])", &error));
  CHECK(parse_target_list("[]", &error)->empty());
}

TEST_CASE("parse_version reads Browser and Protocol-Version") {
  auto v = parse_version(R"({"Browser": "node.js/v20.20.2", "Protocol-Version": "1.1"})", nullptr);
  REQUIRE(v);
  CHECK(v->browser == "node.js/v20.20.2");
  CHECK(v->protocol_version == "1.1");
  std::string error;
  CHECK_FALSE(parse_version("<html>", &error));
  CHECK(error.find("<html>") != std::string::npos);
}

TEST_CASE("websocket_path takes the path of a ws URL") {
  CHECK(websocket_path("ws://127.0.0.1:9229/d8d90f5b") == "/d8d90f5b");
  CHECK(websocket_path("ws://[::1]:9229/x/y") == "/x/y");
  CHECK_FALSE(websocket_path("http://127.0.0.1:9229/x"));
  CHECK_FALSE(websocket_path("ws://127.0.0.1:9229"));
  CHECK_FALSE(websocket_path("ws:///x"));
}

TEST_CASE("host_header brackets IPv6 addresses") {
  CHECK(host_header("127.0.0.1", 9229) == "127.0.0.1:9229");
  CHECK(host_header("::1", 9229) == "[::1]:9229");
}

TEST_CASE("parse_attached_to_worker reads Node's NodeWorker.attachedToWorker params") {
  auto params = nlohmann::json::parse(R"({"sessionId":"1","workerInfo":{"workerId":"1","type":"worker",
      "title":"[worker 1]","url":"file:///app/w.js"},"waitingForDebugger":true})");
  auto w = parse_attached_to_worker(params);
  REQUIRE(w);
  CHECK(w->session_id == "1");
  CHECK(w->worker_id == "1");
  CHECK(w->type == "worker");
  CHECK(w->url == "file:///app/w.js");
  CHECK(w->waiting_for_debugger);
  CHECK_FALSE(parse_attached_to_worker(nlohmann::json::parse(R"({"sessionId":"1"})")));
  CHECK_FALSE(parse_attached_to_worker(nlohmann::json::parse(R"({"workerInfo":{}})")));
  CHECK_FALSE(parse_attached_to_worker(nullptr));
}
