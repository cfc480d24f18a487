#include "agent/attach/probe_expression.h"

namespace loopdoctor::attach {
namespace {

// The symbol attach.js keeps its attach under (globalThis), so a later
// evaluate finds it without a module system.
constexpr const char* kAttachSymbol = "loopdoctor.probe.attach";

// How long inspector.close() waits after our last message: our session's
// WebSocket closes within milliseconds of the reply, and close() would
// block the process's loop until it has.
constexpr int kCloseInspectorDelayMs = 200;

}  // namespace

std::string attach_expression(const std::string& attach_js, const nlohmann::json& settings) {
  const std::string path = nlohmann::json(attach_js).dump();
  return "(() => { const p = " + path +
         ";\n"
         "  const r = typeof process.getBuiltinModule === 'function'\n"
         "    ? process.getBuiltinModule('module').createRequire(p)\n"
         "    : (typeof require === 'function' ? require : process.mainModule.require);\n"
         "  return r(p).attach(" +
         settings.dump() + "); })()";
}

std::string detach_expression() {
  return std::string("(() => { const a = globalThis[Symbol.for('") + kAttachSymbol +
         "')]; return a ? a.detach() : { ok: true, none: true }; })()";
}

std::string close_inspector_expression() {
  return "(() => { const i = typeof process.getBuiltinModule === 'function'\n"
         "    ? process.getBuiltinModule('inspector') : require('inspector');\n"
         "  setTimeout(() => { try { i.close(); } catch (_) {} }, " +
         std::to_string(kCloseInspectorDelayMs) + ").unref(); return true; })()";
}

nlohmann::json evaluate_params(const std::string& expression) {
  return {{"expression", expression},
          {"returnByValue", true},
          {"includeCommandLineAPI", true},
          {"silent", true}};
}

ProbeStart parse_attach_result(const nlohmann::json& r) {
  ProbeStart s;
  if (!r.is_object()) {
    s.error = "the process gave no answer to the probe's attach";
    return s;
  }
  if (auto ex = r.find("exceptionDetails"); ex != r.end() && ex->is_object()) {
    std::string what = ex->value("text", std::string("an exception"));
    if (auto e = ex->find("exception"); e != ex->end() && e->is_object())
      what = e->value("description", what);
    s.error = "loading the probe threw: " + what.substr(0, what.find('\n'));
    return s;
  }
  const nlohmann::json* value = nullptr;
  if (auto res = r.find("result"); res != r.end() && res->is_object())
    if (auto v = res->find("value"); v != res->end()) value = &*v;
  if (value == nullptr || !value->is_object()) {
    s.error = "the probe's attach answered nothing readable";
    return s;
  }
  s.ok = value->value("ok", false);
  s.probe = value->value("probe", std::string());
  s.probe_fallback = value->value("probe_fallback", std::string());
  if (!s.ok) s.error = value->value("error", std::string("the probe did not start"));
  return s;
}

}  // namespace loopdoctor::attach
