#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

#include <catch2/catch.hpp>

#include "agent/collector/recording_writer.h"
#include "recording/records.h"
#include "test_util.h"

using namespace loopdoctor::collector;
using loopdoctor::collector::test::read_records;
using loopdoctor::collector::test::TempDir;

namespace {

void write_sample_run(RecordingWriter& w, int n) {
  w.write(meta_record({"node", "server.js", "arg with space"}, "0.1.0", 10,
                      "2024-01-02T03:04:05.678Z", "host1", 4242));
  for (int i = 0; i < n; ++i) {
    w.write({{"type", "proc"}, {"t", i * 10.0}, {"seq", i}, {"cpu_ms", i * 2.5}});
    if (i % 50 == 49) w.flush();
  }
}

}  // namespace

TEST_CASE("recording round-trips through the reader as plain and gzip") {
  TempDir dir;
  for (const char* name : {"sub/dir/run.ndjson", "sub/dir/run.ndjson.gz"}) {
    std::string path = dir.file(name);
    {
      RecordingWriter w;
      std::string err;
      REQUIRE(w.open(path, &err));  // creates sub/dir
      write_sample_run(w, 200);
    }
    loopdoctor::recording::ReadResult res;
    auto recs = read_records(path, &res);
    REQUIRE(res.ok);
    CHECK_FALSE(res.truncated);
    REQUIRE(recs.size() == 201);
    // The writer stamps the version the reader checks against: one constant.
    CHECK(recs[0]["format"] == loopdoctor::recording::kFormatVersion);
    CHECK(recs[0]["type"] == "meta");
    CHECK(recs[0]["format"] == 1);
    CHECK(recs[0]["command"][2] == "arg with space");
    CHECK(recs[0]["host"] == "host1");
    CHECK(recs[0]["interval_ms"] == 10.0);
    CHECK(recs[200]["seq"] == 199);
    CHECK(recs[200]["cpu_ms"] == 199 * 2.5);
  }
}

TEST_CASE("gzip recording is compressed and plain is not") {
  TempDir dir;
  std::string gz = dir.file("a.ndjson.gz"), plain = dir.file("a.ndjson");
  for (const auto& p : {gz, plain}) {
    RecordingWriter w;
    std::string err;
    REQUIRE(w.open(p, &err));
    write_sample_run(w, 500);
  }
  std::string head = loopdoctor::collector::test::slurp(gz).substr(0, 2);
  CHECK(static_cast<unsigned char>(head[0]) == 0x1f);  // gzip magic
  CHECK(static_cast<unsigned char>(head[1]) == 0x8b);
  CHECK(loopdoctor::collector::test::slurp(plain).substr(0, 16) == R"({"command":["nod)");
  struct stat a {}, b {};
  REQUIRE(::stat(gz.c_str(), &a) == 0);
  REQUIRE(::stat(plain.c_str(), &b) == 0);
  CHECK(a.st_size * 3 < b.st_size);
}

TEST_CASE("a flushed recording reads while it is still being written") {
  TempDir dir;
  std::string path = dir.file("live.ndjson.gz");
  RecordingWriter w;
  std::string err;
  REQUIRE(w.open(path, &err));
  write_sample_run(w, 30);
  w.flush();
  loopdoctor::recording::ReadResult res;
  auto recs = read_records(path, &res);
  CHECK(recs.size() == 31);  // everything flushed is there; the stream has no end yet
}

TEST_CASE("a gzip recording cut in the middle reads up to the cut") {
  TempDir dir;
  std::string path = dir.file("cut.ndjson.gz");
  {
    RecordingWriter w;
    std::string err;
    REQUIRE(w.open(path, &err));
    write_sample_run(w, 2000);
  }
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  REQUIRE(::truncate(path.c_str(), st.st_size / 2) == 0);
  loopdoctor::recording::ReadResult res;
  auto recs = read_records(path, &res);
  REQUIRE(res.ok);
  CHECK(res.truncated);
  REQUIRE(recs.size() > 100);
  CHECK(recs.size() < 2001);
  CHECK(recs[0]["type"] == "meta");
  for (std::size_t i = 1; i < recs.size(); ++i) CHECK(recs[i]["seq"] == static_cast<int>(i) - 1);
}

TEST_CASE("open fails with a message when the directory cannot be created") {
  RecordingWriter w;
  std::string err;
  CHECK_FALSE(w.open("/proc/no/such/dir/x.ndjson", &err));
  CHECK(err.find("/proc/no/such/dir") != std::string::npos);
}

TEST_CASE("stamp_run_time adds rt and keeps the message bytes") {
  std::string raw = R"({"type":"hello","t":1.5,"z":[1,2]})";
  auto msg = nlohmann::json::parse(raw);
  std::string out = stamp_run_time(raw, msg, 12.25);
  CHECK(out == R"({"rt":12.25,"type":"hello","t":1.5,"z":[1,2]})");
  auto with_rt = nlohmann::json::parse(R"({"type":"x","rt":3})");
  auto j = nlohmann::json::parse(stamp_run_time(R"({"type":"x","rt":3})", with_rt, 7));
  CHECK(j["rt"] == 7);
  CHECK(j["type"] == "x");
}

TEST_CASE("stamp_loop_line tags a line with its loop unless it names one itself") {
  std::string raw = R"({"type":"sample","t":1.5})";
  auto msg = nlohmann::json::parse(raw);
  // The first process's main thread: exactly stamp_run_time (old recordings).
  CHECK(stamp_loop_line(raw, msg, 2.5, LoopTag{}) == stamp_run_time(raw, msg, 2.5));
  CHECK(stamp_loop_line(raw, msg, 2.5, LoopTag{4312, 0}) == R"({"pid":4312,"rt":2.5,"type":"sample","t":1.5})");
  CHECK(stamp_loop_line(raw, msg, 2.5, LoopTag{0, 3}) == R"({"thread":3,"rt":2.5,"type":"sample","t":1.5})");
  CHECK(stamp_loop_line(raw, msg, 2.5, LoopTag{4312, 3}) ==
        R"({"pid":4312,"thread":3,"rt":2.5,"type":"sample","t":1.5})");
  // A hello names its own pid and thread: nothing is added twice.
  std::string hello = R"({"type":"hello","t":0,"pid":4312,"thread":3})";
  auto hj = nlohmann::json::parse(hello);
  CHECK(stamp_loop_line(hello, hj, 1.5, LoopTag{4312, 3}) == R"({"rt":1.5,"type":"hello","t":0,"pid":4312,"thread":3})");
  // A line stamp_run_time re-serializes (its own rt) is still tagged.
  auto with_rt = nlohmann::json::parse(R"({"type":"x","rt":3})");
  auto j = nlohmann::json::parse(stamp_loop_line(R"({"type":"x","rt":3})", with_rt, 7, LoopTag{9, 2}));
  CHECK(j == nlohmann::json({{"type", "x"}, {"rt", 7}, {"pid", 9}, {"thread", 2}}));
}

// Redaction at write time (record_secrets.h): nothing of a secret reaches the
// file, whatever kills the run afterwards; hot probe lines keep their bytes.
TEST_CASE("a redacting writer writes no secret, and probe lines without one byte for byte") {
  TempDir dir;
  const std::string path = dir.file("red.ndjson");
  const std::string sample = R"({"type":"sample","t":5,"delay":{"p99":1.5}})";
  {
    RecordingWriter w;
    std::string err;
    REQUIRE(w.open(path, &err));
    w.redact_with(loopdoctor::base::Redactor({"PlantedEnvSecret3"}));
    w.write(meta_record({"node", "s.js", "--password=PlantedPw1", "PlantedEnvSecret3"}, "0.1.0", 10, "", "h", 1));
    const std::string hello = R"({"type":"hello","t":0,"pid":7,"argv":["node","s.js","--token","PlantedTok2"]})";
    w.write_message(hello, nlohmann::json::parse(hello), 1.5, LoopTag{7, 0});
    w.write_message(sample, nlohmann::json::parse(sample), 6, LoopTag{});
    w.write({{"type", "warning"}, {"t", 7}, {"text", "GET http://u:PlantedUrlPw4@h/"}});
  }
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  for (const char* s : {"PlantedPw1", "PlantedEnvSecret3", "PlantedTok2", "PlantedUrlPw4"})
    CHECK(text.find(s) == std::string::npos);
  auto recs = read_records(path);
  REQUIRE(recs.size() == 4);
  CHECK(recs[0]["command"] == nlohmann::json({"node", "s.js", "--password=[REDACTED]", "[REDACTED]"}));
  CHECK(recs[1]["argv"] == nlohmann::json({"node", "s.js", "--token", "[REDACTED]"}));
  CHECK(recs[1]["rt"] == 1.5);
  CHECK(recs[1]["pid"] == 7);
  CHECK(text.find(stamp_run_time(sample, nlohmann::json::parse(sample), 6)) != std::string::npos);
  CHECK(recs[3]["text"] == "GET http://[REDACTED]@h/");
}

TEST_CASE("a writer without a redactor writes every record as given") {
  TempDir dir;
  const std::string path = dir.file("raw.ndjson");
  const std::string hello = R"({"type":"hello","t":0,"pid":7,"argv":["node","--token","PlantedTok2"]})";
  {
    RecordingWriter w;
    std::string err;
    REQUIRE(w.open(path, &err));
    w.write(meta_record({"node", "--password=PlantedPw1"}, "0.1.0", 10, "", "h", 1));
    w.write_message(hello, nlohmann::json::parse(hello), 1.5, LoopTag{});
  }
  auto recs = read_records(path);
  REQUIRE(recs.size() == 2);
  CHECK(recs[0]["command"][1] == "--password=PlantedPw1");
  CHECK(recs[1]["argv"][2] == "PlantedTok2");
}

TEST_CASE("iso8601_utc_now has the contract's shape") {
  std::string s = iso8601_utc_now();
  REQUIRE(s.size() == 24);
  CHECK(s[4] == '-');
  CHECK(s[10] == 'T');
  CHECK(s[19] == '.');
  CHECK(s.back() == 'Z');
}
