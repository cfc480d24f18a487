#include "agent/exporter/attach_worker.h"

#include <spdlog/spdlog.h>

namespace loopdoctor::exporter {

AttachWorker::AttachWorker(uv_loop_t* loop, attach::AttachOptions options, OnOutcome on_outcome)
    : options_(std::move(options)), on_outcome_(std::move(on_outcome)) {
  uv_async_init(loop, &async_, [](uv_async_t* h) {
    auto* self = static_cast<AttachWorker*>(h->data);
    std::vector<AttachOutcome> done;
    {
      std::lock_guard lock(self->mu_);
      done.swap(self->done_);
    }
    for (AttachOutcome& o : done) self->on_outcome_(std::move(o));
  });
  async_.data = this;
  thread_ = std::thread([this] { run(); });
}

AttachWorker::~AttachWorker() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void AttachWorker::submit(int pid) {
  std::lock_guard lock(mu_);
  if (stopping_) return;
  queue_.push_back(pid);
  cv_.notify_all();
}

void AttachWorker::stop() {
  std::vector<AttachOutcome> undelivered;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    queue_.clear();
    undelivered.swap(done_);
    cv_.notify_all();
  }
  auto* h = reinterpret_cast<uv_handle_t*>(&async_);
  if (!uv_is_closing(h)) uv_close(h, nullptr);
}

void AttachWorker::run() {
  for (;;) {
    int pid = 0;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      pid = queue_.front();
      queue_.pop_front();
    }
    AttachOutcome o = attach_one(options_, pid);
    {
      std::lock_guard lock(mu_);
      if (!stopping_) {
        done_.push_back(std::move(o));
        uv_async_send(&async_);
        continue;
      }
    }
    // The agent stopped meanwhile: `o` goes here, releasing the process.
  }
}

AttachOutcome AttachWorker::attach_one(attach::AttachOptions options, int pid) {
  AttachOutcome o;
  o.pid = pid;
  options.pid = pid;
  auto attacher = std::make_unique<attach::Attacher>(std::move(options));
  o.refusal = attacher->prepare();
  if (!o.refusal.empty()) return o;
  // The probe connects while load_probe() runs: the socket listens already
  // and holds its connections until the agent's loop adopts it.
  o.endpoint = attacher->take_endpoint();
  spdlog::info("attaching to process {} through its inspector", pid);
  o.refusal = attacher->load_probe();
  if (o.refusal.empty()) o.attacher = std::move(attacher);
  else o.touched = attacher->touched();
  return o;
}

}  // namespace loopdoctor::exporter
