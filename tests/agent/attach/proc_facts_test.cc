#include <csignal>

#include <catch2/catch.hpp>

#include "agent/attach/proc_facts.h"

using namespace loopdoctor::attach;

namespace {

// /proc/PID/status of a Node 20 server (trimmed), read on this machine.
const char* kNodeStatus =
    "Name:\tnode\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t22093\nNgid:\t0\nPid:\t22093\n"
    "PPid:\t21890\nTracerPid:\t0\nUid:\t1000\t1001\t1001\t1001\nGid:\t0\t0\t0\t0\n"
    "NStgid:\t22093\t1\nNSpid:\t22093\t1\nNSpgid:\t22093\t1\nThreads:\t7\n"
    "SigQ:\t0/63421\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\n"
    "SigBlk:\t0000000000000000\nSigIgn:\t0000000001001000\nSigCgt:\t0000000100004602\n"
    "CapInh:\t0000000000000000\n";

}  // namespace

TEST_CASE("parse_signal_masks reads the three masks in hexadecimal") {
  auto m = parse_signal_masks(kNodeStatus);
  REQUIRE(m);
  CHECK(m->caught == 0x100004602u);
  CHECK(m->ignored == 0x1001000u);
  CHECK(m->blocked == 0);
  CHECK(mask_has(m->caught, SIGUSR1));  // bit 9
  CHECK(mask_has(m->ignored, SIGPIPE));  // bit 12
  CHECK_FALSE(mask_has(m->caught, SIGPIPE));
  CHECK_FALSE(mask_has(m->caught, 0));
  CHECK_FALSE(mask_has(m->caught, 65));
}

TEST_CASE("parse_signal_masks rejects a status without a mask or with junk") {
  CHECK_FALSE(parse_signal_masks("SigBlk:\t0\nSigIgn:\t0\n"));
  CHECK_FALSE(parse_signal_masks("SigBlk:\t0\nSigIgn:\t0\nSigCgt:\tzz\n"));
  CHECK_FALSE(parse_signal_masks(""));
}

TEST_CASE("sigusr1_state: caught, ignored, blocked in every thread, or the default that kills") {
  const std::uint64_t usr1 = 1u << (SIGUSR1 - 1);
  CHECK(sigusr1_state({usr1, 0, 0}, {0, 0}) == Sigusr1::caught);
  // Node 22 with --disable-sigusr1: SigCgt 0x4402, no bit 9.
  CHECK(sigusr1_state({0x100004402u, 0x1001000u, 0}, {0}) == Sigusr1::default_action);
  CHECK(sigusr1_state({0, usr1, 0}, {0}) == Sigusr1::ignored);
  CHECK(sigusr1_state({usr1, 0, usr1}, {usr1, usr1}) == Sigusr1::blocked);
  // One thread that does not block it is enough for it to be delivered.
  CHECK(sigusr1_state({usr1, 0, usr1}, {usr1, 0}) == Sigusr1::caught);
  CHECK(std::string(sigusr1_name(Sigusr1::default_action)).find("terminates") != std::string::npos);
}

TEST_CASE("parse_status_ids reads real and effective uid, ppid and the pid in each namespace") {
  auto ids = parse_status_ids(kNodeStatus);
  REQUIRE(ids);
  CHECK(ids->real_uid == 1000);
  CHECK(ids->effective_uid == 1001);
  CHECK(ids->ppid == 21890);
  CHECK(ids->ns_pids == std::vector<pid_t>{22093, 1});
  auto old_kernel = parse_status_ids("PPid:\t1\nUid:\t0\t0\t0\t0\n");  // no NSpid before 4.1
  REQUIRE(old_kernel);
  CHECK(old_kernel->ns_pids.empty());
  CHECK_FALSE(parse_status_ids("PPid:\t1\n"));
  CHECK_FALSE(parse_status_ids("PPid:\tx\nUid:\t0\t0\t0\t0\n"));
}

TEST_CASE("ProcFacts gives the pid a process sees of itself") {
  ProcFacts f;
  f.pid = 22093;
  CHECK(f.pid_in_own_ns() == 22093);
  f.ids.ns_pids = {22093, 1};
  CHECK(f.pid_in_own_ns() == 1);
}

TEST_CASE("parse_ns_link reads a namespace link's inode") {
  CHECK(parse_ns_link("net:[4026531992]") == 4026531992u);
  CHECK(parse_ns_link("pid:[4026532301]") == 4026532301u);
  CHECK_FALSE(parse_ns_link("net:[]"));
  CHECK_FALSE(parse_ns_link("net:4026531992"));
  CHECK_FALSE(parse_ns_link(""));
}

TEST_CASE("parse_children reads a children file's pids") {
  CHECK(parse_children("123 456 ") == std::vector<pid_t>{123, 456});
  CHECK(parse_children("").empty());
  CHECK(parse_children("7") == std::vector<pid_t>{7});
}

TEST_CASE("exe_name_is_node: node and nodejs by basename only") {
  CHECK(exe_name_is_node("/usr/bin/node"));
  CHECK(exe_name_is_node("/usr/bin/nodejs"));
  CHECK(exe_name_is_node("/opt/n/.tools/node22/bin/node (deleted)"));
  CHECK(exe_name_is_node("node"));
  CHECK_FALSE(exe_name_is_node("/usr/bin/node-gyp"));
  CHECK_FALSE(exe_name_is_node("/home/x/node/bin/deno"));
  CHECK_FALSE(exe_name_is_node(""));
}

TEST_CASE("maps_libnode finds a mapped libnode.so of any version") {
  CHECK(maps_libnode("7f00-7f10 r-xp 00000000 08:01 1234 /usr/lib/x86_64-linux-gnu/libnode.so.108\n"));
  CHECK(maps_libnode("55d0-55d1 r--p 00000000 08:01 99 /usr/bin/node\n"
                     "7f00-7f10 r-xp 00000000 08:01 1234 /usr/lib/libnode.so\n"));
  CHECK_FALSE(maps_libnode("7f00-7f10 r-xp 00000000 08:01 1234 /usr/lib/libc.so.6\n"
                           "7ffd-7ffe rw-p 00000000 00:00 0 [stack]\n"));
  CHECK_FALSE(maps_libnode(""));
}
