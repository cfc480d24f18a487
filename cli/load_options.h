// The load options `run --load` and `loopdoctor load` share: declared once
// with one set of range checks, mapped to load::Config once.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "agent/load/load.h"

namespace loopdoctor::cli {

// Without -d the load runs this long (autocannon's default).
inline constexpr double kDefaultLoadDurationMs = 10000;

struct LoadFlags {
  int connections = 50;
  int threads = 1;
  std::string duration;  // as typed; "" when -d was not given
  double rate = 0;
  std::string method = "GET";
  std::vector<std::string> headers;
  std::string body;  // inline, or @file
  int pipelining = 1;
  std::string timeout = "10s";
};

// Declares -c, -t, -d, --rate, -m, -H, -b, -p and --timeout on `app`.
// `duration_help` differs: `run` also uses -d without load.
void add_load_options(CLI::App* app, LoadFlags* flags, const std::string& duration_help);

// Sets everything of `cfg` but the target (host, port, path) and
// max_requests; a -d that was not given means `default_duration_ms`.
// Returns "" or a message naming the bad value and what is accepted.
std::string apply_load_flags(const LoadFlags& flags, double default_duration_ms,
                             load::Config* cfg);

// The parsed -d in ms (0 when not given); false with a message when bad.
bool load_duration_ms(const LoadFlags& flags, double* ms, std::string* error);

}  // namespace loopdoctor::cli
