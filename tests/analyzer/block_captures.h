// Hand-made block captures for the block-stack attribution tests
// (block_attribution_test.cc, inlined_callee_test.cc).
#pragma once

#include <utility>
#include <vector>

#include "analyzer/attribution/block_attribution.h"
#include "analyzer/attribution/profile_attribution.h"

namespace loopdoctor::testing {

using recording::BlockFrame;

inline const BlockFrame kSpin{"spin", "/srv/app/server.js", 5, 3};
inline const BlockFrame kHash{"hash", "/srv/app/server.js", 9, 7};
inline const BlockFrame kHandler{"", "/srv/app/server.js", 14, 5};
inline const BlockFrame kPbkdf2{"pbkdf2Sync", "node:internal/crypto/pbkdf2", 62, 9};
inline const BlockFrame kEmit{"emit", "node:events", 517, 28};
inline const BlockFrame kLodash{"cloneDeep", "/srv/app/node_modules/lodash/lodash.js", 11, 2};

inline BlockCapture capture(double start, double duration, std::vector<BlockFrame> frames,
                            bool in_native = false) {
  return BlockCapture{start + duration, start, duration, in_native, std::move(frames)};
}

inline blocks::BlockAttribution run(const std::vector<BlockCapture>& cs, Window w = {0, 100000}) {
  return blocks::attribute(cs, w, profile::PathNamer({"node", "/srv/app/server.js"}));
}

// A diagnosis with a blocked-loop issue and a gc-pressure one, to attach to.
inline Diagnosis blocked_diagnosis() {
  Diagnosis dx;
  Issue blocked;
  blocked.kind = Verdict::kBlockedLoop;
  Issue gc;
  gc.kind = Verdict::kGcPressure;
  dx.issues = {blocked, gc};
  return dx;
}

}  // namespace loopdoctor::testing
