#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "cli/output_files.h"

namespace fs = std::filesystem;
using namespace loopdoctor::cli;

namespace {

// Each test in a scratch working directory of its own (the rule is about
// the working directory), the previous one given back at the end.
struct ScratchCwd {
  fs::path before = fs::current_path();
  fs::path dir;
  ScratchCwd() {
    char tmpl[] = "/tmp/ld-files-XXXXXX";
    dir = ::mkdtemp(tmpl);
    fs::current_path(dir);
  }
  ~ScratchCwd() {
    fs::current_path(before);
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

// 2026-12-06 10:21:07 in the local time zone.
std::time_t a_start() {
  std::tm t{};
  t.tm_year = 2026 - 1900;
  t.tm_mon = 11;
  t.tm_mday = 6;
  t.tm_hour = 10;
  t.tm_min = 21;
  t.tm_sec = 7;
  t.tm_isdst = -1;
  return std::mktime(&t);
}

}  // namespace

TEST_CASE("the folder is made with a .gitignore of everything, once") {
  ScratchCwd cwd;
  std::string err;
  REQUIRE(make_output_dir(&err));
  CHECK(fs::is_directory(".loopdoctor"));
  const std::string ignore = read_file(".loopdoctor/.gitignore");
  CHECK(ignore.find("\n*\n") != std::string::npos);
  write_file(".loopdoctor/.gitignore", "*\n!keep.html\n");  // the user's own edit stays
  REQUIRE(make_output_dir(&err));
  CHECK(read_file(".loopdoctor/.gitignore") == "*\n!keep.html\n");
}

TEST_CASE("a run's stem is its start time and target; a second run in that second takes the next") {
  ScratchCwd cwd;
  std::string err;
  const std::string first = claim_run_stem("server.js", a_start(), kRecordingExt, &err);
  CHECK(first == ".loopdoctor/2026-12-06T10-21-07-server.js");
  CHECK(fs::exists(first + kRecordingExt));
  CHECK(fs::exists(".loopdoctor/.gitignore"));
  CHECK(claim_run_stem("server.js", a_start(), kRecordingExt, &err) == ".loopdoctor/2026-12-06T10-21-07.2-server.js");
  // A report kept alone (--record elsewhere) holds its name too.
  write_file(".loopdoctor/2026-12-06T10-21-07.3-server.js.html", "x");
  CHECK(claim_run_stem("server.js", a_start(), kReportExt, &err) == ".loopdoctor/2026-12-06T10-21-07.4-server.js");
  CHECK(claim_run_stem("npm-start", a_start(), kRecordingExt, &err) == ".loopdoctor/2026-12-06T10-21-07-npm-start");
}

TEST_CASE("a name that cannot be made says why") {
  ScratchCwd cwd;
  write_file(".loopdoctor", "a file where the folder goes");
  std::string err;
  CHECK(claim_run_stem("server.js", a_start(), kRecordingExt, &err).empty());
  CHECK(err.find("'.loopdoctor'") != std::string::npos);
}

TEST_CASE("run names read back") {
  auto r = parse_run_name("2026-12-06T10-21-07.12-server.js.ndjson.gz", kRecordingExt);
  REQUIRE(r);
  CHECK(r->time == "2026-12-06T10-21-07");
  CHECK(r->ordinal == 12);
  CHECK(r->label == "server.js");
  r = parse_run_name("2026-12-06T10-21-07-2fa.js.ndjson.gz", kRecordingExt);
  REQUIRE(r);
  CHECK(r->ordinal == 1);
  CHECK(r->label == "2fa.js");
  CHECK_FALSE(parse_run_name("2026-12-06T10-21-07-server.js.html", kRecordingExt));
  CHECK_FALSE(parse_run_name("1234.ndjson.gz", kRecordingExt));
  CHECK_FALSE(parse_run_name("2026-12-06T10-21-07.ndjson.gz", kRecordingExt));
  CHECK_FALSE(parse_run_name("2026-12-06T10-21-07.x-a.ndjson.gz", kRecordingExt));
  CHECK(*parse_run_name("2026-12-06T10-21-07.9-a.html", kReportExt) <
        *parse_run_name("2026-12-06T10-21-07.10-a.html", kReportExt));
}

TEST_CASE("the earlier recording is the newest older run of the same target") {
  ScratchCwd cwd;
  std::string err;
  REQUIRE(make_output_dir(&err));
  CHECK(earlier_recording("server.js", ".loopdoctor/2026-12-06T10-21-07-server.js.ndjson.gz").empty());
  for (const char* name : {"2026-12-05T09-00-00-server.js", "2026-12-06T10-20-00-server.js",
                           "2026-12-06T10-20-00.2-server.js", "2026-12-06T10-20-30-app.js",
                           "2026-12-06T10-22-00-server.js"})
    write_file(std::string(".loopdoctor/") + name + kRecordingExt, "x");
  write_file(".loopdoctor/2026-12-06T10-20-50-server.js.ndjson.gz", "");  // claimed, never run
  write_file(".loopdoctor/2026-12-06T10-20-55-server.js.html", "x");      // a report alone
  CHECK(earlier_recording("server.js", ".loopdoctor/2026-12-06T10-21-07-server.js.ndjson.gz") ==
        ".loopdoctor/2026-12-06T10-20-00.2-server.js.ndjson.gz");
  CHECK(earlier_recording("server.js", "./.loopdoctor/2026-12-06T10-20-00.2-server.js.ndjson.gz") ==
        ".loopdoctor/2026-12-06T10-20-00-server.js.ndjson.gz");
  CHECK(earlier_recording("server.js", ".loopdoctor/2026-12-05T09-00-00-server.js.ndjson.gz").empty());
  // A recording kept elsewhere (--record) is compared with the newest.
  CHECK(earlier_recording("server.js", "mine.ndjson.gz") == ".loopdoctor/2026-12-06T10-22-00-server.js.ndjson.gz");
  CHECK(earlier_recording("app.js", "mine.ndjson.gz") == ".loopdoctor/2026-12-06T10-20-30-app.js.ndjson.gz");
  CHECK(earlier_recording("npm-start", "mine.ndjson.gz").empty());
}

TEST_CASE("analyze's report sits in the folder, named after the recording") {
  CHECK(analyze_report_path(".loopdoctor/2026-12-06T10-21-07-server.js.ndjson.gz") ==
        ".loopdoctor/2026-12-06T10-21-07-server.js.html");
  CHECK(analyze_report_path("/data/run.ndjson") == ".loopdoctor/run.html");
  CHECK(analyze_report_path("before.json") == ".loopdoctor/before.html");
}
