// load::start(): splits a run over the caller's loop and optional worker
// threads (one loop each), and merges their reports back on the caller's
// loop thread through a uv_async handle.
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <thread>

#include "agent/load/load.h"
#include "agent/load/plan.h"
#include "agent/load/request.h"
#include "agent/load/validate.h"
#include "agent/load/worker.h"
#include "base/ignore_sigpipe.h"
#include "base/units.h"

namespace loopdoctor::load {

namespace {

using base::kNsPerS;
// The target "kept up" when at least this share of the requests that were
// due before the stop went out; below it, rate_not_met is true.
constexpr double kRateMetFraction = 0.95;

// One extra thread: its own loop, its worker and a handle to stop it.
struct ThreadSlot {
  uv_loop_t loop{};
  uv_async_t stop_async{};
  std::mutex mutex;          // guards stop_async against use after close
  bool stop_closed = false;  // under mutex
  std::unique_ptr<Worker> worker;
  std::thread thread;
};

// Reports of every worker for one second, merged.
struct Group {
  Stats stats;
  double interval_s = 0;
};

class LoadRunner final : public Runner {
 public:
  LoadRunner(uv_loop_t* loop, Plan plan, double rate, RecordFn on_second, RecordFn on_done)
      : loop_(loop),
        plan_(std::move(plan)),
        rate_(rate),
        on_second_(std::move(on_second)),
        on_done_(std::move(on_done)) {}

  ~LoadRunner() override {
    // Normally everything has ended before on_done. If the caller drops us
    // early, at least the threads end and are joined.
    for (auto& slot : slots_) {
      send_stop(*slot);
      if (slot->thread.joinable()) slot->thread.join();
    }
  }

  void begin(const std::vector<Share>& shares) {
    uv_async_init(loop_, &async_, &LoadRunner::on_async);
    async_.data = this;
    workers_ = static_cast<int>(shares.size());
    last_second_.assign(shares.size(), 0);
    done_.assign(shares.size(), false);
    auto post = [this](Report r) { this->post(std::move(r)); };
    main_ = std::make_unique<Worker>(loop_, plan_, shares[0], 0, post);
    for (std::size_t i = 1; i < shares.size(); ++i) {
      auto slot = std::make_unique<ThreadSlot>();
      uv_loop_init(&slot->loop);
      uv_async_init(&slot->loop, &slot->stop_async, &LoadRunner::on_thread_stop);
      ThreadSlot* raw = slot.get();
      slot->stop_async.data = raw;
      // The final report is the worker's last act: close the stop handle
      // first so the thread's loop ends right after.
      auto thread_post = [this, raw](Report r) {
        if (r.final) {
          std::lock_guard<std::mutex> lock(raw->mutex);
          raw->stop_closed = true;
          uv_close(reinterpret_cast<uv_handle_t*>(&raw->stop_async), nullptr);
        }
        this->post(std::move(r));
      };
      slot->worker = std::make_unique<Worker>(&slot->loop, plan_, shares[i],
                                              static_cast<int>(i), thread_post);
      slots_.push_back(std::move(slot));
    }
    main_->start();
    for (auto& slot : slots_) {
      ThreadSlot* raw = slot.get();
      raw->thread = std::thread([raw] {
        raw->worker->start();
        uv_run(&raw->loop, UV_RUN_DEFAULT);
        raw->worker.reset();
        uv_loop_close(&raw->loop);
      });
    }
  }

  void stop() override {
    if (main_) main_->stop();
    for (auto& slot : slots_) send_stop(*slot);
  }

 private:
  static void send_stop(ThreadSlot& slot) {
    std::lock_guard<std::mutex> lock(slot.mutex);
    if (!slot.stop_closed) uv_async_send(&slot.stop_async);
  }

  static void on_thread_stop(uv_async_t* a) { static_cast<ThreadSlot*>(a->data)->worker->stop(); }

  // Any thread.
  void post(Report r) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      inbox_.push_back(std::move(r));
    }
    uv_async_send(&async_);
  }

  static void on_async(uv_async_t* a) { static_cast<LoadRunner*>(a->data)->drain(); }

  void drain() {
    std::vector<Report> batch;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      batch.swap(inbox_);
    }
    for (Report& r : batch) absorb(r);
    emit_ready();
    if (std::all_of(done_.begin(), done_.end(), [](bool d) { return d; }) && !closing_) {
      closing_ = true;
      uv_close(reinterpret_cast<uv_handle_t*>(&async_), &LoadRunner::on_async_closed);
    }
  }

  void absorb(Report& r) {
    Group& g = groups_[r.second];
    g.stats.merge(*r.stats);
    g.interval_s = std::max(g.interval_s, r.interval_s);
    last_second_[static_cast<std::size_t>(r.worker)] = r.second;
    if (!r.final) return;
    done_[static_cast<std::size_t>(r.worker)] = true;
    total_.merge(*r.total);
    active_s_ = std::max(active_s_, r.active_s);
    intended_ += r.intended;
  }

  // A second is complete when every worker has reported it or has ended.
  void emit_ready() {
    while (!groups_.empty()) {
      const int second = groups_.begin()->first;
      for (std::size_t w = 0; w < done_.size(); ++w)
        if (!done_[w] && last_second_[w] < second) return;
      const Group& g = groups_.begin()->second;
      if (on_second_) on_second_(second_json(g.stats, second, g.interval_s));
      groups_.erase(groups_.begin());
    }
  }

  static void on_async_closed(uv_handle_t* h) {
    auto* self = static_cast<LoadRunner*>(h->data);
    for (auto& slot : self->slots_)
      if (slot->thread.joinable()) slot->thread.join();
    self->main_.reset();
    const bool not_met =
        self->rate_ > 0 &&
        static_cast<double>(self->total_.sent) < kRateMetFraction * static_cast<double>(self->intended_);
    nlohmann::json summary = summary_json(self->total_, self->active_s_, self->rate_, not_met);
    RecordFn done = std::move(self->on_done_);
    // Last use of `self`: the caller may destroy the runner in on_done.
    if (done) done(summary);
  }

  // A server closing its end while a worker writes a request is an error
  // the connection handles (reconnects), not a signal that ends the run --
  // in `loopdoctor load` alone as inside `run` (seen as a SIGPIPE death of
  // the load tests under clang's ASan).
  base::IgnoreSigpipe sigpipe_;
  uv_loop_t* loop_;
  const Plan plan_;
  double rate_;
  RecordFn on_second_;
  RecordFn on_done_;
  uv_async_t async_{};
  std::unique_ptr<Worker> main_;
  std::vector<std::unique_ptr<ThreadSlot>> slots_;

  std::mutex mutex_;
  std::vector<Report> inbox_;  // under mutex_

  int workers_ = 0;
  std::vector<int> last_second_;
  std::vector<bool> done_;
  std::map<int, Group> groups_;
  Stats total_;
  double active_s_ = 0;
  std::uint64_t intended_ = 0;
  bool closing_ = false;
};

std::vector<Share> split(const Config& cfg) {
  int threads = std::max(1, std::min(cfg.threads, cfg.connections));
  if (cfg.max_requests > 0)
    threads = static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(threads),
                                                        cfg.max_requests));
  std::vector<Share> shares(static_cast<std::size_t>(threads));
  int first = 0;
  for (int i = 0; i < threads; ++i) {
    Share& s = shares[static_cast<std::size_t>(i)];
    s.first_connection = first;
    s.connections = cfg.connections / threads + (i < cfg.connections % threads ? 1 : 0);
    first += s.connections;
    if (cfg.max_requests > 0) {
      const auto t = static_cast<std::uint64_t>(threads);
      s.budget = cfg.max_requests / t + (static_cast<std::uint64_t>(i) < cfg.max_requests % t);
    }
  }
  return shares;
}

}  // namespace

std::unique_ptr<Runner> start(uv_loop_t* loop, const Config& cfg, RecordFn on_second,
                              RecordFn on_done) {
  if (!validate(cfg).empty()) return nullptr;
  Plan plan;
  if (!resolve_address(cfg, &plan.addr, nullptr)) return nullptr;
  // Constant-rate mode sends one request at a time per connection: the
  // schedule, not a pipeline, decides when requests go.
  plan.pipelining = cfg.rate > 0 ? 1 : cfg.pipelining;
  const std::string request = encode_request(cfg);
  plan.request_len = request.size();
  plan.batch = repeat_request(request, plan.pipelining);
  plan.head = cfg.method == "HEAD";
  plan.timeout_ns = static_cast<std::uint64_t>(cfg.timeout_s * kNsPerS);
  if (cfg.rate > 0) {
    plan.interval_ns = static_cast<std::uint64_t>(cfg.connections * kNsPerS / cfg.rate);
    plan.rate_step_ns = static_cast<std::uint64_t>(kNsPerS / cfg.rate);
  }
  plan.start_ns = uv_hrtime();
  if (cfg.duration_s > 0)
    plan.end_ns = plan.start_ns + static_cast<std::uint64_t>(cfg.duration_s * kNsPerS);
  auto runner = std::make_unique<LoadRunner>(loop, std::move(plan), cfg.rate,
                                             std::move(on_second), std::move(on_done));
  runner->begin(split(cfg));
  return runner;
}

}  // namespace loopdoctor::load
