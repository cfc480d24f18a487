#include "agent/exporter/socket_path.h"

#include <unistd.h>

#include <cstdlib>

namespace loopdoctor::exporter {

std::string default_socket_path() {
  if (geteuid() == 0) return "/run/loopdoctor/probe.sock";
  if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"); xdg && *xdg)
    return std::string(xdg) + "/loopdoctor/probe.sock";
  return "/tmp/loopdoctor-" + std::to_string(geteuid()) + "/probe.sock";
}

}  // namespace loopdoctor::exporter
