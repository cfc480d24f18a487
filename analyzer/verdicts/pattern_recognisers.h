// How each pattern of block_patterns.h is recognised: one function per
// pattern, named in its table entry, and the frame search they share.
// Internal to analyzer/verdicts.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "analyzer/verdicts/block_patterns.h"

namespace loopdoctor::patterns {

// A frame as the recognisers see it, from the profile's flame or, without
// a profile, from an issue's hotspot (block stacks).
struct FrameView {
  std::string_view function, location;
  profile::FrameKind kind = profile::FrameKind::kApplication;
  std::string_view package() const;  // "express", "" (sourcemap::package_name_in)
};

using FramePredicate = bool (*)(const FrameView&);

// "84 % of the time the loop was blocked".
std::string share_text(double share, const std::string& of);

// "`pbkdf2Sync` (node:internal/crypto/pbkdf2:62), called from handler (server.js:16),"
std::string named(const Hotspot& h);

// The issue's hotspot (or block stacks' hotspot) of this function and place.
const Hotspot* hotspot_at(const Issue& issue, std::string_view function, std::string_view location);

// The time below frames that `is` accepts (counted at the outermost such
// frame of each stack: a frame that calls itself is not counted twice), as
// a match of `pattern`: from the profile's flame when the issue's hotspots
// are the profile's, else from the hotspots themselves. None when no frame
// is accepted.
std::optional<PatternMatch> frames_match(const PatternInputs& in, BlockPattern pattern, FramePredicate is);

// The recognisers: a match when the pattern is seen at all; the caller
// (best_block_pattern) weighs its share.
std::optional<PatternMatch> server_render(const PatternInputs& in);
std::optional<PatternMatch> template_per_request(const PatternInputs& in);
std::optional<PatternMatch> template_render(const PatternInputs& in);
std::optional<PatternMatch> sync_logger(const PatternInputs& in);
std::optional<PatternMatch> sync_crypto(const PatternInputs& in);
std::optional<PatternMatch> sync_fs(const PatternInputs& in);
std::optional<PatternMatch> sync_zlib(const PatternInputs& in);
std::optional<PatternMatch> stringify_per_request(const PatternInputs& in);
// The part of stringify_per_request seen on the top hotspot's hot line.
std::optional<PatternMatch> stringify_line(const PatternInputs& in);
std::optional<PatternMatch> json_parse(const PatternInputs& in);
std::optional<PatternMatch> catastrophic_regex(const PatternInputs& in);

}  // namespace loopdoctor::patterns
