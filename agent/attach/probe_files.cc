#include "agent/attach/probe_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "base/random_hex.h"

namespace loopdoctor::attach {
namespace fs = std::filesystem;
namespace {

// Where a copy may go inside a container, the first writable wins: /tmp is
// usual, /dev/shm is a tmpfs even on a read-only root, /var/tmp last.
constexpr const char* kCopyDirs[] = {"/tmp", "/dev/shm", "/var/tmp"};

// The probe's scripts (attach.js and the files beside it), lib/, and the
// addons (loopdoctor_probe-<abi>.node: the process picks its ABI's).
std::error_code copy_probe(const fs::path& probe_dir, const fs::path& native_dir, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to / "lib", ec);
  if (ec) return ec;
  for (const auto& e : fs::directory_iterator(probe_dir, ec)) {
    if (e.path().extension() != ".js") continue;
    fs::copy_file(e.path(), to / e.path().filename(), fs::copy_options::overwrite_existing, ec);
    if (ec) return ec;
  }
  if (ec) return ec;
  fs::copy(probe_dir / "lib", to / "lib", fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
  if (ec) return ec;
  fs::create_directories(to / "native", ec);
  for (const auto& e : fs::directory_iterator(native_dir, ec)) {
    if (e.path().extension() != ".node") continue;
    fs::copy_file(e.path(), to / "native" / e.path().filename(), fs::copy_options::overwrite_existing, ec);
    if (ec) return ec;
  }
  return ec;
}

// A new private folder under `parent_here` (as we reach it), `owner`'s.
std::string make_folder(const fs::path& parent_here, uid_t owner, std::string* name) {
  *name = "loopdoctor-attach-" + std::to_string(::getpid()) + "-" + base::random_hex(4);
  const fs::path dir = parent_here / *name;
  if (::mkdir(dir.c_str(), 0700) != 0) return std::strerror(errno);
  if (owner != ::geteuid() && ::chown(dir.c_str(), owner, static_cast<gid_t>(-1)) != 0) {
    const std::string why = std::strerror(errno);
    ::rmdir(dir.c_str());
    return why;
  }
  return "";
}

// The copy is the process's user's, so its probe can remove it.
void give_to(const fs::path& dir, uid_t owner) {
  if (owner == ::geteuid()) return;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    if (::lchown(e.path().c_str(), owner, static_cast<gid_t>(-1)) != 0) return;
}

}  // namespace

std::string ProbeFiles::place(pid_t pid, bool same_mount, uid_t owner, const std::string& probe_js,
                              const std::string& native_dir) {
  const fs::path probe_dir = fs::path(probe_js).parent_path();
  const fs::path addons = native_dir.empty() ? probe_dir / "native" : fs::path(native_dir);
  const fs::path root = same_mount ? fs::path("/") : fs::path(fmt::format("/proc/{}/root", pid));
  std::string tried;
  for (const char* dir : kCopyDirs) {
    std::string name;
    const fs::path parent_here = root / (std::string(dir).substr(1));
    if (std::string why = make_folder(parent_here, owner, &name); !why.empty()) {
      tried += fmt::format("{}{} ({})", tried.empty() ? "" : ", ", dir, why);
      continue;
    }
    folder_here_ = (parent_here / name).string();
    const fs::path there = fs::path(dir) / name;
    folder_there_ = there.string();
    socket_here_ = (parent_here / name / "probe.sock").string();
    socket_path_ = (there / "probe.sock").string();
    if (same_mount) {
      attach_js_ = (probe_dir / "attach.js").string();
      native_dir_ = addons.string();
      return "";
    }
    if (std::error_code ec = copy_probe(probe_dir, addons, parent_here / name); ec) {
      const std::string why = ec.message();
      remove();
      return "the process is in another filesystem (a container) where the probe could not be copied: " + why;
    }
    attach_js_ = (there / "attach.js").string();
    native_dir_ = (there / "native").string();
    give_to(parent_here / name, owner);
    return "";
  }
  return "no folder for the probe's socket in the process's filesystem: " + tried;
}

void ProbeFiles::remove() {
  if (folder_here_.empty()) return;
  std::error_code ec;
  fs::remove_all(folder_here_, ec);
  folder_here_.clear();
}

}  // namespace loopdoctor::attach
