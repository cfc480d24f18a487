// A recording's bytes through all of `loopdoctor analyze`: the file reader
// (plain, or gzip when the bytes start with its magic), the fast and JSON
// decoders, the Timeline, analyze() and every output (HTML report, JSON,
// Markdown, terminal); plus the promise that both decoders read every hot
// line alike. ~15 ms an input: run for a time, not to 10 million (the
// `recording` target fuzzes the reading alone at a hundred times the rate).
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_support.h"
#include "fuzz/recording_driver.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace loopdoctor::fuzz;
  check_decoders_agree({reinterpret_cast<const char*>(data), size});
  MemFile file(data, size);
  analyze_recording(file.path(), /*html=*/true);
  return 0;
}
