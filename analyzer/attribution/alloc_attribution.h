// Which code allocates the memory: the probe's allocation sampling (`alloc`
// lines, docs/contracts.md "Memory by site") turned into allocation sites,
// grouped as the CPU's hotspots are. Each sampled frame's bytes are charged
// by the same rule as a CPU sample (stack_charge.h): to the function the
// application called into, with the application frame that called it; the
// site is placed as a hotspot is (profile_attribution.h placed_hotspot:
// source-mapped, package-named, its caller at the line of the call).
//
// Two views, one per phase kind:
//  - live: at each point of the last live phase, the sampled bytes each
//    site still holds; its growth is the least-squares slope over the
//    points (at least two), its share of the growth of every site that grew.
//  - churn: the bytes each site allocated in the churn phase (what the
//    collections freed included), per second of the phase, and its share of
//    the phase's bytes.
// Pure functions of the timeline; tests feed hand-made alloc records.
#pragma once

#include <string>
#include <vector>

#include "analyzer/attribution/profile.h"
#include "analyzer/attribution/sourcemap/mapper.h"
#include "analyzer/diagnosis.h"
#include "analyzer/timeline/timeline.h"

namespace loopdoctor::alloc {

// A live point this long after the window's end still counts as its end:
// the probe reads the last one at `end`, which the collector sends as soon
// as the load stops (a busy loop takes a few hundred ms to get to it).
inline constexpr double kLivePointSlackMs = 500;

struct AllocAttribution {
  // Sites whose live bytes grew, by growth, largest first (at most
  // thresholds::kMaxAllocationSites, none under kMinAllocationShare or
  // kMinSiteGrowthBytesPerS); `live_points` points were read.
  std::vector<AllocationHotspot> live;
  std::size_t live_points = 0;
  double live_growth_bytes_per_s = 0;  // every growing site's slope, summed
  // Sites by bytes allocated in the churn phase, largest first.
  std::vector<AllocationHotspot> churn;
  double churn_bytes = 0;     // the phase's bytes allocated (dropped sites included)
  double churn_phase_s = 0;   // its length
  bool present() const { return live_points > 0 || churn_phase_s > 0; }
};

// The analysis window's allocation sites: the last live phase that started
// before the window's end (all its points: the last, at the end of the run,
// is the one that says what stayed), and the last churn phase overlapping the
// window (else the last one). Frames placed through `mapper` (nullptr: as V8
// named them).
AllocAttribution attribute(const Timeline& tl, const Window& w, sourcemap::Mapper* mapper);
// With `cpu` (the run's CPU profile), a site V8 inlined a hot application
// function into is named by that function, the site its caller.
AllocAttribution attribute(const std::vector<recording::Alloc>& allocs, const Window& w,
                           const profile::PathNamer& names, sourcemap::Mapper* mapper,
                           const profile::CpuProfile* cpu = nullptr);

// The site as every output names it: "buildSession (server.js:11) called
// from server.js:21".
std::string site_text(const AllocationHotspot& h);
// The sentence that leads a gc-pressure issue: "buildSession (server.js:11)
// called from server.js:21 — 87 % of the live heap's growth, 3.1 MB/s"
// (live), "62 % of the bytes allocated: parseOrder (orders.js:40), 41.0 MB/s"
// (churn).
std::string lead_text(const AllocationHotspot& h);
// The site's figure as a table cell shows it: "+3.1 MB/s" (live), "41.0 MB/s" (churn).
std::string rate_text(const AllocationHotspot& h);

// The sites of the gc-pressure issues: the live ones for a heap that grows
// (a leak, or growth not yet proven), else the churn ones; the first named
// at the head of the summary and evidence.
void attach(const AllocAttribution& a, Diagnosis* dx);

// A note per heap snapshot the probe wrote (`run --heap-snapshot`): where it
// is, its size and the pause it cost, and what to look for in it (the top
// allocation site's objects and their retainers); or why none was written.
void attach_heap_snapshots(const Timeline& tl, Diagnosis* dx);

}  // namespace loopdoctor::alloc
