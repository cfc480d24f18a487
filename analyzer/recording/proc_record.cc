#include "analyzer/recording/proc_record.h"

namespace loopdoctor::recording {

Proc proc_record(const base::ProcSample& s, double t) {
  Proc p;
  p.t = t;
  p.cpu_ms = s.cpu_ms;
  p.rss = s.rss_bytes;
  p.threads = static_cast<double>(s.threads);
  p.fds = static_cast<double>(s.fds);
  p.ctx_voluntary = static_cast<double>(s.ctx_voluntary);
  p.ctx_involuntary = static_cast<double>(s.ctx_involuntary);
  p.has_io = s.io.has_value();
  if (s.io) {
    p.io_read_bytes = static_cast<double>(s.io->read_bytes);
    p.io_write_bytes = static_cast<double>(s.io->write_bytes);
  }
  return p;
}

}  // namespace loopdoctor::recording
