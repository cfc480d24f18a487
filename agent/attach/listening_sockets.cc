#include "agent/attach/listening_sockets.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "agent/attach/parse_number.h"
#include "base/file.h"
#include "base/proc_text.h"

namespace loopdoctor::attach {
namespace {

// Columns of a /proc/net/tcp row: "sl local rem st tx:rx tr:when retrnsmt
// uid timeout inode ..." (proc_net_tcp(5)).
constexpr std::size_t kLocalColumn = 1;
constexpr std::size_t kRemoteColumn = 2;
constexpr std::size_t kStateColumn = 3;
constexpr std::size_t kInodeColumn = 9;

// The kernel prints each 32-bit word of the address as the native-endian
// integer it holds in memory (%08X), so a word parsed back into an integer
// and copied to memory as it is gives the address's bytes again.
std::optional<std::string> address_text(std::string_view hex, bool ipv6) {
  const std::size_t words = ipv6 ? 4 : 1;
  if (hex.size() != words * 8) return std::nullopt;
  std::uint32_t raw[4] = {};
  for (std::size_t w = 0; w < words; ++w) {
    auto v = parse_number<std::uint32_t>(hex.substr(w * 8, 8), 16);
    if (!v) return std::nullopt;
    raw[w] = *v;
  }
  char text[INET6_ADDRSTRLEN] = {};
  if (!::inet_ntop(ipv6 ? AF_INET6 : AF_INET, raw, text, sizeof text)) return std::nullopt;
  return std::string(text);
}

// "0100007F:2405" -> {"127.0.0.1", 9221}.
bool parse_endpoint(std::string_view field, bool ipv6, std::string* address, int* port) {
  std::size_t colon = field.find(':');
  if (colon == std::string_view::npos) return false;
  auto text = address_text(field.substr(0, colon), ipv6);
  auto p = parse_number<int>(field.substr(colon + 1), 16);
  if (!text || !p) return false;
  *address = std::move(*text);
  *port = *p;
  return true;
}

std::optional<TcpRow> parse_row(std::string_view line, bool ipv6) {
  auto cols = base::proc_text::split_spaces(line);
  if (cols.size() <= kInodeColumn) return std::nullopt;
  TcpRow row;
  auto state = parse_number<int>(cols[kStateColumn], 16);
  auto inode = parse_number<std::uint64_t>(cols[kInodeColumn], 10);
  if (!state || !inode || !parse_endpoint(cols[kLocalColumn], ipv6, &row.local_address, &row.local_port) ||
      !parse_endpoint(cols[kRemoteColumn], ipv6, &row.remote_address, &row.remote_port))
    return std::nullopt;
  row.state = *state;
  row.inode = *inode;
  return row;
}

std::optional<std::vector<TcpRow>> read_tcp_rows(pid_t pid, std::string* error) {
  std::string dir = "/proc/" + std::to_string(pid) + "/net/";
  std::string v4, v6;
  if (!base::read_file(dir + "tcp", &v4, error)) return std::nullopt;
  auto rows = parse_proc_net_tcp(v4, false);
  // tcp6 is absent on a kernel without IPv6: then there is nothing to add.
  if (base::read_file(dir + "tcp6", &v6)) {
    auto more = parse_proc_net_tcp(v6, true);
    rows.insert(rows.end(), more.begin(), more.end());
  }
  return rows;
}

}  // namespace

std::vector<TcpRow> parse_proc_net_tcp(std::string_view text, bool ipv6) {
  std::vector<TcpRow> rows;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    if (auto row = parse_row(text.substr(pos, eol - pos), ipv6)) rows.push_back(std::move(*row));
    pos = eol + 1;
  }
  return rows;
}

std::optional<std::uint64_t> parse_socket_link(std::string_view link) {
  constexpr std::string_view kPrefix = "socket:[";
  if (link.size() <= kPrefix.size() + 1 || link.substr(0, kPrefix.size()) != kPrefix || link.back() != ']')
    return std::nullopt;
  return parse_number<std::uint64_t>(link.substr(kPrefix.size(), link.size() - kPrefix.size() - 1), 10);
}

std::set<std::uint64_t> socket_inodes(pid_t pid) {
  std::set<std::uint64_t> inodes;
  std::string dir_path = "/proc/" + std::to_string(pid) + "/fd";
  DIR* dir = ::opendir(dir_path.c_str());
  if (!dir) return inodes;
  char link[64];
  while (dirent* e = ::readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    ssize_t n = ::readlinkat(::dirfd(dir), e->d_name, link, sizeof link);
    if (n <= 0 || static_cast<std::size_t>(n) >= sizeof link) continue;
    if (auto inode = parse_socket_link(std::string_view(link, static_cast<std::size_t>(n))))
      inodes.insert(*inode);
  }
  ::closedir(dir);
  return inodes;
}

std::vector<ListeningSocket> own_listeners(const std::vector<TcpRow>& rows, const std::set<std::uint64_t>& inodes) {
  std::vector<ListeningSocket> out;
  for (const TcpRow& row : rows)
    if (row.state == kTcpListen && inodes.count(row.inode))
      out.push_back({row.local_address, row.local_port, row.inode});
  std::sort(out.begin(), out.end(), [](const ListeningSocket& a, const ListeningSocket& b) {
    return a.port != b.port ? a.port < b.port : a.address < b.address;
  });
  return out;
}

std::optional<std::vector<ListeningSocket>> listening_sockets(pid_t pid, std::string* error) {
  // The fds first: a socket opened between the two reads is then missed
  // (seen on the next call) rather than kept without proof it is ours.
  auto inodes = socket_inodes(pid);
  auto rows = read_tcp_rows(pid, error);
  if (!rows) return std::nullopt;
  return own_listeners(*rows, inodes);
}

std::vector<ListeningSocket> new_listeners(const std::vector<ListeningSocket>& before,
                                           const std::vector<ListeningSocket>& after) {
  std::vector<ListeningSocket> out;
  for (const ListeningSocket& s : after)
    if (std::none_of(before.begin(), before.end(), [&](const ListeningSocket& b) { return b.inode == s.inode; }))
      out.push_back(s);
  return out;
}

int established_on_port(pid_t pid, int local_port) {
  auto inodes = socket_inodes(pid);
  auto rows = read_tcp_rows(pid, nullptr);
  if (!rows) return 0;
  return static_cast<int>(std::count_if(rows->begin(), rows->end(), [&](const TcpRow& r) {
    return r.state == kTcpEstablished && r.local_port == local_port && inodes.count(r.inode);
  }));
}

}  // namespace loopdoctor::attach
