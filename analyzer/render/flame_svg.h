// A compact flame-style view (an icicle: callers above callees) of the
// stacks that held the loop, drawn as inline SVG by C++: no script, no
// network, every name escaped.
#pragma once

#include <string>

#include "analyzer/attribution/profile_attribution.h"

namespace loopdoctor::render {

// Frames under this share of the samples are not drawn: narrower than a few
// pixels, and not where the time went.
inline constexpr double kMinFlameShare = 0.005;
// Deeper rows are cut: a view of the top stacks, not every frame of them.
inline constexpr int kMaxFlameRows = 40;

// The <svg> element, or "" when the tree holds no sample. `what` names the
// samples' scope in tooltips ("blocked time").
std::string flame_svg(const profile::FlameNode& root, const std::string& what);

}  // namespace loopdoctor::render
