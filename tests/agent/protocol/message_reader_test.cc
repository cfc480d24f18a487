#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "agent/protocol/message_reader.h"

using namespace loopdoctor::protocol;

namespace {

// Feeds `bytes` and keeps each delivered message's type.
struct Feed {
  std::vector<std::string> types;
  std::string operator()(MessageReader& r, std::string_view bytes) {
    return r.feed(bytes, [this](const nlohmann::json& m, std::string_view raw) {
      CHECK(nlohmann::json::parse(raw) == m);
      types.push_back(m["type"]);
    });
  }
};

const std::string kHello = R"({"type":"hello","t":0,"pid":42})" "\n";
const std::string kWrongType = R"({"type":"sample","t":1,"delay":{"p99":"big"}})" "\n";
const std::string kGc = R"({"type":"gc","t":2,"kind":"minor","duration_ms":0.3})" "\n";

}  // namespace

TEST_CASE("lenient: bad lines are skipped and counted, the rest delivered") {
  MessageReader r(Strictness::kLenient);
  Feed f;
  CHECK(f(r, kHello + "not json\n" + kWrongType + "[1]\n" + kGc) == "");
  CHECK(f.types == std::vector<std::string>{"hello", "gc"});
  CHECK(r.skipped_lines() == 3);
}

TEST_CASE("strict: the first bad line closes with its reason and nothing after it is delivered") {
  MessageReader r(Strictness::kStrict);
  Feed f;
  CHECK(f(r, kHello + kWrongType + kGc) == "sample field delay.p99 is a string, expected a number");
  CHECK(f.types == std::vector<std::string>{"hello"});
  CHECK(f(r, kGc) == "");  // closed: delivers nothing more
  CHECK(f.types.size() == 1);

  MessageReader j(Strictness::kStrict);
  CHECK(f(j, "{oops\n") == "a line is not valid JSON: {oops");
}

TEST_CASE("unknown types and fields pass in both modes") {
  for (auto mode : {Strictness::kLenient, Strictness::kStrict}) {
    MessageReader r(mode);
    Feed f;
    CHECK(f(r, R"({"type":"future","t":1,"x":[1]})" "\n" R"({"type":"gc","t":1,"extra":{}})" "\n") ==
          "");
    CHECK(f.types == std::vector<std::string>{"future", "gc"});
  }
}

TEST_CASE("messages cut across reads arrive whole") {
  MessageReader r(Strictness::kLenient);
  Feed f;
  const std::string both = kHello + kGc;
  for (char c : both) CHECK(f(r, std::string_view(&c, 1)) == "");
  CHECK(f.types == std::vector<std::string>{"hello", "gc"});
  CHECK(r.pending_bytes() == 0);
}

TEST_CASE("an over-long line closes in both modes with the limit named") {
  for (auto mode : {Strictness::kLenient, Strictness::kStrict}) {
    MessageReader r(mode);
    Feed f;
    const std::string big = R"({"type":"sample","pad":")" + std::string(kMaxLineBytes, 'x') + "\"}\n";
    CHECK(f(r, kHello + big) == "a probe line of over " + std::to_string(big.size() - 1) +
                                   " bytes broke the protocol limit (1 MiB, 16 MiB for a profile)");
    CHECK(f.types == std::vector<std::string>{"hello"});
  }
}

TEST_CASE("a reader that takes no profiles holds a profile to 1 MiB") {
  const std::string profile =
      R"({"type":"profile","t":9,"profile":")" + std::string(2u << 20, 'p') + "\"}\n";
  MessageReader run(Strictness::kLenient);
  Feed f;
  CHECK(f(run, profile) == "");
  CHECK(f.types == std::vector<std::string>{"profile"});

  MessageReader agent(Strictness::kStrict, {.max_profile_line_bytes = kMaxLineBytes, .label_bounds = {}});
  Feed g;
  std::string reason = g(agent, profile);
  CHECK(reason == "a probe line of over " + std::to_string(profile.size() - 1) +
                      " bytes broke the protocol limit (1 MiB)");
  CHECK(g.types.empty());
}

TEST_CASE("label bounds apply only when given") {
  const std::string job = R"({"type":"hello","t":0,"pid":1,"job":")" + std::string(200, 'j') + "\"}\n";
  MessageReader unbounded(Strictness::kStrict);
  Feed f;
  CHECK(f(unbounded, job) == "");
  MessageReader bounded(Strictness::kStrict,
                        {.max_profile_line_bytes = kMaxProfileLineBytes,
                         .label_bounds = {.max_handle_types = 64, .max_label_bytes = 128}});
  CHECK(f(bounded, job) == "hello field job is longer than 128 bytes");
}
