// The native probe's registration (Node-API): the functions probe.js calls.
// Context-aware: Node loads the module once per environment (the main
// thread, each worker thread), and each gets its own Instance: its own
// watchdog thread on its own loop, writing on its own connection.
// One thread per loop rather than one thread watching N loops: a loop's
// thread then sleeps and wakes on that loop's clock alone, the Watchdog stays
// one loop's logic, and the count is bounded (kMaxWatchedLoops); the cost of
// N threads is in docs/building.md (bench/probe-overhead with workers).
// The main thread's Instance is never freed, so nothing of it is destroyed
// under a thread still running at exit(); a worker's is stopped, its thread
// joined, its handle closed and freed when the worker ends, however it ends
// (its end, process.exit() in it, an uncaught throw, worker.terminate()).
// release() (`loopdoctor attach`'s detach) retires what start() made on any
// thread: the watchdog's thread joined, its loop handles closed, all of it
// freed, and the instance ready to start() again.
#include <fcntl.h>
#include <node_api.h>
#include <unistd.h>
#include <uv.h>

#include <atomic>
#include <string>

#include "abi_tag.h"
#include "agent/protocol/block_limits.h"
#include "gc_hooks.h"
#include "heap_sampler.h"
#include "line_writer.h"
#include "socket_writer.h"
#include "watchdog.h"

namespace loopdoctor::probe {
namespace {

// Watched loops in the process: the main thread and at most 64 workers, the
// JS probe's bound on sampled threads (lib/config.js MAX_SAMPLED_THREADS);
// a start past it fails and that loop runs the JS probe.
constexpr int kMaxWatchedLoops = 1 + 64;
std::atomic<int> g_watched{0};

// One environment's probe (Node-API instance data). The parts start()
// makes are null before it and again once retire() took them.
struct Instance {
  bool main_thread = false;  // on uv_default_loop(): never freed
  napi_env env = nullptr;
  LineWriter* writer = nullptr;
  Watchdog* watchdog = nullptr;
  GcHooks* gc = nullptr;
  SocketLink* link = nullptr;  // agent mode only
  // The env's cleanup hook, added at the first start() and kept for the
  // instance's life (Node refuses the same hook twice).
  bool hook_added = false;
  napi_async_cleanup_hook_handle cleanup = nullptr;  // a worker's
  bool cleaning = false;    // a worker's cleanup hook ran; Node waits for closes == 0
  int closes = 0;           // retired parts whose loop handles are closing
  bool cleaned = false;     // the worker's cleanup is over (Node was told)
  bool finalized = false;   // Node let go of the instance data
  // onBlock(fn): JS called after a block starts (the watchdog's async handle).
  napi_ref on_block = nullptr;
  napi_async_context block_ctx = nullptr;
};

// onBlock's reference and async context go (a worker's cleanup; onBlock(null)).
void drop_on_block(napi_env env, Instance* in) {
  if (in->watchdog != nullptr) in->watchdog->notify_blocks(nullptr, nullptr);
  if (in->on_block != nullptr) napi_delete_reference(env, in->on_block);
  in->on_block = nullptr;
}

Instance* instance(napi_env env) {
  void* data = nullptr;
  napi_get_instance_data(env, &data);
  return static_cast<Instance*>(data);
}

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

// The loop thread, woken by the watchdog's async handle after a block
// started: calls onBlock's function as any callback from the loop is
// called (a handle scope, its async context, microtasks after it).
void call_on_block(void* arg) {
  auto* in = static_cast<Instance*>(arg);
  if (in->on_block == nullptr) return;
  napi_env env = in->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_value fn = nullptr, recv = nullptr;  // recv: an object (napi_make_callback converts it)
  if (napi_get_reference_value(env, in->on_block, &fn) == napi_ok && fn != nullptr &&
      napi_get_global(env, &recv) == napi_ok) {
    napi_make_callback(env, in->block_ctx, recv, fn, 0, nullptr, nullptr);
  }
  bool pending = false;  // the probe's function never throws; if it did, it is not the app's
  napi_value ignored;
  if (napi_is_exception_pending(env, &pending) == napi_ok && pending) napi_get_and_clear_last_exception(env, &ignored);
  napi_close_handle_scope(env, scope);
}

// Main thread, env cleanup (process exit): the thread stops; the objects
// stay (see the top of the file).
void on_main_cleanup(void* arg) {
  auto* in = static_cast<Instance*>(arg);
  if (in->watchdog == nullptr) return;  // released, or never started
  in->watchdog->stop();
  in->watchdog->close_handle();
}

// A worker's cleanup is over once its hook ran and no retired part's
// handles are still closing: Node is told (its loop may close now), and the
// instance goes if Node already let go of it.
void finish_worker_cleanup(Instance* in) {
  if (!in->cleaning || in->closes > 0 || in->cleaned) return;
  in->cleaned = true;
  napi_remove_async_cleanup_hook(in->cleanup);
  if (in->finalized) delete in;
}

// What start() made, on their way out (retire()).
struct Retired {
  Instance* owner;
  LineWriter* writer;
  Watchdog* watchdog;
  GcHooks* gc;
  SocketLink* link;
};

// The thread is joined (it writes what is queued, on the writer's own fd),
// onBlock and the GC callbacks leave, the fd closes; once the loop has
// closed the watchdog's handles the parts are freed. JS thread. The
// instance can start() again at once; the main thread's old parts may
// still be closing then (`closes` counts them for a worker's cleanup).
void retire(Instance* in) {
  in->watchdog->stop();
  drop_on_block(in->env, in);
  if (in->block_ctx != nullptr) napi_async_destroy(in->env, in->block_ctx);
  in->block_ctx = nullptr;
  in->gc->disable();
  in->writer->close_fd();
  auto* r = new Retired{in, in->writer, in->watchdog, in->gc, in->link};
  in->writer = nullptr;
  in->watchdog = nullptr;
  in->gc = nullptr;
  in->link = nullptr;
  g_watched.fetch_sub(1);
  in->closes++;
  r->watchdog->close_handle([](void* a) {
    auto* done = static_cast<Retired*>(a);
    delete done->watchdog;  // frees its block sampler (block_sampler.h)
    delete done->gc;
    delete done->writer;
    delete done->link;      // after the writer that wrote on it
    Instance* in = done->owner;
    delete done;
    in->closes--;
    finish_worker_cleanup(in);
  }, r);
}

// A worker ends, however it ends: what runs is retired and Node waits for
// its handles to close (finish_worker_cleanup).
void on_worker_cleanup(napi_async_cleanup_hook_handle handle, void* arg) {
  auto* in = static_cast<Instance*>(arg);
  in->cleanup = handle;
  in->cleaning = true;
  if (in->watchdog != nullptr) retire(in);
  finish_worker_cleanup(in);
}

// The watchdog on this thread's loop, writing through `writer` (taken); the
// arguments after the first are start()'s: intervalMs, resolutionMs, nowMs,
// maxBufferedBytes.
bool start_watchdog(napi_env env, const Args& a, LineWriter* writer) {
  Instance* in = instance(env);
  uv_loop_t* loop = nullptr;
  bool counted = false;
  if (in != nullptr && napi_get_uv_event_loop(env, &loop) == napi_ok && loop != nullptr) {
    counted = g_watched.fetch_add(1) < kMaxWatchedLoops;
    if (!counted) g_watched.fetch_sub(1);
  }
  if (!counted) {
    writer->close_fd();
    delete writer;
    return false;
  }
  WatchdogConfig cfg;
  cfg.interval_ns = static_cast<uint64_t>(get_number(env, a.argv[1], 10) * 1e6);
  cfg.resolution_ns = static_cast<uint64_t>(get_number(env, a.argv[2], 10) * 1e6);
  cfg.t0_ns = uv_hrtime() - static_cast<uint64_t>(get_number(env, a.argv[3], 0) * 1e6);
  in->main_thread = loop == uv_default_loop();
  in->env = env;
  in->writer = writer;
  in->watchdog = new Watchdog(loop, writer, cfg);
  in->watchdog->start_thread();
  in->gc = new GcHooks(writer, cfg.t0_ns);
  if (!in->hook_added) {
    in->hook_added = true;
    if (in->main_thread) napi_add_env_cleanup_hook(env, on_main_cleanup, in);
    else napi_add_async_cleanup_hook(env, on_worker_cleanup, in, nullptr);
  }
  return true;
}

std::size_t max_buffered_arg(napi_env env, const Args& a) {
  return static_cast<std::size_t>(a.argc > 4 ? get_number(env, a.argv[4], 1 << 20) : (1 << 20));
}

// start(fd, intervalMs, resolutionMs, nowMs, maxBufferedBytes): true when
// running. The writer has its own copy of the fd: a worker's net.Socket is
// closed before its cleanup hooks run, and the thread must never write on a
// number the process may have reused by then.
napi_value Start(napi_env env, napi_callback_info info) {
  Args a = get_args(env, info);
  Instance* in = instance(env);
  if (in == nullptr || in->watchdog != nullptr || a.argc < 4) return js_bool(env, false);
  const int fd = static_cast<int>(get_number(env, a.argv[0], -1));
  const int own = fd < 0 ? -1 : ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (own < 0) return js_bool(env, false);
  return js_bool(env, start_watchdog(env, a, new LineWriter(own, max_buffered_arg(env, a))));
}

// startEndpoint(path, intervalMs, resolutionMs, nowMs, maxBufferedBytes,
// reconnectMinMs, reconnectMaxMs): agent mode (main thread only), the
// addon's own connection (socket_writer.h); true when running.
napi_value StartEndpoint(napi_env env, napi_callback_info info) {
  Args a = get_args(env, info);
  Instance* in = instance(env);
  if (in == nullptr || in->watchdog != nullptr || a.argc < 7) return js_bool(env, false);
  const std::string path = get_string(env, a.argv[0]);
  if (path.empty()) return js_bool(env, false);
  auto* link = new SocketLink(path, static_cast<uint64_t>(get_number(env, a.argv[5], 100) * 1e6),
                              static_cast<uint64_t>(get_number(env, a.argv[6], 5000) * 1e6));
  if (!start_watchdog(env, a, new LineWriter(link, max_buffered_arg(env, a)))) {
    delete link;
    return js_bool(env, false);
  }
  in->link = link;  // freed by retire() only: the main thread's stays to exit
  return js_bool(env, true);
}

// preamble(lines): agent mode, what every connection starts with (hello, listens).
napi_value Preamble(napi_env env, napi_callback_info info) {
  Args a = get_args(env, info);
  Instance* in = instance(env);
  if (in != nullptr && in->link != nullptr && a.argc >= 1) in->link->set_preamble(get_string(env, a.argv[0]));
  return js_undefined(env);
}

// connects(): agent mode, how many connections the addon has made (tests).
napi_value Connects(napi_env env, napi_callback_info) {
  Instance* in = instance(env);
  napi_value r;
  napi_create_double(env, in != nullptr && in->link != nullptr ? static_cast<double>(in->link->connects()) : 0, &r);
  return r;
}

// blocks(thresholdMs, intervalMs, thread): block stacks on, after start();
// true when on. probe.js always passes the first two; a non-number falls
// back to block_limits.h. thread: a worker's threadId, its lines name it.
napi_value Blocks(napi_env env, napi_callback_info info) {
  Args a = get_args(env, info);
  Instance* in = instance(env);
  if (in == nullptr || in->watchdog == nullptr || a.argc < 2) return js_bool(env, false);
  BlockConfig cfg;
  cfg.threshold_ns = static_cast<uint64_t>(get_number(env, a.argv[0], protocol::kDefaultBlockThresholdMs) * 1e6);
  cfg.interval_ns = static_cast<uint64_t>(get_number(env, a.argv[1], protocol::kDefaultBlockIntervalMs) * 1e6);
  const double thread = a.argc > 2 ? get_number(env, a.argv[2], 0) : 0;
  return js_bool(env, in->watchdog->enable_blocks(cfg, thread > 0 ? static_cast<uint32_t>(thread) : 0));
}

// send(lines, force): false when dropped.
napi_value Send(napi_env env, napi_callback_info info) {
  Args a = get_args(env, info);
  Instance* in = instance(env);
  if (in == nullptr || in->writer == nullptr || a.argc < 1) return js_bool(env, false);
  bool force = false;
  if (a.argc > 1) napi_get_value_bool(env, a.argv[1], &force);
  return js_bool(env, in->writer->append(get_string(env, a.argv[0]), force));
}

// gc(on): GC lines from V8's callbacks on or off; true when on.
napi_value Gc(napi_env env, napi_callback_info info) {
  Args a = get_args(env, info);
  Instance* in = instance(env);
  bool on = false;
  if (in == nullptr || in->gc == nullptr || a.argc < 1 || napi_get_value_bool(env, a.argv[0], &on) != napi_ok)
    return js_bool(env, false);
  if (!on) {
    in->gc->disable();
    return js_bool(env, false);
  }
  return js_bool(env, in->gc->enable());
}

napi_value Flush(napi_env env, napi_callback_info) {
  Instance* in = instance(env);
  if (in != nullptr && in->watchdog != nullptr) in->watchdog->request_flush();
  return js_undefined(env);
}

// update(memRest, handlesJson, httpJson | undefined, handoverMs, spacesJson)
napi_value Update(napi_env env, napi_callback_info info) {
  Args a = get_args(env, info);
  Instance* in = instance(env);
  if (in == nullptr || in->watchdog == nullptr || a.argc < 2) return js_undefined(env);
  JsView v;
  v.mem_rest = get_string(env, a.argv[0]);
  v.handles = get_string(env, a.argv[1]);
  if (v.handles.empty()) v.handles = R"({"total":0,"by_type":{}})";
  if (a.argc > 2) v.http = get_string(env, a.argv[2]);
  if (a.argc > 3) v.handover_ms = get_number(env, a.argv[3], v.handover_ms);
  if (a.argc > 4) v.spaces = get_string(env, a.argv[4]);
  const bool has_http = !v.http.empty();
  in->watchdog->update_js(std::move(v), has_http);
  return js_undefined(env);
}

napi_value HttpPending(napi_env env, napi_callback_info) {
  Instance* in = instance(env);
  return js_bool(env, in != nullptr && in->watchdog != nullptr && in->watchdog->http_pending());
}

// blocksSeen(): the blocks the watchdog has seen start on this loop (the
// profiler's on-block start polls it instead of timing a 10 ms JS timer).
napi_value BlocksSeen(napi_env env, napi_callback_info) {
  Instance* in = instance(env);
  napi_value r;
  napi_create_uint32(env, in != nullptr && in->watchdog != nullptr ? in->watchdog->blocks_seen() : 0, &r);
  return r;
}

// onBlock(fn | null): fn is called on the loop after each block the
// watchdog sees start (block stacks on), until onBlock(null); true when set.
napi_value OnBlock(napi_env env, napi_callback_info info) {
  Args a = get_args(env, info);
  Instance* in = instance(env);
  if (in == nullptr || in->watchdog == nullptr) return js_bool(env, false);
  drop_on_block(env, in);
  napi_valuetype type = napi_undefined;
  if (a.argc < 1 || napi_typeof(env, a.argv[0], &type) != napi_ok || type != napi_function) return js_bool(env, false);
  if (in->block_ctx == nullptr) {
    napi_value name;
    napi_create_string_utf8(env, "loopdoctor:block", NAPI_AUTO_LENGTH, &name);
    if (napi_async_init(env, nullptr, name, &in->block_ctx) != napi_ok) return js_bool(env, false);
  }
  if (napi_create_reference(env, a.argv[0], 1, &in->on_block) != napi_ok) return js_bool(env, false);
  in->watchdog->notify_blocks(call_on_block, in);
  return js_bool(env, true);
}

// ownWork(on): the JS probe starts (true) or ends (false) work of its own
// that may hold the loop (the inspector's Profiler.start): a block the
// watchdog sees meanwhile is the probe's (block_sampler.h).
napi_value OwnWork(napi_env env, napi_callback_info info) {
  Args a = get_args(env, info);
  Instance* in = instance(env);
  bool on = false;
  if (in != nullptr && in->watchdog != nullptr && a.argc >= 1 && napi_get_value_bool(env, a.argv[0], &on) == napi_ok)
    in->watchdog->own_work(on);
  return js_undefined(env);
}

napi_value StartSampling(napi_env env, napi_callback_info) {
  Instance* in = instance(env);
  if (in != nullptr && in->watchdog != nullptr) in->watchdog->start_sampling();
  return js_undefined(env);
}

napi_value StopSampling(napi_env env, napi_callback_info) {
  Instance* in = instance(env);
  if (in != nullptr && in->watchdog != nullptr) in->watchdog->stop_sampling();
  return js_undefined(env);
}

napi_value SampleNow(napi_env env, napi_callback_info) {
  Instance* in = instance(env);
  if (in != nullptr && in->watchdog != nullptr) in->watchdog->sample_now();
  return js_undefined(env);
}

napi_value Stop(napi_env env, napi_callback_info) {
  Instance* in = instance(env);
  if (in == nullptr || in->watchdog == nullptr) return js_undefined(env);
  in->watchdog->stop();
  in->writer->close_fd();  // the copy of the connection goes with the probe
  return js_undefined(env);
}

// release(): stop(), then everything start() made goes (retire()); start()
// may be called again. `loopdoctor attach`'s detach.
napi_value Release(napi_env env, napi_callback_info) {
  Instance* in = instance(env);
  if (in != nullptr && in->watchdog != nullptr) retire(in);
  return js_undefined(env);
}

napi_value Dropped(napi_env env, napi_callback_info) {
  Instance* in = instance(env);
  napi_value r;
  napi_create_double(env, in != nullptr && in->writer != nullptr ? static_cast<double>(in->writer->dropped()) : 0, &r);
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
      {"blocksSeen", nullptr, BlocksSeen, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"onBlock", nullptr, OnBlock, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"ownWork", nullptr, OwnWork, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"startSampling", nullptr, StartSampling, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"stopSampling", nullptr, StopSampling, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"sampleNow", nullptr, SampleNow, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"stop", nullptr, Stop, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"release", nullptr, Release, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"dropped", nullptr, Dropped, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  define_heap_sampler_exports(env, exports);
  // The tag lib/native.js reads in the file's bytes, also readable once
  // loaded; referenced here so that a linker's --gc-sections keeps it.
  napi_value tag;
  if (napi_create_string_utf8(env, loopdoctor_probe_abi_tag, NAPI_AUTO_LENGTH, &tag) == napi_ok)
    napi_set_named_property(env, exports, "abiTag", tag);
  // Freed with its environment, by whichever comes last of this finalizer
  // and a worker's cleanup (finish_worker_cleanup); the main thread's stays.
  napi_set_instance_data(env, new Instance, [](napi_env, void* data, void*) {
    auto* in = static_cast<Instance*>(data);
    in->finalized = true;
    // A worker whose hook was added is freed when its cleanup is over.
    if (!in->main_thread && (!in->hook_added || in->cleaned)) delete in;
  }, nullptr);
  return exports;
}

}  // namespace
}  // namespace loopdoctor::probe

NAPI_MODULE(NODE_GYP_MODULE_NAME, loopdoctor::probe::Init)
