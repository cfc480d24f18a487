#include <catch2/catch.hpp>

#include "agent/load/load.h"
#include "agent/load/request.h"

using namespace loopdoctor::load;

TEST_CASE("request: GET with defaults") {
  Config cfg;
  cfg.port = 8080;
  cfg.path = "/seed/v1?x=1";
  CHECK(encode_request(cfg) == "GET /seed/v1?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n");
}

TEST_CASE("request: headers in order, body with Content-Length") {
  Config cfg;
  cfg.host = "example.test";
  cfg.port = 80;
  cfg.method = "POST";
  cfg.path = "/auth";
  cfg.headers = {"Content-Type: application/json", "X-Id: 7"};
  cfg.body = "{\"a\":1}";
  CHECK(encode_request(cfg) ==
        "POST /auth HTTP/1.1\r\nHost: example.test\r\nContent-Type: application/json\r\n"
        "X-Id: 7\r\nContent-Length: 7\r\n\r\n{\"a\":1}");
}

TEST_CASE("request: a user Host or Content-Length header wins") {
  Config cfg;
  cfg.port = 9000;
  cfg.method = "PUT";
  cfg.headers = {"host: other", "content-length: 0"};
  CHECK(encode_request(cfg) == "PUT / HTTP/1.1\r\nhost: other\r\ncontent-length: 0\r\n\r\n");
}

TEST_CASE("request: POST without body says Content-Length: 0; IPv6 host is bracketed") {
  Config cfg;
  cfg.host = "::1";
  cfg.port = 81;
  cfg.method = "POST";
  CHECK(encode_request(cfg) == "POST / HTTP/1.1\r\nHost: [::1]:81\r\nContent-Length: 0\r\n\r\n");
}

TEST_CASE("request: pipelined batch is back-to-back copies") {
  CHECK(repeat_request("AB", 3) == "ABABAB");
}

TEST_CASE("request: header validation") {
  std::string error;
  CHECK(valid_header("X-Token: abc", &error));
  CHECK_FALSE(valid_header("no colon", &error));
  CHECK(error.find("no colon") != std::string::npos);
  CHECK_FALSE(valid_header("Bad Name: x", &error));
  CHECK_FALSE(valid_header("X: a\r\nY: b", &error));
}

TEST_CASE("target: URLs and paths") {
  Config cfg;
  std::string error;
  REQUIRE(parse_target("http://localhost:8080/a/b?q=1", &cfg, &error));
  CHECK(cfg.host == "localhost");
  CHECK(cfg.port == 8080);
  CHECK(cfg.path == "/a/b?q=1");
  REQUIRE(parse_target("http://10.0.0.1", &cfg, &error));
  CHECK(cfg.port == 80);
  CHECK(cfg.path == "/");
  cfg.port = 1234;
  REQUIRE(parse_target("/auth?user=a", &cfg, &error));
  CHECK(cfg.path == "/auth?user=a");
  CHECK(cfg.port == 1234);
  CHECK_FALSE(parse_target("https://x/", &cfg, &error));
  CHECK(error.find("https") != std::string::npos);
  CHECK_FALSE(parse_target("seed", &cfg, &error));
  CHECK_FALSE(parse_target("", &cfg, &error));
}

TEST_CASE("validate: names the bad value") {
  Config cfg;
  cfg.port = 8080;
  CHECK(validate(cfg).empty());
  cfg.connections = 0;
  CHECK(validate(cfg).find("connection count") != std::string::npos);
  cfg.connections = 1;
  cfg.method = "get me";
  CHECK(validate(cfg).find("'get me'") != std::string::npos);
  cfg.method = "GET";
  cfg.port = 0;
  CHECK(validate(cfg).find("port") != std::string::npos);
}
