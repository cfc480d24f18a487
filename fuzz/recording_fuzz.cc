// A recording's bytes as `loopdoctor analyze` reads them, up to the
// Timeline: the file reader (plain, or gzip when the bytes start with its
// magic), the fast decoder and the JSON decoders, the RunBuilder's routing
// of records to loops. Invariants: both decoders read every hot line alike;
// a refused recording says why; the loops kept stay within their bounds.
// The analysis and outputs of the same bytes: `recording_full`.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_support.h"
#include "fuzz/recording_driver.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace loopdoctor::fuzz;
  check_decoders_agree({reinterpret_cast<const char*>(data), size});
  MemFile file(data, size);
  (void)read_recording(file.path());
  return 0;
}
