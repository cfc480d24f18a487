#include "agent/protocol/line_splitter.h"

namespace loopdoctor::protocol {
namespace {

// The probe writes `profile` messages with this exact prefix (protocol
// contract), which lets us apply the larger limit before the line is complete.
constexpr std::string_view kProfilePrefix = R"({"type":"profile")";

}  // namespace

std::size_t line_limit_bytes(std::string_view head, std::size_t profile_limit) {
  return head.starts_with(kProfilePrefix) ? profile_limit : kMaxLineBytes;
}

LineSplitter::Status LineSplitter::feed(std::string_view data,
                                        const std::function<void(std::string_view)>& on_line) {
  if (failed_) return Status::kTooLong;
  buf_.append(data);
  std::size_t start = 0;
  std::size_t pos = scanned_;
  for (;;) {
    std::size_t nl = buf_.find('\n', pos);
    if (nl == std::string::npos) break;
    std::string_view line(buf_.data() + start, nl - start);
    if (line.size() > line_limit_bytes(line, profile_limit_)) {
      failed_ = true;
      rejected_bytes_ = line.size();
      buf_.clear();
      return Status::kTooLong;
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    on_line(line);
    start = pos = nl + 1;
  }
  // Erase consumed lines once per feed, not once per line: a burst of many
  // small lines then costs one move of the remainder.
  buf_.erase(0, start);
  scanned_ = buf_.size();
  if (buf_.size() > line_limit_bytes(buf_, profile_limit_)) {
    failed_ = true;
    rejected_bytes_ = buf_.size();
    buf_.clear();
    return Status::kTooLong;
  }
  return Status::kOk;
}

}  // namespace loopdoctor::protocol
