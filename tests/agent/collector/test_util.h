// Helpers shared by the collector tests: a scratch directory and reading a
// recording back through the analyzer's reader.
#pragma once

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <uv.h>

#include "recording/recording.h"
#include "tests/recording/read_json.h"

namespace loopdoctor::collector::test {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ldcollector-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline std::vector<nlohmann::json> read_records(const std::string& path,
                                                recording::ReadResult* res = nullptr) {
  std::vector<nlohmann::json> out;
  auto r = loopdoctor::testing::read_json_records(path, [&](const nlohmann::json& j) { out.push_back(j); });
  if (res) *res = r;
  return out;
}

inline std::vector<nlohmann::json> of_type(const std::vector<nlohmann::json>& records,
                                           const std::string& type) {
  std::vector<nlohmann::json> out;
  for (const auto& r : records)
    if (r.value("type", "") == type) out.push_back(r);
  return out;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// libuv opens a process-wide pipe (its signal lock) the first time any loop
// is created and keeps it for the life of the process. Create that before
// counting fds so it is not mistaken for a leak of the session.
inline void warm_up_libuv() {
  uv_loop_t loop;
  uv_loop_init(&loop);
  uv_loop_close(&loop);
}

inline int open_fd_count() {
  warm_up_libuv();
  int n = 0;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') ++n;
    ::closedir(d);
  }
  return n;
}

inline bool have_node() { return std::system("node --version >/dev/null 2>&1") == 0; }

}  // namespace loopdoctor::collector::test
