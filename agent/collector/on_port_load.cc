// --on-port: an external load command (wrk, autocannon, k6, a script) run with
// /bin/sh once the target listens. The run ends when it exits.
#include <csignal>
#include <utility>

#include <spdlog/spdlog.h>

#include "agent/collector/child_process.h"
#include "agent/collector/load_driver.h"
#include "agent/collector/signal_names.h"
#include "recording/records.h"
#include "base/timer.h"

namespace loopdoctor::collector {
namespace {

// A load command asked to stop gets this long to print its summary before
// it is killed; wrk and autocannon need well under a second.
constexpr double kLoadStopGraceMs = 2000;

class OnPortLoad final : public LoadDriver {
 public:
  OnPortLoad(uv_loop_t* loop, std::string tmpl, EmitFn emit, std::function<void()> on_end)
      : loop_(loop), tmpl_(std::move(tmpl)), emit_(std::move(emit)), on_end_(std::move(on_end)) {
    kill_timer_.init(loop);
  }

  void start(int port, const std::string&) override {
    std::string command = expand_port(tmpl_, port);
    emit_(recording::encode(recording::LoadStart{0, recording::kLoadOnPort, command, std::nullopt}));
    auto env = environment_with({{"PORT", std::to_string(port)}});
    int rc = child_.spawn(loop_, {"/bin/sh", "-c", command}, env, -1,
                          [this](const ChildExit& e) { on_exit(e); });
    if (rc < 0) {
      std::string msg = spawn_error_message("/bin/sh", rc);
      spdlog::error("--on-port: {}", msg);
      emit_(recording::encode(recording::Warning{0, "--on-port command not started: " + msg}));
      emit_(recording::encode(recording::LoadEnd{}));
      finished_ = true;
      on_end_();
      return;
    }
    started_ = true;
  }

  void stop() override {
    if (!running() || stopping_) return;
    stopping_ = true;
    child_.signal_group(SIGTERM);
    kill_timer_.start(kLoadStopGraceMs, [this] { child_.signal_group(SIGKILL); });
  }

  void hurry() override {
    if (running()) child_.signal_group(SIGKILL);
  }

  bool running() const override { return started_ && !finished_; }

  std::string announcement(int port, const std::string&) const override {
    return "load: " + expand_port(tmpl_, port) + " (--on-port; the run ends when it exits)";
  }

 private:
  void on_exit(const ChildExit& e) {
    kill_timer_.stop();
    recording::LoadEnd r;
    r.exit_code = e.code;
    if (e.signal) r.signal = signal_name(*e.signal);
    r.stopped_by_loopdoctor = stopping_;
    emit_(recording::encode(r));
    child_.end_leftovers(SIGKILL);
    finished_ = true;
    on_end_();
  }

  uv_loop_t* loop_;
  std::string tmpl_;
  EmitFn emit_;
  std::function<void()> on_end_;
  ChildProcess child_;
  base::Timer kill_timer_;
  bool started_ = false, finished_ = false, stopping_ = false;
};

}  // namespace

std::string expand_port(const std::string& command_template, int port) {
  static constexpr std::string_view kPlaceholder = "{port}";
  std::string out;
  std::size_t pos = 0;
  for (;;) {
    std::size_t hit = command_template.find(kPlaceholder, pos);
    out.append(command_template, pos, hit == std::string::npos ? std::string::npos : hit - pos);
    if (hit == std::string::npos) break;
    out += std::to_string(port);
    pos = hit + kPlaceholder.size();
  }
  return out;
}

std::unique_ptr<LoadDriver> make_on_port_load(uv_loop_t* loop, std::string command_template,
                                              EmitFn emit, std::function<void()> on_end) {
  return std::make_unique<OnPortLoad>(loop, std::move(command_template), std::move(emit),
                                      std::move(on_end));
}

}  // namespace loopdoctor::collector
