#include "recording/proc_record.h"

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
  if (s.sched) {
    p.has_sched = true;
    p.sched_run_ms = static_cast<double>(s.sched->run_ns) / 1e6;
    p.sched_wait_ms = static_cast<double>(s.sched->wait_ns) / 1e6;
  }
  set_cpu_cgroup(&p, s.throttle, s.quota_cores);
  p.mem_limit = s.mem_limit_bytes.value_or(0);
  return p;
}

void set_cpu_cgroup(Proc* p, const std::optional<base::CgroupThrottle>& throttle,
                    const std::optional<double>& quota_cores) {
  if (throttle) {
    p->has_throttle = true;
    p->cg_periods = static_cast<double>(throttle->periods);
    p->cg_throttled = static_cast<double>(throttle->throttled);
    p->cg_throttled_ms = throttle->throttled_ms;
  }
  p->cpu_quota_cores = quota_cores.value_or(0);
}

}  // namespace loopdoctor::recording
