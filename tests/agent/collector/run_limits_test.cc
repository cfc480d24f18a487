// The sentences `run` prints before the verdict, and the load line.
#include <catch2/catch.hpp>

#include <csignal>

#include "agent/collector/load_driver.h"
#include "agent/collector/run_limits.h"
#include "recording/records.h"

using namespace loopdoctor;
using namespace loopdoctor::collector;

namespace {

RunOptions with_load() {
  RunOptions o;
  o.load = load::Config{};
  o.listen_timeout_ms = 1000;
  return o;
}

}  // namespace

TEST_CASE("a load that never ran: the reason, and what to do") {
  RunResult r;
  r.probe_connected = true;
  CHECK(load_never_ran(with_load(), r));
  CHECK(run_limits(with_load(), r) ==
        std::vector<std::string>{"the target did not listen on a port within 1 s; --load needs a "
                                 "server: raise --listen-timeout if it starts slowly, or check that it listens"});
  r.target_exited_early = true;
  r.exit_code = 1;
  r.exited_at_ms = 150;
  auto lines = run_limits(with_load(), r);
  REQUIRE(lines.size() == 1);
  // The exit in the words every output uses (recording::exit_what).
  CHECK(lines[0].starts_with("the target ended (exited with code 1 at 0.1 s) before it listened"));
  r.exit_code.reset();
  r.exit_signal = "SIGSEGV";
  CHECK(run_limits(with_load(), r)[0].starts_with("the target ended (killed by SIGSEGV at 0.1 s) before"));
}

TEST_CASE("an interrupt says when, and hides nothing else it caused") {
  RunResult r;
  r.load_ran = true;
  r.load_ms = 1200;
  r.interrupted = true;
  r.interrupt_signum = SIGINT;
  r.interrupted_at_ms = 4230;
  CHECK(run_limits(with_load(), r) ==
        std::vector<std::string>{
            "run interrupted at 4.2 s (Ctrl-C): the report covers the run up to then"});
  r.interrupt_signum = SIGTERM;
  CHECK(run_limits(with_load(), r)[0].find("(SIGTERM)") != std::string::npos);
}

TEST_CASE("a load shorter than a useful window is named; a full one is not") {
  RunResult r;
  r.load_ran = true;
  r.load_ms = 2000;
  CHECK(run_limits(with_load(), r) ==
        std::vector<std::string>{"the load ran only 2 s; under 5 s its warm-up can decide the "
                                 "verdict: run it with -d 10s or more"});
  r.load_ms = kMinUsefulLoadMs;
  CHECK(run_limits(with_load(), r).empty());
  CHECK(run_limits(RunOptions{}, RunResult{}).empty());  // no load asked, none missing
}

TEST_CASE("the load line names the URL, and a URL's own port when the target listens elsewhere") {
  load::Config cfg;
  cfg.path = "/slow";
  cfg.duration_s = 10;
  CHECK(builtin_load_line(cfg, 3000, "127.0.0.1") ==
        "load: GET http://127.0.0.1:3000/slow, 50 connections, 10 s");
  cfg.port = 3000;  // given as http://127.0.0.1:3000/slow
  CHECK(builtin_load_line(cfg, 3001, "::") ==
        "load: GET http://127.0.0.1:3000/slow (as given; the target listens on port 3001), 50 "
        "connections, 10 s");
  CHECK(builtin_load_target(cfg, 3001, "::").port == 3000);
}

TEST_CASE("a target that ended early says how, in the exit's one wording") {
  RunResult r;
  r.load_ran = true;
  r.load_ms = 6000;
  r.target_exited_early = true;
  r.exit_signal = "SIGABRT";
  r.exited_at_ms = 4230;
  CHECK(run_limits(with_load(), r) ==
        std::vector<std::string>{"the target ended before the run did (killed by SIGABRT at 4.2 s); "
                                 "the report covers the run up to then; its own messages above say why"});
}

TEST_CASE("with neither load nor --duration, a target's end is the run's: a limit only when it failed") {
  RunResult r;
  r.target_exited_by_itself = true;
  r.exit_code = 0;
  r.exited_at_ms = 3000;
  CHECK(run_limits(RunOptions{}, r).empty());
  r.exit_code = 1;
  r.exited_at_ms = 250;
  CHECK(run_limits(RunOptions{}, r) ==
        std::vector<std::string>{"the target failed (exited with code 1 at 0.2 s); its own messages above say why"});
  // Stopped by a Ctrl-C, its exit status is the interrupt's doing.
  r.interrupted = true;
  r.interrupt_signum = SIGINT;
  CHECK(run_limits(RunOptions{}, r).size() == 1);
}

TEST_CASE("run limits: a heap out-of-memory death is named") {
  RunResult r;
  r.load_ran = true;
  r.load_ms = 3000;
  r.target_exited_early = true;
  r.exit_signal = "SIGABRT";
  r.exited_at_ms = 4200;
  r.exit_oom = recording::kOomHeap;
  r.exit_heap_limit_mb = 32;
  CHECK(run_limits(with_load(), r)[0] ==
        "the target ended before the run did (out of memory (heap limit 32 MB), killed by SIGABRT at 4.2 s); "
        "the report covers the run up to then; its own messages above say why");
}
