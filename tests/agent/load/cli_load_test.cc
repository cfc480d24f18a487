// `loopdoctor load` as parsed by CLI11: bad values exit 1 with a message
// naming them; a good run writes the JSON summary.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "tests/agent/load/test_server.h"

using namespace loopdoctor;

namespace {

struct Result {
  int code = -1;
  std::string err;
};

Result run_cli(std::vector<std::string> args) {
  CLI::App app;
  cli::Command cmd = cli::add_load(app);
  std::vector<const char*> argv{"loopdoctor"};
  for (auto& a : args) argv.push_back(a.c_str());
  Result r;
  try {
    app.parse(static_cast<int>(argv.size()), const_cast<char**>(argv.data()));
  } catch (const CLI::ParseError& e) {
    r.code = cli::kExitUsage;
    r.err = e.what();
    return r;
  }
  std::stringstream captured;
  auto* old = std::cerr.rdbuf(captured.rdbuf());
  std::stringstream out;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  r.code = cmd.run();
  std::cerr.rdbuf(old);
  std::cout.rdbuf(old_out);
  r.err = captured.str();
  return r;
}

}  // namespace

TEST_CASE("cli load: bad values are usage errors naming the value") {
  const std::string url = "http://127.0.0.1:9/";
  struct Case {
    std::vector<std::string> args;
    std::string mention;
  };
  const std::vector<Case> cases = {
      {{"load", url, "-d", "tenish"}, "'tenish'"},
      {{"load", url, "-d", "0s"}, "'0s'"},
      {{"load", url, "--timeout", "soon"}, "'soon'"},
      {{"load", "/only/a/path"}, "'/only/a/path'"},
      {{"load", "https://127.0.0.1/"}, "https"},
      {{"load", url, "-H", "broken header"}, "'broken header'"},
      {{"load", url, "-b", "@/nonexistent/body.json"}, "/nonexistent/body.json"},
      {{"load", url, "-m", "get it"}, "'get it'"},
  };
  for (const Case& c : cases) {
    INFO(c.args[1] << " " << (c.args.size() > 2 ? c.args[2] + " " + c.args[3] : ""));
    const Result r = run_cli(c.args);
    CHECK(r.code == cli::kExitUsage);
    CHECK(r.err.find(c.mention) != std::string::npos);
  }
  CHECK(run_cli({"load", url, "-c", "0"}).code == cli::kExitUsage);
  CHECK(run_cli({"load", url, "-c", "many"}).code == cli::kExitUsage);
}

TEST_CASE("cli load: --json writes the summary contract") {
  load::test::TestServer server(load::test::Behaviour::kOk);
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/x";
  char path[] = "/tmp/loopdoctor-load-json-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  const Result r = run_cli({"load", url, "-c", "4", "-n", "100", "-H", "X-Test: 1", "--json", path});
  CHECK(r.code == cli::kExitOk);
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in);
  std::remove(path);
  CHECK(j["requests"] == 100);
  for (const char* key : {"duration_s", "rps", "bytes"}) CHECK(j.contains(key));
  for (const char* key : {"p50", "p90", "p99", "max"}) CHECK(j["latency_ms"].contains(key));
  for (const char* key : {"connect", "read", "write", "timeout", "parse"})
    CHECK(j["errors"][key] == 0);
  CHECK(j["status"]["200"] == 100);
  CHECK(j["non_2xx"] == 0);
  CHECK_FALSE(j.contains("rate_not_met"));
  CHECK(server.requests() == 100);
  // The human summary went to stdout; stderr has one plain line per second.
  CHECK(r.err.find("Running load against") != std::string::npos);
}
