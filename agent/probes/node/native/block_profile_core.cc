#include "block_profile_core.h"

namespace loopdoctor::probe {

void BlockLog::begin(uint64_t start_ns) {
  if (!blocks_.empty() && blocks_.back().end_ns == 0) blocks_.back().end_ns = start_ns;  // its end went unseen
  blocks_.push_back({start_ns, 0});
  if (blocks_.size() > kMaxLoggedBlocks) blocks_.pop_front();
}

void BlockLog::end(uint64_t end_ns) {
  if (!blocks_.empty() && blocks_.back().end_ns == 0) blocks_.back().end_ns = end_ns;
}

uint64_t BlockLog::block_at(uint64_t at_ns) const {
  for (auto it = blocks_.rbegin(); it != blocks_.rend(); ++it) {
    if (it->start_ns > at_ns) continue;
    return it->end_ns == 0 || at_ns <= it->end_ns ? it->start_ns : 0;
  }
  return 0;
}

void BlockProfilePolicy::native_block(uint32_t gen, uint64_t now_ns) {
  last_native_ns_ = now_ns;
  if (gen == last_gen_ && native_blocks_ > 0) return;
  last_gen_ = gen;
  ++native_blocks_;
}

BlockProfilePolicy::Action BlockProfilePolicy::due(uint64_t now_ns) const {
  if (failed_) return Action::kNone;
  if (running_) {
    if (now_ns >= last_native_ns_ + kProfileQuietNs) return Action::kStop;
    return now_ns >= harvested_ns_ + kProfileHarvestNs ? Action::kHarvest : Action::kNone;
  }
  // Blocks counted towards a start are those since the last run stopped.
  if (native_blocks_ < kProfileAfterNativeBlocks) return Action::kNone;
  if (started_ns_ != 0 && now_ns < started_ns_ + kProfileRestartNs) return Action::kNone;
  return Action::kStart;
}

void BlockProfilePolicy::done(Action a, uint64_t now_ns, bool ok) {
  if (!ok) {
    failed_ = true;
    running_ = false;
    return;
  }
  switch (a) {
    case Action::kStart:
      running_ = true;
      started_ns_ = harvested_ns_ = now_ns;
      break;
    case Action::kHarvest:
      harvested_ns_ = now_ns;
      break;
    case Action::kStop:
      running_ = false;
      native_blocks_ = 0;  // the next run needs native blocks to recur again
      break;
    case Action::kNone:
      break;
  }
}

std::vector<std::string> profile_block_lines(const std::vector<ProfileSample>& samples, const BlockLog& log,
                                             uint64_t t0_ns) {
  std::vector<std::string> lines;
  const auto ms = [t0_ns](uint64_t ns) { return ns >= t0_ns ? static_cast<double>(ns - t0_ns) / 1e6 : 0.0; };
  for (const ProfileSample& s : samples) {
    if (s.where == ProfileSample::Where::kOther) continue;  // GC or idle: charged with the next sample
    const uint64_t start = log.block_at(s.at_ns);
    if (start == 0) continue;
    const bool in_js = s.where == ProfileSample::Where::kJs;
    lines.push_back(block_line(ms(s.at_ns), ms(start), s.frames, in_js, {.by_profile = true}));
  }
  return lines;
}

}  // namespace loopdoctor::probe
