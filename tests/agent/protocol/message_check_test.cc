#include "agent/protocol/message_check.h"
#include "agent/protocol/block_limits.h"

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

TEST_CASE("block lines: the native probe's shape passes and a bad one is refused with the reason") {
  const char* good = R"({"type":"block","t":160,"start":100,"duration_ms":60,"in":"js",
      "frames":[{"function":"spin","url":"/app/busy.js","line":4,"column":10}]})";
  CHECK(check_message(json::parse(good)) == "");
  CHECK(check_message(json::parse(R"({"type":"block","t":70,"start":0,"duration_ms":70,"in":"native","frames":[]})")) == "");
  auto with = [&](const char* key, json value) {
    json m = json::parse(good);
    if (value.is_null()) m.erase(key);
    else m[key] = value;
    return check_message(m);
  };
  CHECK(with("start", "100") == "block field start is a string, expected a number");
  CHECK(with("duration_ms", nullptr) == "block field duration_ms is missing");
  CHECK(with("in", "python") == R"(block field in is "python", expected "js" or "native")");
  CHECK(with("in", 1) == R"(block field in is 1, expected "js" or "native")");
  CHECK(with("frames", json::object()) == "block field frames is a object, expected an array");
  CHECK(with("frames", json::array({"spin"})) == "block field frames[0] is a string, expected an object");
  CHECK(with("frames", json::array({{{"function", 3}}})) == "block field frames[0].function is a number, expected a string");
  CHECK(with("frames", json::array({{{"line", "4"}}})) == "block field frames[0].line is a string, expected a number");
  // Issue 35's fields: the interrupt's wait and who took the stack.
  CHECK(with("wait_ms", 0.125) == "");
  CHECK(with("by", "profile") == "");
  CHECK(with("wait_ms", "late") == "block field wait_ms is a string, expected a number");
  CHECK(with("by", std::string(17, 'p')) == "block field by is longer than 16 bytes");
}

TEST_CASE("block lines: frame count and string length are bounded as the probe caps them") {
  using loopdoctor::protocol::kMaxBlockFrames;
  using loopdoctor::protocol::kMaxBlockStringBytes;
  json frame = {{"function", "f"}, {"url", "u"}, {"line", 1}, {"column", 1}};
  json m = {{"type", "block"}, {"t", 1}, {"start", 0}, {"duration_ms", 1}, {"in", "js"},
            {"frames", json::array()}};
  for (std::size_t i = 0; i < kMaxBlockFrames; ++i) m["frames"].push_back(frame);
  CHECK(check_message(m) == "");
  m["frames"].push_back(frame);
  CHECK(check_message(m) == "block field frames has 65 frames, over the limit of 64");
  m["frames"] = json::array({frame});
  m["frames"][0]["url"] = std::string(kMaxBlockStringBytes + 1, 'x');
  CHECK(check_message(m) == "block field frames[0].url is longer than 512 bytes");
}

TEST_CASE("outbound and threadpool lines pass and are bounded") {
  CHECK(check_message(json::parse(R"({"type":"outbound","t":1,"interval_ms":1000,"destinations":[
      {"dest":"127.0.0.1:9001","client":"http","calls":40,"latency_ms":{"mean":12,"p50":10,"p90":20,"max":30},
       "sockets":{"mean":2,"max":2},"waiting":{"mean":45.5,"max":48},"pool_max":2}]})")) == "");
  CHECK(check_message(json::parse(R"({"type":"threadpool","t":1,"interval_ms":1000,"size":4,"probes":3,
      "wait_ms":{"mean":120,"p50":110,"max":200}})")) == "");
  json many = json::array();
  for (int i = 0; i < 33; ++i) many.push_back({{"dest", "h:" + std::to_string(i)}, {"calls", 1}});
  CHECK(check_message(json{{"type", "outbound"}, {"t", 1}, {"destinations", many}}) ==
        "outbound field destinations has 33 entries, over the limit of 32");
  CHECK(check_message(json::parse(R"({"type":"outbound","t":1})")) == "outbound field destinations is missing");
  CHECK(check_message(json::parse(R"({"type":"outbound","t":1,"destinations":{}})")) ==
        "outbound field destinations is a object, expected an array");
  CHECK(check_message(json::parse(R"({"type":"outbound","t":1,"destinations":[{"dest":"a:1"},"b:2"]})")) ==
        "outbound field destinations[1] is a string, expected an object");
  CHECK(check_message(json::parse(R"({"type":"outbound","t":1,"destinations":[{"dest":"a:1","waiting":{"mean":"x"}}]})")) ==
        "outbound field destinations[0].waiting.mean is a string, expected a number");
  CHECK(check_message(json::parse(R"({"type":"outbound","t":1,"destinations":[{"dest":"127.0.0.1:5432",
      "client":"net","sockets":{"mean":4,"max":4},"waiting":{"mean":46,"max":46},"pool_max":4,
      "driver":"pg 8.23.1"}]})")) == "");
  CHECK(check_message(json::parse(R"({"type":"outbound","t":1,"destinations":[{"dest":"a:1","driver":8}]})")) ==
        "outbound field destinations[0].driver is a number, expected a string");
  CHECK(check_message(json::parse(R"({"type":"threadpool","t":1,"wait_ms":{"max":"x"}})")) ==
        "threadpool field wait_ms.max is a string, expected a number");
}

TEST_CASE("process-warnings lines pass and are bounded") {
  const json ok = json::parse(R"({"type":"process-warnings","t":1,"interval_ms":1000,"warnings":[
      {"name":"MaxListenersExceededWarning","message":"Possible EventEmitter memory leak detected.","count":1,
       "first_t":0.5,"frame":{"function":"","url":"/app/server.js","line":20,"column":7}}],"dropped":0})");
  CHECK(check_message(ok) == "");
  json many = json::array();
  for (int i = 0; i < 17; ++i) many.push_back({{"name", "Warning"}, {"message", std::to_string(i)}, {"count", 1}});
  CHECK(check_message(json{{"type", "process-warnings"}, {"t", 1}, {"warnings", many}}) ==
        "process-warnings field warnings has 17 entries, over the limit of 16");
  CHECK(check_message(json::parse(R"({"type":"process-warnings","t":1})")) ==
        "process-warnings field warnings is missing");
  json long_message = ok;
  long_message["warnings"][0]["message"] = std::string(2049, 'x');
  CHECK(check_message(long_message) == "process-warnings field warnings[0].message is longer than 2048 bytes");
  json bad_frame = ok;
  bad_frame["warnings"][0]["frame"]["line"] = "20";
  CHECK(check_message(bad_frame) == "process-warnings field warnings[0].frame.line is a string, expected a number");
  CHECK(check_message(json::parse(R"({"type":"process-warnings","t":1,"warnings":[3]})")) ==
        "process-warnings field warnings[0] is a number, expected an object");
}

TEST_CASE("alloc lines: well-formed ones pass, damaged ones are refused with the field named") {
  CHECK(check_message(json::parse(R"({"type":"alloc","t":9,"since":2,"mode":"live","interval_bytes":131072,
      "total_bytes":100,"dropped_bytes":0,"nodes":[{"id":1,"parent":0,"fn":"buildSession",
      "url":"file:///srv/app/server.js","line":11,"column":3,"self":100}]})")) == "");
  CHECK(check_message(json::parse(R"({"type":"alloc","t":9,"since":2,"mode":"live"})")) ==
        "alloc field nodes is missing");
  CHECK(check_message(json::parse(R"({"type":"alloc","t":9,"since":2,"mode":"live","nodes":[{"id":1,"self":"x"}]})")) ==
        "alloc field nodes[0].self is a string, expected a number");
  json long_url = json::parse(R"({"type":"alloc","t":9,"since":2,"mode":"churn","nodes":[{"id":1,"self":1}]})");
  long_url["nodes"][0]["url"] = std::string(5000, 'a');
  CHECK(check_message(long_url).find("alloc field nodes[0].url") == 0);
}
