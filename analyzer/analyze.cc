#include "analyzer/analyze.h"

#include <fstream>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "analyzer/verdicts/advice.h"
#include "analyzer/analysers/analysers.h"
#include "analyzer/attribution/alloc_attribution.h"
#include "analyzer/attribution/block_attribution.h"
#include "analyzer/verdicts/block_patterns.h"
#include "analyzer/verdicts/causes.h"
#include "analyzer/verdicts/loops.h"
#include "analyzer/timeline/process_warnings.h"
#include "analyzer/attribution/profile_attribution.h"

namespace loopdoctor {

Diagnosis analyze(const Timeline& tl) {
  Diagnosis dx = analyze_loop(tl);
  if (!tl.other_loops.empty()) combine_loops(tl, &dx);
  return dx;
}

namespace {

RecheckWords recheck_words(const Timeline& tl) {
  if (tl.agent_window)
    return {"watch the agent's next windows under the same traffic (its /report/<pid>)",
            "in the agent's next windows under the same traffic"};
  if (tl.attach.present) return {"attach again with the same options", "with the same attach and load"};
  return {};
}

}  // namespace

Diagnosis analyze_loop(const Timeline& tl) {
  const Window w = analysis_window(tl);
  WindowStats st = compute_window_stats(tl, w);
  // The profile sees GC work the pause observer misses (incremental marking
  // steps on the main thread), so its share joins the GC evidence.
  // One Mapper for both attributions: each script and its map is read once.
  sourcemap::Mapper mapper(tl.path_map);
  profile::Attribution profiled = profile::attribute(tl, w, &mapper);
  blocks::BlockAttribution blocked = blocks::attribute(tl, w, &mapper);
  blocks::charge_inlined_callee(&profiled.hotspots, &blocked);
  auto attribution = std::make_shared<const profile::Attribution>(std::move(profiled));
  if (attribution->present) st.gc_profile_share = attribution->gc_share;
  std::vector<Finding> findings = {
      analysers::delay(st),           analysers::utilisation(st),
      analysers::cpu(st),             analysers::gc(st, tl.heap_limit),
      analysers::memory(st, tl.heap_limit, tl.mem_limit), analysers::handles(st),
      analysers::http(st),
  };
  Diagnosis dx = combine(tl, st, std::move(findings), profile_garbage_is_a_blocking_call(*attribution));
  dx.recheck = recheck_words(tl);
  // Beyond its GC share, the CPU profile does not change the verdict; it
  // names the code behind it.
  profile::attach_profile(*attribution, st, &dx);
  // Block stacks name the code when no profile did; else they are shown
  // beside the profile's hotspots.
  blocks::attach_blocks(blocked, attribution->present && !attribution->hotspots.empty(), &dx);
  // Allocation sampling names where a gc-pressure issue's memory goes.
  alloc::attach(alloc::attribute(tl, w, &mapper), &dx);
  alloc::attach_heap_snapshots(tl, &dx);
  dx.window = w;
  dx.window_samples = st.samples;
  dx.stats = st;
  // Warnings of the whole run: most are emitted once, often at start-up.
  dx.warnings = summarize_warnings(tl, &mapper);
  attach_causes({tl, w, st, *attribution, dx.warnings}, &dx);
  profile::attach_map_problems(mapper.problems(), &dx);
  if (attribution->present) dx.attribution = std::move(attribution);
  return dx;
}

namespace {

// A paragraph that starts with this tag is advice for when the profile named
// no code (how to find it yourself); when hotspots exist, a paragraph that
// names the top one takes its place.
constexpr std::string_view kWithoutHotspotsTag = "[without-hotspots] ";
// A paragraph that starts with this tag is a general checklist, not read from
// this run's evidence: the report shows it behind a fold, after the advice
// that does apply. "[general unless json] ..." applies when the issue's cause
// is one of the words listed (cause.h to_string).
constexpr std::string_view kGeneralTag = "[general";

std::string top_hotspot_advice(const Hotspot& h, bool blocked_time, std::string_view action,
                               const RecheckWords& recheck) {
  const std::string pct = std::to_string(static_cast<int>(h.share * 100 + 0.5)) + " %";
  // No function to start with: say what is known, and what names it.
  if (h.function == blocks::kNativeUnknown)
    return "Most of the blocked time (" + pct + ") was spent in native code -- a builtin or binding such as "
           "JSON.parse, readFileSync, a RegExp, zlib or crypto -- and block stacks could not see which call "
           "entered it: V8 runs no interrupt inside one, and the probe samples such calls with V8's profiler "
           "only once they recur. To name it, " + recheck.again +
           " under load long enough for the blocks to recur (a run without --no-profile has a CPU profile too).";
  // Block stacks name a native call by its JavaScript function plus a note;
  // only the function goes in backticks.
  std::string code = h.function, note;
  if (code.ends_with(blocks::kInNativeSuffix)) {
    code.resize(code.size() - blocks::kInNativeSuffix.size());
    note = "in native code, ";
  }
  std::string where = h.location.empty() ? "" : " (" + note + h.location + ")";
  std::string caller = h.caller.empty() ? "" : ", called from " + h.caller;
  return "Start with `" + code + "`" + where + caller +
         (blocked_time ? ": it was running during " + pct + " of the time the loop was blocked"
                       : ": it took " + pct + " of the CPU profile") +
         " (see the hotspots). " + std::string(action) + ", then " + recheck.again + ".";
}

// The first advice of an issue whose memory has a site: that site, by the
// figure that ranked it, and what to do about what it looks like.
std::string allocation_advice(const AllocationHotspot& h, const RecheckWords& recheck) {
  std::string where = h.location.empty() ? "" : " (" + h.location + ")";
  std::string caller = h.caller.empty() ? "" : ", called from " + h.caller;
  const std::string figure =
      h.kind == AllocKind::kLive
          ? fmt::format("its live bytes grew {:.1f} MB/s, {:.0f} % of the live heap's growth",
                        h.growth_bytes_per_s / 1048576.0, h.share * 100)
          : fmt::format("it allocated {:.0f} % of the bytes ({:.1f} MB/s)", h.share * 100, h.bytes_per_s / 1048576.0);
  return "Start with `" + h.function + "`" + where + caller + ": " + figure + " (see the allocation sites). " +
         std::string(alloc_pattern_advice(h.pattern, h.kind == AllocKind::kLive)) + " Then " + recheck.again + ".";
}

// The texts' {again} and {confirm}: how this user sees the server again.
std::string with_recheck(std::string text, const RecheckWords& r) {
  for (const auto& [token, words] : {std::pair<std::string_view, const std::string*>{"{again}", &r.again},
                                     {"{confirm}", &r.confirm}})
    for (auto at = text.find(token); at != std::string::npos; at = text.find(token, at + words->size()))
      text.replace(at, token.size(), *words);
  return text;
}

// The paragraphs of a recommendations file, each with its internal line
// breaks folded into spaces.
std::vector<std::string> read_paragraphs(std::istream& in) {
  std::vector<std::string> out;
  std::string line, para;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) {
      if (!para.empty()) out.push_back(std::move(para));
      para.clear();
      continue;
    }
    para += para.empty() ? line : " " + line;
  }
  if (!para.empty()) out.push_back(std::move(para));
  return out;
}

// "[general] text" or "[general unless json sync-fs] text": whether the
// paragraph applies to an issue of this cause (a general one applies only
// when one of the listed causes is the issue's), and the text untagged.
std::pair<bool, std::string> general_tag(const std::string& para, CauseKind cause) {
  if (!para.starts_with(kGeneralTag)) return {true, para};
  const auto close = para.find("] ");
  if (close == std::string::npos) return {false, para};
  std::istringstream unless(para.substr(kGeneralTag.size(), close - kGeneralTag.size()));
  bool applies = false;
  for (std::string word; unless >> word;)
    if (word != "unless" && cause != CauseKind::kNone && word == to_string(cause)) applies = true;
  return {applies, para.substr(close + 2)};
}

// The issue's recommendations from its file's paragraphs: the cause's advice,
// then the file's paragraphs that apply to this run, then the general ones
// (Issue::applicable_recommendations counts the first part).
void recommend(Issue& issue, const std::vector<std::string>& paragraphs, const RecheckWords& recheck) {
  std::vector<std::string> applicable, general;
  if (!issue.cause.advice.empty()) applicable.push_back(issue.cause.advice);
  if (!issue.allocation_hotspots.empty())
    applicable.push_back(allocation_advice(issue.allocation_hotspots.front(), recheck));
  bool named_hotspot = false;
  for (const std::string& para : paragraphs) {
    if (para.starts_with(kWithoutHotspotsTag)) {
      if (issue.hotspots.empty()) {
        applicable.push_back(para.substr(kWithoutHotspotsTag.size()));
      } else if (!named_hotspot) {
        applicable.push_back(top_hotspot_advice(issue.hotspots.front(), issue.hotspots_blocked_time,
                                                hotspot_action(issue.advice), recheck));
        named_hotspot = true;
      }
      continue;
    }
    auto [applies, text] = general_tag(para, issue.cause.kind);
    (applies ? applicable : general).push_back(with_recheck(std::move(text), recheck));
  }
  issue.applicable_recommendations = applicable.size();
  issue.recommendations = std::move(applicable);
  issue.recommendations.insert(issue.recommendations.end(), general.begin(), general.end());
}

}  // namespace

bool attach_recommendations(Diagnosis* dx, const std::string& templates_dir, std::string* error) {
  bool ok = true;
  for (LoopDiagnosis& l : dx->loops)
    ok = attach_recommendations(&l.dx, templates_dir, error) && ok;
  for (Issue& issue : dx->issues) {
    const std::string stem =
        issue.advice == Advice::kVerdict ? to_string(issue.kind) : std::string(advice_file(issue.advice));
    const std::string path = templates_dir + "/recommendations/" + stem + ".txt";
    std::ifstream in(path);
    if (!in) {
      ok = false;
      if (error) *error = "cannot read recommendations '" + path + "'";
      continue;
    }
    recommend(issue, read_paragraphs(in), dx->recheck);
  }
  return ok;
}

}  // namespace loopdoctor
