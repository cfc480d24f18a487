// Runs one load to completion on a private loop, with a safety deadline so
// a bug can fail a test but never hang it.
#pragma once

#include <uv.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "agent/load/load.h"

namespace loopdoctor::load::test {

struct Outcome {
  nlohmann::json summary;  // null when on_done never came
  std::vector<nlohmann::json> seconds;
  bool started = false;
};

// Safety net for every test run: far above any test's own length.
inline constexpr std::uint64_t kRunDeadlineMs = 15000;

inline Outcome run_to_end(const Config& cfg) {
  Outcome out;
  uv_loop_t loop;
  uv_loop_init(&loop);
  uv_timer_t deadline;
  uv_timer_init(&loop, &deadline);
  std::unique_ptr<Runner> runner = start(
      &loop, cfg, [&](const nlohmann::json& rec) { out.seconds.push_back(rec); },
      [&](const nlohmann::json& summary) {
        out.summary = summary;
        uv_close(reinterpret_cast<uv_handle_t*>(&deadline), nullptr);
      });
  out.started = runner != nullptr;
  if (!runner) {
    uv_close(reinterpret_cast<uv_handle_t*>(&deadline), nullptr);
  } else {
    deadline.data = runner.get();
    uv_timer_start(
        &deadline, [](uv_timer_t* t) { static_cast<Runner*>(t->data)->stop(); }, kRunDeadlineMs,
        0);
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  runner.reset();
  uv_loop_close(&loop);
  return out;
}

}  // namespace loopdoctor::load::test
