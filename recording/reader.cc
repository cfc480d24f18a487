#include "recording/recording.h"

#include <zlib.h>

#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace loopdoctor::recording {
namespace {

// gzread reads plain files too (transparent mode), so one path serves both
// compressed and uncompressed recordings.
struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};
using GzPtr = std::unique_ptr<gzFile_s, GzCloser>;

constexpr std::size_t kReadChunkBytes = 1 << 18;
// Chunks decompressed ahead of the parser: two keep both threads busy; more
// would only hold memory.
constexpr std::size_t kChunksInFlight = 3;
// A recording of at most this many bytes (uncompressed) is read on the
// caller's thread in chunks of kSmallReadBytes: for a few KB, starting the
// read-ahead thread and faulting in its 256 KiB buffers and zlib's took
// longer than the reading (perf of the recording fuzz target: most of an
// input's time). Only the speed differs: any size reads alike either way.
constexpr std::size_t kSmallFileBytes = 64 << 10;
constexpr std::size_t kSmallReadBytes = 16 << 10;

struct Chunk {
  std::vector<char> data;
  int n = 0;  // bytes read; 0 at the end, < 0 on a read error
  bool stream_error = false;  // the end was a damaged or cut-off stream
};

// Reads up to `bytes` into `buf` (its memory reused).
Chunk read_chunk(gzFile gz, std::vector<char> buf, std::size_t bytes) {
  buf.resize(bytes);
  Chunk c;
  c.n = gzread(gz, buf.data(), static_cast<unsigned>(buf.size()));
  if (c.n == 0) {
    // gzread returns 0 both at a clean end and at a cut-off gzip stream;
    // gzerror tells them apart.
    int err = Z_OK;
    gzerror(gz, &err);
    c.stream_error = err != Z_OK && err != Z_STREAM_END;
  }
  c.data = std::move(buf);
  return c;
}

// Decompression runs on its own thread, one chunk ahead of the line parser:
// inflating is a fifth of reading an hour-long recording, and overlapping it
// with parsing takes it off the wall time on any machine with a second core.
// The caller's thread keeps every visit() call, so visitors need no locking.
class ChunkPipe {
 public:
  explicit ChunkPipe(gzFile gz) : gz_(gz), worker_([this] { run(); }) {}
  ~ChunkPipe() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }
  ChunkPipe(const ChunkPipe&) = delete;
  ChunkPipe& operator=(const ChunkPipe&) = delete;

  // The next chunk, in file order; after the last one (n <= 0), no more.
  Chunk next() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return !full_.empty(); });
    Chunk c = std::move(full_.front());
    full_.pop_front();
    lock.unlock();
    cv_.notify_all();
    return c;
  }
  // Hands a chunk's buffer back for reuse.
  void recycle(Chunk c) {
    {
      std::lock_guard lock(mu_);
      free_.push_back(std::move(c.data));
    }
    cv_.notify_all();
  }

 private:
  void run() {
    for (;;) {
      std::vector<char> buf;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [this] { return stop_ || full_.size() < kChunksInFlight; });
        if (stop_) return;
        if (!free_.empty()) buf = std::move(free_.back()), free_.pop_back();
      }
      Chunk c = read_chunk(gz_, std::move(buf), kReadChunkBytes);
      const bool last = c.n <= 0;
      {
        std::lock_guard lock(mu_);
        full_.push_back(std::move(c));
      }
      cv_.notify_all();
      if (last) return;
    }
  }

  gzFile gz_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Chunk> full_;
  std::vector<std::vector<char>> free_;
  bool stop_ = false;
  std::thread worker_;  // last: started once the members above exist
};
// A longer line cannot come from the collector (it caps probe lines at 16 MiB,
// for the profile); treat it as damage rather than buffering without bound.
constexpr std::size_t kMaxLineBytes = 32u << 20;
// NDJSON of numbers compresses about 7:1 with gzip; a trailer claiming far
// more than this is from a cut-off stream and is not trusted as a size hint.
constexpr std::size_t kMaxGzipRatio = 64;

// Cuts decompressed chunks into lines and hands each to the visitor,
// counting what it accepts and what it skips into the result.
class LineAssembler {
 public:
  LineAssembler(const std::string& path, const std::function<bool(std::string_view)>& visit,
                ReadResult* res)
      : path_(path), visit_(visit), res_(res) {}

  void feed(const char* data, std::size_t n) {
    std::size_t start = 0;
    for (const char* p = data; p < data + n;) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', data + n - p));
      if (!nl) break;
      const std::size_t i = static_cast<std::size_t>(nl - data);
      p = nl + 1;
      if (too_long_) {
        too_long_ = false;
        pending_.clear();
        ++res_->skipped;
        res_->warnings.push_back("a line over 32 MiB in '" + path_ + "' was skipped");
      } else if (pending_.empty()) {
        // The whole line is in this chunk: hand it over without a copy.
        line(std::string_view(data + start, i - start));
      } else {
        pending_.append(data + start, i - start);
        line(pending_);
        pending_.clear();
      }
      start = i + 1;
    }
    if (!too_long_) pending_.append(data + start, n - start);
    if (pending_.size() > kMaxLineBytes) {
      too_long_ = true;
      pending_.clear();
    }
  }

  // The end of the stream: a last line without its newline is what a crash
  // or kill -9 leaves. It may still be complete JSON (the writer died between
  // the object and the newline): kept if it parses, else dropped.
  void finish(bool stream_error) {
    if (pending_.empty() && !too_long_ && !stream_error) return;
    if (!too_long_ && !pending_.empty() && visit_(pending_)) {
      ++res_->lines;
    } else if (!pending_.empty() || too_long_) {
      res_->truncated = true;
      res_->warnings.push_back("the recording '" + path_ + "' ends in a cut-off line (" +
                               std::to_string(pending_.size()) +
                               " bytes), ignored; everything before it is analysed");
    }
    if (stream_error) {
      res_->truncated = true;
      res_->warnings.push_back("the compressed recording '" + path_ +
                               "' is cut off; everything before the cut is analysed");
    }
  }

 private:
  void line(std::string_view text) {
    ++line_no_;
    if (text.empty()) return;
    if (!visit_(text)) {
      ++res_->skipped;
      if (res_->skipped <= 3)
        res_->warnings.push_back("line " + std::to_string(line_no_) + " of '" + path_ +
                                 "' is not a JSON object; skipped");
      return;
    }
    ++res_->lines;
  }

  const std::string& path_;
  const std::function<bool(std::string_view)>& visit_;
  ReadResult* res_;
  std::string pending_;
  std::size_t line_no_ = 0;
  bool too_long_ = false;
};

// Feeds the stream to `lines` chunk by chunk, read on this thread; true when
// it ended in a read error or a damaged stream.
bool read_here(gzFile gz, LineAssembler* lines) {
  std::vector<char> buf;
  for (;;) {
    Chunk c = read_chunk(gz, std::move(buf), kSmallReadBytes);
    if (c.n <= 0) return c.n < 0 || c.stream_error;
    lines->feed(c.data.data(), static_cast<std::size_t>(c.n));
    buf = std::move(c.data);
  }
}

// The same, read a chunk ahead on a thread of its own.
bool read_ahead(gzFile gz, LineAssembler* lines) {
  ChunkPipe pipe(gz);
  for (;;) {
    Chunk c = pipe.next();
    if (c.n <= 0) return c.n < 0 || c.stream_error;
    lines->feed(c.data.data(), static_cast<std::size_t>(c.n));
    pipe.recycle(std::move(c));
  }
}

}  // namespace

ReadResult read_lines(const std::string& path,
                      const std::function<bool(std::string_view line)>& visit) {
  ReadResult res;
  GzPtr gz(gzopen(path.c_str(), "rb"));
  if (!gz) {
    res.error = "cannot open recording '" + path + "': " + std::strerror(errno);
    return res;
  }
  // 0: unknown (a cut gzip trailer), so read ahead.
  const std::size_t hint = uncompressed_size_hint(path);
  const bool small = hint > 0 && hint <= kSmallFileBytes;
  gzbuffer(gz.get(), small ? kSmallReadBytes : kReadChunkBytes);
  res.ok = true;

  LineAssembler lines(path, visit, &res);
  // The pipe's thread is joined inside read_ahead, before gz closes.
  lines.finish(small ? read_here(gz.get(), &lines) : read_ahead(gz.get(), &lines));
  return res;
}

std::size_t uncompressed_size_hint(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f || std::fseek(f.get(), 0, SEEK_END) != 0) return 0;
  const long size = std::ftell(f.get());
  if (size < 0) return 0;
  unsigned char head[2] = {0, 0};
  std::rewind(f.get());
  const bool gzip = std::fread(head, 1, 2, f.get()) == 2 && head[0] == 0x1f && head[1] == 0x8b;
  if (!gzip) return static_cast<std::size_t>(size);
  // ISIZE, the last four bytes of a gzip member: the input size mod 2^32.
  unsigned char tail[4];
  if (size < 18 || std::fseek(f.get(), size - 4, SEEK_SET) != 0 ||
      std::fread(tail, 1, 4, f.get()) != 4)
    return 0;
  const std::size_t isize = tail[0] | (tail[1] << 8) | (tail[2] << 16) |
                            (static_cast<std::size_t>(tail[3]) << 24);
  // A cut-off file ends in compressed data, not a trailer: distrust a size no
  // real NDJSON compression ratio produces.
  const std::size_t max_bytes = static_cast<std::size_t>(size) * kMaxGzipRatio;
  return isize <= max_bytes ? isize : 0;
}

}  // namespace loopdoctor::recording
