// A server's bytes as the load generator's connection takes them
// (agent/load/connection.cc): http-parser through ResponseParser, fed in
// reads cut where the input says, each complete response counted into the
// worker's Stats, the peer's close (eof) at the end, and the per-second and
// summary records built from the Stats. A mode byte chooses HEAD requests
// and how many requests are outstanding (pipelining). Invariant: how the
// stream is cut does not change the responses, the outcome or the close.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "agent/load/response.h"
#include "agent/load/stats.h"
#include "fuzz/fuzz_support.h"

namespace {

using loopdoctor::fuzz::check;
using loopdoctor::load::ResponseParser;

// A read of the worker's buffer is at most this (Worker::kReadBufferBytes is
// larger; cuts this small reach every split inside a header).
constexpr std::size_t kMaxCutBytes = 512;
constexpr int kMaxPipelined = 16;

struct Outcome {
  std::vector<int> statuses;
  ResponseParser::Feed last = ResponseParser::Feed::kOk;
  bool truncated = false;  // eof() found a response cut short
  bool operator==(const Outcome&) const = default;
};

struct Conn {
  int outstanding = 0;
  loopdoctor::load::Stats* stats;  // null: only the outcome is wanted
  Outcome* out;
  static void on_response(void* ctx, int status) {
    auto* c = static_cast<Conn*>(ctx);
    c->out->statuses.push_back(status);
    if (c->outstanding <= 0) return;  // an answer nobody asked for
    if (c->stats) c->stats->record_response(status, 1000);
    --c->outstanding;
  }
};

// Feeds `stream` as Connection::handle_data and on_read do; counts into
// `stats` when given.
Outcome run(std::string_view stream, bool head, int pipelined, std::uint32_t seed,
            std::size_t max_cut, loopdoctor::load::Stats* stats) {
  Outcome out;
  Conn conn{pipelined, stats, &out};
  ResponseParser parser(&Conn::on_response, &conn);
  parser.reset(head);
  loopdoctor::fuzz::Cuts cuts(seed, max_cut ? max_cut : 1);  // 0: the stream in one read
  while (!stream.empty()) {
    const std::size_t n = max_cut ? std::min(cuts.next(), stream.size()) : stream.size();
    if (stats) stats->bytes += n;
    out.last = parser.feed(stream.data(), n);
    stream.remove_prefix(n);
    if (out.last == ResponseParser::Feed::kError) {
      if (stats) ++stats->errors.parse;
      check(parser.error_name() != nullptr, "a parse error without a name");
      return out;
    }
    if (out.last == ResponseParser::Feed::kClose) return out;
  }
  out.truncated = parser.eof();
  if (stats && (out.truncated || conn.outstanding > 0)) ++stats->errors.read;
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace loopdoctor::fuzz;
  Params params(data, size);
  const std::uint8_t mode = params.byte();
  const std::uint32_t seed = params.u16();
  const std::string_view stream = params.rest();
  const bool head = mode & 1;
  const int pipelined = 1 + (mode >> 1) % kMaxPipelined;
  const std::size_t max_cut = 1 + seed % kMaxCutBytes;

  // The Stats' histogram (3,328 buckets) dominated the time: one, for the
  // cut run, and the summary built from it once.
  loopdoctor::load::Stats stats;
  const Outcome cut = run(stream, head, pipelined, seed, max_cut, &stats);
  const Outcome whole = run(stream, head, pipelined, seed, 0, nullptr);
  check(cut == whole, "the responses depend on how the stream was cut");
  (void)loopdoctor::load::summary_json(stats, 2.0, 0, false).dump();
  return 0;
}
