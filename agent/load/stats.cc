#include "agent/load/stats.h"

#include <cmath>
#include <string>

namespace loopdoctor::load {

namespace {

constexpr double kUsPerMs = 1000.0;

double ms(std::uint64_t us) { return static_cast<double>(us) / kUsPerMs; }

nlohmann::json errors_json(const Errors& e) {
  return {{"connect", e.connect}, {"read", e.read},       {"write", e.write},
          {"timeout", e.timeout}, {"parse", e.parse}};
}

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

nlohmann::json latency_json(const Histogram& h, bool full) {
  nlohmann::json j = {{"p50", ms(h.percentile(50))},
                      {"p90", ms(h.percentile(90))},
                      {"p99", ms(h.percentile(99))},
                      {"max", ms(h.max())}};
  if (full) {
    j["min"] = ms(h.min());
    j["p2_5"] = ms(h.percentile(2.5));
    j["p97_5"] = ms(h.percentile(97.5));
    j["p999"] = ms(h.percentile(99.9));
    j["mean"] = std::round(h.mean()) / kUsPerMs;
    j["stdev"] = std::round(h.stdev()) / kUsPerMs;
  }
  return j;
}

nlohmann::json second_json(const Stats& s, int second, double interval_s) {
  return {{"second", second},
          {"interval_s", interval_s},
          {"requests", s.requests},
          {"bytes", s.bytes},
          {"errors", s.errors.total()},
          {"non_2xx", s.non_2xx},
          {"latency_ms", latency_json(s.latency, false)}};
}

nlohmann::json summary_json(const Stats& s, double duration_s, double rate_req_s,
                            bool rate_not_met) {
  nlohmann::json status = nlohmann::json::object();
  for (int code = 0; code < Stats::kStatusSlots; ++code)
    if (s.status[code]) status[std::to_string(code)] = s.status[code];
  nlohmann::json j = {
      {"requests", s.requests},
      {"sent", s.sent},
      {"duration_s", duration_s},
      {"rps", duration_s > 0 ? static_cast<double>(s.requests) / duration_s : 0.0},
      {"bytes", s.bytes},
      {"latency_ms", latency_json(s.latency, true)},
      {"errors", errors_json(s.errors)},
      {"status", status},
      {"non_2xx", s.non_2xx},
  };
  if (rate_req_s > 0) {
    j["rate"] = rate_req_s;
    j["rate_not_met"] = rate_not_met;
  }
  return j;
}

}  // namespace loopdoctor::load
