// The running figures /metrics reads for one observed loop: counters since
// its probe connected (CPU seconds, dropped samples, GC pauses by kind,
// blocks, threadpool waits), the sample its gauges show, the loop delay
// since the last scrape, and what the scheduler says of its process. A fixed
// set of numbers whatever the uptime.
//
// Not thread-safe by itself: ProcessTable's mutex guards its ProcessState.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>

#include "agent/exporter/process_cpu.h"
#include "analyzer/timeline/timeline.h"

namespace loopdoctor::exporter {

// Blocks of the loop counted from the native probe's `block` lines. A block
// is sent again every capture while it lasts, each line with the same
// `start` and the duration so far: the first line of a start counts the
// block, every line adds the growth of its duration, so the seconds counter
// moves while a block lasts and a block is never counted twice.
struct BlockCounter {
  double blocks_total = 0;
  double blocked_ms_total = 0;  // ms, as the lines carry it (sums of whole ms stay exact)
  // Add a capture; `start` is the probe's own (unshifted) clock, which is
  // the same for every line of one block.
  void add(double start, double duration_ms);

 private:
  bool any_ = false;
  double start_ = 0, duration_ms_ = 0;  // the block seen last
};

// What one capture added to a BlockCounter (the folded entry sums its
// workers' own counters by their growth).
struct BlockGrowth {
  double blocks = 0, blocked_ms = 0;
};

// prom-client's nodejs_gc_duration_seconds buckets, so its dashboards'
// histogram_quantile() queries keep their meaning.
inline constexpr std::array<double, 6> kGcBucketsSeconds = {0.001, 0.01, 0.1, 1, 2, 5};

struct GcHistogram {
  std::array<double, kGcBucketsSeconds.size()> cumulative{};  // count <= each bound
  double count = 0, sum_seconds = 0;
};

// The probe's GC kinds (minor|major|incremental|weak) under prom-client's
// label values (minor|major|incremental|weakcb); anything else is "unknown",
// so a probe cannot mint label values.
const char* prom_gc_kind(const std::string& probe_kind);

// Loop delay seen since the previous scrape (prom-client resets its histogram
// on each collect the same way), so a spike between two scrapes still shows
// in that scrape's max and p99. Held over when no sample arrived in between.
struct LagSinceScrape {
  bool any = false;
  double min_ms = 0, max_ms = 0, mean_ms = 0, p50_ms = 0, p90_ms = 0, p99_ms = 0, count = 0;
  void add(const DelayStats& d);
};

// libuv's threadpool queue wait from the probe's `threadpool` lines, summed
// since the process connected: each line adds its jobs and their waits.
struct ThreadpoolWait {
  bool seen = false;
  double waits_total = 0, wait_ms_total = 0;
  double size = 0;  // the last line's
  void add(const recording::Threadpool& line);
};

// What the scheduler and the cpu cgroup say about this entry's process
// (process_cpu.h), set on each sweep while its probe is connected: the
// process's sum and its cgroup's throttling on the main thread's entry (and
// an attached process's), each loop's own thread on its entry (the main
// thread's tid is the pid; a worker's is its hello's tid). Absent: unknown.
struct CpuWaitState {
  std::optional<SchedSeconds> process;
  std::optional<SchedSeconds> loop;
  std::optional<base::CgroupThrottle> throttle;
};

class ProcessCounters {
 public:
  // A probe sample: its CPU time and loop delay. The gauges' sample is set
  // apart (set_latest): a loop's is the sample itself, the folded entry's
  // the sum over its workers.
  void add_sample(const ProbeSample& s);
  void set_latest(ProbeSample s);
  // The probe's count of samples it dropped. A counter never goes down: a
  // loop's probe sends its total (a restarted one starts again, so the
  // highest seen counts); the folded entry adds each worker's growth.
  void note_dropped_total(double dropped_total);
  void add_dropped(double dropped);
  void add_gc(const GcEvent& g);
  // A block capture of this loop; the probe's own `start` tells the
  // captures of one block apart.
  void add_block(double probe_start, double duration_ms);
  // A capture of one of the folded entry's workers, by its own counter's growth.
  void add_block_growth(const BlockGrowth& g);
  // An attached process's /proc record: its CPU, RSS and fds.
  void add_proc(const ProcSample& p);
  void add_threadpool(const recording::Threadpool& line) { threadpool_wait_.add(line); }
  // Main thread: workers the probe did not sample (its threads-unsampled
  // lines; the last holds the total, and a count never goes down).
  void note_threads_unsampled(double count);
  // The sweep's reading of the whole process, and of this loop's thread.
  void set_process_cpu(const std::optional<SchedSeconds>& process,
                       const std::optional<base::CgroupThrottle>& throttle);
  void set_loop_cpu(const SchedSeconds& loop) { cpu_wait_.loop = loop; }

  // A scrape takes the delay seen since the previous one; with nothing new
  // (a scrape faster than the probe) it repeats the last figures it took.
  const LagSinceScrape& take_lag();

  bool have_sample() const { return have_sample_; }
  const ProbeSample& latest() const { return latest_; }  // the last as received (not merged)
  double cpu_user_seconds() const { return cpu_user_seconds_; }
  double cpu_system_seconds() const { return cpu_system_seconds_; }
  double cpu_total_seconds() const { return cpu_total_seconds_; }  // user+system, or /proc's
  double proc_rss() const { return proc_rss_; }
  double proc_fds() const { return proc_fds_; }
  double dropped_total() const { return dropped_total_; }
  double messages_total() const { return messages_total_; }
  const std::map<std::string, GcHistogram>& gc_by_kind() const { return gc_by_kind_; }
  const BlockCounter& blocks() const { return blocks_; }
  const ThreadpoolWait& threadpool_wait() const { return threadpool_wait_; }
  const CpuWaitState& cpu_wait() const { return cpu_wait_; }
  double threads_unsampled() const { return threads_unsampled_; }

 private:
  bool have_sample_ = false;
  ProbeSample latest_;
  LagSinceScrape lag_pending_, lag_published_;
  double cpu_user_seconds_ = 0, cpu_system_seconds_ = 0;  // from the probe
  double cpu_total_seconds_ = 0;
  double proc_rss_ = 0, proc_fds_ = 0;  // attached processes
  double dropped_total_ = 0;  // samples the probe dropped while we were slow or gone
  double messages_total_ = 0;
  std::map<std::string, GcHistogram> gc_by_kind_;  // prom-client kind names
  BlockCounter blocks_;
  ThreadpoolWait threadpool_wait_;
  CpuWaitState cpu_wait_;
  double threads_unsampled_ = 0;
};

}  // namespace loopdoctor::exporter
