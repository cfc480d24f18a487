#include "analyzer/cause.h"

namespace loopdoctor {

const char* to_string(CauseKind k) {
  switch (k) {
    case CauseKind::kNone: return "";
    case CauseKind::kUpstream: return "upstream";
    case CauseKind::kConnectionPool: return "connection-pool";
    case CauseKind::kThreadpool: return "threadpool";
    case CauseKind::kCpuQuota: return "cpu-quota";
    case CauseKind::kListenerLeak: return "listener-leak";
  }
  return "";
}

std::string Cause::line() const {
  std::string s = to_string(kind);
  if (!subject.empty()) s += " " + subject;
  if (!detail.empty()) s += ", " + detail;
  return s;
}

}  // namespace loopdoctor
