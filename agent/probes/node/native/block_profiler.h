// The block profiler, V8's side (block_profile_core.h says why and when):
// a v8::CpuProfiler of this thread's isolate, sampling at the block
// interval, its samples read into ProfileSamples. JS thread only, outside
// any JS (the watchdog's async callback, the probe's stop): V8's profiler is
// started, read and disposed on its isolate's thread.
#pragma once

#include <cstdint>
#include <vector>

#include "block_profile_core.h"

namespace v8 {
class CpuProfiler;
class Isolate;
}  // namespace v8

namespace loopdoctor::probe {

class BlockProfiler {
 public:
  explicit BlockProfiler(v8::Isolate* isolate) : isolate_(isolate) {}
  ~BlockProfiler();  // JS thread: finish() first (the sampler's stop does)
  BlockProfiler(const BlockProfiler&) = delete;
  BlockProfiler& operator=(const BlockProfiler&) = delete;

  // Starts sampling every interval_ns; false when V8 refused (then nothing runs).
  bool start(uint64_t interval_ns);
  // The samples since the last start or harvest, sampling on: a new
  // profile starts before the old one stops. false: it failed (stopped).
  bool harvest(std::vector<ProfileSample>* out);
  // The last samples; the profiler is disposed. Idempotent.
  void finish(std::vector<ProfileSample>* out);
  bool running() const { return profiler_ != nullptr; }

 private:
  bool start_profile();
  void stop_profile(int which, std::vector<ProfileSample>* out);

  v8::Isolate* const isolate_;
  v8::CpuProfiler* profiler_ = nullptr;
  int current_ = -1;  // the title of the profile running (0 or 1); -1: none
  struct Started {
    uint64_t before_ns = 0, after_ns = 0;  // uv_hrtime() around its StartProfiling
  };
  Started started_ns_[2];  // each title's profile
};

}  // namespace loopdoctor::probe
