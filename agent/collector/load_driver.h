// Load started once the target reports its port: an --on-port command or the
// built-in generator. The session sees both through this interface.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>
#include <uv.h>

#include "agent/load/load.h"

namespace loopdoctor::collector {

// Writes a collector record; the session stamps "t".
using EmitFn = std::function<void(nlohmann::json)>;

class LoadDriver {
 public:
  virtual ~LoadDriver() = default;
  // Records load-start and starts. on_end (given at construction) fires once
  // when the load is over, after load-end was recorded, whichever way it ended.
  virtual void start(int port, const std::string& address) = 0;
  // Ends the load early (Ctrl-C, the target died); on_end still fires.
  virtual void stop() = 0;
  // Second Ctrl-C: no grace period.
  virtual void hurry() { stop(); }
  virtual bool running() const = 0;
  // The line shown before the load starts: what will be sent where.
  virtual std::string announcement(int port, const std::string& address) const = 0;
};

std::unique_ptr<LoadDriver> make_on_port_load(uv_loop_t* loop, std::string command_template,
                                              EmitFn emit, std::function<void()> on_end);

// Defined in builtin_load.cc.
std::unique_ptr<LoadDriver> make_builtin_load(uv_loop_t* loop, load::Config cfg, EmitFn emit,
                                              std::function<void()> on_end);

// "load: GET http://127.0.0.1:3000/slow, 50 connections, 10 s": the built-in
// load as it will run against a target listening on `port`/`address`. A URL
// given with its own host:port is loaded as given (the line says so when the
// target listens elsewhere); a path goes to the port the target listens on.
std::string builtin_load_line(const load::Config& cfg, int port, const std::string& address);
// `cfg` with the host and port the load is sent to.
load::Config builtin_load_target(load::Config cfg, int port, const std::string& address);

// Every "{port}" replaced by the port number.
std::string expand_port(const std::string& command_template, int port);

}  // namespace loopdoctor::collector
