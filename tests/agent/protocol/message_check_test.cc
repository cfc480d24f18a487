#include "agent/protocol/message_check.h"

#include <catch2/catch.hpp>

using loopdoctor::protocol::check_message;
using loopdoctor::protocol::LabelBounds;
using nlohmann::json;

TEST_CASE("well-formed probe messages pass") {
  CHECK(check_message(json::parse(R"({"type":"hello","t":1,"pid":42,"runtime":"node",
      "argv":["node","s.js"],"versions":{"node":"20.1.0"},"interval_ms":1000,"job":"api"})")) == "");
  CHECK(check_message(json::parse(R"({"type":"sample","t":2,"delay":{"max":3.5,"p99":2},
      "elu":0.5,"cpu":{"user_us":10},"mem":{"rss":1},"handles":{"total":2,"by_type":{"TCP":2}}})")) == "");
  CHECK(check_message(json::parse(R"({"type":"gc","t":3,"kind":"minor","duration_ms":0.4})")) == "");
  // Unknown types and fields are accepted: the protocol grows compatibly.
  CHECK(check_message(json::parse(R"({"type":"future","anything":[1,2]})")) == "");
}

TEST_CASE("wrong types are refused with the field named") {
  CHECK(check_message(json::parse(R"([1,2])")) == "a message is a JSON array, expected an object");
  CHECK(check_message(json::parse(R"({"t":1})")) == "a message has no string \"type\"");
  CHECK(check_message(json::parse(R"({"type":"hello","pid":"42"})")) ==
        "hello has no pid, or it is not a positive integer");
  CHECK(check_message(json::parse(R"({"type":"hello","pid":-1})")) ==
        "hello has no pid, or it is not a positive integer");
  CHECK(check_message(json::parse(R"({"type":"sample","delay":{"p99":"big"}})")) ==
        "sample field delay.p99 is a string, expected a number");
  CHECK(check_message(json::parse(R"({"type":"sample","mem":[1]})")) ==
        "sample field mem is a array, expected an object");
  CHECK(check_message(json::parse(R"({"type":"gc","kind":7})")) ==
        "gc field kind is a number, expected a string");
  CHECK(check_message(json::parse(R"({"type":"hello","pid":1,"argv":[1]})")) ==
        "hello field argv holds a number, expected strings");
}

TEST_CASE("a cardinality attack through handle types is refused when labels are bounded") {
  const LabelBounds agent{.max_handle_types = 64, .max_label_bytes = 128};
  json by_type = json::object();
  for (int i = 0; i < 65; ++i) by_type["T" + std::to_string(i)] = 1;
  json m = {{"type", "sample"}, {"handles", {{"total", 65}, {"by_type", by_type}}}};
  CHECK(check_message(m, agent) == "sample field handles.by_type has 65 types, over the limit of 64");
  json hello = {{"type", "hello"}, {"pid", 1}, {"job", std::string(200, 'x')}};
  CHECK(check_message(hello, agent) == "hello field job is longer than 128 bytes");
  // Unbounded (a one-shot run records what the probe sent): both pass.
  CHECK(check_message(m) == "");
  CHECK(check_message(hello) == "");
}
