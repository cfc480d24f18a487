#include <catch2/catch.hpp>

#include "agent/collector/live_status.h"
#include "recording/records.h"

using namespace loopdoctor::collector;
namespace recording = loopdoctor::recording;

namespace {
// The records as the collector hands them over: through the decoders.
recording::Sample sample(const nlohmann::json& j) { return recording::decode_sample(j, 10); }
}  // namespace

TEST_CASE("status line from probe samples and /proc") {
  StatusModel m;
  for (int i = 0; i <= 10; ++i) {
    double t = 1000 + i * 100.0;
    m.on_probe_sample(t, sample({{"delay", {{"p99", i == 5 ? 42.0 : 3.0}}},
                          {"http", {{"responses", 50}}}}));
    m.on_proc(t, i * 50.0);  // 50 ms of CPU per 100 ms
  }
  std::string line = m.line(2000);
  CHECK(line.find("2.0s") != std::string::npos);
  CHECK(line.find("500 req/s") != std::string::npos);
  CHECK(line.find("loop p99    42.0 ms") != std::string::npos);
  CHECK(line.find("CPU   50%") != std::string::npos);
}

TEST_CASE("status line prefers the load generator's requests per second") {
  StatusModel m;
  m.on_load_second(recording::decode_load_second({{"requests", 1234}}));
  CHECK(m.line(0).find("1234 req/s") != std::string::npos);
}

TEST_CASE("status line without data shows dashes") {
  StatusModel m;
  std::string line = m.line(500);
  CHECK(line.find("- req/s") != std::string::npos);
  CHECK(line.find("CPU    -%") != std::string::npos);
}

TEST_CASE("no request rate before a full second of responses (issue 17: 46875 req/s at 0.3 s)") {
  StatusModel m;
  // Two samples read out together, 0.32 ms apart, 15 responses in the second.
  m.on_probe_sample(300.0, sample({{"http", {{"responses", 0}}}}));
  m.on_probe_sample(300.32, sample({{"http", {{"responses", 15}}}}));
  CHECK(m.line(300.5).find("- req/s") != std::string::npos);
  // A second later the rate is that second's responses: 15 + 35 = 50 req/s.
  m.on_probe_sample(1300.0, sample({{"http", {{"responses", 35}}}}));
  CHECK(m.line(1300.0).find("     50 req/s") != std::string::npos);
}
