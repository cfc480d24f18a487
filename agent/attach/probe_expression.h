// What loopdoctor evaluates in an attached process (Runtime.evaluate), and
// how it reads the answer. The probe's attach.js is CommonJS; an ES-module
// app has neither `require` nor process.mainModule, so the expression gets
// a require from process.getBuiltinModule('module') (Node 20.16 and 22.3 on),
// else the DevTools command line's `require`, else the main module's.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace loopdoctor::attach {

// The probe's attach(settings) call for attach.js at `attach_js` (a path as
// the process sees it).
std::string attach_expression(const std::string& attach_js, const nlohmann::json& settings);

// The probe's detach() of the attach in progress, if any (a refusal after
// the probe started, --tree's children are not detached this way).
std::string detach_expression();

// Closes the inspector a moment after this session's connection is gone:
// inspector.close() waits for every connection, ours included, to end.
std::string close_inspector_expression();

// Runtime.evaluate's parameters for `expression`: its value returned as
// JSON, the DevTools command line's helpers (require) in scope, nothing
// printed to the process's console.
nlohmann::json evaluate_params(const std::string& expression);

// What attach() answered, from Runtime.evaluate's result: {ok, probe,
// probe_fallback, listens} on success; else *error says why (the probe's
// own words, or the exception the expression threw).
struct ProbeStart {
  bool ok = false;
  std::string probe;           // "native" or "js"
  std::string probe_fallback;  // why not native, when js
  std::string error;
};
ProbeStart parse_attach_result(const nlohmann::json& evaluate_result);

}  // namespace loopdoctor::attach
