#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "agent/protocol/line_splitter.h"

using namespace loopdoctor::protocol;

namespace {

struct Collect {
  std::vector<std::string> lines;
  LineSplitter::Status feed(LineSplitter& s, std::string_view data) {
    return s.feed(data, [this](std::string_view l) { lines.emplace_back(l); });
  }
};

}  // namespace

TEST_CASE("LineSplitter joins lines split across reads") {
  LineSplitter s;
  Collect c;
  CHECK(c.feed(s, "{\"a\":1}\n{\"b\"") == LineSplitter::Status::kOk);
  CHECK(c.feed(s, ":2}\r\n\n{\"c\":3}") == LineSplitter::Status::kOk);
  REQUIRE(c.lines.size() == 3);
  CHECK(c.lines[0] == "{\"a\":1}");
  CHECK(c.lines[1] == "{\"b\":2}");  // \r removed
  CHECK(c.lines[2].empty());
  CHECK(s.pending_bytes() == 7);
}

TEST_CASE("LineSplitter rejects an unfinished line over 1 MiB") {
  LineSplitter s;
  Collect c;
  std::string chunk(64 * 1024, 'x');
  LineSplitter::Status st = LineSplitter::Status::kOk;
  int chunks = 0;
  while (st == LineSplitter::Status::kOk && chunks < 100) {
    st = c.feed(s, chunk);
    ++chunks;
  }
  CHECK(st == LineSplitter::Status::kTooLong);
  CHECK(chunks == 17);  // 16 chunks are exactly 1 MiB, still allowed
  CHECK(s.pending_bytes() == 0);
  CHECK(c.feed(s, "{}\n") == LineSplitter::Status::kTooLong);  // stays closed
  CHECK(c.lines.empty());
}

TEST_CASE("LineSplitter rejects a complete line over 1 MiB but keeps the lines before it") {
  LineSplitter s;
  Collect c;
  std::string data = "{\"ok\":1}\n" + std::string(kMaxLineBytes + 1, 'y') + "\n";
  CHECK(c.feed(s, data) == LineSplitter::Status::kTooLong);
  REQUIRE(c.lines.size() == 1);
  CHECK(c.lines[0] == "{\"ok\":1}");
  CHECK(s.rejected_line_bytes() == kMaxLineBytes + 1);
}

TEST_CASE("LineSplitter lets a profile line reach 16 MiB") {
  LineSplitter s;
  Collect c;
  std::string line = R"({"type":"profile","profile":")" + std::string(2u << 20, 'p') + "\"}";
  CHECK(c.feed(s, line.substr(0, 100)) == LineSplitter::Status::kOk);
  CHECK(c.feed(s, line.substr(100) + "\n") == LineSplitter::Status::kOk);
  REQUIRE(c.lines.size() == 1);
  CHECK(c.lines[0].size() == line.size());
  CHECK(line_limit_bytes(R"({"type":"profile")") == kMaxProfileLineBytes);
  CHECK(line_limit_bytes(R"({"type":"sample")") == kMaxLineBytes);
}

TEST_CASE("LineSplitter holds a profile line to 1 MiB when it takes no profiles") {
  LineSplitter s(kMaxLineBytes);
  Collect c;
  std::string line = R"({"type":"profile","profile":")" + std::string(2u << 20, 'p') + "\"}";
  CHECK(c.feed(s, line.substr(0, 100)) == LineSplitter::Status::kOk);
  CHECK(c.feed(s, line.substr(100) + "\n") == LineSplitter::Status::kTooLong);
  CHECK(c.lines.empty());
  CHECK(line_limit_bytes(R"({"type":"profile")", kMaxLineBytes) == kMaxLineBytes);
}
