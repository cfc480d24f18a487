// Counters of one load worker over one interval (a second, or the whole
// run), and their JSON forms. Merged across threads and seconds by summing.
#pragma once

#include <array>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "agent/load/histogram.h"
#include "recording/records.h"

namespace loopdoctor::load {

// wrk's error classes: each is counted once per failed event, never thrown.
struct Errors {
  std::uint64_t connect = 0;  // refused, unreachable, connect timeout
  std::uint64_t read = 0;     // reset, or closed with a response owed / cut short
  std::uint64_t write = 0;    // the request could not be written
  std::uint64_t timeout = 0;  // no complete response within Config::timeout_s
  std::uint64_t parse = 0;    // malformed response
  std::uint64_t total() const { return connect + read + write + timeout + parse; }
};

struct Stats {
  // http-parser accepts three-digit status codes only.
  static constexpr int kStatusSlots = 1000;

  std::uint64_t requests = 0;  // complete responses, any status
  std::uint64_t sent = 0;      // requests written
  std::uint64_t bytes = 0;     // bytes read from the server
  std::uint64_t non_2xx = 0;
  Errors errors;
  std::array<std::uint64_t, kStatusSlots> status{};
  Histogram latency;  // microseconds

  void record_response(int code, std::uint64_t latency_us) {
    ++requests;
    latency.record(latency_us);
    if (code >= 0 && code < kStatusSlots) ++status[code];
    if (code < 200 || code > 299) ++non_2xx;
  }
  void merge(const Stats& other);
  void reset();
};

// The records (recording/records.h) of one second and of the whole
// run, latency in ms rounded to microseconds; "t" is left 0 for the caller.
// rate_req_s > 0 sets the summary's rate and rate_not_met.
recording::LoadSecond second_record(const Stats& s, int second, double interval_s);
recording::LoadSummary summary_record(const Stats& s, double duration_s, double rate_req_s,
                                      bool rate_not_met);

// Their JSON fields without "type"/"t" (load.h's callbacks, `load --json`).
nlohmann::json second_json(const Stats& s, int second, double interval_s);
nlohmann::json summary_json(const Stats& s, double duration_s, double rate_req_s,
                            bool rate_not_met);

}  // namespace loopdoctor::load
