#include "analyzer/verdicts/cause.h"

namespace loopdoctor {

const char* to_string(CauseKind k) {
  switch (k) {
    case CauseKind::kNone: return "";
    case CauseKind::kUpstream: return "upstream";
    case CauseKind::kConnectionPool: return "connection-pool";
    case CauseKind::kThreadpool: return "threadpool";
    case CauseKind::kCpuQuota: return "cpu-quota";
    case CauseKind::kRunQueue: return "run-queue";
    case CauseKind::kListenerLeak: return "listener-leak";
    case CauseKind::kSyncCrypto: return "sync-crypto";
    case CauseKind::kJson: return "json";
    case CauseKind::kRegex: return "regex";
    case CauseKind::kSyncFs: return "sync-fs";
    case CauseKind::kSyncZlib: return "sync-zlib";
    case CauseKind::kServerRender: return "server-render";
    case CauseKind::kTemplateCompile: return "template-compile";
    case CauseKind::kTemplateRender: return "template-render";
    case CauseKind::kSyncLogger: return "sync-logger";
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
