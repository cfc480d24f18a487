// The patterns of work that block a loop whose fix is known, so a blocked
// loop's first step fits what its code does: "serialise once and cache the
// string" for a response stringified per request, "rewrite the pattern" for
// a backtracking regular expression, not "make that call asynchronous" for
// every one. One table (block_patterns.cc) gives each pattern its name (the
// JSON's issues[].pattern), its cause (cause.h), how it is recognised, why
// it blocks and the first step; blocking_kind.cc builds the issue's cause
// from the best match. docs/verdicts.md, "Patterns of blocking work", lists
// them for users.
//
// Pure functions of an issue's hotspots and the profile's flame: tests use
// hand-made ones.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "analyzer/attribution/profile_attribution.h"
#include "analyzer/diagnosis.h"
#include "analyzer/verdicts/cause.h"

namespace loopdoctor {

enum class BlockPattern {
  kServerRender,        // react-dom's server renderer (renderToString, Fizz's performWork)
  kTemplatePerRequest,  // a template engine compiling (ejs, handlebars, pug, nunjucks, ...)
  kTemplateRender,      // a template engine running its templates, compiling little
  kSyncLogger,          // a logger or console writing on the loop (pino, winston, console.log)
  kSyncCrypto,          // a synchronous crypto call (pbkdf2Sync, Hash.update)
  kSyncFs,              // an fs *Sync call
  kSyncZlib,            // a zlib *Sync call
  kStringifyPerRequest, // JSON.stringify of a response (a hot line, Express's res.json, Fastify's serializer)
  kJsonParse,           // a hot line calling JSON.parse
  kCatastrophicRegex,   // a regular expression's engine (RegExp frames, or a hot line running one)
};

// What recognised a pattern in one issue.
struct PatternMatch {
  BlockPattern pattern = BlockPattern::kSyncCrypto;
  double share = 0;       // of the samples the issue's hotspots are shares of
  std::string subject;    // the cause's subject: "renderToString (react-dom 19.1.0 ...)", "/^(a+)+$/"
  std::string detail;     // the cause's figures: "63 % of the time the loop was blocked"
  std::string seen;       // what ran where, the advice's first sentence without its full stop
  std::string location;   // the frame the time is charged to (a listener is recognised by it); may be empty
};

// `of`: "of the time the loop was blocked" or "of the CPU profile", as the
// issue's shares are.
struct PatternInputs {
  const Issue& issue;
  const profile::Attribution& attribution;
  const std::string& of;
};

struct BlockPatternEntry {
  BlockPattern pattern;
  std::string_view name;         // the JSON word, issues[].pattern: "stringify-per-request"
  CauseKind cause;               // the issue's cause when it matches
  std::string_view recognised;   // how it is recognised, as docs/verdicts.md says it
  std::string_view why;          // why it blocks: a sentence
  std::string_view step;         // the first step: a sentence
  std::optional<PatternMatch> (*recognise)(const PatternInputs&);
  // The garbage the collector spends its time on is this call's own, and its
  // first step removes both (a cached render allocates nothing): GC beside
  // such a call is part of the same block, not the verdict (rules.cc).
  bool makes_its_garbage = false;
};

// The entry of a pattern: every output's words for it come from here.
const BlockPatternEntry& block_pattern(BlockPattern p);

// All of them, in the order that breaks a tie between two matches of the
// same share (the more specific first: a logger's writeSync is the
// logger's, not any fs call's).
std::span<const BlockPatternEntry> block_patterns();

// A template engine whose compiler runs during this share of the blocked
// time compiles on every request: a cached template compiles once, at its
// first request, one or two samples of a run (at the default 10 ms sampling,
// 2 s of blocked time are 200 samples, this share 20 of them).
inline constexpr double kRecurringCompileShare = 0.1;

// The pattern with the largest share at or over thresholds::kBlockingKindShare
// (ties: the table's order); none when nothing reaches it.
std::optional<PatternMatch> best_block_pattern(const PatternInputs& in);

// Whether the CPU profile's best pattern (whole profile, as a blocked-loop
// issue's hotspots would be) is one that makes its garbage: a server render
// or a template compiled per request at 18-22 % of the time in GC, as GC
// bound as churn samples by that share alone, is blocked by the render.
bool profile_garbage_is_a_blocking_call(const profile::Attribution& a);

}  // namespace loopdoctor
