// A probe's byte stream as both readers take it: the one-shot collector
// (lenient, 16 MiB profiles) and the agent (strict, label bounds), each fed
// in socket-sized cuts chosen by the input. Then what each does with the
// messages: the collector stamps the run time into the raw line for the
// recording; the agent decodes hello/sample/gc into its rolling window and
// serves /metrics from it. Invariants: the cuts do not change what is
// delivered; strict delivers a prefix of what lenient delivers; every
// delivered message passes the check; a stamped line parses back to the
// message plus "rt".
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "agent/collector/recording_writer.h"
#include "agent/exporter/limits.h"
#include "agent/exporter/metrics.h"
#include "agent/exporter/process_table.h"
#include "agent/protocol/message_reader.h"
#include "analyzer/analyze.h"
#include "fuzz/fuzz_support.h"
#include "fuzz/recording_driver.h"

namespace {

using loopdoctor::fuzz::check;
using nlohmann::json;
namespace protocol = loopdoctor::protocol;
namespace exporter = loopdoctor::exporter;

// The agent's reader limits (agent/exporter/probe_link.cc).
constexpr protocol::ReaderLimits kAgentLimits{
    .max_profile_line_bytes = protocol::kMaxLineBytes,
    .label_bounds = {.max_handle_types = exporter::kMaxHandleTypes,
                     .max_label_bytes = exporter::kMaxLabelValueBytes}};
// A read of a Unix socket delivers at most the agent's 16 KiB buffer.
constexpr std::size_t kMaxCutBytes = 16 * 1024;

struct Delivered {
  std::vector<json> messages;
  std::vector<std::string> raw;
  std::string reason;  // why the reader closed, or ""
};

Delivered read_all(protocol::Strictness strictness, protocol::ReaderLimits limits,
                   std::string_view stream, std::uint32_t seed, std::size_t max_cut) {
  protocol::MessageReader reader(strictness, limits);
  Delivered out;
  loopdoctor::fuzz::Cuts cuts(seed, max_cut ? max_cut : 1);  // 0: the stream in one read
  while (!stream.empty() && out.reason.empty()) {
    const std::size_t n = max_cut ? std::min(cuts.next(), stream.size()) : stream.size();
    out.reason = reader.feed(stream.substr(0, n), [&](const json& msg, std::string_view raw) {
      check(protocol::check_message(msg, limits.label_bounds).empty(),
            "a delivered message fails the check: " + std::string(raw));
      out.messages.push_back(msg);
      out.raw.emplace_back(raw);
    });
    stream.remove_prefix(n);
  }
  return out;
}

// The collector's recording line for a message (session_events.cc).
void check_stamp(const json& msg, const std::string& raw, double rt) {
  const std::string line = loopdoctor::collector::stamp_run_time(raw, msg, rt);
  json expected = msg;
  expected["rt"] = rt;
  const json parsed = json::parse(line, nullptr, false);
  check(parsed == expected, "a stamped line reads back otherwise: " + line);
  loopdoctor::fuzz::check_decoders_agree(line, parsed);
}

// What agent.cc's on_message/on_hello do with a connection's messages (the
// clock offset, sample and gc decoding repeat its few lines), then one
// rolling analysis and one scrape.
void feed_agent(const std::vector<json>& messages) {
  exporter::ProcessTable table;
  exporter::ProcessState* p = nullptr;
  double offset = 1e300, now = 1e6;
  for (const json& m : messages) {
    now += 1;
    double t = now;
    if (auto it = m.find("t"); it != m.end() && it->is_number()) {
      offset = std::min(offset, now - it->get<double>());
      t = it->get<double>() + offset;
    }
    const std::string& type = m["type"].get_ref<const std::string&>();
    if (type == "hello") {
      if (p) return;  // a second hello closes the connection
      exporter::ProcessIdentity id = exporter::identity_from_hello(m);
      auto state =
          std::make_unique<exporter::ProcessState>(std::move(id), exporter::kDefaultWindowMs);
      p = table.find(table.add(std::move(state)));
    } else if (!p) {
      return;  // the first message was not hello: closed
    } else if (type == "sample") {
      const auto d = m.find("dropped");
      const double dropped = d != m.end() && d->is_number() ? d->get<double>() : 0;
      auto s = loopdoctor::recording::decode_sample(m, p->id.interval_ms);
      s.t = t;
      p->add_sample(s, dropped);
    } else if (type == "gc") {
      auto g = loopdoctor::recording::decode_gc(m);
      g.t = t;
      p->add_gc(g);
    }
  }
  if (!p) return;
  p->trim(now);
  loopdoctor::Diagnosis dx = loopdoctor::analyze(p->timeline(now));
  (void)dx;
  (void)exporter::render_metrics(table);
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
  const std::size_t max_cut = 1 + params.u16() % kMaxCutBytes;
  const std::string_view stream = params.rest();

  const Delivered lenient = read_all(protocol::Strictness::kLenient, {}, stream, seed, max_cut);
  const Delivered whole =
      read_all(protocol::Strictness::kLenient, {}, stream, seed, 0);
  check(lenient.messages == whole.messages && lenient.reason == whole.reason,
        "the collector's reader delivers otherwise when the stream is cut otherwise");
  const Delivered strict =
      read_all(protocol::Strictness::kStrict, kAgentLimits, stream, seed, max_cut);
  check(strict.messages.size() <= lenient.messages.size() &&
            std::equal(strict.messages.begin(), strict.messages.end(), lenient.messages.begin()),
        "the agent's strict reader delivered a message the lenient one did not");

  double rt = 0;
  for (std::size_t i = 0; i < lenient.messages.size(); ++i)
    check_stamp(lenient.messages[i], lenient.raw[i], rt += 10.5);
  feed_agent(strict.messages);
  return 0;
}
