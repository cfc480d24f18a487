// Which frame of a stack a moment of blocked time is charged to, shared by
// the CPU profile's samples (profile_attribution) and the native probe's
// block stacks (block_attribution): both walk one stack from its innermost
// frame outwards, a profile through its nodes' parents, a block capture
// along its frame list.
//
// The rule: walk up from the innermost frame to the nearest application
// frame (a file of the target's own, outside node_modules); the frame just
// below it is the entry into Node or a library (pbkdf2Sync, readFileSync, a
// lodash call) and the application frame is its caller. A moment inside
// application code is charged to that function, with the next application
// frame up as caller. Without an application frame the first JavaScript
// frame is named (natives folded into it).
#pragma once

#include <utility>

#include "analyzer/attribution/profile.h"

namespace loopdoctor::profile {

// Stack walks stop here: deeper is runaway recursion, and a frame 200 levels
// down is not drawn anyway.
inline constexpr int kMaxStackDepth = 200;

inline bool is_js(FrameKind k) {
  return k == FrameKind::kApplication || k == FrameKind::kLibrary || k == FrameKind::kNode;
}

// `parent(i)`: the frame that called frame i, -1 at the outermost; `kind(i)`:
// its FrameKind. Returns the charged frame and the application frame that
// called it (-1: none).
template <class Parent, class Kind>
std::pair<int, int> charge(int leaf, Parent parent, Kind kind) {
  int below = -1, cur = leaf, depth = 0;
  while (cur >= 0 && kind(cur) != FrameKind::kApplication && kind(cur) != FrameKind::kRoot &&
         depth++ < kMaxStackDepth) {
    below = cur;
    cur = parent(cur);
  }
  if (cur >= 0 && kind(cur) == FrameKind::kApplication) {
    if (below >= 0) return {below, cur};  // the entry the application called
    int up = parent(cur);
    for (depth = 0; up >= 0 && kind(up) != FrameKind::kApplication && depth < kMaxStackDepth; ++depth)
      up = parent(up);
    return {cur, up};
  }
  int js = leaf;
  for (depth = 0; js >= 0 && !is_js(kind(js)) && depth < kMaxStackDepth; ++depth) js = parent(js);
  return {js >= 0 ? js : leaf, -1};
}

// The frame an allocation is charged to: the innermost frame of the
// application's or of a library's own code (Node's internals and natives,
// Buffer.from's, JSON.parse's, folded into it), with the application frame
// that called it. Unlike time, memory is named where it is made: what keeps
// a leak is express-session's MemoryStore `set`, not the app's `res.json`
// whose response ended in it.
template <class Parent, class Kind>
std::pair<int, int> charge_allocation(int leaf, Parent parent, Kind kind) {
  int site = leaf, depth = 0;
  while (site >= 0 && kind(site) != FrameKind::kApplication && kind(site) != FrameKind::kLibrary &&
         depth++ < kMaxStackDepth)
    site = parent(site);
  if (site < 0 || kind(site) == FrameKind::kRoot) return charge(leaf, parent, kind);  // Node's own alone
  int up = parent(site);
  for (depth = 0; up >= 0 && kind(up) != FrameKind::kApplication && depth < kMaxStackDepth; ++depth)
    up = parent(up);
  return {site, up};
}

// Where the user's own code made the call a moment is in: walking up from
// the innermost frame to the nearest frame for which `user` holds (an
// application script's: a template or eval'd code the application's files
// hold is not, it runs as part of the library that compiled it). Returns
// that frame and the frame just inside it (the entry into what it called;
// -1: the moment is the user's own code), or {-1, outermost frame} when no
// frame of the user's is on the stack.
template <class Parent, class User>
std::pair<int, int> user_boundary(int leaf, Parent parent, User user) {
  int below = -1, cur = leaf, depth = 0;
  while (cur >= 0 && !user(cur) && depth++ < kMaxStackDepth) {
    below = cur;
    cur = parent(cur);
  }
  return {cur >= 0 && user(cur) ? cur : -1, below};
}

}  // namespace loopdoctor::profile
