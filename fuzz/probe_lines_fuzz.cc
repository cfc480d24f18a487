// A probe's byte stream as both readers take it: the one-shot collector
// (lenient, 16 MiB profiles) and the agent (strict, label bounds), each fed
// in socket-sized cuts chosen by the input; then the collector's stamp of
// the run time into the raw line for the recording. Invariants: the cuts do
// not change what is delivered; strict delivers a prefix of what lenient
// delivers; every delivered message passes the protocol check; a stamped line
// parses back to the message plus "rt", and both recording decoders read it
// alike. What the agent then does with the messages: `probe_lines_agent`.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include <spdlog/spdlog.h>

#include "agent/collector/recording_writer.h"
#include "fuzz/fuzz_support.h"
#include "fuzz/probe_reader.h"
#include "fuzz/recording_driver.h"

namespace {

using loopdoctor::fuzz::check;
using nlohmann::json;
namespace protocol = loopdoctor::protocol;

// The collector's recording line for a message (session_events.cc).
void check_stamp(const json& msg, const std::string& raw, double rt) {
  const std::string line = loopdoctor::collector::stamp_run_time(raw, msg, rt);
  json expected = msg;
  expected["rt"] = rt;
  const json parsed = json::parse(line, nullptr, false);
  check(parsed == expected, "a stamped line reads back otherwise: ", line);
  loopdoctor::fuzz::check_decoders_agree(line, parsed);
}

}  // namespace

// The lenient reader warns once per connection, i.e. once per input here:
// silenced, so the fuzzer's own output stays readable.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace loopdoctor::fuzz;
  Params params(data, size);
  const std::uint32_t seed = params.u16();
  const std::size_t max_cut = 1 + params.u16() % kMaxProbeCutBytes;
  const std::string_view stream = params.rest();

  const Delivered lenient = read_probe_stream(protocol::Strictness::kLenient, {}, stream, seed, max_cut);
  const Delivered whole = read_probe_stream(protocol::Strictness::kLenient, {}, stream, seed, 0);
  check(lenient.messages == whole.messages && lenient.reason == whole.reason,
        "the collector's reader delivers otherwise when the stream is cut otherwise");
  const Delivered strict = read_probe_stream(protocol::Strictness::kStrict, kAgentLimits, stream, seed, max_cut);
  check(strict.messages.size() <= lenient.messages.size() &&
            std::equal(strict.messages.begin(), strict.messages.end(), lenient.messages.begin()),
        "the agent's strict reader delivered a message the lenient one did not");

  double rt = 0;
  for (std::size_t i = 0; i < lenient.messages.size(); ++i)
    check_stamp(lenient.messages[i], lenient.raw[i], rt += 10.5);
  return 0;
}
