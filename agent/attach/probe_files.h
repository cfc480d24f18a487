// The probe's files and its socket as an attached process sees them. In our
// own mount namespace the probe's files are where loopdoctor is installed; a
// process in a container sees another filesystem, so the probe (attach.js,
// lib/, the addons) is copied into it, under a temporary folder reached
// through /proc/PID/root. Either way a private folder of the process's user
// (mode 0700) holds the Unix socket the probe connects back to: a path, not
// an abstract name, which Node 20's net.connect cannot reach; a path works
// across network namespaces. Everything goes when the attach ends.
#pragma once

#include <sys/types.h>

#include <string>

namespace loopdoctor::attach {

class ProbeFiles {
 public:
  ProbeFiles() = default;
  ProbeFiles(const ProbeFiles&) = delete;
  ProbeFiles& operator=(const ProbeFiles&) = delete;
  ~ProbeFiles() { remove(); }

  // `probe_js`: our probe.js (attach.js and lib/ beside it); `native_dir`:
  // the addons' folder. With `same_mount` the paths stay ours; else they are
  // copied into the process's filesystem (its /tmp, /dev/shm or /var/tmp,
  // the first writable). The folder is `owner`'s (the process's uid), so
  // its probe may connect and no one else may. "" or why not (a read-only
  // container, a full disk).
  std::string place(pid_t pid, bool same_mount, uid_t owner, const std::string& probe_js,
                    const std::string& native_dir);

  // As the process sees them.
  const std::string& attach_js() const { return attach_js_; }
  const std::string& native_dir() const { return native_dir_; }
  const std::string& socket_path() const { return socket_path_; }
  // The private folder holding them, as the process sees it: its probe
  // removes it when it stops (a loopdoctor killed mid-attach included).
  const std::string& folder() const { return folder_there_; }
  // The socket's path as we bind it (through /proc/PID/root for a container).
  const std::string& socket_path_here() const { return socket_here_; }

  // Removes a copy (nothing otherwise). Idempotent.
  void remove();

 private:
  std::string attach_js_, native_dir_, socket_path_, socket_here_, folder_there_;
  std::string folder_here_;  // ours to remove; "" when none
};

}  // namespace loopdoctor::attach
