#include "watchdog.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

namespace loopdoctor::probe {

namespace {
// Lines are written in batches, as the JS transport does (FLUSH_MS): a
// write that wakes the collector costs far more than building a sample.
constexpr uint64_t kFlushNs = 100'000'000;
// RSS moves slowly; reading /proc/self/statm (three syscalls) at most this
// often, as the JS probe's SLOW_REFRESH_MS, keeps the thread's cost down.
constexpr uint64_t kRssRefreshNs = 100'000'000;

uint64_t rss_bytes() {
  int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[128];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  char* p = buf;
  std::strtoull(p, &p, 10);  // size; the second field is the resident set
  return std::strtoull(p, nullptr, 10) * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

uint64_t tv_us(const timeval& tv) {
  return static_cast<uint64_t>(tv.tv_sec) * 1'000'000 + static_cast<uint64_t>(tv.tv_usec);
}
}  // namespace

Watchdog::Watchdog(uv_loop_t* loop, LineWriter* writer, WatchdogConfig cfg)
    : loop_(loop), writer_(writer), cfg_(cfg) {}

void Watchdog::on_prepare(uv_prepare_t* h) {
  auto* self = static_cast<Watchdog*>(h->data);
  const uint64_t now = uv_hrtime();
  const uint32_t e = self->epoch_.load(std::memory_order_relaxed);
  if (e != self->marked_epoch_) {
    self->marked_epoch_ = e;
    self->first_turn_ns_.store(now, std::memory_order_relaxed);
  }
  self->last_turn_ns_.store(now, std::memory_order_relaxed);
}

void Watchdog::start_thread() {
  prepare_ = new uv_prepare_t;
  prepare_->data = this;
  uv_prepare_init(loop_, prepare_);
  uv_prepare_start(prepare_, on_prepare);
  uv_unref(reinterpret_cast<uv_handle_t*>(prepare_));
  last_turn_ns_.store(uv_hrtime());
  thread_ = std::thread([this] { run(); });
}

bool Watchdog::enable_blocks(BlockConfig cfg, uint32_t thread) {
  std::lock_guard<std::mutex> lock(mu_);
  if (blocks_ != nullptr || stopped_) return false;
  blocks_ = new BlockSampler(writer_, cfg, cfg_.t0_ns, &last_turn_ns_, thread);
  blocks_->register_self();
  return true;
}

// A worker's watchdog, freed when its worker ends: stopped, its thread
// joined and its handle closed first (addon.cc).
Watchdog::~Watchdog() {
  if (blocks_ == nullptr) return;
  blocks_->stop();
  blocks_->unregister_self();
  delete blocks_;
}

void Watchdog::check_blocks(uint64_t now, uint64_t idle, bool waiting) {
  if (blocks_ == nullptr) return;
  BlockView b;
  b.now_ns = now;
  b.last_turn_ns = last_turn_ns_.load(std::memory_order_relaxed);
  b.idle_ns = idle;
  b.waiting = waiting;
  blocks_->check(b);
}

// The next tick, or sooner when a block's capture or native timeout is due.
uint64_t Watchdog::next_wake(uint64_t next_tick) {
  const uint64_t due = blocks_ != nullptr && sampling_ ? blocks_->next_due_ns() : 0;
  return due != 0 && due < next_tick ? due : next_tick;
}

// The idle time includes a wait in progress: two reads differ only while
// the loop is waiting in epoll (it does not grow while JS runs).
bool Watchdog::loop_waiting() {
  const uint64_t a = uv_metrics_idle_time(loop_);
  return uv_metrics_idle_time(loop_) > a;
}

uint64_t Watchdog::rss_cached(uint64_t now) {
  if (rss_ns_ == 0 || now - rss_ns_ >= kRssRefreshNs) {
    rss_ = rss_bytes();
    rss_ns_ = now;
  }
  return rss_;
}

Counters Watchdog::read_counters(uint64_t now) {
  Counters c;
  c.now_ns = now;
  c.idle_ns = uv_metrics_idle_time(loop_);
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  c.cpu_user_us = tv_us(ru.ru_utime);
  c.cpu_system_us = tv_us(ru.ru_stime);
  return c;
}

void Watchdog::start_sampling() {
  std::lock_guard<std::mutex> lock(mu_);
  if (sampling_ || stopped_) return;
  const uint64_t now = uv_hrtime();
  const Counters c = read_counters(now);
  tracker_.start(now, loop_waiting());
  delays_.take_json();
  builder_.start(c, static_cast<double>(now - cfg_.t0_ns) / 1e6);
  js_.http.clear();
  last_sample_ns_ = now;
  sampling_ = true;
}

void Watchdog::stop_sampling() {
  std::lock_guard<std::mutex> lock(mu_);
  sampling_ = false;
}

void Watchdog::queue_sample(uint64_t now) {
  const Counters c = read_counters(now);
  const double t_ms = static_cast<double>(now - cfg_.t0_ns) / 1e6;
  writer_->append(builder_.build(c, t_ms, delays_, rss_cached(now), js_, writer_->dropped()), false);
  last_sample_ns_ = now;
}

void Watchdog::sample_now() {
  std::lock_guard<std::mutex> lock(mu_);
  if (sampling_) queue_sample(uv_hrtime());
}

void Watchdog::update_js(JsView v, bool has_http) {
  std::lock_guard<std::mutex> lock(mu_);
  js_.mem_rest = std::move(v.mem_rest);
  js_.handles = std::move(v.handles);
  if (has_http) js_.http = std::move(v.http);
}

bool Watchdog::http_pending() {
  std::lock_guard<std::mutex> lock(mu_);
  return !js_.http.empty();
}

void Watchdog::request_flush() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    flush_wanted_ = true;
  }
  cv_.notify_one();
}

void Watchdog::tick(uint64_t now) {
  LoopView v;
  v.now_ns = now;
  v.first_turn_ns = first_turn_ns_.exchange(0, std::memory_order_relaxed);
  epoch_.fetch_add(1, std::memory_order_relaxed);
  v.last_turn_ns = last_turn_ns_.load(std::memory_order_relaxed);
  const uint64_t idle = uv_metrics_idle_time(loop_);
  const uint64_t idle2 = uv_metrics_idle_time(loop_);
  v.waiting = idle2 > idle;  // as loop_waiting()
  delays_.add(tracker_.tick(v));
  check_blocks(now, idle2, v.waiting);
  if (now - last_sample_ns_ + cfg_.resolution_ns / 2 >= cfg_.interval_ns) queue_sample(now);
}

void Watchdog::run() {
  // Named so `top -H` and bench/probe-overhead tell its CPU from the loop's.
  pthread_setname_np(pthread_self(), "loopdoctor-wd");
  uint64_t next = uv_hrtime() + cfg_.resolution_ns;
  uint64_t last_flush = 0;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    const uint64_t now0 = uv_hrtime();
    const uint64_t wake = next_wake(next);
    if (now0 < wake && !flush_wanted_)
      cv_.wait_for(lock, std::chrono::nanoseconds(wake - now0));
    if (stopping_) break;
    const uint64_t now = uv_hrtime();
    if (now >= next) {
      if (sampling_) tick(now);
      next += cfg_.resolution_ns;
      if (next <= now) next = now + cfg_.resolution_ns;  // this thread was descheduled: skip, no burst
    } else if (sampling_ && now >= next_wake(next)) {
      const uint64_t idle = uv_metrics_idle_time(loop_);
      check_blocks(now, idle, uv_metrics_idle_time(loop_) > idle);
    }
    if (flush_wanted_ || now - last_flush >= kFlushNs) {
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
}

namespace {
struct Closing {
  void (*done)(void*);
  void* arg;
};
}  // namespace

void Watchdog::close_handle(void (*done)(void*), void* arg) {
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
