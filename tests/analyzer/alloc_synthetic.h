// Allocation sampling's lines and heap spaces added to a synthetic recording
// (synthetic.h), as the probe writes them: a live phase of three points in
// which buildSession (server.js:11, called from the anonymous handler at
// server.js:19) grows 3 MiB/s and touch 0.125 MiB/s, or a 2 s churn phase in
// which parseOrder allocates 62 % of the bytes.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

namespace loopdoctor::testing {

inline nlohmann::json alloc_line(const char* mode, double since, double t, nlohmann::json nodes, double total) {
  return {{"type", "alloc"}, {"t", t},       {"since", since},  {"mode", mode},
          {"interval_bytes", 131072}, {"total_bytes", total}, {"dropped_bytes", 0}, {"nodes", std::move(nodes)}};
}

inline std::vector<nlohmann::json> with_live_sites(std::vector<nlohmann::json> recs) {
  constexpr double kMiB = 1048576.0;
  const double session[] = {2, 8, 14}, touch[] = {0.5, 0.75, 1.0};
  for (int i = 0; i < 3; ++i) {
    nlohmann::json nodes = {
        {{"id", 1}, {"parent", 0}, {"fn", ""}, {"url", "file:///srv/app/server.js"}, {"line", 19}, {"column", 34}, {"self", 0}},
        {{"id", 2}, {"parent", 1}, {"fn", "buildSession"}, {"url", "file:///srv/app/server.js"}, {"line", 11}, {"column", 22},
         {"self", session[i] * kMiB}},
        {{"id", 3}, {"parent", 1}, {"fn", "touch"}, {"url", "file:///srv/app/server.js"}, {"line", 30}, {"column", 15},
         {"self", touch[i] * kMiB}}};
    recs.push_back(alloc_line("live", 2200, 4000 + 2000.0 * i, nodes, (session[i] + touch[i]) * kMiB));
  }
  return recs;
}

inline std::vector<nlohmann::json> with_churn_sites(std::vector<nlohmann::json> recs) {
  constexpr double kMiB = 1048576.0;
  nlohmann::json nodes = {
      {{"id", 1}, {"parent", 0}, {"fn", "handle"}, {"url", "/srv/app/server.js"}, {"line", 5}, {"column", 1}, {"self", 0}},
      {{"id", 2}, {"parent", 1}, {"fn", "parseOrder"}, {"url", "/srv/app/orders.js"}, {"line", 40}, {"column", 20},
       {"self", 62 * kMiB}},
      {{"id", 3}, {"parent", 1}, {"fn", "render"}, {"url", "/srv/app/server.js"}, {"line", 60}, {"column", 1},
       {"self", 38 * kMiB}}};
  recs.push_back(alloc_line("churn", 200, 2200, nodes, 100 * kMiB));
  return recs;
}

// Every sample's heap by space (new, old, code, large objects).
inline std::vector<nlohmann::json> with_heap_spaces(std::vector<nlohmann::json> recs) {
  for (auto& r : recs)
    if (r["type"] == "sample") {
      const double used = r["mem"]["heap_used"].get<double>();
      r["spaces"] = {{"new", used * 0.1}, {"old", used * 0.7}, {"code", used * 0.05}, {"large_object", used * 0.15}};
    }
  return recs;
}

}  // namespace loopdoctor::testing
