#include "agent/load/summary_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace loopdoctor::load {

namespace {

// A last sample shorter than this is a sliver after the final full second;
// as a rate it would be noise, so the req/s table leaves it out.
constexpr double kMinSampleSeconds = 0.5;

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// 1234567 -> "1.23M", 12345 -> "12.3k": the magnitudes autocannon prints.
std::string human(double v, const char* unit = "") {
  const char* suffix = "";
  double x = v;
  // Thresholds sit half a unit low so 999.7 prints as "1.00k", not "1000".
  if (std::fabs(x) >= 999.5e6) { x /= 1e9; suffix = "G"; }
  else if (std::fabs(x) >= 999.5e3) { x /= 1e6; suffix = "M"; }
  else if (std::fabs(x) >= 999.5) { x /= 1e3; suffix = "k"; }
  std::string n = *suffix ? fmt(x >= 100 ? "%.0f" : x >= 10 ? "%.1f" : "%.2f", x) : fmt("%.0f", x);
  return n + suffix + unit;
}

// The object under key, or an empty one.
const nlohmann::json& sub(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  const auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kEmpty;
}

std::string ms(const nlohmann::json& j, const char* key) {
  return fmt("%.2f ms", j.value(key, 0.0));
}

class Table {
 public:
  void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  std::string str() const {
    std::vector<std::size_t> width;
    for (const auto& r : rows_)
      for (std::size_t i = 0; i < r.size(); ++i) {
        if (width.size() <= i) width.push_back(0);
        width[i] = std::max(width[i], r[i].size());
      }
    std::string rule = "+";
    for (std::size_t w : width) rule += std::string(w + 2, '-') + "+";
    std::ostringstream out;
    out << rule << "\n";
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      out << "|";
      for (std::size_t i = 0; i < width.size(); ++i) {
        const std::string cell = i < rows_[r].size() ? rows_[r][i] : "";
        out << " " << cell << std::string(width[i] - cell.size(), ' ') << " |";
      }
      out << "\n";
      if (r == 0) out << rule << "\n";
    }
    out << rule << "\n";
    return out.str();
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

// Percentile of a small sorted sample (nearest rank).
double nearest_rank(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  rank = std::clamp<std::size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

std::vector<std::string> sample_row(const char* name, std::vector<double> v, const char* unit) {
  std::sort(v.begin(), v.end());
  double mean = 0, var = 0;
  for (double x : v) mean += x;
  mean = v.empty() ? 0 : mean / static_cast<double>(v.size());
  for (double x : v) var += (x - mean) * (x - mean);
  const double stdev = v.size() > 1 ? std::sqrt(var / static_cast<double>(v.size())) : 0;
  return {name,
          human(nearest_rank(v, 1), unit),
          human(nearest_rank(v, 2.5), unit),
          human(nearest_rank(v, 50), unit),
          human(nearest_rank(v, 97.5), unit),
          human(mean, unit),
          human(stdev, unit),
          human(v.empty() ? 0 : v.front(), unit)};
}

}  // namespace

std::string status_line(const nlohmann::json& second, double elapsed_s, double total_s) {
  const double interval = second.value("interval_s", 1.0);
  const double rps = interval > 0 ? second.value("requests", 0.0) / interval : 0;
  std::string when = fmt("%.1fs", elapsed_s);
  if (total_s > 0) when += "/" + fmt(total_s == std::floor(total_s) ? "%.0fs" : "%.1fs", total_s);
  std::string line = when + "  " + human(rps) + " req/s  p99 " +
                     ms(sub(second, "latency_ms"), "p99") +
                     "  errors " + std::to_string(second.value("errors", 0));
  const auto non_2xx = second.value("non_2xx", 0);
  if (non_2xx) line += "  non-2xx " + std::to_string(non_2xx);
  return line;
}

std::string summary_text(const nlohmann::json& s, const std::vector<nlohmann::json>& seconds) {
  std::ostringstream out;
  const nlohmann::json& lat = sub(s, "latency_ms");
  Table latency;
  latency.row({"Stat", "2.5%", "50%", "90%", "97.5%", "99%", "99.9%", "Avg", "Stdev", "Max"});
  latency.row({"Latency", ms(lat, "p2_5"), ms(lat, "p50"), ms(lat, "p90"), ms(lat, "p97_5"),
               ms(lat, "p99"), ms(lat, "p999"), ms(lat, "mean"), ms(lat, "stdev"),
               ms(lat, "max")});
  out << latency.str();

  std::vector<double> rps, bps;
  for (const auto& sec : seconds) {
    const double interval = sec.value("interval_s", 1.0);
    if (interval < kMinSampleSeconds) continue;
    rps.push_back(sec.value("requests", 0.0) / interval);
    bps.push_back(sec.value("bytes", 0.0) / interval);
  }
  Table rates;
  rates.row({"Stat", "1%", "2.5%", "50%", "97.5%", "Avg", "Stdev", "Min"});
  rates.row(sample_row("Req/Sec", rps, ""));
  rates.row(sample_row("Bytes/Sec", bps, "B"));
  out << rates.str();
  out << "Req/Bytes counts sampled once per second; " << rps.size() << " samples.\n\n";

  out << human(s.value("requests", 0.0)) << " requests in " << fmt("%.2fs", s.value("duration_s", 0.0))
      << ", " << human(s.value("bytes", 0.0), "B") << " read, "
      << fmt("%.0f", s.value("rps", 0.0)) << " req/s\n";

  const nlohmann::json& errors = sub(s, "errors");
  std::uint64_t total_errors = 0;
  std::string detail;
  for (const auto& [name, n] : errors.items()) {
    total_errors += n.get<std::uint64_t>();
    if (n.get<std::uint64_t>()) detail += " " + name + " " + std::to_string(n.get<std::uint64_t>());
  }
  out << total_errors << " errors" << (detail.empty() ? "" : " (" + detail.substr(1) + ")") << "\n";
  std::string codes;
  for (const auto& [code, n] : sub(s, "status").items())
    codes += " " + code + ": " + std::to_string(n.get<std::uint64_t>());
  out << "status codes:" << (codes.empty() ? " none" : codes) << "  (non-2xx "
      << s.value("non_2xx", 0) << ")\n";
  if (s.contains("rate_not_met")) {
    out << "rate " << fmt("%.0f", s.value("rate", 0.0)) << " req/s: "
        << (s["rate_not_met"].get<bool>() ? "NOT met (the target could not keep up)" : "met")
        << "\n";
  }
  return out.str();
}

}  // namespace loopdoctor::load
