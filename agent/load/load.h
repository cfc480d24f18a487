// Built-in HTTP/1.1 load generator on libuv.
// This header is the interface the collector and the CLI use; internals are
// free to change.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <uv.h>

namespace loopdoctor::load {

struct Config {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string path = "/";           // request target, with query
  std::string method = "GET";
  std::vector<std::string> headers;  // "Name: value"
  std::string body;
  int connections = 50;
  int threads = 1;                   // >1: extra worker threads, one loop each
  double duration_s = 10;            // 0: until max_requests
  std::uint64_t max_requests = 0;    // 0: until duration
  double rate = 0;                   // req/s, constant-rate mode when > 0
  int pipelining = 1;
  double timeout_s = 10;
};

// Parses "http://host:port/path" or "/path" (port then comes from the caller).
// Returns false and sets *error for anything else.
bool parse_target(const std::string& text, Config* cfg, std::string* error);

// Empty when cfg can run; otherwise a message naming the bad value and what
// is accepted (port, counts, rate, timeout, method, header, unresolvable
// host). start() returns nullptr for such a config.
std::string validate(const Config& cfg);

// Records are JSON objects without "type"/"t"; the caller stamps both.
//  per second: {"requests","bytes","errors","non_2xx","latency_ms":{"p50","p90","p99","max"}}
//  summary:    the `loopdoctor load --json` object of docs/manual.md (requests,
//              duration_s, rps, bytes, latency_ms{p50,p90,p99,max},
//              errors{connect,read,write,timeout,parse}, status{"200":n},
//              plus "rate_not_met": bool in constant-rate mode)
using RecordFn = std::function<void(const nlohmann::json&)>;

class Runner {
 public:
  virtual ~Runner() = default;
  // Ends the load early (Ctrl-C, target died); on_done still fires once.
  virtual void stop() = 0;
};

// Starts load on `loop` (the caller's thread runs it). on_second fires once
// per elapsed second, on_done once at the end with the summary. The returned
// Runner must outlive the load (until on_done).
std::unique_ptr<Runner> start(uv_loop_t* loop, const Config& cfg, RecordFn on_second,
                              RecordFn on_done);

}  // namespace loopdoctor::load
