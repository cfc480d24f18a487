#include "fuzz/probe_reader.h"

#include <algorithm>

#include "agent/exporter/limits.h"
#include "agent/protocol/message_check.h"
#include "fuzz/fuzz_support.h"

namespace loopdoctor::fuzz {

const protocol::ReaderLimits kAgentLimits{
    .max_profile_line_bytes = protocol::kMaxLineBytes,
    .label_bounds = {.max_handle_types = exporter::kMaxHandleTypes,
                     .max_label_bytes = exporter::kMaxLabelValueBytes}};

Delivered read_probe_stream(protocol::Strictness strictness, protocol::ReaderLimits limits,
                            std::string_view stream, std::uint32_t seed, std::size_t max_cut) {
  protocol::MessageReader reader(strictness, limits);
  Delivered out;
  Cuts cuts(seed, max_cut ? max_cut : 1);
  while (!stream.empty() && out.reason.empty()) {
    const std::size_t n = max_cut ? std::min(cuts.next(), stream.size()) : stream.size();
    out.reason = reader.feed(stream.substr(0, n), [&](const nlohmann::json& msg, std::string_view raw) {
      check(protocol::check_message(msg, limits.label_bounds).empty(), "a delivered message fails the check: ", raw);
      out.messages.push_back(msg);
      out.raw.emplace_back(raw);
    });
    stream.remove_prefix(n);
  }
  return out;
}

}  // namespace loopdoctor::fuzz
