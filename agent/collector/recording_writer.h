// Writes the recording (DESIGN.md "Recording"): NDJSON, gzip-compressed when
// the name ends in .gz. Flushed every kFlushIntervalMs at most (the /proc
// sampler's beat asks) so that if loopdoctor itself dies, the file still
// reads up to the last flush. With a redactor, each record's secret-bearing
// fields are redacted before it is written (recording/record_secrets.h),
// so no byte of a secret reaches the file, whenever the run ends.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "recording/records.h"
#include "base/redact.h"

namespace loopdoctor::collector {

// Level 6 is zlib's default trade-off; the recording is text with a lot of
// repetition and level 9 buys little for noticeably more CPU beside the target.
inline constexpr int kGzipLevel = 6;
// How much a killed loopdoctor may lose of the recording. A flush at every
// 10 ms sample was a write syscall and an ext4 inode update each, ~a fifth
// of the collector's CPU on an idle target (perf), taken beside the target.
inline constexpr double kFlushIntervalMs = 100;

// The loop a probe line came from, as the recording names it (docs/contracts.md, Every
// loop of the target): `pid` for a process other than the first (0: the
// first), `thread` for a worker thread (0: the main thread).
struct LoopTag {
  int pid = 0;
  int thread = 0;
};

class RecordingWriter {
 public:
  RecordingWriter() = default;
  ~RecordingWriter() { close(); }
  RecordingWriter(const RecordingWriter&) = delete;
  RecordingWriter& operator=(const RecordingWriter&) = delete;

  // Creates the parent directories and the file (truncating it). Returns
  // false and sets *error when the file cannot be created.
  bool open(const std::string& path, std::string* error);

  // Redact every record written from now on (unset: write them as they are).
  void redact_with(std::optional<base::Redactor> redactor) { redactor_ = std::move(redactor); }

  // One record per line. A write error (disk full) is logged once and the run
  // goes on: the target must not be disturbed by our storage problems.
  void write(nlohmann::json record);
  // A probe message as received (`raw`, its text; `msg`, parsed), stamped
  // with its run time and loop (stamp_loop_line): its bytes kept unless it
  // is a type with secret-bearing fields and the writer redacts.
  void write_message(std::string_view raw, const nlohmann::json& msg, double rt_ms, LoopTag tag);
  void write_line(std::string_view line);  // serialized JSON, without '\n', written as it is

  // Pushes buffered bytes to the file (Z_SYNC_FLUSH for gzip, so a reader
  // sees everything written so far). Cheap when nothing was written since.
  void flush();
  // flush() when kFlushIntervalMs have passed since the last (now_ms: any
  // monotonic clock in ms).
  void flush_if_due(double now_ms);
  void close();

  bool is_open() const { return file_ != nullptr; }
  const std::string& path() const { return path_; }
  std::size_t write_errors() const { return write_errors_; }

 private:
  struct GzCloser {
    void operator()(gzFile f) const { gzclose(f); }
  };
  // Logs the first failed write or flush (`saved_errno` from the call).
  void note_failure(int saved_errno);

  std::optional<base::Redactor> redactor_;
  std::unique_ptr<gzFile_s, GzCloser> file_;
  std::string path_;
  bool dirty_ = false;
  double last_flush_ms_ = -kFlushIntervalMs;
  std::size_t write_errors_ = 0;
};

bool is_gzip_path(std::string_view path);

// The first line of every recording (recording::Meta, encoded); `load`:
// the load asked for, if any.
nlohmann::json meta_record(const std::vector<std::string>& command,
                           const std::string& loopdoctor_version, double interval_ms,
                           const std::string& start_time_iso, const std::string& host, int pid,
                           const recording::LoadAsked& load = {});

// Current wall-clock time as ISO-8601 UTC with milliseconds ("...T12:00:00.123Z").
std::string iso8601_utc_now();
std::string host_name();

// Adds "rt" (run time, ms) to a probe message while keeping its bytes as
// received: `{"rt":12.5,` + the rest of the object. `msg` is the parsed line,
// used to decide whether the textual splice is safe.
std::string stamp_run_time(std::string_view raw, const nlohmann::json& msg, double rt_ms);

// stamp_run_time, plus the tag's fields that the message does not carry
// itself; with an empty tag, exactly stamp_run_time.
std::string stamp_loop_line(std::string_view raw, const nlohmann::json& msg, double rt_ms,
                            LoopTag tag);

}  // namespace loopdoctor::collector
