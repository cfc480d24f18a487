#include "analyzer/timeline/load_outcome.h"

#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"

namespace loopdoctor {
namespace {

using namespace thresholds;
using analysers::pct;

// The reason phrase of the statuses a failed load usually meets; "" for
// the rest, which are said by their code alone.
std::string_view reason_phrase(std::string_view code) {
  static constexpr std::pair<std::string_view, std::string_view> kPhrases[] = {
      {"301", "Moved Permanently"}, {"302", "Found"},           {"303", "See Other"},
      {"307", "Temporary Redirect"}, {"308", "Permanent Redirect"}, {"400", "Bad Request"},
      {"401", "Unauthorized"},      {"403", "Forbidden"},        {"404", "Not Found"},
      {"405", "Method Not Allowed"}, {"408", "Request Timeout"},  {"413", "Content Too Large"},
      {"429", "Too Many Requests"}, {"500", "Internal Server Error"}, {"502", "Bad Gateway"},
      {"503", "Service Unavailable"}, {"504", "Gateway Timeout"}};
  for (const auto& [c, phrase] : kPhrases)
    if (c == code) return phrase;
  return "";
}

std::string status_name(const std::string& code) {
  const std::string_view phrase = reason_phrase(code);
  return phrase.empty() ? code : code + " " + std::string(phrase);
}

// What to check for the failure that dominated: the one line of advice the
// sentence carries (the recommendations say more).
std::string status_hint(const std::string& code) {
  if (code == "404") return "check the --load path";
  if (code == "401" || code == "403")
    return "the server refused the requests: check the credentials they carry (--header)";
  if (code == "405") return "check --method";
  if (code == "429") return "the server rate-limited the load: lift the limit for the test, or lower --rate";
  if (code.starts_with("3")) return "the server redirected them: point --load at where it redirects";
  if (code.starts_with("5")) return "the server failed to answer: its own messages, passed through above, say why";
  return "check the request: the --load path, --method, --header and --body";
}

std::string error_hint(const std::string& kind) {
  if (kind == "connect") return "no connection could be made: check that the server listens where --load points";
  if (kind == "read") return "the server closed connections before answering";
  if (kind == "write") return "the requests could not be sent";
  if (kind == "timeout") return "no response came within the load's timeout (--timeout)";
  if (kind == "parse") return "the responses were not HTTP the load generator could read";
  return "the load generator's requests failed";
}

// "GET /api": the request the built-in load sent, its path without the
// scheme and host; "" when the recording does not say.
std::string request_line(const Timeline& tl) {
  if (!tl.load_config || tl.load_config->url.empty()) return "";
  const std::string& url = tl.load_config->url;
  std::string path = url;
  if (auto scheme = url.find("://"); scheme != std::string::npos) {
    const auto slash = url.find('/', scheme + 3);
    path = slash == std::string::npos ? "/" : url.substr(slash);
  }
  return (tl.load_config->method.empty() ? "GET" : tl.load_config->method) + " " + path;
}

std::string count(double n) { return fmt::format("{:.0f}", n); }

}  // namespace

LoadFailure load_failure(const Timeline& tl) {
  LoadFailure f;
  const LoadSummary& ls = tl.load_summary;
  if (!ls.present) return f;
  f.attempts = ls.requests + ls.errors;
  f.failures = ls.non_2xx + ls.errors;
  if (f.attempts <= 0) return f;
  f.share = f.failures / f.attempts;
  f.failed = f.share >= kLoadFailedShare;
  if (!f.failed) return f;

  for (const auto& [code, n] : ls.status)
    if (!code.starts_with("2") && n > f.top_count) f.top = code, f.top_is_status = true, f.top_count = n;
  const recording::LoadErrors& e = ls.error_classes;
  const std::pair<const char*, double> classes[] = {{"connect", e.connect}, {"read", e.read},
                                                    {"write", e.write},     {"timeout", e.timeout},
                                                    {"parse", e.parse},     {"other", e.unclassified}};
  for (const auto& [kind, n] : classes)
    if (n > f.top_count) f.top = kind, f.top_is_status = false, f.top_count = n;

  // "to GET /": the request loaded, when the recording says it.
  const std::string request = request_line(tl);
  const std::string to = request.empty() ? "" : " to " + request;
  std::string what;
  if (f.top_is_status && f.top_count >= f.failures) {
    // One status is every failure: say it as the responses' own.
    what = f.top_count >= f.attempts
               ? fmt::format("Every response{} was {} ({} of {} requests)", to, status_name(f.top),
                             count(f.top_count), count(f.attempts))
               : fmt::format("{} of responses{} were {} ({} of {} requests)", pct(f.top_count / f.attempts), to,
                             status_name(f.top), count(f.top_count), count(f.attempts));
  } else if (f.top_count > 0) {
    what = fmt::format("{} of requests{} failed ({} of {}), most {} ({})", pct(f.share), to, count(f.failures),
                       count(f.attempts), f.top_is_status ? "with " + status_name(f.top) : "by " + f.top,
                       count(f.top_count));
  } else {  // failures counted with no status or class to name (an older recording)
    what = fmt::format("{} of requests{} failed ({} of {})", pct(f.share), to, count(f.failures), count(f.attempts));
  }
  f.text = what + " — " + (f.top_is_status ? status_hint(f.top) : error_hint(f.top)) + ".";
  f.measured = f.top_is_status ? "the server answering " + f.top
               : f.top.empty() ? std::string("requests failing")
                               : "requests failing (" + f.top + ")";
  return f;
}

Saturation saturation(const Timeline& tl, const WindowStats& st, const LoadFailure& failure) {
  Saturation s;
  if (failure.failed || !tl.load_window || !analysers::enough_probe_data(st)) return s;
  // Requests reached this loop: the probe counted them, or (a probe without
  // request counts) the load generator answered them through the main thread.
  const bool served = st.http_present ? st.http_rps >= kMinLoadRps
                                      : tl.loop.is_main() && st.client_present && st.client_rps >= kMinLoadRps;
  if (!served || st.elu_mean < kSaturatedElu) return s;
  s.saturated = true;
  s.elu = st.elu_mean;
  s.rps = st.rps();
  if (st.client_present) s.client_p99_ms = st.client_latency_p99_ms;
  const std::string rps = fmt::format("{:.0f} req/s", s.rps);
  const std::string latency =
      s.client_p99_ms ? fmt::format("the clients' latency (p99 {:.0f} ms)", *s.client_p99_ms) : "its clients' latency";
  const std::optional<recording::LoadConfig>& cfg = tl.load_config;
  if (cfg && cfg->rate > 0) {
    s.text = fmt::format(
        "The load saturated the server at the {:g} req/s asked for{}: its loop was busy {} of the time, so it "
        "has no headroom at that rate, and {} includes the wait for it. A lower --rate measures the latency "
        "it gives with room to spare.",
        cfg->rate, tl.load_summary.rate_not_met ? ", which it did not keep up with" : "", pct(s.elu), latency);
    return s;
  }
  const std::string connections = cfg && cfg->connections > 0 ? fmt::format(" ({} connections)", cfg->connections) : "";
  s.text = fmt::format(
      "The load saturated the server: its loop was busy {} of the time, so {} is its capacity at this load{}, "
      "and {} is mostly the wait for it. To measure latency at a chosen rate, run with `--rate R` (req/s) "
      "below {:.0f}.",
      pct(s.elu), rps, connections, latency, s.rps);
  return s;
}

}  // namespace loopdoctor
