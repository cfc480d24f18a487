#include <catch2/catch.hpp>

#include "agent/attach/cdp_message.h"

using namespace loopdoctor::attach;
using Kind = CdpMessage::Kind;
using Status = CdpReply::Status;

TEST_CASE("encode_cdp_call writes id, method and params, leaving out null params") {
  auto call = nlohmann::json::parse(encode_cdp_call(7, "Runtime.evaluate", {{"expression", "1+1"}}));
  CHECK(call["id"] == 7);
  CHECK(call["method"] == "Runtime.evaluate");
  CHECK(call["params"]["expression"] == "1+1");
  CHECK_FALSE(nlohmann::json::parse(encode_cdp_call(1, "Runtime.enable", nullptr)).contains("params"));
  // Not UTF-8: sent with a replacement character instead of throwing.
  CHECK_NOTHROW(encode_cdp_call(2, "Runtime.evaluate", {{"expression", std::string("\xff\xfe")}}));
}

TEST_CASE("decode_cdp_message: Node's reply to Runtime.evaluate") {
  auto m = decode_cdp_message(R"({"id":1,"result":{"result":{"type":"number","value":2,"description":"2"}}})");
  REQUIRE(m.kind == Kind::reply);
  CHECK(m.id == 1);
  REQUIRE(m.reply.ok());
  CHECK(m.reply.result["result"]["value"] == 2);
}

TEST_CASE("decode_cdp_message: a reply without a result is an empty success") {
  auto m = decode_cdp_message(R"({"id":3})");
  REQUIRE(m.kind == Kind::reply);
  CHECK(m.reply.ok());
  CHECK(m.reply.result == nlohmann::json::object());
}

TEST_CASE("decode_cdp_message: an error reply names its message, code and data") {
  auto m = decode_cdp_message(
      R"({"id":2,"error":{"code":-32601,"message":"'Nope.x' wasn't found","data":"more"}})");
  REQUIRE(m.kind == Kind::reply);
  CHECK(m.reply.status == Status::cdp_error);
  CHECK(m.reply.error == "'Nope.x' wasn't found (code -32601): more");
}

TEST_CASE("decode_cdp_message: an event, with or without params") {
  auto m = decode_cdp_message(R"({"method":"NodeWorker.attachedToWorker","params":{"sessionId":"1"}})");
  REQUIRE(m.kind == Kind::event);
  CHECK(m.method == "NodeWorker.attachedToWorker");
  CHECK(m.params["sessionId"] == "1");
  auto bare = decode_cdp_message(R"({"method":"Runtime.executionContextsCleared"})");
  REQUIRE(bare.kind == Kind::event);
  CHECK(bare.params == nlohmann::json::object());
}

TEST_CASE("decode_cdp_message: garbage and what is neither a reply nor an event") {
  CHECK(decode_cdp_message("ok").kind == Kind::garbage);
  CHECK(decode_cdp_message("").kind == Kind::garbage);
  CHECK(decode_cdp_message("[1,2]").kind == Kind::garbage);
  CHECK(decode_cdp_message(R"({"id":-1,"result":{}})").kind == Kind::garbage);
  CHECK(decode_cdp_message(R"({"id":"1","result":{}})").kind == Kind::garbage);
  CHECK(decode_cdp_message("{\"id\":1,\"result\":{\"s\":\"\xff\"}}").kind == Kind::garbage);
  CHECK(decode_cdp_message(R"({"hello":1})").kind == Kind::other);
  CHECK(decode_cdp_message(R"({"method":5})").kind == Kind::other);
}

TEST_CASE("quote_for_error cuts long text and says how long it was") {
  CHECK(quote_for_error("ok") == "'ok'");
  CHECK(quote_for_error("a\nb") == "'a b'");
  std::string long_text(1000, 'x');
  auto q = quote_for_error(long_text);
  CHECK(q.size() < 120);
  CHECK(q.find("(1000 bytes)") != std::string::npos);
}
