// The few text and file helpers the /proc and cgroup readers share (defined
// in proc_stats.cc): one pread of a kernel-generated file, and its
// "key<sep> number" lines.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loopdoctor::base::proc_text {

std::vector<std::string_view> split_spaces(std::string_view s);
// The first line of `text` ('\n'-separated) for which `pick(line)` returns a
// value, or nullopt: the one line walk the keyed and cgroup readers share.
template <class Pick>
auto first_line(std::string_view text, Pick pick) -> decltype(pick(text)) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    if (auto found = pick(text.substr(pos, eol - pos))) return found;
    pos = eol + 1;
  }
  return std::nullopt;
}
// A kernel file's whole content as one integer ("100000\n", "-1"): nullopt
// for anything else ("max", junk, an empty file), so callers name their own
// special words.
template <class Int>
std::optional<Int> whole_number(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  Int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}
// Finds "key<sep><spaces>number" at the start of a line ("key: value" files
// like status and io; /proc/stat and cpu.stat separate with a space).
bool find_keyed(std::string_view text, std::string_view key, std::uint64_t* out, char sep = ':');
// One pread from offset 0: /proc and cgroup files are generated on each read
// from the start, so an fd kept open re-reads fresh values without open/close.
bool pread_whole(int fd, std::string* out);
int open_proc_file(const std::string& path);
// A process's cgroup path for one controller, from /proc/<pid>/cgroup text
// ("N:controllers:/path" lines): the v1 line whose comma-separated
// controllers include `controller` ("cpu", "memory"); with an empty
// `controller`, the v2 line ("0::/path"). nullopt when there is none.
std::optional<std::string_view> cgroup_path(std::string_view text, std::string_view controller);

}  // namespace loopdoctor::base::proc_text
