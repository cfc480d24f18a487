// A probe's byte stream through all the agent does with it: the strict
// reader with label bounds (cut into socket reads, every message checked),
// then what agent.cc's on_message/on_hello do with the messages (its
// dispatch, apply_record, into the rolling window), one rolling analysis and one
// /metrics scrape. ~10 ms an input: run for a time, not to 10 million (the
// `probe_lines` target fuzzes the readers alone at a far higher rate).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "agent/exporter/limits.h"
#include "agent/exporter/metrics.h"
#include "agent/exporter/process_table.h"
#include "analyzer/analyze.h"
#include "fuzz/fuzz_support.h"
#include "fuzz/probe_reader.h"

namespace {

using nlohmann::json;
namespace exporter = loopdoctor::exporter;

// What agent.cc's on_message/on_hello do with a connection's messages:
// the clock offset repeats its few lines, the records go through its one
// dispatch (apply_record); then one rolling analysis and one scrape.
void feed_agent(const std::vector<json>& messages) {
  exporter::ProcessTable table;
  exporter::ProcessState* p = nullptr;
  double offset = 1e300, now = 1e6;
  for (const json& m : messages) {
    now += 1;
    const loopdoctor::recording::Envelope e = loopdoctor::recording::decode_envelope(m);
    double t = now;
    if (e.t) {
      offset = std::min(offset, now - *e.t);
      t = *e.t + offset;
    }
    if (e.type == loopdoctor::recording::Type::kHello) {
      if (p) return;  // a second hello closes the connection
      exporter::ProcessIdentity id = exporter::identity_from_hello(loopdoctor::recording::decode_hello(m));
      auto state = std::make_unique<exporter::ProcessState>(std::move(id), exporter::kDefaultWindowMs);
      p = table.find(table.add(std::move(state)));
    } else if (!p) {
      return;  // the first message was not hello: closed
    } else {
      exporter::apply_record(p, m, e.type, t, 0);
    }
  }
  if (!p) return;
  p->trim(now);
  loopdoctor::Diagnosis dx = loopdoctor::analyze(p->timeline(now));
  (void)dx;
  (void)exporter::render_metrics(table);
}

}  // namespace

// The readers' warnings, once per input here: silenced, so the fuzzer's own
// output stays readable.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

// Same input layout as probe_lines (cut seed, largest cut, stream), so the
// two targets share seeds.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace loopdoctor::fuzz;
  Params params(data, size);
  const std::uint32_t seed = params.u16();
  const std::size_t max_cut = 1 + params.u16() % kMaxProbeCutBytes;
  const Delivered strict =
      read_probe_stream(loopdoctor::protocol::Strictness::kStrict, kAgentLimits, params.rest(), seed, max_cut);
  feed_agent(strict.messages);
  return 0;
}
