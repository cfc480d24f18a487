// The fields of a record that can hold a user's secret (docs/manual.md, "Secrets in
// reports"): the one list of them. The collector redacts a record through it
// before the record reaches the file (a killed loopdoctor never leaves a raw
// recording), and the timeline reader through it before a record enters the
// diagnosis (a recording made with --no-redact, or by an older loopdoctor).
// What counts as a secret inside a field is base/redact.h's alone.
//
//   meta              command (an argv)
//   hello             argv (an argv); job, process_name, thread_name,
//                     probe_fallback (texts: a job name may come from the
//                     environment, the others from a path or a message)
//   load-start        command (the URL loaded or the shell command), config.url
//   load-summary      config.url
//   warning           text
//   detach            reason
//   process-warnings  warnings[].message (the target's own messages)
//
// Every other record holds numbers, names the runtime chose (handle types,
// GC kinds, signals) or code locations (frames, profiles), and is written
// as received.
#pragma once

#include <nlohmann/json.hpp>

#include "recording/records.h"
#include "base/redact.h"

namespace loopdoctor::recording {

// Whether a record of this type has a field in the list above: the others
// can be written without a look (the hot ones: sample, proc, gc, block).
bool may_hold_secrets(Type type);

// Redacts, in place, the fields in the list above that `record` (one record
// object, its "type" read from it) holds; a field of an unexpected JSON type
// is left as it is (decoders read it as empty). Redacting twice gives what
// redacting once gave.
void redact_record(nlohmann::json* record, const base::Redactor& redactor);

}  // namespace loopdoctor::recording
