#include "agent/protocol/message_reader.h"

#include <spdlog/spdlog.h>

namespace loopdoctor::protocol {
namespace {

constexpr std::size_t kBytesPerMiB = 1u << 20;

// What is wrong with a parsed line, or "".
std::string line_problem(const nlohmann::json& msg, std::string_view line,
                         const LabelBounds& bounds) {
  if (msg.is_discarded()) return fmt::format("a line is not valid JSON: {:.60}", line);
  return check_message(msg, bounds);
}

}  // namespace

MessageReader::MessageReader(Strictness strictness, ReaderLimits limits)
    : strictness_(strictness), limits_(limits), splitter_(limits.max_profile_line_bytes) {}

std::string MessageReader::feed(std::string_view bytes, const OnMessage& on_message) {
  if (failed_) return "";
  std::string reason;
  auto status = splitter_.feed(bytes, [&](std::string_view line) {
    if (reason.empty()) reason = take_line(line, on_message);
  });
  if (reason.empty() && status == LineSplitter::Status::kTooLong) reason = too_long_reason();
  failed_ = !reason.empty();
  return reason;
}

std::string MessageReader::take_line(std::string_view line, const OnMessage& on_message) {
  if (line.empty()) return "";
  auto msg = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  std::string problem = line_problem(msg, line, limits_.label_bounds);
  if (problem.empty()) {
    on_message(msg, line);
    return "";
  }
  if (strictness_ == Strictness::kStrict) return problem;
  // One warning is enough to notice a broken probe; the count comes at close.
  if (++skipped_ == 1) spdlog::warn("probe: skipped a line ({}): {:.80}", problem, line);
  return "";
}

std::string MessageReader::too_long_reason() const {
  std::string limits = std::to_string(kMaxLineBytes / kBytesPerMiB) + " MiB";
  if (limits_.max_profile_line_bytes > kMaxLineBytes)
    limits += ", " + std::to_string(limits_.max_profile_line_bytes / kBytesPerMiB) +
              " MiB for a profile";
  return "a probe line of over " + std::to_string(splitter_.rejected_line_bytes()) +
         " bytes broke the protocol limit (" + limits + ")";
}

}  // namespace loopdoctor::protocol
