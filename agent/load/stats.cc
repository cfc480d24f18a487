#include "agent/load/stats.h"

#include <cmath>
#include <string>

#include "base/units.h"

namespace loopdoctor::load {

namespace {

using base::kUsPerMs;

double ms(std::uint64_t us) { return static_cast<double>(us) / kUsPerMs; }

}  // namespace

void Stats::merge(const Stats& o) {
  requests += o.requests;
  sent += o.sent;
  bytes += o.bytes;
  non_2xx += o.non_2xx;
  errors.connect += o.errors.connect;
  errors.read += o.errors.read;
  errors.write += o.errors.write;
  errors.timeout += o.errors.timeout;
  errors.parse += o.errors.parse;
  for (int i = 0; i < kStatusSlots; ++i) status[i] += o.status[i];
  latency.merge(o.latency);
}

void Stats::reset() {
  requests = sent = bytes = non_2xx = 0;
  errors = Errors{};
  status.fill(0);
  latency.reset();
}

recording::LoadSecond second_record(const Stats& s, int second, double interval_s) {
  recording::LoadSecond r;
  r.second = second;
  r.interval_s = interval_s;
  r.requests = static_cast<double>(s.requests);
  r.bytes = static_cast<double>(s.bytes);
  r.errors = static_cast<double>(s.errors.total());
  r.non_2xx = static_cast<double>(s.non_2xx);
  const Histogram& h = s.latency;
  r.p50 = ms(h.percentile(50)), r.p90 = ms(h.percentile(90)), r.p99 = ms(h.percentile(99));
  r.max = ms(h.max());
  return r;
}

recording::LoadSummary summary_record(const Stats& s, double duration_s, double rate_req_s,
                                      bool rate_not_met) {
  recording::LoadSummary r;
  r.requests = static_cast<double>(s.requests);
  r.sent = static_cast<double>(s.sent);
  r.duration_s = duration_s;
  r.rps = duration_s > 0 ? static_cast<double>(s.requests) / duration_s : 0.0;
  r.bytes = static_cast<double>(s.bytes);
  const Histogram& h = s.latency;
  r.p50 = ms(h.percentile(50)), r.p90 = ms(h.percentile(90)), r.p99 = ms(h.percentile(99));
  r.max = ms(h.max());
  r.latency_detail = recording::LoadLatencyDetail{
      ms(h.min()),           ms(h.percentile(2.5)),           ms(h.percentile(97.5)),
      ms(h.percentile(99.9)), std::round(h.mean()) / kUsPerMs, std::round(h.stdev()) / kUsPerMs};
  const Errors& e = s.errors;
  r.errors = {static_cast<double>(e.connect), static_cast<double>(e.read),
              static_cast<double>(e.write), static_cast<double>(e.timeout),
              static_cast<double>(e.parse), 0};
  for (int code = 0; code < Stats::kStatusSlots; ++code)
    if (s.status[code]) r.status[std::to_string(code)] = static_cast<double>(s.status[code]);
  r.non_2xx = static_cast<double>(s.non_2xx);
  if (rate_req_s > 0) {
    r.rate = rate_req_s;
    r.rate_not_met = rate_not_met;
  }
  return r;
}

nlohmann::json second_json(const Stats& s, int second, double interval_s) {
  return recording::encode_fields(second_record(s, second, interval_s));
}

nlohmann::json summary_json(const Stats& s, double duration_s, double rate_req_s,
                            bool rate_not_met) {
  return recording::encode_fields(summary_record(s, duration_s, rate_req_s, rate_not_met));
}

}  // namespace loopdoctor::load
