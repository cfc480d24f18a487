#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <zlib.h>

#include "recording/recording.h"
#include "analyzer/timeline/timeline.h"
#include "analyzer/timeline/window_stats.h"
#include "synthetic.h"

using namespace loopdoctor;

namespace {
std::string temp_path(const char* name) { return std::string("/tmp/ld-unit-") + name; }

void write_lines(const std::string& path, const std::vector<nlohmann::json>& recs, bool gz) {
  std::string all;
  for (const auto& r : recs) all += r.dump() + "\n";
  if (gz) {
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, all.data(), static_cast<unsigned>(all.size()));
    gzclose(f);
  } else {
    std::ofstream(path) << all;
  }
}
}  // namespace

TEST_CASE("probe times are shifted onto the run clock") {
  testing::Scenario sc;
  Timeline tl = build_timeline(testing::make_recording(sc));
  REQUIRE(!tl.samples.empty());
  REQUIRE(!tl.proc.empty());
  // synthetic probe clock = run clock - 40 ms; the minimum rt - t is 40.
  CHECK(tl.samples.front().t == Approx(110.0));  // end of the first 10 ms interval
  CHECK(tl.listen_t == Approx(90.0));
  REQUIRE(tl.load_window);
  CHECK(tl.load_window->start == 200);
  CHECK(tl.exit.present);
  CHECK(tl.exit.signal == std::optional<std::string>("SIGINT"));
}

TEST_CASE("block captures are kept and shifted onto the run clock with the samples") {
  testing::Scenario sc;
  std::vector<nlohmann::json> recs = testing::make_recording(sc);
  recs.push_back({{"type", "block"}, {"t", 500}, {"rt", 541}, {"start", 400}, {"duration_ms", 100},
                  {"in", "js"}, {"frames", {{{"function", "spin"}, {"url", "/app/s.js"}, {"line", 3}, {"column", 1}}}}});
  Timeline tl = build_timeline(recs);
  REQUIRE(tl.blocks.size() == 1);
  CHECK(tl.blocks[0].t == Approx(540.0));  // the same offset as the samples: rt - t = 40
  CHECK(tl.blocks[0].start == Approx(440.0));
  CHECK(tl.blocks[0].frames.at(0).function == "spin");
}

TEST_CASE("plain and gzip recordings read alike") {
  auto recs = testing::make_recording(testing::Scenario{});
  write_lines(temp_path("a.ndjson"), recs, false);
  write_lines(temp_path("a.ndjson.gz"), recs, true);
  std::string err;
  auto a = load_timeline(temp_path("a.ndjson"), &err);
  auto b = load_timeline(temp_path("a.ndjson.gz"), &err);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->samples.size() == b->samples.size());
  CHECK(a->gc.size() == b->gc.size());
  CHECK_FALSE(a->truncated);
  CHECK_FALSE(b->truncated);
}

// A recording kept raw (--no-redact, or an older loopdoctor's): with a
// redactor the secrets stay out of the timeline, so out of every output.
TEST_CASE("a redactor keeps a raw recording's secrets out of the timeline") {
  auto recs = testing::make_recording(testing::Scenario{});
  for (auto& r : recs)
    if (r["type"] == "meta") r["command"] = {"node", "server.js", "--password=PlantedPw1"};
  recs.push_back(recording::encode(recording::Warning{300, "load failed at http://u:PlantedUrlPw4@h/"}));
  write_lines(temp_path("secrets.ndjson"), recs, false);
  std::string err;
  const base::Redactor redactor;
  auto raw = load_timeline(temp_path("secrets.ndjson"), &err);
  auto red = load_timeline(temp_path("secrets.ndjson"), &err, &redactor);
  REQUIRE(raw);
  REQUIRE(red);
  CHECK(raw->command.back() == "--password=PlantedPw1");
  CHECK(red->command == std::vector<std::string>{"node", "server.js", "--password=[REDACTED]"});
  REQUIRE(red->recorded_warnings.size() == 1);
  CHECK(raw->recorded_warnings.back() == "load failed at http://u:PlantedUrlPw4@h/");
  CHECK(red->recorded_warnings.back() == "load failed at http://[REDACTED]@h/");
  CHECK(red->samples.size() == raw->samples.size());
}

TEST_CASE("a recording cut in the middle of a line analyses up to the cut") {
  auto recs = testing::make_recording(testing::Scenario{});
  std::string all;
  for (const auto& r : recs) all += r.dump() + "\n";
  const std::string cut = all.substr(0, all.size() / 2 + 7);  // mid-line
  std::ofstream(temp_path("cut.ndjson")) << cut;
  std::string err;
  auto tl = load_timeline(temp_path("cut.ndjson"), &err);
  REQUIRE(tl);
  CHECK(tl->truncated);
  CHECK(!tl->samples.empty());
  CHECK(!tl->warnings.empty());
}

TEST_CASE("a gzip recording cut short still reads up to the cut") {
  auto recs = testing::make_recording(testing::Scenario{});
  write_lines(temp_path("full.ndjson.gz"), recs, true);
  std::ifstream in(temp_path("full.ndjson.gz"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(temp_path("cut.ndjson.gz"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  std::size_t n = 0;
  auto res = recording::read_lines(temp_path("cut.ndjson.gz"), [&](std::string_view line) {
    const bool ok = nlohmann::json::accept(line);
    n += ok;
    return ok;
  });
  CHECK(res.ok);
  CHECK(res.truncated);
  CHECK(n > 10);
}

// The reader takes a small file (<= 64 KiB) in 16 KiB chunks on the
// caller's thread and a larger one through its read-ahead thread: a line
// across chunks, and the cut-off last line, read alike both ways.
TEST_CASE("small and large recordings read a line longer than a read chunk whole") {
  for (const std::size_t padding : {std::size_t{0}, std::size_t{100000}}) {
    for (const bool gz : {false, true}) {
      INFO("padding " << padding << (gz ? " gzip" : " plain"));
      const std::string text(40000, 'w');  // 2.5 small chunks
      std::vector<nlohmann::json> recs = {{{"type", "meta"}, {"format", 1}},
                                          {{"type", "warning"}, {"text", text}},
                                          {{"type", "warning"}, {"text", std::string(padding, 'p')}}};
      const std::string path = temp_path(gz ? "long-line.ndjson.gz" : "long-line.ndjson");
      write_lines(path, recs, gz);
      std::string err;
      auto tl = load_timeline(path, &err);
      REQUIRE(tl);
      REQUIRE(tl->recorded_warnings.size() == 2);
      CHECK(tl->recorded_warnings[0] == text);
      CHECK(tl->recorded_warnings[1].size() == padding);
      CHECK_FALSE(tl->truncated);
    }
  }
}

TEST_CASE("garbage lines are skipped, not fatal") {
  std::ofstream(temp_path("junk.ndjson")) << "{\"type\":\"meta\",\"format\":1}\nnot json\n[1,2]\n"
                                             "{\"type\":\"proc\",\"t\":5,\"cpu_ms\":1}\n";
  std::string err;
  auto tl = load_timeline(temp_path("junk.ndjson"), &err);
  REQUIRE(tl);
  CHECK(tl->proc.size() == 1);
  CHECK(tl->warnings.size() == 2);
}

TEST_CASE("a missing or empty recording is a clear error") {
  std::string err;
  CHECK_FALSE(load_timeline("/nonexistent/x.ndjson", &err));
  CHECK(err.find("/nonexistent/x.ndjson") != std::string::npos);
  std::ofstream(temp_path("empty.ndjson")) << "";
  CHECK_FALSE(load_timeline(temp_path("empty.ndjson"), &err));
  CHECK(err.find("no record") != std::string::npos);
}

TEST_CASE("percentile and slope") {
  CHECK(percentile({}, 99) == 0);
  CHECK(percentile({5}, 99) == 5);
  CHECK(percentile({1, 2, 3, 4, 5}, 50) == 3);
  CHECK(percentile({1, 2, 3, 4, 5}, 100) == 5);
  CHECK(slope({0, 1, 2, 3}, {1, 3, 5, 7}) == Approx(2));
  CHECK(slope({1, 1, 1}, {1, 2, 3}) == 0);
}

TEST_CASE("window stats: GC share and blocked share") {
  testing::Scenario sc;
  sc.gc_minor_ms_per_s = 200;
  Timeline tl = build_timeline(testing::make_recording(sc));
  WindowStats st = compute_window_stats(tl, analysis_window(tl));
  CHECK(st.gc_share == Approx(0.2).margin(0.02));
  CHECK(st.blocked_share == 0);
  CHECK(st.cpu_cores_proc == Approx(0.3).margin(0.02));
}

TEST_CASE("heap growth: the probe's post-GC heap outweighs samples taken later") {
  // Samples climb 20 MB/s (garbage allocated after each collection and before
  // the next sample); what survives the collections stays flat.
  testing::Scenario sc;
  sc.gc_major_ms_per_s = 60, sc.heap_growth_per_s = 20e6, sc.heap_after_growth_per_s = 0;
  {
    Timeline tl = build_timeline(testing::make_recording(sc));
    WindowStats st = compute_window_stats(tl, analysis_window(tl));
    CHECK(st.heap_growth_after_major_gc);
    CHECK(std::abs(st.heap_growth_bytes_per_s) < 0.1e6);
  }
  // The other way round: flat samples, post-GC heap rising, is a leak.
  sc.heap_growth_per_s = 0, sc.heap_after_growth_per_s = 8e6;
  {
    Timeline tl = build_timeline(testing::make_recording(sc));
    WindowStats st = compute_window_stats(tl, analysis_window(tl));
    CHECK(st.heap_growth_after_major_gc);
    CHECK(st.heap_growth_bytes_per_s == Approx(8e6).epsilon(0.05));
  }
  // Without heap_after the samples after each collection are all there is.
  sc.heap_growth_per_s = 20e6, sc.heap_after_growth_per_s = -1;
  {
    Timeline tl = build_timeline(testing::make_recording(sc));
    WindowStats st = compute_window_stats(tl, analysis_window(tl));
    CHECK(st.heap_growth_bytes_per_s == Approx(20e6).epsilon(0.1));
  }
}

TEST_CASE("heap growth: one low first point (a cache filling) is not a trend") {
  // A 5 s run, a full collection every ~0.3 s; the first finds 25 MB less
  // live data than all the others. A least-squares line reads ~2 MB/s into it.
  testing::Scenario sc;
  sc.seconds = 5;
  sc.gc_major_ms_per_s = 60, sc.heap_after_growth_per_s = 0, sc.heap_after_warmup = 25e6;
  Timeline tl = build_timeline(testing::make_recording(sc));
  WindowStats st = compute_window_stats(tl, analysis_window(tl));
  CHECK(st.heap_growth_after_major_gc);
  CHECK(std::abs(st.heap_growth_bytes_per_s) < 0.1e6);
}

TEST_CASE("gc heap_after: fast and JSON paths agree") {
  std::vector<nlohmann::json> recs = {
      {{"type", "meta"}, {"format", 1}},
      {{"type", "gc"}, {"t", 10}, {"kind", "major"}, {"duration_ms", 4.5}, {"heap_after", 31235912}},
      {{"type", "gc"}, {"t", 20}, {"kind", "minor"}, {"duration_ms", 1}},
  };
  write_lines(temp_path("heap-after.ndjson"), recs, false);
  std::string err;
  auto fast = load_timeline(temp_path("heap-after.ndjson"), &err);
  REQUIRE(fast);
  Timeline slow = build_timeline(recs);
  REQUIRE(fast->gc.size() == 2);
  REQUIRE(slow.gc.size() == 2);
  CHECK(fast->gc[0].heap_after == 31235912);
  CHECK(slow.gc[0].heap_after == 31235912);
  CHECK(fast->gc[1].heap_after == 0);
  CHECK(slow.gc[1].heap_after == 0);
}

TEST_CASE("handle counts read like a map ordered by name") {
  HandleCounts h = {{"Timeout", 2}, {"TCPSocketWrap", 50}, {"TCPServerWrap", 1}};
  REQUIRE(h.size() == 3);
  std::vector<std::string> names;
  for (const auto& [type, n] : h) names.push_back(type);
  CHECK(names == std::vector<std::string>{"TCPServerWrap", "TCPSocketWrap", "Timeout"});
  REQUIRE(h.find("TCPSocketWrap") != h.end());
  CHECK(h.find("TCPSocketWrap")->second == 50);
  CHECK(h.find("Immediate") == h.end());
  CHECK(h.count("Timeout") == 1);
  h["Immediate"] = 4;  // inserted in name order
  h["Timeout"] += 1;
  CHECK(h.begin()->first == "Immediate");
  CHECK(h.find("Timeout")->second == 3);
  CHECK(h.erase("TCPServerWrap") == 1);
  CHECK(h.erase("TCPServerWrap") == 0);
  CHECK(h.size() == 3);
  h.clear();
  CHECK(h.empty());
  CHECK(h.begin() == h.end());
}

TEST_CASE("a change to handle counts never shows through a copy") {
  HandleCounts a = {{"Timeout", 1}};
  HandleCounts b = a;
  CHECK(b.shares_with(a));
  b["Timeout"] = 7;
  b["PipeWrap"] = 2;
  CHECK(a.find("Timeout")->second == 1);
  CHECK(a.size() == 1);
  CHECK(b.find("Timeout")->second == 7);
  CHECK_FALSE(b.shares_with(a));
  HandleCounts c = b;
  c.erase("PipeWrap");
  CHECK(b.size() == 2);
  CHECK(c.size() == 1);
}

TEST_CASE("the handle-count pool stores equal sets once") {
  HandleCountsPool pool;
  HandleCounts::Entries e = {{"TCPServerWrap", 1}, {"TCPSocketWrap", 50}};
  HandleCounts x = pool.intern(e);
  HandleCounts y = pool.intern(e);
  CHECK(x.shares_with(y));
  const HandleCounts want = {{"TCPSocketWrap", 50}, {"TCPServerWrap", 1}};
  CHECK(x == want);
  e[1].second = 51;
  HandleCounts z = pool.intern(e);
  CHECK_FALSE(z.shares_with(x));
  CHECK(z.find("TCPSocketWrap")->second == 51);
  CHECK(x.find("TCPSocketWrap")->second == 50);  // the pooled set is untouched
  CHECK(pool.size() == 2);
  CHECK(pool.intern({}).empty());
  CHECK(pool.size() == 2);
}

TEST_CASE("handle counts from a recording: fast and JSON paths agree, equal sets shared") {
  std::vector<nlohmann::json> recs = {
      {{"type", "meta"}, {"format", 1}},
      {{"type", "hello"}, {"t", 0}, {"rt", 5}, {"interval_ms", 10}},
  };
  for (int i = 1; i <= 6; ++i)
    recs.push_back({{"type", "sample"}, {"t", i * 10}, {"rt", i * 10 + 5}, {"interval_ms", 10},
                    {"delay", {{"max", 1}}},
                    {"handles", {{"total", 3 + i / 4},
                                 {"by_type", {{"Timeout", 2}, {"TCPSocketWrap", 1 + i / 4}}}}}});
  write_lines(temp_path("handles.ndjson"), recs, false);
  std::string err;
  auto fast = load_timeline(temp_path("handles.ndjson"), &err);
  REQUIRE(fast);
  Timeline slow = build_timeline(recs);
  REQUIRE(fast->samples.size() == 6);
  REQUIRE(slow.samples.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(fast->samples[i].handles_by_type == slow.samples[i].handles_by_type);
    CHECK(fast->samples[i].handles_by_type.find("TCPSocketWrap")->second == 1 + (i + 1) / 4);
  }
  // Samples 1-3 carry one set, 4-6 another: two blocks in all.
  CHECK(fast->samples[0].handles_by_type.shares_with(fast->samples[2].handles_by_type));
  CHECK(fast->samples[3].handles_by_type.shares_with(fast->samples[5].handles_by_type));
  CHECK_FALSE(fast->samples[0].handles_by_type.shares_with(fast->samples[3].handles_by_type));
}
