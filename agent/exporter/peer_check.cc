#include "agent/exporter/peer_check.h"

#include <algorithm>
#include <charconv>

#include "base/file.h"

namespace loopdoctor::exporter {

PidCheck check_claimed_pid(long claimed, int peer, const std::vector<long>& peer_ns_pids) {
  PidCheck c;
  if (peer <= 0) {
    c.accept = false;
    c.reason = "the connecting process is unknown (no SO_PEERCRED credentials), so its claim to be pid " +
               std::to_string(claimed) + " cannot be checked";
    return c;
  }
  c.pid = claimed;
  if (claimed == peer) return c;
  // The innermost namespace is the one the probe's process.pid comes from.
  if (!peer_ns_pids.empty() && peer_ns_pids.back() == claimed) return c;
  c.pid = peer;
  c.reason = "the probe claims pid " + std::to_string(claimed) + " but the connection comes from pid " +
             std::to_string(peer) + "; its series are labelled pid " + std::to_string(peer);
  return c;
}

std::vector<long> parse_ns_pids(std::string_view text) {
  std::vector<long> out;
  constexpr std::string_view kKey = "NSpid:";
  std::size_t at = text.starts_with(kKey) ? 0 : text.find("\nNSpid:");
  if (at == std::string_view::npos) return out;
  at += text[at] == '\n' ? kKey.size() + 1 : kKey.size();
  const std::size_t end = std::min(text.find('\n', at), text.size());
  std::string_view line = text.substr(at, end - at);
  while (!line.empty()) {
    const std::size_t skip = line.find_first_not_of(" \t");
    if (skip == std::string_view::npos) break;
    line.remove_prefix(skip);
    long v = 0;
    auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
    if (ec != std::errc()) return {};  // not the format we know: trust none of it
    out.push_back(v);
    line.remove_prefix(static_cast<std::size_t>(p - line.data()));
  }
  return out;
}

std::vector<long> read_ns_pids(int pid) {
  std::string text;
  if (!base::read_file("/proc/" + std::to_string(pid) + "/status", &text)) return {};
  return parse_ns_pids(text);
}

}  // namespace loopdoctor::exporter
