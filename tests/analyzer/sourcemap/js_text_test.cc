// Names for anonymous functions from the code that passes or assigns them,
// and the column of a named call, on hand-written lines.
#include <catch2/catch.hpp>

#include "analyzer/attribution/sourcemap/js_text.h"

using namespace loopdoctor::sourcemap;

TEST_CASE("A function passed to createServer is the request handler") {
  CHECK(name_from_context("const server = http.createServer(") == "request handler (createServer callback)");
  CHECK(name_from_context("http.createServer(async ") == "request handler (createServer callback)");
  CHECK(name_from_context("https.createServer(opts, function ") == "request handler (createServer callback)");
  CHECK(name_from_context("createServer({ keepAlive: true }, function* ") ==
        "request handler (createServer callback)");
  CHECK(name_from_context("const server = http.createServer(\n  ") == "request handler (createServer callback)");
}

TEST_CASE("server.on request and router methods name their handler") {
  CHECK(name_from_context("server.on('request', ") == "request handler (server.on('request') callback)");
  CHECK(name_from_context("srv.on(\"request\", async function ") == "request handler (srv.on('request') callback)");
  CHECK(name_from_context("httpsServer.on('request', ") == "request handler (httpsServer.on('request') callback)");
  CHECK(name_from_context("app.get('/quote', ") == "request handler (app.get('/quote') callback)");
  CHECK(name_from_context("router.post(\"/orders/:id\", auth, validate, async ") ==
        "request handler (router.post('/orders/:id') callback)");
}

TEST_CASE("A listener of another emitter is named by the event it listens to") {
  // listener-leak's audit listener: an EventEmitter's 'request', not a server's.
  CHECK(name_from_context("  bus.on('request', ") == "bus.on('request') listener");
  CHECK(name_from_context("socket.once(\"close\", ") == "socket.once('close') listener");
}

TEST_CASE("A function assigned to a property or a key takes that name") {
  CHECK(name_from_context("obj.method = function ") == "obj.method");
  CHECK(name_from_context("module.exports.render = async ") == "module.exports.render");
  CHECK(name_from_context("const table = { total: function ") == "total");
  CHECK(name_from_context("  score: ") == "score");
}

TEST_CASE("A function the code does not name stays anonymous") {
  CHECK(name_from_context("setTimeout(") == "");
  CHECK(name_from_context("items.map(") == "");
  CHECK(name_from_context("") == "");
  CHECK(name_from_context("x === ") == "");
}

TEST_CASE("find_call finds a call of the whole identifier") {
  CHECK(find_call("  const hash = crypto.pbkdf2Sync(password, salt);", "pbkdf2Sync") == 22u);
  CHECK(find_call("JSON.stringify (doc)", "stringify") == 5u);
  CHECK(find_call("return (0, money_1.roundCents)(sum);", "roundCents") == 19u);
  CHECK(find_call("const stringifyAll = x; stringify(y)", "stringify") == 24u);
  CHECK_FALSE(find_call("const f = fs.readFileSyncX(p);", "readFileSync"));
  CHECK_FALSE(find_call("const readFileSync = fs.readFileSync;", "readFileSync"));
  CHECK_FALSE(find_call("a(); b();", "a", 1));
  CHECK_FALSE(find_call("anything", ""));
}
