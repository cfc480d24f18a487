#include "cli/output_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace loopdoctor::cli {
namespace {

namespace fs = std::filesystem;

// "2026-12-06T10-21-07": no ':' (not allowed in file names on Windows and
// macOS's Finder, where a user may copy the folder).
constexpr char kTimeFormat[] = "%Y-%m-%dT%H-%M-%S";
constexpr std::size_t kTimeChars = 19;

std::string time_text(std::time_t t) {
  std::tm local{};
  localtime_r(&t, &local);
  char buf[32];
  std::strftime(buf, sizeof buf, kTimeFormat, &local);
  return buf;
}

bool exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

// The shape kTimeFormat writes: digits where it puts digits.
bool is_time_text(std::string_view s) {
  constexpr std::string_view shape = "dddd-dd-ddTdd-dd-dd";
  if (s.size() != shape.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (shape[i] == 'd' ? !std::isdigit(static_cast<unsigned char>(s[i])) : s[i] != shape[i]) return false;
  return true;
}

// Whether `path` names a file directly inside kOutputDir of the working
// directory (".loopdoctor/x", "./.loopdoctor/x", or its absolute path).
bool in_output_dir(const std::string& path) {
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  return !parent.empty() && fs::equivalent(parent, kOutputDir, ec);
}

}  // namespace

bool make_output_dir(std::string* error) {
  std::error_code ec;
  fs::create_directories(kOutputDir, ec);
  if (ec) {
    *error = fmt::format("cannot create the folder '{}' for loopdoctor's files: {}", kOutputDir, ec.message());
    return false;
  }
  const std::string ignore = fmt::format("{}/.gitignore", kOutputDir);
  if (exists(ignore)) return true;
  // Everything in the folder is generated, and recordings are large: no
  // file of it belongs in the user's repository, this one included.
  std::ofstream out(ignore);
  out << "# Made by loopdoctor: its reports and recordings stay out of git.\n*\n";
  if (!out) {
    *error = fmt::format("cannot write '{}'", ignore);
    return false;
  }
  return true;
}

std::string claim_run_stem(const std::string& label, std::time_t start, const char* claim_ext,
                           std::string* error) {
  if (!make_output_dir(error)) return {};
  const std::string time = time_text(start);
  for (int ordinal = 1; ordinal <= kMaxRunsPerSecond; ++ordinal) {
    const std::string stem = ordinal == 1 ? fmt::format("{}/{}-{}", kOutputDir, time, label)
                                          : fmt::format("{}/{}.{}-{}", kOutputDir, time, ordinal, label);
    if (exists(stem + kRecordingExt) || exists(stem + kReportExt)) continue;
    const std::string claimed = stem + claim_ext;
    const int fd = ::open(claimed.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::close(fd);
      return stem;
    }
    if (errno != EEXIST) {
      *error = fmt::format("cannot create '{}': {}", claimed, std::strerror(errno));
      return {};
    }
  }
  *error = fmt::format("more than {} runs of '{}' started at {} in '{}'", kMaxRunsPerSecond, label, time, kOutputDir);
  return {};
}

std::optional<RunName> parse_run_name(std::string_view name, std::string_view ext) {
  if (name.size() <= kTimeChars + 1 + ext.size() || !name.ends_with(ext)) return std::nullopt;
  name.remove_suffix(ext.size());
  RunName r;
  r.time = std::string(name.substr(0, kTimeChars));
  if (!is_time_text(r.time)) return std::nullopt;
  name.remove_prefix(kTimeChars);
  if (name.starts_with('.')) {  // the ordinal of a second's later run
    std::size_t digits = 1;
    while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits]))) ++digits;
    if (digits == 1 || digits > 5) return std::nullopt;
    r.ordinal = std::stoi(std::string(name.substr(1, digits - 1)));
    name.remove_prefix(digits);
  }
  if (name.size() < 2 || name[0] != '-') return std::nullopt;
  r.label = std::string(name.substr(1));
  return r;
}

std::string earlier_recording(const std::string& label, const std::string& recording) {
  std::optional<RunName> self;
  if (in_output_dir(recording)) self = parse_run_name(fs::path(recording).filename().string(), kRecordingExt);
  std::optional<RunName> best;
  std::string best_name;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(kOutputDir, ec)) {
    const std::string name = entry.path().filename().string();
    auto run = parse_run_name(name, kRecordingExt);
    if (!run || run->label != label || (self && !(*run < *self))) continue;
    // An empty one was claimed by a run that never started, or is starting.
    if (entry.file_size(ec) == 0 || ec) continue;
    if (!best || *best < *run) {
      best = run;
      best_name = name;
    }
  }
  return best ? fmt::format("{}/{}", kOutputDir, best_name) : std::string();
}

std::string analyze_report_path(const std::string& recording) {
  std::string stem = fs::path(recording).filename().string();
  for (std::string_view ext : {".gz", ".ndjson", ".json"})
    if (stem.size() > ext.size() && stem.ends_with(ext)) stem.erase(stem.size() - ext.size());
  return fmt::format("{}/{}{}", kOutputDir, stem, kReportExt);
}

}  // namespace loopdoctor::cli
