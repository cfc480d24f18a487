// What the load measured, decided once for every output: whether most of
// its requests failed (the run then measured the failures, not the server's
// work). The rules read it (rules.cc: such a run is not called healthy);
// the JSON, the Markdown, the terminal and the report format the sentence
// made here.
#pragma once

#include <string>

#include "analyzer/timeline.h"

namespace loopdoctor {

struct LoadFailure {
  // failures / attempts >= kLoadFailedShare. Only the built-in load counts
  // failures; with an external one (--on-port) nothing is known: false.
  bool failed = false;
  double attempts = 0;  // complete responses (any status) + the load's errors
  double failures = 0;  // non-2xx responses + the load's errors
  double share = 0;     // failures / attempts
  // What failed most: a status code ("404") or one of the load generator's
  // error classes ("timeout", "connect", "read", "write", "parse").
  std::string top;
  bool top_is_status = false;
  double top_count = 0;
  // The sentence every output shows first, whatever the verdict: "Every
  // response to GET / was 404 Not Found (21307 of 21307 requests) — check
  // the --load path."; "" unless failed.
  std::string text;
  // What the run measured instead, for the verdict's sentence: "the server
  // answering 404", "requests failing (timeout)"; "" unless failed.
  std::string measured;
};

LoadFailure load_failure(const Timeline& tl);

}  // namespace loopdoctor
