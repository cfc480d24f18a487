#include "block_profiler.h"

#include <uv.h>
#include <v8-profiler.h>
#include <v8.h>

#include <cstring>
#include <unordered_map>

#include "agent/protocol/block_limits.h"

namespace loopdoctor::probe {

namespace {
// V8 stamps samples with its monotonic clock, CLOCK_MONOTONIC on Linux as
// uv_hrtime(); a profile whose start is further than this from ours is on
// another clock and its samples cannot be placed in blocks: dropped. (The
// JS profiler's check, lib/config.js MAX_PROFILE_CLOCK_SKEW_MS.)
constexpr int64_t kMaxClockSkewUs = 50'000;

const char* const kTitles[2] = {"loopdoctor-blocks-0", "loopdoctor-blocks-1"};

v8::Local<v8::String> title(v8::Isolate* isolate, int which) {
  return v8::String::NewFromUtf8(isolate, kTitles[which]).ToLocalChecked();
}

bool is(const char* a, const char* b) { return a != nullptr && std::strcmp(a, b) == 0; }

std::string capped(const char* s) {
  return s == nullptr ? std::string() : cap_utf8(s, protocol::kMaxBlockStringBytes);
}

// The line most of a node's own samples were on (its per-line ticks), 0 when
// V8 kept none.
int hot_line(const v8::CpuProfileNode* node) {
  const unsigned n = node->GetHitLineCount();
  if (n == 0) return 0;
  std::vector<v8::CpuProfileNode::LineTick> ticks(n);
  if (!node->GetLineTicks(ticks.data(), n)) return 0;
  int best = 0;
  unsigned most = 0;
  for (const auto& t : ticks)
    if (t.hit_count > most) most = t.hit_count, best = t.line;
  return best;
}

// One sample's stack. The profile was taken with kCallerLineNumbers: a
// node's line is where its parent called it, so a frame's running line is
// its child's; the leaf's is its hottest line. (Its column is the
// function's own, not the call's: not sent.)
ProfileSample read_sample(const v8::CpuProfileNode* leaf, std::unordered_map<const v8::CpuProfileNode*, int>* hot) {
  ProfileSample s;
  const char* name = leaf->GetFunctionNameStr();
  const char* url = leaf->GetScriptResourceNameStr();
  if (url == nullptr || *url == '\0') {
    if (is(name, "(program)")) s.where = ProfileSample::Where::kNoJs;
    else if (is(name, "(garbage collector)") || is(name, "(idle)") || is(name, "(root)")) return s;
    else s.where = ProfileSample::Where::kNative;  // a binding, an API callback
  } else {
    s.where = ProfileSample::Where::kJs;
  }
  int line = 0;
  if (s.where == ProfileSample::Where::kJs) {
    auto [it, fresh] = hot->try_emplace(leaf, 0);
    if (fresh) it->second = hot_line(leaf);
    line = it->second;
  }
  for (const v8::CpuProfileNode* n = leaf; n != nullptr && s.frames.size() < protocol::kMaxBlockFrames;
       n = n->GetParent()) {
    const char* u = n->GetScriptResourceNameStr();
    if (u != nullptr && *u != '\0') s.frames.push_back({capped(n->GetFunctionNameStr()), capped(u), line, 0});
    else if (is(n->GetFunctionNameStr(), "(root)")) break;
    line = n->GetLineNumber();  // where its parent called it
  }
  return s;
}
}  // namespace

BlockProfiler::~BlockProfiler() {
  if (profiler_ != nullptr) profiler_->Dispose();
}

bool BlockProfiler::start_profile() {
  const int next = current_ == 0 ? 1 : 0;
  v8::CpuProfilingOptions options(v8::kCallerLineNumbers, kMaxProfileSamples);
  const uint64_t before = uv_hrtime();
  if (profiler_->StartProfiling(title(isolate_, next), std::move(options)) != v8::CpuProfilingStatus::kStarted)
    return false;
  current_ = next;
  started_ns_[next] = {before, uv_hrtime()};
  return true;
}

bool BlockProfiler::start(uint64_t interval_ns) {
  if (profiler_ != nullptr) return true;
  v8::HandleScope scope(isolate_);
  profiler_ = v8::CpuProfiler::New(isolate_, v8::kDebugNaming, v8::kLazyLogging);
  if (profiler_ == nullptr) return false;
  profiler_->SetSamplingInterval(static_cast<int>(interval_ns / 1000));
  if (start_profile()) return true;
  profiler_->Dispose();
  profiler_ = nullptr;
  return false;
}

void BlockProfiler::stop_profile(int which, std::vector<ProfileSample>* out) {
  const Started started = started_ns_[which];
  v8::CpuProfile* p = profiler_->StopProfiling(title(isolate_, which));
  if (p == nullptr) return;
  // V8 stamps the start somewhere inside StartProfiling, which walks every
  // compiled function first (tens of ms): it must lie between our reads.
  const int64_t start_us = p->GetStartTime();
  if (start_us + kMaxClockSkewUs >= static_cast<int64_t>(started.before_ns / 1000) &&
      start_us <= static_cast<int64_t>(started.after_ns / 1000) + kMaxClockSkewUs) {
    std::unordered_map<const v8::CpuProfileNode*, int> hot;
    const int n = p->GetSamplesCount();
    out->reserve(out->size() + static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      ProfileSample s = read_sample(p->GetSample(i), &hot);
      s.at_ns = static_cast<uint64_t>(p->GetSampleTimestamp(i)) * 1000;
      if (s.where != ProfileSample::Where::kOther) out->push_back(std::move(s));
    }
  }
  p->Delete();
}

bool BlockProfiler::harvest(std::vector<ProfileSample>* out) {
  if (profiler_ == nullptr) return false;
  v8::HandleScope scope(isolate_);
  const int old = current_;
  if (!start_profile()) return false;  // the old one goes on until finish()
  stop_profile(old, out);
  return true;
}

void BlockProfiler::finish(std::vector<ProfileSample>* out) {
  if (profiler_ == nullptr) return;
  {
    v8::HandleScope scope(isolate_);
    if (current_ >= 0) stop_profile(current_, out);
  }
  current_ = -1;
  profiler_->Dispose();
  profiler_ = nullptr;
}

}  // namespace loopdoctor::probe
