// V8's out-of-memory line found in the target's stderr however it is cut.
#include <catch2/catch.hpp>

#include <string>

#include "agent/collector/stderr_watch.h"

using loopdoctor::collector::HeapOomScan;

TEST_CASE("stderr watch: the heap out-of-memory line in any cut") {
  const std::string text =
      "<--- Last few GCs --->\n[41:0x55]  812 ms: Mark-Compact 30.1 (33.2) -> 30.0 (33.2) MB\n"
      "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n 1: 0xb7 node::Abort()\n";
  for (std::size_t piece = 1; piece <= text.size(); piece += 3) {
    HeapOomScan scan;
    for (std::size_t at = 0; at < text.size(); at += piece) scan.feed(std::string_view(text).substr(at, piece));
    INFO("pieces of " << piece);
    CHECK(scan.found());
  }
  HeapOomScan none;
  none.feed("FATAL ERROR: v8::ToLocalChecked Empty MaybeLocal\n");
  CHECK_FALSE(none.found());
}
