// gen_recording: writes a synthetic but realistic loopdoctor recording, for
// measuring how the analyzer scales (bench/analyze-scale).
//
//   gen_recording <out.ndjson[.gz]> [seconds=3600] [interval_ms=10]
//
// The run looks like a healthy server under steady load: a probe `sample` and
// a `/proc` record every interval, minor GCs every ~250 ms, a major GC every
// ~30 s, one `load` record per second, and the meta/hello/listen/load-start/
// load-summary/load-end/exit records around them. Three loop stalls are
// planted at known times; they are printed on stdout as
//   spike <run time ms> <stall ms>
// so the caller can check that the analysis and the report keep them.
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

// A stall is a long synchronous block: the probe sends nothing during it, and
// its next sample covers the whole stall with delay max == the stall.
struct Spike {
  double at_fraction;  // of the run
  double stall_ms;
};
// The largest is in the middle, so "loop delay max" must be exactly it.
constexpr Spike kSpikes[] = {{0.25, 400}, {0.5, 650}, {0.75, 300}};

// The probe's clock starts this long after the collector's (run time).
constexpr double kProbeStartMs = 180;
// Output is buffered and handed to zlib in large blocks: one gzwrite per line
// would dominate the generator's run time.
constexpr std::size_t kFlushBytes = 1 << 20;

class Out {
 public:
  explicit Out(const std::string& path) {
    gz_ = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    if (gz_) gzf_ = gzopen(path.c_str(), "wb6");
    else f_ = std::fopen(path.c_str(), "wb");
    buf_.reserve(kFlushBytes + 4096);
  }
  ~Out() { close(); }
  Out(const Out&) = delete;
  Out& operator=(const Out&) = delete;

  bool ok() const { return gz_ ? gzf_ != nullptr : f_ != nullptr; }

  // printf-style, one record per call; the newline is added here.
  template <class... A>
  void line(const char* format, A... args) {
    char tmp[2048];
    int n = std::snprintf(tmp, sizeof tmp, format, args...);
    if (n < 0) return;
    buf_.append(tmp, static_cast<std::size_t>(std::min<int>(n, sizeof tmp - 1)));
    buf_.push_back('\n');
    if (buf_.size() >= kFlushBytes) flush();
  }

  bool close() {
    flush();
    bool good = !failed_;
    if (gzf_) good = gzclose(gzf_) == Z_OK && good, gzf_ = nullptr;
    if (f_) good = std::fclose(f_) == 0 && good, f_ = nullptr;
    return good;
  }

 private:
  void flush() {
    if (buf_.empty()) return;
    if (gzf_) failed_ |= gzwrite(gzf_, buf_.data(), static_cast<unsigned>(buf_.size())) <= 0;
    else if (f_) failed_ |= std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size();
    buf_.clear();
  }

  bool gz_ = false, failed_ = false;
  gzFile gzf_ = nullptr;
  std::FILE* f_ = nullptr;
  std::string buf_;
};

// One run's state, stepped one interval at a time. The random draws happen
// in a fixed order (collector records, then GC, then the sample), so the same
// arguments give the same file byte for byte.
class Generator {
 public:
  Generator(Out& out, double seconds, double interval)
      : out_(out), interval_(interval), end_ms_(seconds * 1000), load_end_(end_ms_ - 500) {}

  void header() {
    out_.line(R"({"command":["node","server.js"],"format":1,"host":"bench","interval_ms":%.1f,)"
              R"("loopdoctor_version":"0.1.0","pid":4242,"start_time":"2026-01-01T00:00:00.000Z","type":"meta"})",
              interval_);
    out_.line(R"({"rt":%.3f,"type":"hello","t":2.5,"v":1,"pid":4242,"runtime":"node",)"
              R"("versions":{"node":"20.20.2","v8":"11.3.244.8-node.38","uv":"1.46.0"},)"
              R"("argv":["/usr/bin/node","server.js"],"interval_ms":%g,"heap_limit":4345298944,"job":"node"})",
              kProbeStartMs + 3.1, interval_);
    out_.line(R"({"rt":%.3f,"type":"listen","t":40.2,"address":"127.0.0.1","port":38211})",
              kProbeStartMs + 41.0);
    for (const Spike& s : kSpikes) {
      double at = std::round(s.at_fraction * end_ms_ / interval_) * interval_;
      spike_at_.push_back(at);
      std::printf("spike %.0f %.0f\n", at, s.stall_ms);
    }
  }

  void body() {
    for (double t = interval_; t < end_ms_; t += interval_) {
      collector_records(t);
      const double probe_t = t - kProbeStartMs;  // probe clock
      if (probe_t <= 60) continue;
      gc_records(t + 0.3 + 0.5 * u_(rng_), probe_t, t);
      t += stall_at(t);
      sample_record(t);
    }
  }

  void footer() {
    const double stop = end_ms_;
    out_.line(R"({"bytes":%.0f,"duration_s":%.3f,"errors":{"connect":0,"read":0,"timeout":0,"write":0,"parse":0},)"
              R"("latency_ms":{"max":%.3f,"mean":2.4,"min":0.1,"p2_5":0.9,"p50":2.2,"p90":4.4,"p97_5":7.5,)"
              R"("p99":9.8,"p999":30.1,"stdev":1.9},"non_2xx":0,"requests":%.0f,"rps":%.3f,"sent":%.0f,)"
              R"("status":{"200":%.0f},"t":%.3f,"type":"load-summary"})",
              requests_total_ * 180, (load_end_ - kLoadStart) / 1000, kSpikes[1].stall_ms + 10,
              requests_total_, requests_total_ / ((load_end_ - kLoadStart) / 1000), requests_total_,
              requests_total_, load_end_);
    out_.line(R"({"exit_code":null,"t":%.3f,"type":"load-end"})", load_end_);
    out_.line(R"({"rt":%.3f,"type":"bye","t":%.3f,"dropped":0})", stop - 10, stop - 10 - kProbeStartMs);
    out_.line(R"({"code":null,"signal":"SIGINT","stopped_by_loopdoctor":true,"t":%.3f,"type":"exit"})", stop + 5);
  }

 private:
  static constexpr double kLoadStart = 1000;

  // /proc every interval, the load's records every second.
  void collector_records(double t) {
    cpu_ms_ += interval_ * (0.55 + 0.1 * u_(rng_));
    ctx_vol_ += 40 + static_cast<long>(10 * u_(rng_));
    ctx_invol_ += static_cast<long>(3 * u_(rng_));
    io_r_ += 4096 * u_(rng_), io_w_ += 8192 * u_(rng_);
    out_.line(R"({"cpu_ms":%.1f,"ctx_involuntary":%ld,"ctx_voluntary":%ld,"fds":%d,"io_read_bytes":%.0f,)"
              R"("io_write_bytes":%.0f,"rss":%.1f,"t":%.3f,"threads":11,"type":"proc"})",
              cpu_ms_, ctx_invol_, ctx_vol_, 60 + static_cast<int>(4 * u_(rng_)), io_r_, io_w_,
              90e6 + heap_ * 0.8, t + 0.4 * u_(rng_));
    if (!load_started_ && t >= kLoadStart) {
      out_.line(R"({"command":"http://127.0.0.1:38211/","kind":"builtin","t":%.3f,"type":"load-start"})", t);
      load_started_ = true;
    }
    if (load_started_ && t >= next_load_second_ && t < load_end_) {
      double rps = 2000 + 200 * u_(rng_);
      out_.line(R"({"bytes":%.0f,"errors":0,"interval_s":1.0,"latency_ms":{"max":%.3f,"p50":%.3f,)"
                R"("p90":%.3f,"p99":%.3f},"non_2xx":0,"requests":%.0f,"second":%.0f,"t":%.3f,"type":"load"})",
                rps * 180, 20 + 10 * u_(rng_), 2.1 + 0.3 * u_(rng_), 4 + u_(rng_), 9 + 2 * u_(rng_), rps,
                (next_load_second_ - kLoadStart) / 1000, t);
      requests_total_ += rps;
      next_load_second_ += 1000;
    }
  }

  // Young garbage accumulates between minor GCs; the live heap stays flat.
  void gc_records(double rt, double probe_t, double t) {
    heap_ += 0.4e6 * interval_ / 10 * (0.8 + 0.4 * u_(rng_));
    if (t >= next_minor_) {
      double d = 0.8 + 2.2 * u_(rng_);
      out_.line(R"({"rt":%.3f,"type":"gc","t":%.3f,"kind":"minor","duration_ms":%.3f})", rt, probe_t - d, d);
      heap_ = 30e6 + 2e6 * u_(rng_);
      next_minor_ += 200 + 100 * u_(rng_);
    }
    if (t >= next_major_) {
      double d = 6 + 8 * u_(rng_);
      out_.line(R"({"rt":%.3f,"type":"gc","t":%.3f,"kind":"major","duration_ms":%.3f})", rt, probe_t - d, d);
      heap_ = 30e6;
      next_major_ += 30000;
    }
  }

  // A planted stall: the loop was blocked, so no samples for its length, then
  // one sample whose interval spans it. Returns the stall (0 for none).
  double stall_at(double t) {
    stall_ = 0;
    if (next_spike_ < spike_at_.size() && t >= spike_at_[next_spike_]) {
      stall_ = kSpikes[next_spike_].stall_ms;
      ++next_spike_;
    }
    return stall_;
  }

  // The probe's sample for the interval ending at run time `st`.
  void sample_record(double st) {
    const double iv = st - sample_prev_;
    sample_prev_ = st;
    const double stall = stall_;
    const double dmax = stall > 0 ? stall : 0.3 + 2.5 * u_(rng_) * u_(rng_);
    const double dmin = 0.01 + 0.05 * u_(rng_);
    const double inflight = std::floor(3 * u_(rng_));
    const double reqs = std::floor(iv / 1000 * 2100 * (0.9 + 0.2 * u_(rng_)));
    out_.line(R"({"rt":%.3f,"type":"sample","t":%.3f,"interval_ms":%.3f,"delay":{"min":%.3f,"mean":%.3f,)"
              R"("max":%.3f,"p50":%.3f,"p90":%.3f,"p99":%.3f,"count":%d},"elu":%.3f,)"
              R"("cpu":{"user_us":%.0f,"system_us":%.0f},"mem":{"rss":%.0f,"heap_used":%.0f,)"
              R"("heap_total":%.0f,"external":%.0f,"array_buffers":%.0f},)"
              R"("handles":{"total":%d,"by_type":{"TCPServerWrap":1,"TCPSocketWrap":%d,"Timeout":%d}},)"
              R"("http":{"requests":%.0f,"responses":%.0f,"inflight":%.0f,"latency_mean_ms":%.3f,)"
              R"("latency_max_ms":%.3f},"dropped":0})",
              st + 0.3 + 0.5 * u_(rng_) + (stall > 0 ? 0.2 : 0), st - kProbeStartMs, iv, dmin,
              (dmin + dmax) / 3, dmax, dmax / 3, dmax * 0.8, dmax * 0.95,
              std::max(1, static_cast<int>(iv / 1.0)), stall > 0 ? 0.99 : 0.45 + 0.2 * u_(rng_),
              iv * 1000 * 0.5 * (0.9 + 0.2 * u_(rng_)), iv * 1000 * 0.08 * u_(rng_), 90e6 + heap_ * 0.8,
              heap_, heap_ * 1.4, 2.1e6, 0.4e6, 54 + static_cast<int>(inflight), 50 + static_cast<int>(inflight),
              3, reqs, reqs, inflight, 0.4 + 0.3 * u_(rng_) + stall / 2, 2 + 3 * u_(rng_) + stall);
  }

  Out& out_;
  const double interval_, end_ms_, load_end_;
  std::mt19937_64 rng_{42};  // fixed seed: the same file every time
  std::uniform_real_distribution<double> u_{0, 1};
  std::vector<double> spike_at_;
  std::size_t next_spike_ = 0;
  double stall_ = 0;
  double cpu_ms_ = 0, heap_ = 30e6, requests_total_ = 0;  // heap: bytes used, the probe's view
  double next_minor_ = 250, next_major_ = 30000, next_load_second_ = kLoadStart + 1000;
  double sample_prev_ = kProbeStartMs + 50;  // run time of the previous sample
  bool load_started_ = false;
  long ctx_vol_ = 0, ctx_invol_ = 0;
  double io_r_ = 0, io_w_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gen_recording <out.ndjson[.gz]> [seconds=3600] [interval_ms=10]\n");
    return 1;
  }
  const std::string path = argv[1];
  const double seconds = argc > 2 ? std::atof(argv[2]) : 3600;
  const double interval = argc > 3 ? std::atof(argv[3]) : 10;
  if (seconds < 2 || interval <= 0) {
    std::fprintf(stderr, "gen_recording: need seconds >= 2 and interval_ms > 0\n");
    return 1;
  }
  Out out(path);
  if (!out.ok()) {
    std::fprintf(stderr, "gen_recording: cannot write %s\n", path.c_str());
    return 2;
  }
  Generator gen(out, seconds, interval);
  gen.header();
  gen.body();
  gen.footer();
  if (!out.close()) {
    std::fprintf(stderr, "gen_recording: write to %s failed\n", path.c_str());
    return 2;
  }
  return 0;
}
