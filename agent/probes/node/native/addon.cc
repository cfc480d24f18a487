// The native probe's registration (Node-API): the functions probe.js calls.
// One watchdog per process, on the main thread's loop; never freed, so
// nothing of it is destroyed under a thread still running at exit().
#include <node_api.h>
#include <uv.h>

#include <string>

#include "agent/protocol/block_limits.h"
#include "gc_hooks.h"
#include "line_writer.h"
#include "socket_writer.h"
#include "watchdog.h"

namespace loopdoctor::probe {
namespace {

LineWriter* g_writer = nullptr;
Watchdog* g_watchdog = nullptr;
GcHooks* g_gc = nullptr;
SocketLink* g_link = nullptr;  // agent mode only

constexpr std::size_t kMaxArgs = 8;  // startEndpoint() takes the most: 7

struct Args {
  napi_value argv[kMaxArgs];
  size_t argc = kMaxArgs;
};

Args get_args(napi_env env, napi_callback_info info) {
  Args a;
  napi_get_cb_info(env, info, &a.argc, a.argv, nullptr, nullptr);
  if (a.argc > kMaxArgs) a.argc = kMaxArgs;  // argc is the count passed; only kMaxArgs are filled
  return a;
}

double get_number(napi_env env, napi_value v, double fallback) {
  double d = fallback;
  if (napi_get_value_double(env, v, &d) != napi_ok) return fallback;
  return d;
}

// "" for undefined or a non-string.
std::string get_string(napi_env env, napi_value v) {
  size_t len = 0;
  if (napi_get_value_string_utf8(env, v, nullptr, 0, &len) != napi_ok) return {};
  std::string s(len, '\0');
  napi_get_value_string_utf8(env, v, s.data(), len + 1, &len);
  return s;
}

napi_value js_bool(napi_env env, bool b) {
  napi_value r;
  napi_get_boolean(env, b, &r);
  return r;
}

napi_value js_undefined(napi_env env) {
  napi_value r;
  napi_get_undefined(env, &r);
  return r;
}

void on_env_cleanup(void*) {
  if (g_watchdog == nullptr) return;
  g_watchdog->stop();
  g_watchdog->close_handle();
}

// The watchdog on this thread's loop, writing through `writer`; the
// arguments after the first are start()'s: intervalMs, resolutionMs, nowMs,
// maxBufferedBytes.
bool start_watchdog(napi_env env, const Args& a, LineWriter* writer) {
  const double interval_ms = get_number(env, a.argv[1], 10);
  const double resolution_ms = get_number(env, a.argv[2], 10);
  const double now_ms = get_number(env, a.argv[3], 0);
  uv_loop_t* loop = nullptr;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok || loop == nullptr) return false;
  WatchdogConfig cfg;
  cfg.interval_ns = static_cast<uint64_t>(interval_ms * 1e6);
  cfg.resolution_ns = static_cast<uint64_t>(resolution_ms * 1e6);
  cfg.t0_ns = uv_hrtime() - static_cast<uint64_t>(now_ms * 1e6);
  g_writer = writer;
  g_watchdog = new Watchdog(loop, g_writer, cfg);
  g_watchdog->start_thread();
  g_gc = new GcHooks(g_writer, cfg.t0_ns);
  napi_add_env_cleanup_hook(env, on_env_cleanup, nullptr);
  return true;
}

std::size_t max_buffered_arg(napi_env env, const Args& a) {
  return static_cast<std::size_t>(a.argc > 4 ? get_number(env, a.argv[4], 1 << 20) : (1 << 20));
}

// start(fd, intervalMs, resolutionMs, nowMs, maxBufferedBytes): true when running.
napi_value Start(napi_env env, napi_callback_info info) {
  Args a = get_args(env, info);
  if (g_watchdog != nullptr || a.argc < 4) return js_bool(env, false);
  const int fd = static_cast<int>(get_number(env, a.argv[0], -1));
  if (fd < 0) return js_bool(env, false);
  return js_bool(env, start_watchdog(env, a, new LineWriter(fd, max_buffered_arg(env, a))));
}

// startEndpoint(path, intervalMs, resolutionMs, nowMs, maxBufferedBytes,
// reconnectMinMs, reconnectMaxMs): agent mode, the addon's own connection
// (socket_writer.h); true when running.
napi_value StartEndpoint(napi_env env, napi_callback_info info) {
  Args a = get_args(env, info);
  if (g_watchdog != nullptr || a.argc < 7) return js_bool(env, false);
  const std::string path = get_string(env, a.argv[0]);
  if (path.empty()) return js_bool(env, false);
  auto* link = new SocketLink(path, static_cast<uint64_t>(get_number(env, a.argv[5], 100) * 1e6),
                              static_cast<uint64_t>(get_number(env, a.argv[6], 5000) * 1e6));
  g_link = link;
  return js_bool(env, start_watchdog(env, a, new LineWriter(link, max_buffered_arg(env, a))));
}

// preamble(lines): agent mode, what every connection starts with (hello, listens).
napi_value Preamble(napi_env env, napi_callback_info info) {
  Args a = get_args(env, info);
  if (g_link != nullptr && a.argc >= 1) g_link->set_preamble(get_string(env, a.argv[0]));
  return js_undefined(env);
}

// connects(): agent mode, how many connections the addon has made (tests).
napi_value Connects(napi_env env, napi_callback_info) {
  napi_value r;
  napi_create_double(env, g_link != nullptr ? static_cast<double>(g_link->connects()) : 0, &r);
  return r;
}

// blocks(thresholdMs, intervalMs): block stacks on, after start(); true when
// on. probe.js always passes both; a non-number falls back to block_limits.h.
napi_value Blocks(napi_env env, napi_callback_info info) {
  Args a = get_args(env, info);
  if (g_watchdog == nullptr || a.argc < 2) return js_bool(env, false);
  BlockConfig cfg;
  cfg.threshold_ns = static_cast<uint64_t>(get_number(env, a.argv[0], protocol::kDefaultBlockThresholdMs) * 1e6);
  cfg.interval_ns = static_cast<uint64_t>(get_number(env, a.argv[1], protocol::kDefaultBlockIntervalMs) * 1e6);
  return js_bool(env, g_watchdog->enable_blocks(cfg));
}

// send(lines, force): false when dropped.
napi_value Send(napi_env env, napi_callback_info info) {
  Args a = get_args(env, info);
  if (g_writer == nullptr || a.argc < 1) return js_bool(env, false);
  bool force = false;
  if (a.argc > 1) napi_get_value_bool(env, a.argv[1], &force);
  return js_bool(env, g_writer->append(get_string(env, a.argv[0]), force));
}

// gc(on): GC lines from V8's callbacks on or off; true when on.
napi_value Gc(napi_env env, napi_callback_info info) {
  Args a = get_args(env, info);
  bool on = false;
  if (g_gc == nullptr || a.argc < 1 || napi_get_value_bool(env, a.argv[0], &on) != napi_ok)
    return js_bool(env, false);
  if (!on) {
    g_gc->disable();
    return js_bool(env, false);
  }
  return js_bool(env, g_gc->enable());
}

napi_value Flush(napi_env env, napi_callback_info) {
  if (g_watchdog != nullptr) g_watchdog->request_flush();
  return js_undefined(env);
}

// update(memRest, handlesJson, httpJson | undefined)
napi_value Update(napi_env env, napi_callback_info info) {
  Args a = get_args(env, info);
  if (g_watchdog == nullptr || a.argc < 2) return js_undefined(env);
  JsView v;
  v.mem_rest = get_string(env, a.argv[0]);
  v.handles = get_string(env, a.argv[1]);
  if (v.handles.empty()) v.handles = R"({"total":0,"by_type":{}})";
  if (a.argc > 2) v.http = get_string(env, a.argv[2]);
  const bool has_http = !v.http.empty();
  g_watchdog->update_js(std::move(v), has_http);
  return js_undefined(env);
}

napi_value HttpPending(napi_env env, napi_callback_info) {
  return js_bool(env, g_watchdog != nullptr && g_watchdog->http_pending());
}

napi_value StartSampling(napi_env env, napi_callback_info) {
  if (g_watchdog != nullptr) g_watchdog->start_sampling();
  return js_undefined(env);
}

napi_value StopSampling(napi_env env, napi_callback_info) {
  if (g_watchdog != nullptr) g_watchdog->stop_sampling();
  return js_undefined(env);
}

napi_value SampleNow(napi_env env, napi_callback_info) {
  if (g_watchdog != nullptr) g_watchdog->sample_now();
  return js_undefined(env);
}

napi_value Stop(napi_env env, napi_callback_info) {
  if (g_watchdog != nullptr) g_watchdog->stop();
  return js_undefined(env);
}

napi_value Dropped(napi_env env, napi_callback_info) {
  napi_value r;
  napi_create_double(env, g_writer != nullptr ? static_cast<double>(g_writer->dropped()) : 0, &r);
  return r;
}

napi_value Init(napi_env env, napi_value exports) {
  const napi_property_descriptor props[] = {
      {"start", nullptr, Start, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"blocks", nullptr, Blocks, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"send", nullptr, Send, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"startEndpoint", nullptr, StartEndpoint, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"preamble", nullptr, Preamble, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"connects", nullptr, Connects, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"gc", nullptr, Gc, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"flush", nullptr, Flush, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"update", nullptr, Update, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"httpPending", nullptr, HttpPending, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"startSampling", nullptr, StartSampling, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"stopSampling", nullptr, StopSampling, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"sampleNow", nullptr, SampleNow, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"stop", nullptr, Stop, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"dropped", nullptr, Dropped, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

}  // namespace
}  // namespace loopdoctor::probe

NAPI_MODULE(NODE_GYP_MODULE_NAME, loopdoctor::probe::Init)
