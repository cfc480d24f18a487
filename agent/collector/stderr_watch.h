// The target's stderr, passed through to ours and read on the way for what
// only it says about a death: V8's "FATAL ERROR: ... JavaScript heap out of
// memory" before it aborts (a SIGABRT alone could be any abort()).
//
// The target keeps a terminal when we have one: its stderr is then a pty
// whose master we read, so isatty(2), colours and the window size stay as
// they were; otherwise a pipe. Bytes are written to our stderr unchanged as
// they arrive.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <uv.h>

namespace loopdoctor::collector {

// What V8 prints (through Node's OOM handler) when the heap limit is hit.
inline constexpr std::string_view kHeapOomText = "JavaScript heap out of memory";

// Finds kHeapOomText in a stream delivered in pieces: pure, unit-tested.
class HeapOomScan {
 public:
  void feed(std::string_view bytes);
  bool found() const { return found_; }

 private:
  std::string carry_;  // the last bytes of the previous piece, for a match across pieces
  bool found_ = false;
};

class StderrWatch {
 public:
  StderrWatch() = default;
  StderrWatch(const StderrWatch&) = delete;
  StderrWatch& operator=(const StderrWatch&) = delete;
  ~StderrWatch();

  // Before the spawn: the fd the child gets as its stderr; -1 (then the
  // child inherits ours, unwatched) when neither a pty nor a pipe can be had.
  int open(uv_loop_t* loop);
  // After the spawn: drops our copy of the child's end and starts reading.
  void start();
  // Reads what is already written (the exit callback can run before the
  // last read): call before deciding why the target died.
  void drain();
  bool heap_oom() const { return scan_.found(); }

 private:
  void relay(const char* data, std::size_t n);
  static void on_read(uv_stream_t* s, ssize_t n, const uv_buf_t* buf);

  uv_pipe_t pipe_{};
  bool reading_ = false;
  int ours_ = -1, theirs_ = -1;
  char buf_[4096];
  HeapOomScan scan_;
};

}  // namespace loopdoctor::collector
