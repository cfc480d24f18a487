// The exit sentence is defined once (analyzer/timeline/exit_description.h); the note,
// the report and the terminal print its words.
#include <catch2/catch.hpp>

#include <sstream>

#include "analyzer/analyze.h"
#include "analyzer/render/markdown_summary.h"
#include "analyzer/render/terminal_summary.h"
#include "synthetic.h"

using namespace loopdoctor;

namespace {

ExitInfo exit_info(double t, int code, bool stopped_by_loopdoctor) {
  ExitInfo e;
  e.present = true;
  e.t = t;
  e.code = code;
  e.stopped_by_loopdoctor = stopped_by_loopdoctor;
  return e;
}

}  // namespace

TEST_CASE("exit: one description, printed by the note and the terminal") {
  Timeline tl = build_timeline(loopdoctor::testing::make_recording({}));
  tl.exit = exit_info(4200, 1, false);
  Diagnosis dx = analyze(tl);
  CHECK(dx.exit.what == "exited with code 1 at 4.2 s");
  CHECK(dx.exit.crash);
  CHECK(dx.exit.text == "exited with code 1 at 4.2 s — the target crashed or failed by itself");
  bool noted = false;
  for (const auto& n : dx.notes) noted |= n.starts_with("The target exited with code 1 at 4.2 s, before loopdoctor");
  CHECK(noted);
  std::ostringstream out;
  render::print_terminal_summary(out, tl, dx, "", "", false);
  CHECK(out.str().find("target " + dx.exit.text) != std::string::npos);
}

TEST_CASE("exit: stopped by loopdoctor, killed, unknown code, none") {
  CHECK(exit_what(std::nullopt, std::string("SIGSEGV"), 8010) == "killed by SIGSEGV at 8.0 s");
  CHECK(exit_what(std::nullopt, std::nullopt, 500) == "exited (no exit code recorded) at 0.5 s");
  Timeline tl;
  tl.exit = exit_info(3000, 0, true);
  CHECK(describe_exit(tl).text == "exited with code 0 at 3.0 s, stopped by loopdoctor");
  CHECK_FALSE(describe_exit(tl).by_itself);
  tl.exit.code.reset();
  tl.exit.signal = "SIGINT";
  CHECK(describe_exit(tl).text == "stopped by loopdoctor with SIGINT at 3.0 s");
  tl.exit = {};
  CHECK(describe_exit(tl).text == "no exit recorded (still running when the recording ended)");
}

TEST_CASE("exit: an out-of-memory death is named") {
  Timeline tl;
  tl.exit = exit_info(3100, 0, false);
  tl.exit.code.reset();
  tl.exit.signal = "SIGABRT";
  tl.exit.oom = recording::kOomHeap;
  tl.exit.heap_limit_mb = 48;
  const ExitDescription d = describe_exit(tl);
  CHECK(d.what == "out of memory (heap limit 48 MB), killed by SIGABRT at 3.1 s");
  CHECK(d.crash);
  CHECK(d.text == "out of memory (heap limit 48 MB), killed by SIGABRT at 3.1 s — the target crashed or failed by itself");
  tl.exit.heap_limit_mb = 0;
  CHECK(describe_exit(tl).what == "out of memory (heap limit reached), killed by SIGABRT at 3.1 s");
  tl.exit.signal = "SIGKILL";
  tl.exit.oom = recording::kOomKiller;
  CHECK(describe_exit(tl).what == "killed by the OOM killer (SIGKILL) at 3.1 s");
  // The JSON carries the cause beside the signal.
  const auto j = diagnosis_json(tl, analyze(tl));
  CHECK(j["target"]["exit"]["oom"] == "killer");
}

TEST_CASE("exit: died is a crash, or a server's own end while it was meant to serve") {
  Timeline tl = build_timeline(loopdoctor::testing::make_recording({}));  // a server under load
  tl.exit = exit_info(4200, 1, false);
  CHECK(describe_exit(tl).died);
  tl.exit = exit_info(4200, 0, false);
  CHECK(describe_exit(tl).died);  // it listened and load ran: a server must keep running
  tl.exit = exit_info(4200, 0, true);
  CHECK_FALSE(describe_exit(tl).died);  // stopped by loopdoctor
  // After the load ended (a cluster's workers leaving), a clean end is no death.
  tl.exit = exit_info(tl.load_window->end + 100, 0, false);
  CHECK_FALSE(describe_exit(tl).died);
  // A script: no port, no load.
  Timeline script = tl;
  script.port.reset(), script.listen_t = -1, script.load_window.reset();
  script.exit = exit_info(4200, 0, false);
  CHECK_FALSE(describe_exit(script).died);
  script.exit = exit_info(4200, 2, false);
  CHECK(describe_exit(script).died);
}
