// The loops of one process as the agent holds them: one table entry per
// probe connection (its main thread's, each sampled worker's, and the
// folded workers' past kMaxThreadsPerProcess), put back together as the one
// timeline the CLI's analyzer takes (Timeline::other_loops), so the agent's
// verdict per loop, its /processes and its /report/<pid> are those of
// analyzer/verdicts/loops.h and never a second implementation.
//
// Every function here needs the table's mutex held, or runs on the loop
// thread (the table's only writer).
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "agent/exporter/process_table.h"
#include "analyzer/analyze.h"

namespace loopdoctor::exporter {

struct ProcessLoops {
  ProcessTable::Id main = 0;               // 0: no main-thread entry (yet)
  std::vector<ProcessTable::Id> workers;   // ordered by threadId
  ProcessTable::Id folded = 0;             // the thread="other" entry, if any
};

// The probe entries grouped by process (pid label and job).
using LoopGroups = std::map<std::pair<long, std::string>, ProcessLoops>;
LoopGroups group_loops(const ProcessTable& table);

// The group of the probe entry `id`, or an empty group when `id` is unknown.
ProcessLoops loops_of(const ProcessTable& table, ProcessTable::Id id);

// Probe entries of the process (pid label, job) that count against
// kMaxThreadsPerProcess: its main thread and its workers, not the folded.
std::size_t loops_counted(const ProcessTable& table, long pid, const std::string& job);

// A worker's hello when its process already has kMaxThreadsPerProcess
// loops: the process's thread="other" entry (made on first use, then shared
// by every folded worker's connection), which counts one more connection.
ProcessTable::Id fold_worker(ProcessTable& table, ProcessIdentity id, double window_ms, int peer_pid);
// One folded connection closed; true when it was the entry's last.
bool release_folded(ProcessState* folded);

// The process's timeline over the window ending at `now_ms`: its main
// thread's, with each worker's as one of other_loops ({0, threadId}, named
// by its hello), and the folded and unsampled workers counted. Without a
// main-thread entry, the first worker's alone.
Timeline loops_timeline(const ProcessTable& table, const ProcessLoops& g, double now_ms);

// The verdicts of a process's loops over the window ending at `now_ms`,
// computed without changing the table (the loop thread analyses without
// the lock, then takes it to publish). With a main-thread entry, its loops
// go through analyze() together: each entry gets its own loop's verdict and
// the main thread's entry the run's too. Without one (workers whose main
// thread has not said hello yet), each worker is analysed alone.
struct LoopVerdicts {
  std::vector<std::pair<ProcessTable::Id, VerdictState>> loops;  // each loop's own
  ProcessTable::Id main = 0;
  VerdictState process;  // the run's, for `main`
};
LoopVerdicts analyse_loops(const ProcessTable& table, const ProcessLoops& g, double now_ms);
// Stores them on the entries still in the table.
void publish_loop_verdicts(ProcessTable& table, const LoopVerdicts& v);

// Workers of the process not exported on series of their own: folded into
// thread="other" by the agent, or left unsampled by the probe.
double threads_folded(const ProcessTable& table, const ProcessLoops& g);

}  // namespace loopdoctor::exporter
