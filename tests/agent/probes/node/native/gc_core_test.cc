// The pure part of the native probe's GC hooks: V8's GCType to the
// protocol's kind, pauses per kind, and the gc line.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "gc_core.h"

using namespace loopdoctor::probe;
using nlohmann::json;

TEST_CASE("V8's GC types map to the protocol's four kinds") {
  CHECK(std::string(gc_kind_name(gc_kind(1))) == "minor");   // kGCTypeScavenge
  CHECK(std::string(gc_kind_name(gc_kind(2))) == "minor");   // kGCTypeMinorMarkCompact / MinorMarkSweep
  CHECK(std::string(gc_kind_name(gc_kind(4))) == "major");   // kGCTypeMarkSweepCompact
  CHECK(std::string(gc_kind_name(gc_kind(8))) == "incremental");
  CHECK(std::string(gc_kind_name(gc_kind(16))) == "weak");   // kGCTypeProcessWeakCallbacks
  CHECK(gc_kind(31) == GcKind::kCount);  // kGCTypeAll is not one collection
  CHECK(gc_kind(0) == GcKind::kCount);
}

TEST_CASE("a pause runs from its prologue to its epilogue even with another kind inside") {
  GcPauses p;
  uint64_t start = 0, duration = 0;
  p.begin(GcKind::kMajor, 1'000);
  p.begin(GcKind::kWeak, 5'000);  // weak callbacks inside the full collection
  REQUIRE(p.end(GcKind::kWeak, 6'500, &start, &duration));
  CHECK(start == 5'000);
  CHECK(duration == 1'500);
  REQUIRE(p.end(GcKind::kMajor, 9'000, &start, &duration));
  CHECK(start == 1'000);
  CHECK(duration == 8'000);
  // An epilogue whose prologue ran before the hooks were added: no line.
  CHECK_FALSE(p.end(GcKind::kMinor, 10'000, &start, &duration));
  CHECK_FALSE(p.end(GcKind::kMajor, 10'000, &start, &duration));
  CHECK_FALSE(p.end(GcKind::kCount, 10'000, &start, &duration));
}

TEST_CASE("the gc line is DESIGN's with heap_after in bytes") {
  const std::string line = gc_line(1234.56789, GcKind::kMajor, 3.25, 31'457'280);
  REQUIRE(line.back() == '\n');
  CHECK(line == "{\"type\":\"gc\",\"t\":1234.568,\"kind\":\"major\",\"duration_ms\":3.25,\"heap_after\":31457280}\n");
  const json j = json::parse(line);
  CHECK(j["kind"] == "major");
  CHECK(j["heap_after"].get<uint64_t>() == 31'457'280);
  // No reading: no field (the analyser then takes the next sample's heap).
  CHECK(json::parse(gc_line(5, GcKind::kMinor, 0.0004, 0)).contains("heap_after") == false);
  CHECK(json::parse(gc_line(5, GcKind::kMinor, 0.0004, 0))["duration_ms"] == 0);
}
