#include "heap_sampler.h"

#include <v8-profiler.h>
#include <v8.h>

#include <cstdint>
#include <cstdio>
#include <memory>

namespace loopdoctor::probe {
namespace {

// V8 keeps this many frames of each sample's stack (the inspector's
// default is 128 too): deeper stacks are cut at their innermost frames.
constexpr int kStackDepth = 128;

bool g_sampling = false;  // JS thread only

void append_json_string(std::string& out, v8::Isolate* isolate, v8::Local<v8::String> s) {
  out += '"';
  if (!s.IsEmpty()) {
    v8::String::Utf8Value v(isolate, s);
    if (*v != nullptr) {
      // length() is int up to V8 13 and size_t after (Node 26): take either.
      const auto n = v.length();
      for (decltype(v.length()) i = 0; i < n; ++i) {
        const unsigned char c = static_cast<unsigned char>((*v)[i]);
        if (c == '"' || c == '\\') {
          out += '\\';
          out += static_cast<char>(c);
        } else if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
      }
    }
  }
  out += '"';
}

// V8's positions here are 1-based (0: unknown); the inspector's 0-based.
int zero_based(int n) { return n > 0 ? n - 1 : -1; }

void append_node(std::string& out, v8::Isolate* isolate, const v8::AllocationProfile::Node* n) {
  uint64_t self = 0;
  for (const auto& a : n->allocations) self += static_cast<uint64_t>(a.size) * a.count;
  out += R"({"id":)" + std::to_string(n->node_id) + R"(,"callFrame":{"functionName":)";
  append_json_string(out, isolate, n->name);
  out += R"(,"url":)";
  append_json_string(out, isolate, n->script_name);
  out += R"(,"lineNumber":)" + std::to_string(zero_based(n->line_number));
  out += R"(,"columnNumber":)" + std::to_string(zero_based(n->column_number));
  out += R"(},"selfSize":)" + std::to_string(self) + R"(,"children":[)";
  bool first = true;
  for (const auto* c : n->children) {
    if (!first) out += ',';
    first = false;
    append_node(out, isolate, c);  // V8 bounds the depth (kStackDepth)
  }
  out += "]}";
}

}  // namespace

bool heap_sampling_start(double interval_bytes, bool include_collected) {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  if (isolate == nullptr) return false;
  heap_sampling_stop();
  auto flags = include_collected
                   ? static_cast<v8::HeapProfiler::SamplingFlags>(
                         v8::HeapProfiler::kSamplingIncludeObjectsCollectedByMajorGC |
                         v8::HeapProfiler::kSamplingIncludeObjectsCollectedByMinorGC)
                   : v8::HeapProfiler::kSamplingNoFlags;
  g_sampling = isolate->GetHeapProfiler()->StartSamplingHeapProfiler(
      static_cast<uint64_t>(interval_bytes), kStackDepth, flags);
  return g_sampling;
}

std::string heap_sampling_profile() {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  if (isolate == nullptr || !g_sampling) return {};
  v8::HandleScope scope(isolate);
  std::unique_ptr<v8::AllocationProfile> p(isolate->GetHeapProfiler()->GetAllocationProfile());
  if (!p || p->GetRootNode() == nullptr) return {};
  std::string out = R"({"head":)";
  append_node(out, isolate, p->GetRootNode());
  // Each sample as the inspector gives it (its bytes, its node, its ordinal:
  // V8 numbers samples in the order taken), so lib/alloc-line.js can tell
  // what was sampled before an earlier point from what came since.
  out += R"(,"samples":[)";
  bool first = true;
  for (const auto& s : p->GetSamples()) {
    if (!first) out += ',';
    first = false;
    out += R"({"nodeId":)" + std::to_string(s.node_id) + R"(,"size":)" +
           std::to_string(static_cast<uint64_t>(s.size) * s.count) + R"(,"ordinal":)" + std::to_string(s.sample_id) + '}';
  }
  out += "]}";
  return out;
}

void heap_sampling_stop() {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  if (isolate == nullptr || !g_sampling) return;
  isolate->GetHeapProfiler()->StopSamplingHeapProfiler();
  g_sampling = false;
}

namespace {

// lib/config.js ALLOC_DEFAULT_INTERVAL_BYTES, which JS always passes.
constexpr double kDefaultIntervalBytes = 512 * 1024;

napi_value bool_value(napi_env env, bool b) {
  napi_value v;
  napi_get_boolean(env, b, &v);
  return v;
}

// allocStart(intervalBytes, includeCollected): false if V8 refused. Main
// thread only: lib/alloc.js samples no worker's heap.
napi_value AllocStart(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok) return bool_value(env, false);
  double interval = kDefaultIntervalBytes;
  bool include_collected = false;
  if (argc > 0 && napi_get_value_double(env, argv[0], &interval) != napi_ok) interval = kDefaultIntervalBytes;
  if (argc > 1) napi_get_value_bool(env, argv[1], &include_collected);
  return bool_value(env, heap_sampling_start(interval, include_collected));
}

// allocProfile(): the profile so far as JSON text ("" when not sampling).
napi_value AllocProfile(napi_env env, napi_callback_info) {
  const std::string json = heap_sampling_profile();
  napi_value out;
  napi_create_string_utf8(env, json.data(), json.size(), &out);
  return out;
}

napi_value AllocStop(napi_env env, napi_callback_info) {
  heap_sampling_stop();
  napi_value v;
  napi_get_undefined(env, &v);
  return v;
}

}  // namespace

void define_heap_sampler_exports(napi_env env, napi_value exports) {
  const napi_property_descriptor props[] = {
      {"allocStart", nullptr, AllocStart, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"allocProfile", nullptr, AllocProfile, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"allocStop", nullptr, AllocStop, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
}

}  // namespace loopdoctor::probe
