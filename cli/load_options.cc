#include "cli/load_options.h"

#include <cstdlib>

#include "base/duration.h"
#include "base/file.h"
#include "agent/load/validate.h"
#include "base/units.h"

namespace loopdoctor::cli {
namespace {

using base::kMsPerS;

// CLI::NonNegativeNumber's message prints the range up to DBL_MAX in full.
std::string check_rate(std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(v >= 0))
    return "expected requests per second >= 0 (0: as fast as the connections go), not '" + text +
           "'";
  return {};
}

}  // namespace

void add_load_options(CLI::App* app, LoadFlags* f, const std::string& duration_help) {
  app->add_option("-c,--connections", f->connections, "Concurrent connections")
      ->capture_default_str()
      ->check(CLI::Range(1, load::kMaxConnections));
  app->add_option("-t,--threads", f->threads, "Load generator threads, one event loop each")
      ->capture_default_str()
      ->check(CLI::Range(1, load::kMaxThreads));
  app->add_option("-d,--duration", f->duration, duration_help);
  app->add_option("--rate", f->rate,
                  "Constant request rate, req/s; latency counts from each request's intended time")
      ->check(CLI::Validator(check_rate, "REQ/S"));
  app->add_option("-m,--method", f->method, "HTTP method")->capture_default_str();
  app->add_option("-H,--header", f->headers, "Request header 'Name: value' (repeatable)");
  app->add_option("-b,--body", f->body, "Request body, inline or @file");
  app->add_option("-p,--pipelining", f->pipelining, "Requests in flight per connection")
      ->capture_default_str()
      ->check(CLI::Range(1, load::kMaxPipelining));
  app->add_option("--timeout", f->timeout, "Response timeout: 10s, 500ms...")
      ->capture_default_str();
}

bool load_duration_ms(const LoadFlags& f, double* ms, std::string* error) {
  *ms = 0;
  if (f.duration.empty()) return true;
  if (!base::parse_duration_ms(f.duration, ms, error)) return false;
  if (*ms <= 0) {
    *error = "invalid duration '" + f.duration + "': must be greater than zero";
    return false;
  }
  return true;
}

std::string apply_load_flags(const LoadFlags& f, double default_duration_ms, load::Config* cfg) {
  std::string error;
  double ms = 0;
  if (!load_duration_ms(f, &ms, &error)) return error;
  cfg->duration_s = (f.duration.empty() ? default_duration_ms : ms) / kMsPerS;
  if (!base::parse_duration_ms(f.timeout, &ms, &error)) return "--timeout: " + error;
  cfg->timeout_s = ms / kMsPerS;
  cfg->connections = f.connections;
  cfg->threads = f.threads;
  cfg->rate = f.rate;
  cfg->method = f.method;
  cfg->headers = f.headers;
  cfg->pipelining = f.pipelining;
  if (f.body.starts_with("@")) {
    if (std::string err; !base::read_file(f.body.substr(1), &cfg->body, &err))
      return "--body @file: " + err;
  } else {
    cfg->body = f.body;
  }
  return {};
}

}  // namespace loopdoctor::cli
