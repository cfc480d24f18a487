// Used instead of builtin_load.cc while agent/load is an interface-only stub
// (see CMakeLists.txt): a --load run then says so instead of failing to link.
#include <utility>

#include <spdlog/spdlog.h>

#include "agent/collector/load_driver.h"

namespace loopdoctor::collector {
namespace {

class UnavailableLoad final : public LoadDriver {
 public:
  UnavailableLoad(EmitFn emit, std::function<void()> on_end)
      : emit_(std::move(emit)), on_end_(std::move(on_end)) {}

  void start(int, const std::string&) override {
    const char* text = "this build has no built-in load generator; use --on-port";
    spdlog::error("{}", text);
    emit_({{"type", "warning"}, {"text", text}});
    on_end_();
  }
  void stop() override {}
  bool running() const override { return false; }
  std::string announcement(int, const std::string&) const override {
    return "load: none (no built-in load in this build)";
  }

 private:
  EmitFn emit_;
  std::function<void()> on_end_;
};

}  // namespace

std::unique_ptr<LoadDriver> make_builtin_load(uv_loop_t*, load::Config, EmitFn emit,
                                              std::function<void()> on_end) {
  return std::make_unique<UnavailableLoad>(std::move(emit), std::move(on_end));
}

}  // namespace loopdoctor::collector
