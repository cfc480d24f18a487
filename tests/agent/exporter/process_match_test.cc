// `loopdoctor agent --attach-match` (agent/exporter/process_match.h): the
// command text a pattern is searched in, the patterns refused, and a real
// child process found by its command line (never the agent itself).
#include "agent/exporter/process_match.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "base/proc_stats.h"

using namespace loopdoctor::exporter;

extern char** environ;

TEST_CASE("command_text joins argv with spaces and cuts it at kMaxMatchedCommandBytes") {
  CHECK(command_text({"node", "/srv/app/server.js", "--port=8080"}) == "node /srv/app/server.js --port=8080");
  CHECK(command_text({}).empty());
  const std::string huge(3 * kMaxMatchedCommandBytes, 'x');
  CHECK(command_text({"node", huge, "tail"}).size() == kMaxMatchedCommandBytes);
}

TEST_CASE("compile_command_pattern refuses an empty pattern and a broken one, naming it") {
  std::string error;
  CHECK_FALSE(compile_command_pattern("", &error));
  CHECK_THAT(error, Catch::Contains("every process"));
  CHECK_FALSE(compile_command_pattern("server(", &error));
  CHECK_THAT(error, Catch::Contains("'server(' is not a regular expression"));
  auto ok = compile_command_pattern("pbkdf2-sync/server\\.js", &error);
  REQUIRE(ok);
  CHECK(std::regex_search(command_text({"node", "/x/samples/node/pbkdf2-sync/server.js"}), *ok));
}

TEST_CASE("matching_processes finds a child by its command line, and never the caller") {
  // A sleep with an argument no other process has.
  const std::string marker = "1000." + std::to_string(::getpid());
  char arg0[] = "sleep";
  std::vector<char> arg1(marker.begin(), marker.end());
  arg1.push_back('\0');
  char* argv[] = {arg0, arg1.data(), nullptr};
  pid_t child = 0;
  REQUIRE(posix_spawnp(&child, "sleep", nullptr, nullptr, argv, environ) == 0);
  // Until it has exec'd, its command line is ours.
  for (int i = 0; i < 200 && loopdoctor::base::process_cmdline(child).size() != 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::string error;
  const auto pattern = compile_command_pattern("^sleep " + marker + "$", &error);
  REQUIRE(pattern);
  CHECK(matching_processes(*pattern, static_cast<int>(::getpid())) == std::vector<int>{child});
  CHECK(matching_processes(*pattern, child).empty());  // `self` is left out
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  CHECK(matching_processes(*pattern, static_cast<int>(::getpid())).empty());
}

namespace {
// A sleep started with `env`, once it has exec'd (its command line is its own).
pid_t spawn_sleep(char** env) {
  char arg0[] = "sleep", arg1[] = "30";
  char* argv[] = {arg0, arg1, nullptr};
  pid_t child = 0;
  REQUIRE(posix_spawnp(&child, "sleep", nullptr, nullptr, argv, env) == 0);
  for (int i = 0; i < 200 && loopdoctor::base::process_cmdline(child).size() != 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return child;
}
}  // namespace

TEST_CASE("may_have_preloaded_probe: a process whose environment names a probe endpoint, not one without") {
  char with_endpoint[] = "LOOPDOCTOR_ENDPOINT=/run/loopdoctor/probe.sock", empty_endpoint[] = "LOOPDOCTOR_ENDPOINT=",
       path[] = "PATH=/usr/bin:/bin";
  char* probed_env[] = {path, with_endpoint, nullptr};
  char* plain_env[] = {path, nullptr};
  char* empty_env[] = {path, empty_endpoint, nullptr};
  const pid_t probed = spawn_sleep(probed_env), plain = spawn_sleep(plain_env), empty = spawn_sleep(empty_env);
  CHECK(may_have_preloaded_probe(probed));
  CHECK_FALSE(may_have_preloaded_probe(plain));
  CHECK_FALSE(may_have_preloaded_probe(empty));
  CHECK(may_have_preloaded_probe(999'999'999));  // no such process: unreadable, so it may
  for (pid_t p : {probed, plain, empty}) {
    ::kill(p, SIGKILL);
    ::waitpid(p, nullptr, 0);
  }
}
