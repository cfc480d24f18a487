#include "agent/collector/proc_stats.h"

namespace loopdoctor::collector {

nlohmann::json proc_record(const ProcSample& s) {
  nlohmann::json r = {{"type", "proc"},
                      {"cpu_ms", s.cpu_ms},
                      {"rss", s.rss_bytes},
                      {"threads", s.threads},
                      {"fds", s.fds},
                      {"ctx_voluntary", s.ctx_voluntary},
                      {"ctx_involuntary", s.ctx_involuntary}};
  if (s.io) {
    r["io_read_bytes"] = s.io->read_bytes;
    r["io_write_bytes"] = s.io->write_bytes;
  }
  return r;
}

}  // namespace loopdoctor::collector
