#include <catch2/catch.hpp>

#include "agent/load/stats.h"
#include "agent/load/summary_text.h"

using namespace loopdoctor::load;

TEST_CASE("summary text: tables carry the summary's numbers") {
  Stats s;
  for (int i = 0; i < 900; ++i) s.record_response(200, 1000);  // 1 ms
  for (int i = 0; i < 100; ++i) s.record_response(503, 50000);  // 50 ms
  s.bytes = 123456;
  s.errors.timeout = 3;
  const nlohmann::json summary = summary_json(s, 2.0, 0, false);
  CHECK(summary["rps"] == 500.0);
  CHECK(summary["status"]["503"] == 100);
  CHECK(summary["non_2xx"] == 100);
  CHECK(summary["latency_ms"]["p50"].get<double>() == Approx(1.0).epsilon(0.01));
  CHECK(summary["latency_ms"]["p99"].get<double>() == Approx(50.0).epsilon(0.01));
  CHECK(summary["latency_ms"]["max"] == 50.0);
  CHECK_FALSE(summary.contains("rate_not_met"));

  std::vector<nlohmann::json> seconds = {second_json(s, 1, 1.0), second_json(s, 2, 0.1)};
  const std::string text = summary_text(summary, seconds);
  CHECK(text.find("| Latency | ") != std::string::npos);
  CHECK(text.find("50.00 ms") != std::string::npos);
  CHECK(text.find("1.00k requests in 2.00s") != std::string::npos);
  CHECK(text.find("3 errors (timeout 3)") != std::string::npos);
  CHECK(text.find("200: 900 503: 100") != std::string::npos);
  // The 0.1 s sliver is not a req/s sample.
  CHECK(text.find("1 samples") != std::string::npos);

  const nlohmann::json rated = summary_json(s, 2.0, 800, true);
  CHECK(rated["rate_not_met"] == true);
  CHECK(summary_text(rated, {}).find("NOT met") != std::string::npos);
}

TEST_CASE("summary text: status line") {
  Stats s;
  for (int i = 0; i < 1500; ++i) s.record_response(200, 2000);
  s.errors.connect = 2;
  const std::string line = status_line(second_json(s, 3, 1.0), 3.0, 10.0);
  CHECK(line == "3.0s/10s  1.50k req/s  p99 2.00 ms  errors 2");
  CHECK(status_line(second_json(s, 1, 1.0), 1.0, 2.5).rfind("1.0s/2.5s", 0) == 0);
}
