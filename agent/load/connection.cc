#include "agent/load/connection.h"

#include <algorithm>

#include "agent/load/worker.h"
#include "base/units.h"

namespace loopdoctor::load {

namespace {

// After a failed connect, wait this long before the next attempt: retrying a
// refusing port at once spins the loop, starves the healthy connections and
// turns the error count into a measure of our own CPU speed.
constexpr std::uint64_t kConnectBackoffMs = 10;
using base::kNsPerMsInt;
using base::kNsPerUsInt;

}  // namespace

Connection::Connection(Worker* worker, int global_index)
    : worker_(worker), global_index_(global_index), parser_(&Connection::on_response, this) {
  uv_timer_init(worker_->loop_, &timer_);
  timer_.data = this;
  next_due_ns_ = first_due_ns();
}

std::uint64_t Connection::first_due_ns() const {
  const Plan& plan = worker_->plan_;
  return plan.start_ns + static_cast<std::uint64_t>(global_index_) * plan.rate_step_ns;
}

void Connection::connect() {
  if (worker_->stopping_) return;
  uv_tcp_init(worker_->loop_, &tcp_);
  tcp_.data = this;
  tcp_live_ = true;
  state_ = State::kConnecting;
  since_ns_ = uv_hrtime();
  parser_.reset(worker_->plan_.head);
  outstanding_ = 0;
  connect_req_.data = this;
  const int rc = uv_tcp_connect(&connect_req_, &tcp_,
                                reinterpret_cast<const sockaddr*>(&worker_->plan_.addr),
                                &Connection::on_connect);
  if (rc < 0) {
    ++worker_->current_->errors.connect;
    recycle(kConnectBackoffMs);
  }
}

void Connection::on_connect(uv_connect_t* req, int status) {
  auto* self = static_cast<Connection*>(req->data);
  if (status == UV_ECANCELED || self->state_ != State::kConnecting) return;
  Worker* w = self->worker_;
  if (status < 0) {
    ++w->current_->errors.connect;
    // With a request budget (-n) a failed connect uses one attempt, so a
    // run against a dead port still ends.
    if (w->take_budget(1) == 1) w->settle(1);
    self->recycle(kConnectBackoffMs);
    return;
  }
  uv_tcp_nodelay(&self->tcp_, 1);
  if (uv_read_start(reinterpret_cast<uv_stream_t*>(&self->tcp_), &Connection::on_alloc,
                    &Connection::on_read) < 0) {
    ++w->current_->errors.read;
    self->recycle(kConnectBackoffMs);
    return;
  }
  self->state_ = State::kOpen;
  self->maybe_send();
}

void Connection::maybe_send() {
  Worker* w = worker_;
  if (w->stopping_ || state_ != State::kOpen || outstanding_ > 0 || write_pending_) return;
  const Plan& plan = w->plan_;
  const std::uint64_t now = uv_hrtime();
  if (plan.interval_ns == 0) {
    const int n = w->take_budget(plan.pipelining);
    if (n > 0) send(n, now, now);
    return;
  }
  // Constant rate: wait for the next intended time. Timers have millisecond
  // resolution, so a wait under 1 ms is not taken; the latency origin below
  // is the earlier of intended and actual send, so sending up to 1 ms early
  // never shortens a measured latency.
  if (next_due_ns_ > now + kNsPerMsInt) {
    uv_timer_start(&timer_, &Connection::on_timer, (next_due_ns_ - now) / kNsPerMsInt, 0);
    return;
  }
  if (w->take_budget(1) == 0) return;
  // Latency counts from the intended time even when we are late, so a
  // stalled server's backlog shows up in the percentiles (wrk2).
  const std::uint64_t origin = std::min(next_due_ns_, now);
  next_due_ns_ += plan.interval_ns;
  send(1, origin, now);
}

void Connection::send(int count, std::uint64_t origin_ns, std::uint64_t now_ns) {
  Worker* w = worker_;
  outstanding_ = count;
  origin_ns_ = origin_ns;
  since_ns_ = now_ns;
  w->current_->sent += static_cast<std::uint64_t>(count);
  uv_buf_t buf = uv_buf_init(const_cast<char*>(w->plan_.batch.data()),
                             static_cast<unsigned>(w->plan_.request_len * count));
  auto* stream = reinterpret_cast<uv_stream_t*>(&tcp_);
  // Most requests fit the socket buffer: write them directly, and only fall
  // back to a queued write (and its callback) for what did not go out.
  int written = uv_try_write(stream, &buf, 1);
  if (written == static_cast<int>(buf.len)) return;
  if (written < 0 && written != UV_EAGAIN) {
    ++w->current_->errors.write;
    recycle(0);
    return;
  }
  if (written > 0) {
    buf.base += written;
    buf.len -= static_cast<std::size_t>(written);
  }
  write_req_.data = this;
  write_pending_ = true;
  if (uv_write(&write_req_, stream, &buf, 1, &Connection::on_write) < 0) {
    write_pending_ = false;
    ++w->current_->errors.write;
    recycle(0);
  }
}

void Connection::on_write(uv_write_t* req, int status) {
  auto* self = static_cast<Connection*>(req->data);
  self->write_pending_ = false;
  if (status == UV_ECANCELED || self->state_ != State::kOpen) return;
  if (status < 0) {
    ++self->worker_->current_->errors.write;
    self->recycle(0);
    return;
  }
  // A response may have arrived before the write callback ran.
  self->maybe_send();
}

void Connection::on_alloc(uv_handle_t* h, std::size_t, uv_buf_t* buf) {
  // One buffer per loop is enough: libuv hands each read to on_read before
  // it asks for the next buffer.
  Worker* w = static_cast<Connection*>(h->data)->worker_;
  *buf = uv_buf_init(w->read_buffer_.get(), static_cast<unsigned>(Worker::kReadBufferBytes));
}

void Connection::on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* buf) {
  auto* self = static_cast<Connection*>(s->data);
  if (nread > 0) {
    self->handle_data(buf->base, static_cast<std::size_t>(nread));
    return;
  }
  if (nread == 0 || self->state_ != State::kOpen) return;  // 0: EAGAIN
  Stats& stats = *self->worker_->current_;
  if (nread == UV_EOF) {
    // A close between responses is the server ending keep-alive: not an
    // error. A close with a response owed, or in the middle of one, is.
    const bool truncated = self->parser_.eof();
    if (truncated || self->outstanding_ > 0) ++stats.errors.read;
  } else {
    ++stats.errors.read;  // reset and friends
  }
  self->recycle(0);
}

void Connection::handle_data(const char* data, std::size_t len) {
  Worker* w = worker_;
  w->current_->bytes += len;
  switch (parser_.feed(data, len)) {
    case ResponseParser::Feed::kOk:
      if (outstanding_ == 0) maybe_send();
      return;
    case ResponseParser::Feed::kClose:
      recycle(0);
      return;
    case ResponseParser::Feed::kError:
      ++w->current_->errors.parse;
      recycle(0);
      return;
  }
}

void Connection::on_response(void* ctx, int status) {
  auto* self = static_cast<Connection*>(ctx);
  // An answer nobody asked for (a server's 408 on an idle connection) has
  // no latency; it is not a request of ours.
  if (self->outstanding_ <= 0) return;
  const std::uint64_t now = uv_hrtime();
  const std::uint64_t latency_ns = now > self->origin_ns_ ? now - self->origin_ns_ : 0;
  self->worker_->current_->record_response(status, latency_ns / kNsPerUsInt);
  --self->outstanding_;
  self->worker_->settle(1);
}

void Connection::check_timeout(std::uint64_t now_ns) {
  if (now_ns < since_ns_ + worker_->plan_.timeout_ns) return;
  if (state_ == State::kConnecting) {
    ++worker_->current_->errors.connect;
    recycle(kConnectBackoffMs);
  } else if (state_ == State::kOpen && outstanding_ > 0) {
    worker_->current_->errors.timeout += static_cast<std::uint64_t>(outstanding_);
    recycle(0);
  }
}

void Connection::recycle(std::uint64_t delay_ms) {
  const int dropped = outstanding_;
  outstanding_ = 0;
  state_ = State::kClosing;
  reconnect_delay_ms_ = delay_ms;
  uv_timer_stop(&timer_);
  if (tcp_live_ && !uv_is_closing(reinterpret_cast<uv_handle_t*>(&tcp_)))
    uv_close(reinterpret_cast<uv_handle_t*>(&tcp_), &Connection::on_tcp_closed);
  // Last: settling may end the run, which closes everything else.
  if (dropped > 0) worker_->settle(dropped);
}

void Connection::on_tcp_closed(uv_handle_t* h) {
  auto* self = static_cast<Connection*>(h->data);
  self->tcp_live_ = false;
  self->state_ = State::kIdle;
  if (self->worker_->stopping_) {
    self->worker_->handle_closed();
    return;
  }
  if (self->reconnect_delay_ms_ > 0)
    uv_timer_start(&self->timer_, &Connection::on_timer, self->reconnect_delay_ms_, 0);
  else
    self->connect();
}

void Connection::on_timer(uv_timer_t* t) {
  auto* self = static_cast<Connection*>(t->data);
  if (self->state_ == State::kIdle)
    self->connect();
  else
    self->maybe_send();
}

void Connection::on_timer_closed(uv_handle_t* h) {
  static_cast<Connection*>(h->data)->worker_->handle_closed();
}

int Connection::close_for_stop() {
  int pending = 1;
  uv_close(reinterpret_cast<uv_handle_t*>(&timer_), &Connection::on_timer_closed);
  if (tcp_live_) {
    ++pending;  // its close callback runs, now or already queued
    if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(&tcp_)))
      uv_close(reinterpret_cast<uv_handle_t*>(&tcp_), &Connection::on_tcp_closed);
  }
  state_ = State::kClosing;
  return pending;
}

}  // namespace loopdoctor::load
