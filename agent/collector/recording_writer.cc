#include "agent/collector/recording_writer.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "recording/record_secrets.h"
#include "recording/records.h"

namespace loopdoctor::collector {
namespace {

// zlib's internal buffer; larger than the default 8 KiB so a burst of samples
// compresses in one go between flushes.
constexpr unsigned kGzBufferBytes = 64 * 1024;

std::string number_text(double v) { return nlohmann::json(v).dump(); }

}  // namespace

bool is_gzip_path(std::string_view path) {
  return path.size() >= 3 && path.substr(path.size() - 3) == ".gz";
}

bool RecordingWriter::open(const std::string& path, std::string* error) {
  close();
  path_ = path;
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) {
      *error = "cannot create the directory '" + parent.string() + "' for the recording: " +
               ec.message();
      return false;
    }
  }
  // "T" is zlib's transparent mode: the same gz* calls write a plain file, so
  // one code path serves both formats. "e" opens with O_CLOEXEC so the target
  // and load commands do not inherit the recording.
  std::string mode = is_gzip_path(path) ? "wbe" + std::to_string(kGzipLevel) : "wbTe";
  errno = 0;
  file_.reset(gzopen(path.c_str(), mode.c_str()));
  if (!file_) {
    *error = "cannot create the recording '" + path + "': " +
             (errno ? std::strerror(errno) : "out of memory");
    return false;
  }
  gzbuffer(file_.get(), kGzBufferBytes);
  return true;
}

void RecordingWriter::write(nlohmann::json record) {
  if (redactor_) recording::redact_record(&record, *redactor_);
  write_line(recording::to_line(record));
}

void RecordingWriter::write_message(std::string_view raw, const nlohmann::json& msg, double rt_ms,
                                    LoopTag tag) {
  if (!redactor_ || !recording::may_hold_secrets(recording::decode_envelope(msg).type)) {
    write_line(stamp_loop_line(raw, msg, rt_ms, tag));
    return;
  }
  // Rare lines (hellos, a second's process warnings): re-serialized redacted.
  nlohmann::json copy = msg;
  recording::redact_record(&copy, *redactor_);
  write_line(stamp_loop_line({}, copy, rt_ms, tag));
}

void RecordingWriter::write_line(std::string_view line) {
  if (!file_) return;
  bool ok = line.empty() ||
            gzwrite(file_.get(), line.data(), static_cast<unsigned>(line.size())) > 0;
  ok = ok && gzputc(file_.get(), '\n') != -1;
  dirty_ = true;
  if (!ok) note_failure(errno);
}

// zlib buffers 64 KiB: a full disk or RLIMIT_FSIZE (EFBIG) usually shows
// in the flush, not in the write that filled the buffer.
void RecordingWriter::flush() {
  if (!file_ || !dirty_) return;
  if (gzflush(file_.get(), Z_SYNC_FLUSH) != Z_OK) note_failure(errno);
  dirty_ = false;
}

void RecordingWriter::flush_if_due(double now_ms) {
  if (now_ms - last_flush_ms_ < kFlushIntervalMs) return;
  last_flush_ms_ = now_ms;
  flush();
}

void RecordingWriter::note_failure(int saved_errno) {
  if (write_errors_++ > 0) return;
  int err = Z_OK;
  const char* msg = gzerror(file_.get(), &err);
  spdlog::error("writing the recording '{}' failed: {}; the report covers the run up to this point",
                path_, err == Z_ERRNO ? std::strerror(saved_errno) : msg);
}

void RecordingWriter::close() {
  if (!file_) return;
  int rc = gzclose(file_.release());
  if (rc != Z_OK && write_errors_ == 0)
    spdlog::error("closing the recording '{}' failed (zlib error {})", path_, rc);
}

nlohmann::json meta_record(const std::vector<std::string>& command,
                           const std::string& loopdoctor_version, double interval_ms,
                           const std::string& start_time_iso, const std::string& host, int pid,
                           const recording::LoadAsked& load) {
  return recording::encode(recording::Meta{recording::kFormatVersion, loopdoctor_version, command,
                                           start_time_iso, host, interval_ms, pid, {}, load});
}

std::string iso8601_utc_now() {
  using namespace std::chrono;
  auto now = system_clock::now();
  std::time_t secs = system_clock::to_time_t(now);
  auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(ms));
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

std::string stamp_run_time(std::string_view raw, const nlohmann::json& msg, double rt_ms) {
  // Splice only when the raw text is a non-empty object without its own "rt";
  // otherwise re-serialize (rare: it costs a dump of the whole message).
  while (!raw.empty() && (raw.front() == ' ' || raw.front() == '\t')) raw.remove_prefix(1);
  if (raw.empty() || raw.front() != '{' || !msg.is_object() || msg.empty() ||
      msg.contains("rt")) {
    nlohmann::json copy = msg;
    copy["rt"] = rt_ms;
    return recording::to_line(copy);
  }
  std::string out;
  out.reserve(raw.size() + 24);
  out += R"({"rt":)";
  out += number_text(rt_ms);
  out += ',';
  out.append(raw.substr(1));
  return out;
}

std::string stamp_loop_line(std::string_view raw, const nlohmann::json& msg, double rt_ms,
                            LoopTag tag) {
  const bool add_pid = tag.pid > 0 && !msg.contains("pid");
  const bool add_thread = tag.thread > 0 && !msg.contains("thread");
  if (!add_pid && !add_thread) return stamp_run_time(raw, msg, rt_ms);
  std::string fields;
  if (add_pid) fields += R"("pid":)" + std::to_string(tag.pid) + ',';
  if (add_thread) fields += R"("thread":)" + std::to_string(tag.thread) + ',';
  std::string line = stamp_run_time(raw, msg, rt_ms);
  // stamp_run_time's line starts with '{' (spliced or dumped) and its
  // object is not empty (it holds rt at least).
  line.insert(1, fields);
  return line;
}

}  // namespace loopdoctor::collector
