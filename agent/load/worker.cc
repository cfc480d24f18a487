#include "agent/load/worker.h"

#include <algorithm>

#include "agent/load/connection.h"
#include "base/units.h"

namespace loopdoctor::load {

namespace {

using base::kNsPerMsInt;
using base::kNsPerS;
using base::kNsPerSInt;
// libuv timers count whole milliseconds of loop time, which lags the
// nanosecond clock by up to 1 ms; a deadline this close counts as reached.
constexpr std::uint64_t kClockSlackNs = kNsPerMsInt;
// Timeouts are checked by one sweep per worker instead of a timer per
// request (no per-request timer cost); they fire at most this late.
constexpr std::uint64_t kMaxSweepMs = 100;
// Requests due in the last 10 ms before the stop are not counted as owed:
// a timer that fires 1-2 ms late is not a target that could not keep up.
constexpr std::uint64_t kRateOwedSlackNs = 10 * kNsPerMsInt;

}  // namespace

Worker::Worker(uv_loop_t* loop, const Plan& plan, Share share, int id, ReportFn report)
    : loop_(loop),
      plan_(plan),
      share_(share),
      id_(id),
      report_(std::move(report)),
      read_buffer_(std::make_unique_for_overwrite<char[]>(kReadBufferBytes)),
      current_(std::make_unique<Stats>()) {
  uv_timer_init(loop_, &clock_);
  clock_.data = this;
  uv_timer_init(loop_, &sweep_);
  sweep_.data = this;
  connections_.reserve(static_cast<std::size_t>(share_.connections));
  for (int i = 0; i < share_.connections; ++i)
    connections_.push_back(std::make_unique<Connection>(this, share_.first_connection + i));
}

Worker::~Worker() = default;

void Worker::start() {
  started_ = true;
  last_tick_ns_ = plan_.start_ns;
  for (auto& c : connections_) c->connect();
  schedule_clock();
  const std::uint64_t sweep_ms =
      std::clamp<std::uint64_t>(plan_.timeout_ns / kNsPerMsInt / 4, 1, kMaxSweepMs);
  uv_timer_start(&sweep_, &Worker::on_sweep, sweep_ms, sweep_ms);
}

void Worker::schedule_clock() {
  const std::uint64_t now = uv_hrtime();
  std::uint64_t target =
      plan_.start_ns + static_cast<std::uint64_t>(seconds_done_ + 1) * kNsPerSInt;
  if (plan_.end_ns) target = std::min(target, plan_.end_ns);
  const std::uint64_t delay_ms = target > now ? (target - now + kNsPerMsInt - 1) / kNsPerMsInt : 0;
  uv_timer_start(&clock_, &Worker::on_clock, delay_ms, 0);
}

void Worker::on_clock(uv_timer_t* t) {
  auto* self = static_cast<Worker*>(t->data);
  const std::uint64_t now = uv_hrtime();
  if (self->plan_.end_ns && now + kClockSlackNs >= self->plan_.end_ns) {
    self->finish();
    return;
  }
  const std::uint64_t next_second =
      self->plan_.start_ns + static_cast<std::uint64_t>(self->seconds_done_ + 1) * kNsPerSInt;
  if (now + kClockSlackNs >= next_second) self->tick(now);
  self->schedule_clock();
}

void Worker::tick(std::uint64_t now_ns) {
  Report r;
  r.worker = id_;
  r.second = ++seconds_done_;
  r.interval_s = static_cast<double>(now_ns - last_tick_ns_) / kNsPerS;
  last_tick_ns_ = now_ns;
  total_.merge(*current_);
  r.stats = std::move(current_);
  current_ = std::make_unique<Stats>();
  report_(std::move(r));
}

void Worker::on_sweep(uv_timer_t* t) {
  auto* self = static_cast<Worker*>(t->data);
  const std::uint64_t now = uv_hrtime();
  for (auto& c : self->connections_) {
    if (self->stopping_) return;
    c->check_timeout(now);
  }
}

void Worker::finish() {
  if (stopping_) return;
  stopping_ = true;
  stop_ns_ = uv_hrtime();
  open_handles_ = 2;
  for (auto& c : connections_) open_handles_ += c->close_for_stop();
  uv_close(reinterpret_cast<uv_handle_t*>(&clock_), &Worker::on_closed);
  uv_close(reinterpret_cast<uv_handle_t*>(&sweep_), &Worker::on_closed);
}

void Worker::on_closed(uv_handle_t* h) { static_cast<Worker*>(h->data)->handle_closed(); }

void Worker::handle_closed() {
  if (--open_handles_ > 0) return;
  Report r;
  r.worker = id_;
  r.second = seconds_done_ + 1;
  r.interval_s = static_cast<double>(stop_ns_ - last_tick_ns_) / kNsPerS;
  r.final = true;
  total_.merge(*current_);
  r.stats = std::move(current_);
  r.total = std::make_unique<Stats>(total_);
  r.active_s = static_cast<double>(stop_ns_ - plan_.start_ns) / kNsPerS;
  r.intended = intended_before(stop_ns_);
  // Last use of `this`: the receiver may free the worker once it has this.
  report_(std::move(r));
}

int Worker::take_budget(int want) {
  if (share_.budget == 0) return want;
  const std::uint64_t left = share_.budget - issued_;
  const int n = static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(want), left));
  issued_ += static_cast<std::uint64_t>(n);
  return n;
}

void Worker::settle(int n) {
  settled_ += static_cast<std::uint64_t>(n);
  if (share_.budget && settled_ >= share_.budget) finish();
}

std::uint64_t Worker::intended_before(std::uint64_t end_ns) const {
  if (plan_.interval_ns == 0 || end_ns < kRateOwedSlackNs) return 0;
  const std::uint64_t cutoff = end_ns - kRateOwedSlackNs;
  std::uint64_t owed = 0;
  for (const auto& c : connections_) {
    const std::uint64_t first = c->first_due_ns();
    if (cutoff >= first) owed += (cutoff - first) / plan_.interval_ns + 1;
  }
  return owed;
}

}  // namespace loopdoctor::load
