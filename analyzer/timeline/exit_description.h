// How the target's run ended, said once: the diagnosis carries it and every
// output (report, terminal, notes) prints these words.
#pragma once

#include <optional>
#include <string>

#include "recording/record_words.h"
#include "analyzer/timeline/timeline.h"

namespace loopdoctor {

struct ExitDescription {
  std::string what;         // "exited with code 1 at 4.2 s"; empty when no exit was recorded
  std::string text;         // the whole phrase: what, and who ended it
  bool crash = false;       // ended by itself with a signal or a non-zero code
  bool by_itself = false;   // ended before loopdoctor stopped it
  // The target died: it ended by itself where it was meant to keep running
  // -- a crash, or a server's end (it listened, or load ran against it)
  // before loopdoctor stopped it and, when a load ran, before the load
  // ended. Such a run is never called healthy (rules.cc). A script with no
  // load that ends with code 0 has finished, not died: its end is the run's.
  bool died = false;
};

// The words for the exit itself are the recording's (record_words.h), shared
// with the collector's run limits.
using recording::exit_what;
using recording::exit_stopped;

ExitDescription describe_exit(const Timeline& tl);

// `loopdoctor attach`: "attached to process 1234, already running (not
// restarted)", with its own pid when a container's; "" for a run.
std::string attach_text(const Timeline& tl);

}  // namespace loopdoctor
