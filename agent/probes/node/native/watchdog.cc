#include "watchdog.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <optional>

namespace loopdoctor::probe {

namespace {
// Lines are written in batches, as the JS transport does (FLUSH_MS): a
// write that wakes the collector costs far more than building a sample.
constexpr uint64_t kFlushNs = 100'000'000;
// A wake for another reason (a look) flushes once this much of kFlushNs has
// passed. Looks come at least every kTakeoverNs, so one always lands in
// the last kTakeoverNs before the deadline and the flush never needs a wake
// of its own (at 3/4 of kFlushNs it fell between looks: an idle loop's
// watchdog woke 30 times a second, not 20, each wake ~80 us of CPU here).
constexpr uint64_t kFlushEarlyNs = kFlushNs - kTakeoverNs;
// RSS moves slowly; reading /proc/self/statm at most this often, as the JS
// probe's SLOW_REFRESH_MS (lib/config.js), keeps the thread's cost down.
// The watchdog reads it at its looks (at least every kTakeoverNs), never
// the loop thread at a served tick: a read there took ~14 us, cold.
constexpr uint64_t kRssRefreshNs = 100'000'000;

// /proc/self/statm, opened once for all the process's watchdogs and read
// with pread at 0 (the kernel makes the text anew at each read from offset
// 0): an open and its path walk were a third of an idle watchdog's CPU on
// this VM (~40 us each, ten a second). Closed when the last watchdog goes,
// so a detached probe leaves no fd behind (a main thread's watchdog that
// runs to exit never goes). O_CLOEXEC: a child Node starts execs, and its
// own probe opens its own.
std::mutex g_statm_mu;
int g_statm_fd = -1;
int g_statm_users = 0;

int statm_acquire() {
  std::lock_guard<std::mutex> lock(g_statm_mu);
  if (g_statm_users++ == 0) g_statm_fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  return g_statm_fd;
}

void statm_release() {
  std::lock_guard<std::mutex> lock(g_statm_mu);
  if (--g_statm_users > 0) return;
  if (g_statm_fd >= 0) ::close(g_statm_fd);
  g_statm_fd = -1;
}

uint64_t rss_bytes(int fd) {
  if (fd < 0) return 0;
  char buf[128];
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return 0;
  buf[n] = '\0';
  char* p = buf;
  std::strtoull(p, &p, 10);  // size; the second field is the resident set
  return std::strtoull(p, nullptr, 10) * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

uint64_t tv_us(const timeval& tv) {
  return static_cast<uint64_t>(tv.tv_sec) * 1'000'000 + static_cast<uint64_t>(tv.tv_usec);
}

// The calling thread's CPU time (a syscall; once per served tick at most).

uint64_t thread_cpu_ns() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
}
}  // namespace

Watchdog::Watchdog(uv_loop_t* loop, LineWriter* writer, WatchdogConfig cfg)
    : loop_(loop), writer_(writer), cfg_(cfg), statm_fd_(statm_acquire()) {}

// Every turn: two clock reads and the stamp (~50 ns); at a turn where a
// tick is due (one per resolution at most), the tick and the sample.
void Watchdog::on_prepare(uv_prepare_t* h) {
  auto* self = static_cast<Watchdog*>(h->data);
  const TurnMark now{uv_hrtime(), uv_metrics_idle_time(self->loop_)};
  const TurnMark prev = self->prev_turn_;
  self->prev_turn_ = now;
  self->turn_.write(now);
  if (now.at_ns >= self->next_due_ns_.load(std::memory_order_relaxed)) self->serve(prev, now);
}

// The loop thread serves its own due ticks. Never waits for the lock: the
// watchdog holding it is serving them (or the tick waits for a later turn).
void Watchdog::serve(const TurnMark& prev, const TurnMark& now) {
  std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
  if (!lock.owns_lock() || !sampling_ || now.at_ns < ticks_.next_due_ns()) return;
  turn_cpu_ns_ = thread_cpu_ns();
  turn_cpu_at_ns_ = now.at_ns;
  const uint64_t waited = waits_.waited_until(prev, now.at_ns, turn_cpu_ns_);
  waits_.wait_ended(prev, now, wait_end_ns(prev, now.idle_ns, now.at_ns, waited));
  advance(now.at_ns, [&](uint64_t until) { ticks_.serve(prev, now, until, &delays_, waited); });
}

void Watchdog::start_thread() {
  prepare_ = new uv_prepare_t;
  prepare_->data = this;
  uv_prepare_init(loop_, prepare_);
  uv_prepare_start(prepare_, on_prepare);
  uv_unref(reinterpret_cast<uv_handle_t*>(prepare_));
  async_ = new uv_async_t;
  async_->data = this;
  uv_async_init(loop_, async_, on_async);
  uv_unref(reinterpret_cast<uv_handle_t*>(async_));
  prev_turn_ = {uv_hrtime(), uv_metrics_idle_time(loop_)};
  turn_.write(prev_turn_);
  loop_clock_known_ = pthread_getcpuclockid(pthread_self(), &loop_clock_) == 0;  // the loop's thread, here
  thread_ = std::thread([this] { run(); });
}

bool Watchdog::enable_blocks(BlockConfig cfg, uint32_t thread) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!enable_blocks_locked(cfg, thread)) return false;
  }
  cv_.notify_one();  // the thread may be asleep until a later wake
  return true;
}

bool Watchdog::enable_blocks_locked(BlockConfig cfg, uint32_t thread) {
  if (blocks_ != nullptr || stopped_) return false;
  blocks_ = new BlockSampler(writer_, cfg, cfg_.t0_ns, &turn_, thread);
  blocks_->register_self();
  // A block is seen when the thread looks: no later than the threshold.
  takeover_ns_ = std::min(kTakeoverNs, std::max<uint64_t>(cfg.threshold_ns, cfg_.resolution_ns));
  next_look_ns_ = std::min(next_look_ns_, uv_hrtime() + cfg_.resolution_ns);  // as start_sampling()
  return true;
}

// A worker's watchdog, freed when its worker ends, or a detached one:
// stopped, its thread joined and its handle closed first (addon.cc).
Watchdog::~Watchdog() {
  statm_release();
  if (blocks_ == nullptr) return;
  blocks_->stop();
  blocks_->unregister_self();
  delete blocks_;
}

// What the block check sees, read under mu_; the check itself runs after
// mu_ is released (run()): it reads whether the loop thread sleeps, and a
// JS thread waiting for mu_ in an addon call (update, blocksSeen) sleeps
// too - on the watchdog's own lock, which is no block of the loop.
std::optional<BlockView> Watchdog::block_view(uint64_t now, uint64_t idle, bool waiting) {
  if (blocks_ == nullptr) return std::nullopt;
  BlockView b;
  b.now_ns = now;
  b.last_turn_ns = turn_.read().at_ns;
  b.idle_ns = idle;
  b.waiting = waiting;
  b.turn_cpu_ns = turn_cpu_ns_;
  b.turn_cpu_at_ns = turn_cpu_at_ns_;
  return b;
}

// The idle time includes a wait in progress: two reads differ only while
// the loop is waiting in epoll (it does not grow while JS runs).
bool Watchdog::loop_waiting() {
  const uint64_t a = uv_metrics_idle_time(loop_);
  return uv_metrics_idle_time(loop_) > a;
}

// The loop thread's CPU time from another thread (a syscall, ~1 us); 0 if
// unknown.
uint64_t Watchdog::loop_cpu_ns() const {
  timespec ts{};
  if (!loop_clock_known_ || clock_gettime(loop_clock_, &ts) != 0) return 0;
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t Watchdog::rss_cached(uint64_t now, bool refresh) {
  if (rss_ns_ == 0 || (refresh && now - rss_ns_ >= kRssRefreshNs)) {
    rss_ = rss_bytes(statm_fd_);
    rss_ns_ = now;
  }
  return rss_;
}

Counters Watchdog::read_counters(uint64_t now) {
  Counters c;
  c.now_ns = now;
  c.idle_ns = uv_metrics_idle_time(loop_) + waits_.lost_ns();  // what libuv lost to signals, back
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  c.cpu_user_us = tv_us(ru.ru_utime);
  c.cpu_system_us = tv_us(ru.ru_stime);
  return c;
}

void Watchdog::set_next_due() {
  next_due_ns_.store(sampling_ ? ticks_.next_due_ns() : UINT64_MAX, std::memory_order_relaxed);
}

void Watchdog::start_sampling() {
  std::lock_guard<std::mutex> lock(mu_);
  if (sampling_ || stopped_) return;
  const uint64_t now = uv_hrtime();
  const Counters c = read_counters(now);
  ticks_.start(now, cfg_.resolution_ns);
  delays_.take_json();
  builder_.start(c, static_cast<double>(now - cfg_.t0_ns) / 1e6);
  js_.http.clear();
  last_sample_ns_ = now;
  // The first look comes at the first tick: the block check learns the
  // loop's state (waiting, its run) from there, not a takeover period late.
  next_look_ns_ = now + cfg_.resolution_ns;
  sampling_ = true;
  set_next_due();
  cv_.notify_one();  // the thread may be asleep until a later wake; mu_ is held, it waits for it
}

void Watchdog::stop_sampling() {
  std::lock_guard<std::mutex> lock(mu_);
  sampling_ = false;
  set_next_due();
}

void Watchdog::queue_sample(const Counters& c) {
  const double t_ms = static_cast<double>(c.now_ns - cfg_.t0_ns) / 1e6;
  writer_->append(builder_.build(c, t_ms, delays_, rss_cached(c.now_ns, false), js_, writer_->dropped()), false);
  last_sample_ns_ = c.now_ns;
}

// A sample goes out once an interval has passed (within half a tick). The
// intervals that passed before now without one (a stall only noticed after
// it) get theirs, at their ends, with counters_at's shares of the counters.
template <typename ServeTicks>
void Watchdog::advance(uint64_t now, ServeTicks serve_ticks) {
  const std::vector<uint64_t> ends = sample_ends(last_sample_ns_, now, cfg_.interval_ns, cfg_.resolution_ns / 2);
  if (!ends.empty()) {
    const Counters c = read_counters(now);
    for (const uint64_t end : ends) {
      serve_ticks(end);
      queue_sample(end == now ? c : counters_at(builder_.last(), c, end));
    }
  }
  serve_ticks(now);
  set_next_due();
}

void Watchdog::sample_now() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!sampling_) return;
  const TurnMark last = turn_.read();
  const uint64_t now = uv_hrtime();
  const uint64_t idle = uv_metrics_idle_time(loop_);
  const uint64_t waited = waits_.waited_until(last, now, thread_cpu_ns());  // this is the loop's thread
  advance(now, [&](uint64_t until) { ticks_.overdue(last, now, idle, until, &delays_, waited); });
  if (last_sample_ns_ != now) queue_sample(read_counters(now));  // the rest, however short
}

void Watchdog::update_js(JsView v, bool has_http) {
  std::lock_guard<std::mutex> lock(mu_);
  js_.mem_rest = std::move(v.mem_rest);
  js_.spaces = std::move(v.spaces);
  js_.handles = std::move(v.handles);
  js_.handover_ms = v.handover_ms;
  if (has_http) js_.http = std::move(v.http);
}

bool Watchdog::http_pending() {
  std::lock_guard<std::mutex> lock(mu_);
  return !js_.http.empty();
}

uint32_t Watchdog::blocks_seen() {
  std::lock_guard<std::mutex> lock(mu_);
  return blocks_ != nullptr ? blocks_->blocks_seen() : 0;
}

// The loop, woken by the watchdog: for the block profiler (its start, a
// harvest, its stop) and, after a new block, for onBlock's callback. One
// handle serves both: libuv coalesces sends, so each says what it was for.
void Watchdog::on_async(uv_async_t* h) {
  auto* self = static_cast<Watchdog*>(h->data);
  if (self->profile_wake_.exchange(false) && self->blocks_ != nullptr) self->blocks_->service_profile();
  if (self->block_wake_.exchange(false) && self->on_block_ != nullptr) self->on_block_(self->on_block_arg_);
}

void Watchdog::notify_blocks(void (*on_block)(void*), void* arg) {
  on_block_ = on_block;
  on_block_arg_ = arg;
  notify_.store(on_block != nullptr, std::memory_order_relaxed);
}

void Watchdog::notify_if_new_block() {
  const uint32_t seen = blocks_->blocks_seen();
  if (seen == notified_blocks_) return;
  notified_blocks_ = seen;
  if (!notify_.load(std::memory_order_relaxed)) return;
  block_wake_.store(true);
  uv_async_send(async_);
}

void Watchdog::wake_for_profile(uint64_t now) {
  if (!blocks_->profile_wake(now)) return;
  profile_wake_.store(true);
  uv_async_send(async_);
}

void Watchdog::own_work(bool on) {
  if (blocks_ != nullptr) blocks_->own_work(on);  // blocks_ is set and freed on this thread
}

void Watchdog::request_flush() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    flush_wanted_ = true;
  }
  cv_.notify_one();
}

// The watchdog's look: a loop that has not turned for the takeover period
// has its due ticks served here; while it runs without turning (JS blocks)
// the thread looks again at every tick, so each sample goes out on time;
// while it waits in epoll, once a takeover period.
std::optional<BlockView> Watchdog::look(uint64_t now) {
  rss_cached(now, true);
  const TurnMark last = turn_.read();
  const uint64_t idle = uv_metrics_idle_time(loop_);
  const uint64_t idle2 = uv_metrics_idle_time(loop_);
  const bool waiting = idle2 > idle;
  const uint64_t cpu = loop_cpu_ns();
  if (waiting) waits_.saw_waiting(last, idle2, now, cpu);
  // While waits lose idle time to signals the loop is watched every tick:
  // a wait's end is then known within one, not a takeover period late.
  const bool losing = waits_.losing(now);
  next_look_ns_ = losing ? now + cfg_.resolution_ns : std::max(last.at_ns + takeover_ns_, now + cfg_.resolution_ns);
  if (now >= last.at_ns + takeover_ns_ && now >= ticks_.next_due_ns()) {
    const uint64_t waited = waits_.waited_until(last, now, cpu);
    advance(now, [&](uint64_t until) { ticks_.overdue(last, now, idle2, until, &delays_, waited); });
    next_look_ns_ = waiting ? now + (losing ? cfg_.resolution_ns : takeover_ns_) : ticks_.next_due_ns();
  }
  return block_view(now, idle2, waiting);
}

// The next look, or sooner when a block's capture or native timeout, or a
// flush, is due.
uint64_t Watchdog::next_wake(uint64_t now, uint64_t last_flush) {
  uint64_t wake = last_flush + kFlushNs;
  if (!sampling_) return wake;
  wake = std::min(wake, std::max(next_look_ns_, now));
  const uint64_t due = blocks_ != nullptr ? blocks_->next_due_ns() : 0;
  return due != 0 && due < wake ? due : wake;
}

void Watchdog::run() {
  // Named so `top -H` and bench/probe-overhead tell its CPU from the loop's.
  pthread_setname_np(pthread_self(), "loopdoctor-wd");
  uint64_t last_flush = uv_hrtime();
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    const uint64_t now0 = uv_hrtime();
    const uint64_t wake = next_wake(now0, last_flush);
    if (now0 < wake && !flush_wanted_) cv_.wait_for(lock, std::chrono::nanoseconds(wake - now0));
    if (stopping_) break;
    const uint64_t now = uv_hrtime();
    if (sampling_) {
      if (const std::optional<BlockView> b = look(now)) {
        lock.unlock();
        blocks_->check(*b);  // blocks_ lives until this thread is joined
        notify_if_new_block();
        wake_for_profile(now);
        lock.lock();
      }
    }
    if (flush_wanted_ || now - last_flush >= kFlushEarlyNs) {
      flush_wanted_ = false;
      last_flush = now;
      lock.unlock();
      writer_->write_out();
      lock.lock();
    }
  }
  lock.unlock();
  writer_->write_out();
}

void Watchdog::stop() {
  // The block profiler's last samples go out with the rest (V8's side: on
  // this, the JS thread, before the sampler stops sending).
  if (blocks_ != nullptr) blocks_->finish_profile();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (blocks_ != nullptr) blocks_->stop();  // an interrupt still queued sends nothing
    if (stopped_) return;
    stopped_ = true;
    stopping_ = true;
    sampling_ = false;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
  if (prepare_ != nullptr) uv_prepare_stop(prepare_);
  notify_blocks(nullptr, nullptr);
}

namespace {
struct Closing {
  void (*done)(void*);
  void* arg;
};
}  // namespace

void Watchdog::close_handle(void (*done)(void*), void* arg) {
  if (async_ != nullptr) {  // the thread that sent to it is joined
    uv_close(reinterpret_cast<uv_handle_t*>(async_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_async_t*>(h); });
    async_ = nullptr;
  }
  if (prepare_ == nullptr) {
    if (done != nullptr) done(arg);
    return;
  }
  prepare_->data = new Closing{done, arg};  // the prepare callback no longer runs
  uv_close(reinterpret_cast<uv_handle_t*>(prepare_), [](uv_handle_t* h) {
    auto* c = static_cast<Closing*>(h->data);
    delete reinterpret_cast<uv_prepare_t*>(h);
    if (c->done != nullptr) c->done(c->arg);
    delete c;
  });
  prepare_ = nullptr;
}

}  // namespace loopdoctor::probe
