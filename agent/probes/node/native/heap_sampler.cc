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
      for (int i = 0; i < v.length(); ++i) {
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
  out += R"({"callFrame":{"functionName":)";
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
  out += '}';
  return out;
}

void heap_sampling_stop() {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  if (isolate == nullptr || !g_sampling) return;
  isolate->GetHeapProfiler()->StopSamplingHeapProfiler();
  g_sampling = false;
}

}  // namespace loopdoctor::probe
