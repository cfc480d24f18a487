// The stack of a blocked loop: the tracker's decisions with a fake loop and
// clock (ms), and the block line.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "agent/protocol/block_limits.h"
#include "block_core.h"

using namespace loopdoctor::probe;
using nlohmann::json;

namespace {
constexpr uint64_t kMs = 1'000'000;

// A loop that last turned at `turn` ms, has waited `idle` ms in all, now `now`.
BlockView at(uint64_t now, uint64_t turn, uint64_t idle = 0, bool waiting = false) {
  BlockView v;
  v.now_ns = now * kMs;
  v.last_turn_ns = turn * kMs;
  v.idle_ns = idle * kMs;
  v.waiting = waiting;
  return v;
}

std::string step_text(BlockStep s) { return std::string(s.request ? "R" : "") + (s.native ? "N" : ""); }

std::string steps(BlockTracker& b, uint64_t now, uint64_t turn, uint64_t idle = 0, bool waiting = false) {
  return step_text(b.check(at(now, turn, idle, waiting)));
}

// As steps(), the loop thread having run `cpu` ms in all (its CPU clock).
std::string steps_cpu(BlockTracker& b, uint64_t now, uint64_t turn, uint64_t cpu) {
  BlockView v = at(now, turn);
  v.cpu_known = true;
  v.loop_cpu_ns = cpu * kMs;
  return step_text(b.check(v));
}

// A look at `now` with the loop last turned at `turn`, `cpu` ms run in all,
// and its own reading of `turn_cpu` ms at the turn at `turn_cpu_at`.
BlockView with_turn_cpu(uint64_t now, uint64_t turn, uint64_t cpu, uint64_t turn_cpu, uint64_t turn_cpu_at) {
  BlockView v = at(now, turn);
  v.cpu_known = true;
  v.loop_cpu_ns = cpu * kMs;
  v.turn_cpu_ns = turn_cpu * kMs;
  v.turn_cpu_at_ns = turn_cpu_at * kMs;
  return v;
}
}  // namespace

TEST_CASE("block: none below the threshold then a capture at once and every interval") {
  BlockTracker b(BlockConfig{});
  CHECK(steps(b, 10, 5) == "");
  CHECK(steps(b, 50, 5) == "");  // 45 ms without a turn
  CHECK_FALSE(b.in_block());
  CHECK(b.next_due_ns() == 0);
  CHECK(steps(b, 60, 5) == "R");  // 55 ms: a block since 5 ms
  CHECK(b.in_block());
  CHECK(b.start_ns() == 5 * kMs);
  CHECK(b.answer(b.generation(), 60 * kMs + 50'000, 5 * kMs));  // JS ran the interrupt
  CHECK(b.next_due_ns() == 75 * kMs);  // start + threshold + interval
  CHECK(steps(b, 70, 5) == "");
  CHECK(steps(b, 75, 5) == "R");
  CHECK(b.answer(b.generation(), 75 * kMs, 5 * kMs));
  CHECK(steps(b, 95, 5) == "R");
}

TEST_CASE("block: an interrupt not run within the timeout is native; a late run still answers") {
  BlockTracker b(BlockConfig{});
  CHECK(steps(b, 55, 0) == "R");  // asked at 55
  CHECK(b.next_due_ns() == 65 * kMs);  // the native timeout
  CHECK(steps(b, 60, 0) == "");
  CHECK(steps(b, 65, 0) == "N");  // 10 ms unanswered: in native code
  CHECK(b.next_due_ns() == 70 * kMs);
  CHECK(steps(b, 70, 0) == "");  // asked again, but V8 still holds our interrupt: no second one
  CHECK(steps(b, 80, 0) == "N");
  CHECK(steps(b, 90, 0) == "");
  CHECK(steps(b, 100, 0) == "N");
  // The C++ call returns into JS, still inside the block: the interrupt runs.
  CHECK(b.answer(b.generation(), 103 * kMs, 0));
  CHECK(steps(b, 110, 0) == "R");  // the next capture asks V8 again
}

TEST_CASE("block: the end of a block (a turn or a wait) and a stale interrupt") {
  BlockTracker b(BlockConfig{});
  CHECK(steps(b, 60, 0) == "R");
  const uint32_t first = b.generation();
  CHECK(steps(b, 70, 65) == "");  // the loop turned at 65: over
  CHECK_FALSE(b.in_block());
  CHECK_FALSE(b.answer(first, 71 * kMs, 65 * kMs));  // its interrupt ran after: stale, no line
  CHECK(steps(b, 130, 65) == "R");  // a new block since 65, new generation
  CHECK(b.generation() == first + 1);
  CHECK(b.start_ns() == 65 * kMs);
  CHECK_FALSE(b.answer(first, 131 * kMs, 65 * kMs));  // an old interrupt answers nothing
  // The JS thread sees a turn the watchdog has not seen yet: stale too.
  CHECK_FALSE(b.answer(b.generation(), 132 * kMs, 131 * kMs));
}

TEST_CASE("block: a loop waiting in epoll is never blocked however long it makes no turn") {
  BlockTracker b(BlockConfig{});
  for (uint64_t t = 10; t <= 300; t += 10) CHECK(steps(b, t, 0, t, true) == "");
  CHECK_FALSE(b.in_block());
}

TEST_CASE("block: a wait that just ended starts the clock not the last turn") {
  BlockTracker b(BlockConfig{});
  CHECK(steps(b, 100, 0, 100, true) == "");  // waiting since the turn at 0
  // At 104 the wait ended (idle grew by 4 ms after the last check), JS runs.
  CHECK(steps(b, 110, 0, 104, false) == "");
  CHECK(steps(b, 150, 0, 104, false) == "");  // 46 ms of JS: not yet
  CHECK(steps(b, 160, 0, 104, false) == "R");
  CHECK(b.start_ns() == 104 * kMs);
}

TEST_CASE("block: a watchdog descheduled for long sends one capture not a burst") {
  BlockTracker b(BlockConfig{});
  CHECK(steps(b, 55, 0) == "R");
  CHECK(b.answer(b.generation(), 55 * kMs, 0));
  CHECK(steps(b, 200, 0) == "R");
  CHECK(b.next_due_ns() == 210 * kMs);  // the native timeout of the capture at 200
  CHECK(b.answer(b.generation(), 200 * kMs, 0));
  CHECK(b.next_due_ns() == 210 * kMs);  // 50 + k * 20 past 200
}

TEST_CASE("block line: DESIGN's shape with duration and in") {
  std::vector<StackFrame> frames = {{"spin", "/app/busy.js", 4, 10}, {"", "node:internal/timers", 569, 17}};
  json j = json::parse(block_line(160.25, 100, frames, true));
  CHECK(j["type"] == "block");
  CHECK(j["t"] == 160.25);
  CHECK(j["start"] == 100);
  CHECK(j["duration_ms"] == 60.25);
  CHECK(j["in"] == "js");
  REQUIRE(j["frames"].size() == 2);
  CHECK(j["frames"][0] == json{{"function", "spin"}, {"url", "/app/busy.js"}, {"line", 4}, {"column", 10}});
  CHECK(j["frames"][1]["function"] == "");
  json n = json::parse(block_line(70, 0, {}, false));
  CHECK(n["in"] == "native");
  CHECK(n["frames"].empty());
}

TEST_CASE("block line: frames and strings capped and escaped into valid JSON") {
  using loopdoctor::protocol::kMaxBlockFrames;
  using loopdoctor::protocol::kMaxBlockStringBytes;
  std::vector<StackFrame> frames(kMaxBlockFrames + 10, StackFrame{"f", "u", 1, 1});
  // A name of 2-byte characters crossing the cap, a quote, a control byte, a stray byte.
  std::string long_name;
  for (std::size_t i = 0; i < kMaxBlockStringBytes; ++i) long_name += "\xc3\xa9";
  frames[0] = StackFrame{long_name, "a\"b\\c\nd\xff", 2, 3};
  json j = json::parse(block_line(1, 0, frames, true));
  CHECK(j["frames"].size() == kMaxBlockFrames);
  const std::string f = j["frames"][0]["function"];
  CHECK(f.size() == kMaxBlockStringBytes);  // 256 whole characters of 2 bytes
  CHECK(j["frames"][0]["url"] == "a\"b\\c\nd\xef\xbf\xbd");
  CHECK(cap_utf8("ab\xc3\xa9", 3) == "ab");  // never half a character
}

TEST_CASE("block: a stall spent waiting for a CPU is no block however long") {
  BlockTracker b(BlockConfig{});
  CHECK(steps_cpu(b, 10, 10, 500) == "");  // turned at 10 ms, had run 500 ms in all
  // Descheduled from 10 to 300 ms: no turn, and only 2 ms more of its own run.
  for (uint64_t t = 20; t <= 300; t += 10) CHECK(steps_cpu(b, t, 10, 500 + (t >= 200 ? 2 : 0)) == "");
  CHECK_FALSE(b.in_block());
  CHECK(b.next_due_ns() == 0);
}

TEST_CASE("block: JS on a third of a CPU is a block once it ran for the share of the threshold") {
  BlockTracker b(BlockConfig{});
  // Seen turned at 0 by the check at 10 (its run counts from there), then
  // JS runs on a third of a CPU: cpu = 100 + (t - 10) / 3.
  CHECK(steps_cpu(b, 10, 0, 100) == "");
  const uint64_t min_run = kBlockMinRunPercent * 50 / 100;  // ms
  uint64_t first = 0;
  for (uint64_t t = 20; t <= 300 && first == 0; t += 10)
    if (steps_cpu(b, t, 0, 100 + (t - 10) / 3) == "R") first = t;
  CHECK(first == 10 + 3 * min_run);  // wall 130 ms: 40 ms of its own run, not at 50 ms of wall
  CHECK(b.in_block());
  CHECK(b.start_ns() == 0);  // the block's start and duration stay wall-clock
}

TEST_CASE("block: the run counts from the check that saw the loop turn") {
  BlockTracker b(BlockConfig{});
  CHECK(steps_cpu(b, 10, 5, 1000) == "");
  CHECK(steps_cpu(b, 20, 18, 1008) == "");  // a turn at 18: its run from here, 1008
  CHECK(steps_cpu(b, 70, 18, 1045) == "");  // 52 ms without a turn, 37 ms run: waiting for a CPU too
  CHECK(steps_cpu(b, 80, 18, 1048) == "R");  // 40 ms run
  CHECK(b.start_ns() == 18 * kMs);
}

TEST_CASE("block: a loop asleep in a sync call is blocked though it does not run") {
  BlockTracker b(BlockConfig{});
  CHECK(steps_cpu(b, 10, 10, 500) == "");
  BlockView v = at(70, 10);  // 60 ms without a turn, no run
  v.cpu_known = true;
  v.loop_cpu_ns = 500 * kMs;
  v.sleeping = true;  // state S: Atomics.wait, a sync read
  CHECK(step_text(b.check(v)) == "R");
  CHECK(b.start_ns() == 10 * kMs);
}

TEST_CASE("block: the run counts from the loop's own reading at a recent turn") {
  BlockTracker b(BlockConfig{});
  CHECK(steps_cpu(b, 0, 0, 900) == "");
  // The watchdog looks 50 ms after a turn at 12 (a takeover period): the loop
  // read 1000 ms of run at its turn at 10; it has run 42 ms since, of which
  // up to 2 before its turn at 12: 40 ms of this stall's own, at least.
  CHECK(step_text(b.check(with_turn_cpu(62, 12, 1042, 1000, 10))) == "R");  // the look's own reading would count 0 ms of run
  CHECK(b.start_ns() == 12 * kMs);
}

TEST_CASE("block: a stall's run never counts what the loop may have run before its last turn") {
  BlockTracker b(BlockConfig{});
  CHECK(steps_cpu(b, 0, 0, 900) == "");
  // Served a tick at 10 (cpu 1000), ran to its turn at 30, then was
  // descheduled: 41 ms more CPU by the look at 80, but at most 21 of it
  // after the turn at 30 - no block.
  CHECK(step_text(b.check(with_turn_cpu(80, 30, 1041, 1000, 10))) == "");
  CHECK_FALSE(b.in_block());
}

TEST_CASE("block: a turn reading older than the loop's last activity is not used") {
  BlockTracker b(BlockConfig{});
  CHECK(steps_cpu(b, 0, 0, 900) == "");
  // The loop last served a tick at 10 but turned again at 100: the reading
  // at 10 would count its run from 10 to 100 as this stall's.
  CHECK(step_text(b.check(with_turn_cpu(150, 100, 1090, 1000, 10))) == "");  // counts from this look: 0 ms of run
  CHECK_FALSE(b.in_block());
}

TEST_CASE("block: after a wait the run counts from the reading of the check that saw it waiting") {
  BlockTracker b(BlockConfig{});
  // Waiting at the look at 100 (cpu 500); the look at 160 sees a wait of 10
  // more ms ended (at 110) and JS since: it ran 45 ms, all of it this stall's.
  BlockView w = at(100, 0, 100, true);
  w.cpu_known = true;
  w.loop_cpu_ns = 500 * kMs;
  CHECK(step_text(b.check(w)) == "");
  BlockView v = at(160, 0, 110);
  v.cpu_known = true;
  v.loop_cpu_ns = 545 * kMs;
  CHECK(step_text(b.check(v)) == "R");  // this look's own reading would count 0 ms of run
  CHECK(b.start_ns() == 110 * kMs);
}

TEST_CASE("block: an answer says how long the interrupt waited, from the first request it answers") {
  BlockTracker b(BlockConfig{});
  CHECK(steps(b, 55, 0) == "R");
  CHECK(b.answer(b.generation(), 55 * kMs + 40'000, 0));  // 40 us: JS was running
  CHECK(b.last_wait_ns() == 40'000);
  CHECK_FALSE(b.native_seen());
  // A builtin holds the thread: asked at 75, unanswered at 85 (native),
  // asked again at 95 (superseded), answered at 101 when it returns.
  CHECK(steps(b, 75, 0) == "R");
  CHECK(steps(b, 85, 0) == "N");
  CHECK(b.native_seen());
  CHECK(steps(b, 95, 0) == "");
  CHECK(b.answer(b.generation(), 101 * kMs, 0));
  CHECK(b.last_wait_ns() == 26 * kMs);  // from 75, not 95
}

TEST_CASE("block: an answer later than kPromptInterruptMs marks the block native with no native line") {
  BlockTracker b(BlockConfig{});
  CHECK(steps(b, 55, 0) == "R");
  CHECK(b.answer(b.generation(), 61 * kMs, 0));  // a 6 ms binding call returned
  CHECK(b.native_seen());
  CHECK(steps(b, 130, 120) == "");  // over
  CHECK(steps(b, 175, 120) == "R");  // a new block: not native until seen so
  CHECK_FALSE(b.native_seen());
}

TEST_CASE("block line: an interrupt's wait, a profile's sample, the probe's own work") {
  json j = json::parse(block_line(70, 0, {}, true, {.wait_ms = 45.25}));
  CHECK(j["wait_ms"] == 45.25);
  CHECK_FALSE(j.contains("by"));
  j = json::parse(block_line(70, 0, {}, true, {.by_profile = true}));
  CHECK(j["by"] == "profile");
  CHECK_FALSE(j.contains("wait_ms"));
  j = json::parse(block_line(70, 0, {}, false, {.probe = true}));
  CHECK(j["probe"] == true);
  CHECK(j["in"] == "native");
}
