#include "block_sampler.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>
#include <v8.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "agent/protocol/block_limits.h"

namespace loopdoctor::probe {

namespace {
// Whether thread `tid` of this process sleeps in the kernel now: the state
// letter after the command name in /proc/self/task/<tid>/stat, S or D.
bool thread_sleeping(long tid) {
  const std::string path = "/proc/self/task/" + std::to_string(tid) + "/stat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[512];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  const char* paren = std::strrchr(buf, ')');  // the name may hold ')' itself
  return paren != nullptr && paren[1] == ' ' && (paren[2] == 'S' || paren[2] == 'D');
}

// V8's GC callbacks on the loop thread; data: the sampler's in_gc_.
void on_gc_prologue(v8::Isolate*, v8::GCType, v8::GCCallbackFlags, void* data) {
  static_cast<std::atomic<bool>*>(data)->store(true, std::memory_order_relaxed);
}

void on_gc_epilogue(v8::Isolate*, v8::GCType, v8::GCCallbackFlags, void* data) {
  static_cast<std::atomic<bool>*>(data)->store(false, std::memory_order_relaxed);
}

// The samplers by isolate. Never freed: a worker's watchdog may still be
// unregistering while the process's static destructors run.
struct Registry {
  std::mutex mu;
  std::vector<BlockSampler*> samplers;
};

Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

std::string utf8(v8::Isolate* isolate, v8::Local<v8::String> s) {
  if (s.IsEmpty()) return {};
  v8::String::Utf8Value v(isolate, s);
  return *v != nullptr ? cap_utf8(std::string(*v, static_cast<std::size_t>(v.length())),
                                  protocol::kMaxBlockStringBytes)
                       : std::string();
}

// The JS thread's stack now, innermost frame first.
std::vector<StackFrame> current_stack(v8::Isolate* isolate) {
  v8::HandleScope scope(isolate);
  v8::Local<v8::StackTrace> st =
      v8::StackTrace::CurrentStackTrace(isolate, static_cast<int>(protocol::kMaxBlockFrames));
  std::vector<StackFrame> frames;
  if (st.IsEmpty()) return frames;
  const int n = st->GetFrameCount();
  frames.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    v8::Local<v8::StackFrame> f = st->GetFrame(isolate, static_cast<uint32_t>(i));
    frames.push_back({utf8(isolate, f->GetFunctionName()), utf8(isolate, f->GetScriptName()),
                      f->GetLineNumber(), f->GetColumn()});
  }
  return frames;
}
}  // namespace

BlockSampler::BlockSampler(LineWriter* writer, BlockConfig cfg, uint64_t t0_ns,
                           const TurnStamp* turn, uint32_t thread)
    : isolate_(v8::Isolate::GetCurrent()), writer_(writer), t0_ns_(t0_ns), turn_(turn),
      thread_(thread), threshold_ns_(cfg.threshold_ns), tracker_(cfg), interval_ns_(cfg.interval_ns) {
  loop_cpu_known_ = pthread_getcpuclockid(pthread_self(), &loop_cpu_clock_) == 0;
  loop_tid_ = ::syscall(SYS_gettid);
}

double BlockSampler::ms(uint64_t ns) const { return static_cast<double>(ns - t0_ns_) / 1e6; }

// A worker's lines name its thread (DESIGN: a message from a loop other than
// the main thread carries `thread`), so a block line read on its own still
// says whose stack it is.
void BlockSampler::send(std::string line) {
  if (thread_ != 0 && line.rfind("{\"type\":", 0) == 0)
    line.insert(1, "\"thread\":" + std::to_string(thread_) + ",");
  writer_->append(line, false);
}

// The loop thread's run time at every check (one clock_gettime, a syscall
// for another thread's clock); whether it sleeps only during a stall past
// the threshold (three syscalls). A gone thread's clock fails: the stall
// then counts by wall time.
void BlockSampler::read_loop_thread(BlockView* v) const {
  timespec ts{};
  v->cpu_known = loop_cpu_known_ && clock_gettime(loop_cpu_clock_, &ts) == 0;
  if (!v->cpu_known) return;
  v->loop_cpu_ns = static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
  if (!v->waiting && v->now_ns >= v->last_turn_ns + threshold_ns_ && !in_gc_.load(std::memory_order_relaxed))
    v->sleeping = thread_sleeping(loop_tid_);
}

void BlockSampler::check(const BlockView& seen) {
  uint32_t gen = 0;
  BlockView v = seen;
  read_loop_thread(&v);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_ || isolate_ == nullptr) return;
    const bool was_in = tracker_.in_block();
    const uint32_t was_gen = tracker_.generation();
    const BlockStep step = tracker_.check(v);
    log_blocks(was_in, was_gen);
    if (step.native) {
      if (frames_gen_ != tracker_.generation()) last_frames_.clear();  // none of this block yet
      send(block_line(ms(v.now_ns), ms(tracker_.start_ns()), last_frames_, false,
                      {.probe = self_busy_.load(std::memory_order_relaxed)}));
      policy_.native_block(tracker_.generation(), v.now_ns);
    }
    if (!step.request) return;
    gen = tracker_.generation();
  }
  // Outside the lock: the interrupt takes it. The watchdog is joined before
  // the isolate goes (stop() at exit and at env cleanup), so the isolate is
  // alive for every request.
  isolate_->RequestInterrupt(&BlockSampler::on_interrupt, reinterpret_cast<void*>(static_cast<uintptr_t>(gen)));
}

uint64_t BlockSampler::next_due_ns() {
  std::lock_guard<std::mutex> lock(mu_);
  return stopped_ ? 0 : tracker_.next_due_ns();
}

uint32_t BlockSampler::blocks_seen() {
  std::lock_guard<std::mutex> lock(mu_);
  return tracker_.generation();
}

// The blocks the profiler's samples are placed in: a block ends when the
// tracker sees the loop active again (at most a check, ~10 ms, after its
// turn: a sample in that time is placed in the block).
void BlockSampler::log_blocks(bool was_in, uint32_t was_gen) {
  if (was_in && (!tracker_.in_block() || tracker_.generation() != was_gen)) log_.end(tracker_.active_since_ns());
  if (tracker_.generation() != was_gen) log_.begin(tracker_.start_ns());
}

bool BlockSampler::profile_wake(uint64_t now_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_ || woken_ || policy_.due(now_ns) == BlockProfilePolicy::Action::kNone) return false;
  woken_ = true;
  return true;
}

void BlockSampler::send_samples(const std::vector<ProfileSample>& samples) {
  if (stopped_) return;
  for (std::string& line : profile_block_lines(samples, log_, t0_ns_)) send(std::move(line));
}

// Runs between two loop callbacks: a block in progress is over by the last
// turn, which the JS thread reads exactly (the watchdog may not have looked
// since). Everything V8 does here is outside the lock: the watchdog's
// checks go on, and see the JS thread busy with the probe's own work.
void BlockSampler::service_profile() {
  using Action = BlockProfilePolicy::Action;
  Action a = Action::kNone;
  {
    std::lock_guard<std::mutex> lock(mu_);
    woken_ = false;
    if (stopped_) return;
    a = policy_.due(uv_hrtime());
  }
  if (a == Action::kNone) return;
  std::vector<ProfileSample> samples;
  bool ok = true;
  own_work(true);
  if (a == Action::kStart) {
    if (profiler_ == nullptr) profiler_ = std::make_unique<BlockProfiler>(isolate_);
    ok = profiler_->start(interval_ns_);
  } else if (a == Action::kHarvest) {
    ok = profiler_ != nullptr && profiler_->harvest(&samples);
    if (!ok && profiler_ != nullptr) profiler_->finish(&samples);
  } else if (profiler_ != nullptr) {
    profiler_->finish(&samples);
  }
  own_work(false);
  std::lock_guard<std::mutex> lock(mu_);
  const TurnMark last = turn_->read();
  if (tracker_.in_block() && last.at_ns > tracker_.start_ns()) log_.end(last.at_ns);
  policy_.done(a, uv_hrtime(), ok);
  send_samples(samples);
}

void BlockSampler::finish_profile() {
  if (profiler_ == nullptr || !profiler_->running()) return;
  std::vector<ProfileSample> samples;
  own_work(true);
  profiler_->finish(&samples);
  own_work(false);
  std::lock_guard<std::mutex> lock(mu_);
  policy_.done(BlockProfilePolicy::Action::kStop, uv_hrtime(), true);
  send_samples(samples);
}

void BlockSampler::own_work(bool on) {
  if (on) self_from_ns_ = uv_hrtime();
  else self_to_ns_ = uv_hrtime();
  self_busy_.store(on, std::memory_order_relaxed);
}

void BlockSampler::stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
}

void BlockSampler::register_self() {
  isolate_->AddGCPrologueCallback(on_gc_prologue, &in_gc_);
  isolate_->AddGCEpilogueCallback(on_gc_epilogue, &in_gc_);
  std::lock_guard<std::mutex> lock(registry().mu);
  registry().samplers.push_back(this);
}

void BlockSampler::unregister_self() {
  isolate_->RemoveGCPrologueCallback(on_gc_prologue, &in_gc_);
  isolate_->RemoveGCEpilogueCallback(on_gc_epilogue, &in_gc_);
  std::lock_guard<std::mutex> lock(registry().mu);
  auto& v = registry().samplers;
  v.erase(std::remove(v.begin(), v.end(), this), v.end());
}


// JS thread, between two JS operations. Must not call into JS, nor block.
// The sampler is used outside the registry's lock: only this same thread
// unregisters and frees it, so it cannot go while answer() runs.
void BlockSampler::on_interrupt(v8::Isolate* isolate, void* data) {
  BlockSampler* found = nullptr;
  {
    std::lock_guard<std::mutex> lock(registry().mu);
    for (BlockSampler* s : registry().samplers)
      if (s->isolate_ == isolate) found = s;
  }
  if (found != nullptr) found->answer(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(data)));
}

void BlockSampler::answer(uint32_t gen) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
  }
  // The stack is read outside the lock (the watchdog's checks go on).
  std::vector<StackFrame> frames = current_stack(isolate_);
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t now = uv_hrtime();
  timespec ts{};
  const int64_t cpu = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 ? ts.tv_sec * 1'000'000'000LL + ts.tv_nsec : -1;
  if (stopped_ || !tracker_.answer(gen, now, turn_->read().at_ns, cpu)) return;
  // An interrupt that waited through the probe's own work (its profiler's
  // start) was held up by the probe, not by the target.
  const uint64_t asked = now - tracker_.last_wait_ns();
  const bool held_by_probe = self_busy_.load(std::memory_order_relaxed) || (self_to_ns_ > asked && self_from_ns_ < now);
  send(block_line(ms(now), ms(tracker_.start_ns()), frames, true,
                  {.wait_ms = static_cast<double>(tracker_.last_ran_ns()) / 1e6, .probe = held_by_probe}));
  if (tracker_.native_seen()) policy_.native_block(gen, now);
  last_frames_ = std::move(frames);
  frames_gen_ = gen;
}

}  // namespace loopdoctor::probe
