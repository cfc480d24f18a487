#include <catch2/catch.hpp>

#include <cstdlib>

#include "agent/collector/child_process.h"
#include "agent/collector/load_driver.h"
#include "agent/collector/signal_names.h"

using namespace loopdoctor::collector;

TEST_CASE("node_options_with_probe appends a --require and quotes when needed") {
  CHECK(node_options_with_probe("", "/opt/ld/probe.js") == "--require /opt/ld/probe.js");
  CHECK(node_options_with_probe("--max-old-space-size=512", "/p.js") ==
        "--max-old-space-size=512 --require /p.js");
  CHECK(node_options_with_probe("", "/my dir/pro\"be.js") == R"(--require "/my dir/pro\"be.js")");
}

TEST_CASE("environment_with replaces and adds variables") {
  ::setenv("LDTEST_KEEP", "1", 1);
  ::setenv("LDTEST_REPLACE", "old", 1);
  auto env = environment_with({{"LDTEST_REPLACE", "new"}, {"LDTEST_ADD", "x"}});
  int keep = 0, replaced = 0, added = 0, old = 0;
  for (const auto& e : env) {
    keep += e == "LDTEST_KEEP=1";
    replaced += e == "LDTEST_REPLACE=new";
    old += e == "LDTEST_REPLACE=old";
    added += e == "LDTEST_ADD=x";
  }
  CHECK(keep == 1);
  CHECK(replaced == 1);
  CHECK(old == 0);
  CHECK(added == 1);
}

TEST_CASE("expand_port replaces every {port}") {
  CHECK(expand_port("wrk http://127.0.0.1:{port}/ -d 1 # {port}", 8080) ==
        "wrk http://127.0.0.1:8080/ -d 1 # 8080");
  CHECK(expand_port("echo $PORT", 1) == "echo $PORT");
  CHECK(expand_port("{port}{port}", 7) == "77");
}

TEST_CASE("spawn_error_message names the command and a likely cause") {
  CHECK(spawn_error_message("nod", UV_ENOENT) ==
        "cannot start 'nod': no such file or directory (is it installed and on PATH?)");
}

TEST_CASE("signal_name") {
  CHECK(signal_name(15) == "SIGTERM");
  CHECK(signal_name(2) == "SIGINT");
  CHECK(signal_name(9) == "SIGKILL");
  CHECK(signal_name(63) == "SIG63");
}
