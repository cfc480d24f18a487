// Patterns of blocking work recognised by Node's and V8's own code
// (pattern_recognisers.h): the top hotspot is a synchronous call into Node
// (its entry: pbkdf2Sync, readFileSync, zlib's syncBufferWrapper), its
// hottest line calls JSON (V8 inlines JSON.parse/stringify: no frame of
// theirs shows), or a regular expression ran (V8 names its compiled code
// "RegExp: <source>", a native frame below its caller; the interpreted
// engine's time falls on the calling line).
#include <fmt/format.h>

#include "analyzer/verdicts/pattern_recognisers.h"

namespace loopdoctor::patterns {
namespace {

bool in_module(std::string_view location, std::string_view module) {
  return location.starts_with(module) &&
         (location.size() == module.size() || location[module.size()] == ':' || location[module.size()] == '/');
}

bool sync_call(const Hotspot& h) { return std::string_view(h.function).ends_with("Sync"); }

const Hotspot* top_of(const Issue& issue) { return issue.hotspots.empty() ? nullptr : &issue.hotspots.front(); }

// The top hotspot as a match: its call and share, and what its line shows.
PatternMatch top_match(const PatternInputs& in, BlockPattern p, const Hotspot& h, std::string_view line_note = {},
                       std::string_view detail_note = {}) {
  return {p,
          h.share,
          fmt::format("{} ({})", h.function, h.location),
          share_text(h.share, in.of) + std::string(detail_note),
          fmt::format("{} ran during {}{}", named(h), share_text(h.share, in.of), line_note),
          h.location};
}

bool calls(const Hotspot& h, std::string_view what) { return h.hot_line_text.find(what) != std::string::npos; }

// A line that runs a regular expression: a RegExp method, or a String
// method given a regex literal or a name that says it holds one.
bool runs_regex(std::string_view line) {
  for (std::string_view m : {".test(", ".exec(", ".match(", ".matchAll(", ".search("})
    if (line.find(m) != std::string_view::npos) return true;
  for (std::string_view m : {".replace(", ".replaceAll(", ".split("}) {
    const auto at = line.find(m);
    if (at == std::string_view::npos) continue;
    std::string_view arg = line.substr(at + m.size());
    arg = arg.substr(0, arg.find_first_of(",)"));
    while (!arg.empty() && arg.front() == ' ') arg.remove_prefix(1);
    if (arg.starts_with("/") || arg.ends_with("RE") || arg.ends_with("Re") || arg.ends_with("Regex") ||
        arg.ends_with("REGEX") || arg.ends_with("Pattern") || arg.ends_with("PATTERN"))
      return true;
  }
  return false;
}

constexpr std::string_view kRegExpPrefix = "RegExp: ";

// The busiest compiled regular expression and the frame that ran it.
void busiest_regexp(const profile::FlameNode& n, const profile::FlameNode* parent, double* samples, double* top,
                    const profile::FlameNode** re, const profile::FlameNode** caller) {
  if (std::string_view(n.function).starts_with(kRegExpPrefix)) {
    *samples += n.samples;
    if (n.samples > *top) *top = n.samples, *re = &n, *caller = parent;
    return;
  }
  for (const auto& c : n.children) busiest_regexp(c, &n, samples, top, re, caller);
}

// ", run by `EMAIL_RE.test(email)` (app.js:11)": the line of the frame that
// ran the expression, from its hotspot or its own samples.
std::string regex_line(const Issue& issue, const profile::FlameNode* caller) {
  if (!caller) return "";
  if (const Hotspot* h = hotspot_at(issue, caller->function, caller->location)) {
    if (runs_regex(h->hot_line_text)) return fmt::format(", run by `{}` ({})", h->hot_line_text, h->hot_line);
    if (runs_regex(h->caller_line_text)) return fmt::format(", run by `{}` (in {})", h->caller_line_text, h->caller);
  }
  if (runs_regex(caller->self_line_text))
    return fmt::format(", run by `{}` ({})", caller->self_line_text, caller->self_line);
  return "";
}

std::optional<PatternMatch> regexp_frames(const PatternInputs& in) {
  const profile::Attribution& a = in.attribution;
  if (!a.present || a.samples == 0 || in.issue.hotspots_source != HotspotSource::kCpuProfile) return std::nullopt;
  double samples = 0, top = 0;
  const profile::FlameNode *re = nullptr, *caller = nullptr;
  busiest_regexp(a.flame, nullptr, &samples, &top, &re, &caller);
  if (!re) return std::nullopt;
  const double share = samples / static_cast<double>(a.samples);
  const std::string source = "/" + re->function.substr(kRegExpPrefix.size()) + "/";
  return PatternMatch{BlockPattern::kCatastrophicRegex, share, source, share_text(share, in.of),
                      fmt::format("The regular expression `{}` ran during {}{}", source, share_text(share, in.of),
                                  regex_line(in.issue, caller)),
                      caller ? caller->location : std::string()};
}

}  // namespace

std::optional<PatternMatch> sync_crypto(const PatternInputs& in) {
  const Hotspot* h = top_of(in.issue);
  if (!h || !(in_module(h->location, "node:internal/crypto") || in_module(h->location, "node:crypto"))) return {};
  if (!sync_call(*h) && !in_module(h->location, "node:internal/crypto/hash")) return {};
  return top_match(in, BlockPattern::kSyncCrypto, *h);
}

std::optional<PatternMatch> sync_fs(const PatternInputs& in) {
  const Hotspot* h = top_of(in.issue);
  if (!h || !(in_module(h->location, "node:fs") || in_module(h->location, "node:internal/fs")) || !sync_call(*h))
    return {};
  return top_match(in, BlockPattern::kSyncFs, *h);
}

std::optional<PatternMatch> sync_zlib(const PatternInputs& in) {
  const Hotspot* h = top_of(in.issue);
  // zlib's *Sync functions are made by syncBufferWrapper, which the profile names.
  if (!h || !in_module(h->location, "node:zlib") || !(sync_call(*h) || h->function == "syncBufferWrapper")) return {};
  return top_match(in, BlockPattern::kSyncZlib, *h);
}

std::optional<PatternMatch> stringify_line(const PatternInputs& in) {
  const Hotspot* h = top_of(in.issue);
  if (!h || !calls(*h, "JSON.stringify(") || calls(*h, "JSON.parse(")) return {};
  return top_match(in, BlockPattern::kStringifyPerRequest, *h, "; its hottest line calls JSON: `" + h->hot_line_text + "`",
                   ", on a line calling JSON");
}

std::optional<PatternMatch> json_parse(const PatternInputs& in) {
  const Hotspot* h = top_of(in.issue);
  if (!h || !calls(*h, "JSON.parse(")) return {};
  return top_match(in, BlockPattern::kJsonParse, *h, "; its hottest line calls JSON: `" + h->hot_line_text + "`",
                   ", on a line calling JSON");
}

std::optional<PatternMatch> catastrophic_regex(const PatternInputs& in) {
  std::optional<PatternMatch> frames = regexp_frames(in);
  const Hotspot* h = top_of(in.issue);
  if (h && runs_regex(h->hot_line_text) && (!frames || h->share > frames->share))
    return top_match(in, BlockPattern::kCatastrophicRegex, *h,
                     fmt::format("; its hottest line runs a regular expression: `{}` ({})", h->hot_line_text,
                                 h->hot_line));
  return frames;
}

}  // namespace loopdoctor::patterns
