// --load: the built-in generator (agent/load) on the collector's own loop.
#include <cstdio>
#include <utility>

#include <spdlog/spdlog.h>

#include "agent/collector/load_driver.h"
#include "recording/record_words.h"
#include "recording/records.h"

namespace loopdoctor::collector {
namespace {

// A server bound to every address ("::", "0.0.0.0") is reached on loopback;
// one bound to a single address (Node's "localhost" may be "::1") must be
// reached there, or every connection would be refused.
std::string load_host(const std::string& configured, const std::string& listen_address) {
  bool default_host = configured.empty() || configured == "127.0.0.1" || configured == "localhost";
  bool wildcard = listen_address.empty() || listen_address == "::" || listen_address == "0.0.0.0";
  return default_host && !wildcard ? listen_address : configured;
}

std::string target_url(const load::Config& cfg) {
  bool v6 = cfg.host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + cfg.host + "]" : cfg.host) + ":" + std::to_string(cfg.port) +
         cfg.path;
}

// The load as configured, kept in load-start and load-summary so a report
// can say which load ran.
recording::LoadConfig config_of(const load::Config& cfg) {
  return {target_url(cfg), cfg.method,   cfg.connections, cfg.threads,
          cfg.pipelining,  cfg.rate,     cfg.duration_s,  cfg.timeout_s};
}

class BuiltinLoad final : public LoadDriver {
 public:
  BuiltinLoad(uv_loop_t* loop, load::Config cfg, EmitFn emit, std::function<void()> on_end)
      : loop_(loop), cfg_(std::move(cfg)), emit_(std::move(emit)), on_end_(std::move(on_end)) {}

  void start(int port, const std::string& address) override {
    cfg_ = builtin_load_target(cfg_, port, address);
    emit_(recording::encode(recording::LoadStart{0, recording::kLoadBuiltin, target_url(cfg_), config_of(cfg_)}));
    started_ = true;
    runner_ = load::start(
        loop_, cfg_,
        [this](const nlohmann::json& sec) { emit_with_type(recording::Type::kLoad, sec); },
        [this](const nlohmann::json& summary) { done(summary); });
    if (!runner_ && !finished_) {
      emit_(recording::encode(recording::Warning{0, "the built-in load generator did not start"}));
      done(nlohmann::json::object());
    }
  }

  void stop() override {
    // The runner may call on_done from inside stop(); `finished_` makes a
    // second stop harmless.
    if (runner_ && !finished_) runner_->stop();
  }

  bool running() const override { return started_ && !finished_; }

  std::string announcement(int port, const std::string& address) const override {
    return builtin_load_line(cfg_, port, address);
  }

 private:
  // The generator hands over a record's fields (load.h); the type makes it
  // the record records.h encodes.
  void emit_with_type(recording::Type type, const nlohmann::json& fields) {
    emit_(recording::with_type(type, fields.is_object() ? fields : nlohmann::json::object()));
  }

  void done(const nlohmann::json& summary) {
    if (finished_) return;
    finished_ = true;
    if (!summary.empty()) {
      nlohmann::json r = recording::with_type(recording::Type::kLoadSummary, summary);
      r["config"] = recording::encode(config_of(cfg_));
      emit_(std::move(r));
    }
    emit_(recording::encode(recording::LoadEnd{}));
    // The runner is kept until the session ends: destroying it from inside
    // its own callback would pull the ground from under it.
    on_end_();
  }

  uv_loop_t* loop_;
  load::Config cfg_;
  EmitFn emit_;
  std::function<void()> on_end_;
  std::unique_ptr<load::Runner> runner_;
  bool started_ = false, finished_ = false;
};

}  // namespace

load::Config builtin_load_target(load::Config cfg, int port, const std::string& address) {
  if (cfg.port != 0) return cfg;  // a full URL: loaded as given
  cfg.port = port;
  cfg.host = load_host(cfg.host, address);
  return cfg;
}

std::string builtin_load_line(const load::Config& given, int port, const std::string& address) {
  const load::Config cfg = builtin_load_target(given, port, address);
  const std::string note =
      cfg.port != port ? " (as given; the target listens on port " + std::to_string(port) + ")" : "";
  return "load: " + recording::load_config_text(config_of(cfg), /*every_field=*/false, note);
}

std::unique_ptr<LoadDriver> make_builtin_load(uv_loop_t* loop, load::Config cfg, EmitFn emit,
                                              std::function<void()> on_end) {
  return std::make_unique<BuiltinLoad>(loop, std::move(cfg), std::move(emit), std::move(on_end));
}

}  // namespace loopdoctor::collector
