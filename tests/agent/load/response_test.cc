#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "agent/load/response.h"

using loopdoctor::load::ResponseParser;
using Feed = ResponseParser::Feed;

namespace {

struct Collected {
  std::vector<int> statuses;
  static void on(void* ctx, int status) { static_cast<Collected*>(ctx)->statuses.push_back(status); }
};

const std::string kOk = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
const std::string kChunked =
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";

}  // namespace

TEST_CASE("response: content-length, pipelined in one read") {
  Collected c;
  ResponseParser p(&Collected::on, &c);
  const std::string three = kOk + kOk + "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
  CHECK(p.feed(three.data(), three.size()) == Feed::kOk);
  CHECK(c.statuses == std::vector<int>{200, 200, 404});
  CHECK_FALSE(p.in_message());
}

TEST_CASE("response: chunked, fed one byte at a time") {
  Collected c;
  ResponseParser p(&Collected::on, &c);
  const std::string two = kChunked + kChunked;
  for (char ch : two) REQUIRE(p.feed(&ch, 1) == Feed::kOk);
  CHECK(c.statuses == std::vector<int>{200, 200});
}

TEST_CASE("response: Connection: close ends the connection after that response") {
  Collected c;
  ResponseParser p(&Collected::on, &c);
  const std::string data =
      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi" + kOk;
  CHECK(p.feed(data.data(), data.size()) == Feed::kClose);
  CHECK(c.statuses == std::vector<int>{200});  // the bytes after it are not counted
  CHECK_FALSE(p.eof());                        // the close that follows is expected
}

TEST_CASE("response: HTTP/1.0 without keep-alive closes") {
  Collected c;
  ResponseParser p(&Collected::on, &c);
  const std::string data = "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi";
  CHECK(p.feed(data.data(), data.size()) == Feed::kClose);
  CHECK(c.statuses.size() == 1);
}

TEST_CASE("response: body delimited by the close completes at EOF") {
  Collected c;
  ResponseParser p(&Collected::on, &c);
  const std::string data = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end";
  CHECK(p.feed(data.data(), data.size()) == Feed::kOk);
  CHECK(c.statuses.empty());
  CHECK(p.in_message());
  CHECK_FALSE(p.eof());  // not truncated: this is how the body ends
  CHECK(c.statuses == std::vector<int>{200});
}

TEST_CASE("response: truncated body or headers are reported at EOF") {
  Collected c;
  ResponseParser p(&Collected::on, &c);
  SECTION("short body") {
    const std::string data = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhello";
    CHECK(p.feed(data.data(), data.size()) == Feed::kOk);
    CHECK(p.eof());
  }
  SECTION("half the headers") {
    const std::string data = "HTTP/1.1 200 OK\r\nContent-Le";
    CHECK(p.feed(data.data(), data.size()) == Feed::kOk);
    CHECK(p.eof());
  }
  SECTION("unfinished chunked body") {
    const std::string data = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel";
    CHECK(p.feed(data.data(), data.size()) == Feed::kOk);
    CHECK(p.eof());
  }
  CHECK(c.statuses.empty());
}

TEST_CASE("response: EOF between responses is not truncation") {
  Collected c;
  ResponseParser p(&Collected::on, &c);
  CHECK(p.feed(kOk.data(), kOk.size()) == Feed::kOk);
  CHECK_FALSE(p.eof());
}

TEST_CASE("response: garbage is a parse error") {
  Collected c;
  ResponseParser p(&Collected::on, &c);
  const std::string data = "SMTP ready\r\n";
  CHECK(p.feed(data.data(), data.size()) == Feed::kError);
  CHECK(std::string(p.error_name()) != "HPE_OK");
}

TEST_CASE("response: HEAD responses have no body; 1xx is not an answer") {
  Collected c;
  ResponseParser p(&Collected::on, &c);
  p.reset(true);
  const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n";
  const std::string data = "HTTP/1.1 100 Continue\r\n\r\n" + head + head;
  CHECK(p.feed(data.data(), data.size()) == Feed::kOk);
  CHECK(c.statuses == std::vector<int>{200, 200});
}

// Found by fuzz/load_response_fuzz.cc (crash input in
// tests/data/fuzz-regressions/load_response-upgrade): http-parser stops at the
// end of a 101 upgrade's headers. Fed in one read, the bytes after them made
// a parse error; cut right after the headers, the parser went on reading the
// new protocol's bytes as HTTP responses. Now the switch itself ends HTTP on
// the connection, however the bytes arrive.
TEST_CASE("response: a 101 upgrade ends HTTP on the connection however the bytes are cut") {
  const std::string head =
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n";
  const std::string after = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
  for (std::size_t cut : {head.size(), head.size() + 5, std::size_t{10}}) {
    INFO("cut at " << cut);
    const std::string data = head + after;
    Collected c;
    ResponseParser p(&Collected::on, &c);
    Feed first = p.feed(data.data(), cut);
    Feed second = first == Feed::kOk ? p.feed(data.data() + cut, data.size() - cut) : first;
    CHECK(second == Feed::kError);
    CHECK(std::string(p.error_name()) == "upgrade");
    CHECK(c.statuses.empty());  // the 200 is in the new protocol, not an answer
    CHECK_FALSE(p.eof());
  }
}
