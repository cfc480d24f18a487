// A gzip recording as `loopdoctor analyze` reads one, up to the Timeline
// (inflate, the line reader, the fast and JSON decoders): the payload is
// compressed here (so mutations of the NDJSON reach the decoders through
// inflate), then the stream is damaged as a crash, a kill -9 or a bad copy
// leaves it: cut at a fuzzer-chosen byte, a byte flipped, garbage appended
// after the trailer, or a second member concatenated.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.h"
#include "fuzz/recording_driver.h"

namespace {

using loopdoctor::fuzz::check;

// gzip framing (windowBits 15 + 16), as the collector's gzopen writes it.
constexpr int kGzipWindowBits = 15 + 16;
constexpr int kMemLevel = 8;

std::string gzip(std::string_view in, int level) {
  z_stream z{};
  check(deflateInit2(&z, level, Z_DEFLATED, kGzipWindowBits, kMemLevel, Z_DEFAULT_STRATEGY) == Z_OK,
        "deflateInit2 failed");
  std::string out(deflateBound(&z, in.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  check(deflate(&z, Z_FINISH) == Z_STREAM_END, "deflate did not finish");
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// Damage chosen by the mode byte's low bits; the cut point comes after it.
enum Damage : std::uint8_t { kNone, kCut, kFlip, kTrailingGarbage, kTwoMembers, kDamageCount };

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace loopdoctor::fuzz;
  Params params(data, size);
  const std::uint8_t mode = params.byte();
  const std::uint16_t where = params.u16();
  const std::string_view payload = params.rest();
  const int level = mode >> 4 < 10 ? mode >> 4 : Z_DEFAULT_COMPRESSION;
  std::string file = gzip(payload, level);
  const std::size_t at = file.empty() ? 0 : where % file.size();
  switch (mode % kDamageCount) {
    case kCut: file.resize(at); break;
    case kFlip: if (!file.empty()) file[at] = static_cast<char>(file[at] ^ (mode | 1)); break;
    case kTrailingGarbage: file.append(payload.substr(0, where % 64)); break;
    case kTwoMembers: file += gzip(payload.substr(payload.size() / 2), level); break;
    default: break;
  }
  MemFile gz(file.data(), file.size());
  // The reader's and the decoders' target: the analysis of what they read
  // is `recording_full`'s to fuzz.
  (void)read_recording(gz.path());
  return 0;
}
