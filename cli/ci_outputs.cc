#include "cli/ci_outputs.h"

#include <cstdlib>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "analyzer/attribution/profile.h"
#include "analyzer/render/gate_text.h"
#include "analyzer/render/text.h"
#include "analyzer/verdicts/verdicts.h"

namespace loopdoctor::cli {
namespace {

// U+FFFD, what a reader shows for a character it cannot show.
constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";

bool xml_forbidden(unsigned char c) { return c < 0x20 && c != '\t' && c != '\n' && c != '\r'; }

std::string percent_escape(std::string_view s, bool property) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '%': out += "%25"; break;
      case '\r': out += "%0D"; break;
      case '\n': out += "%0A"; break;
      case ':': out += property ? "%3A" : ":"; break;
      case ',': out += property ? "%2C" : ","; break;
      default: out += c;
    }
  }
  return out;
}

// "server.js:16" of "handler (server.js:16)"; the whole text when it has
// no parenthesised tail ("src/app.ts:14", an anonymous caller).
std::string_view caller_location(std::string_view caller) {
  if (caller.empty() || caller.back() != ')') return caller;
  const auto open = caller.rfind('(');
  return open == std::string_view::npos ? caller : caller.substr(open + 1, caller.size() - open - 2);
}

std::optional<AppLine> app_line_at(std::string_view location) {
  auto [file, line] = render::split_location(location);
  const bool node_own = file.rfind("node:", 0) == 0 || file == profile::kNativeLocation;
  if (file.empty() || line <= 0 || node_own || file.find("node_modules/") != std::string::npos) return std::nullopt;
  return AppLine{file, line};
}

// The annotations on the head runs' blocking lines: per line, the top
// hotspot's text and how many head runs with a blocked loop named it.
std::string hotspot_annotations(const std::vector<render::CompareSide>& head, const char* level) {
  struct Named {
    std::string what;
    int runs = 0;
  };
  std::map<std::pair<std::string, int>, Named> lines;
  for (const render::CompareSide& side : head) {
    if (side.figures.verdict != to_string(Verdict::kBlockedLoop) || side.hotspots.empty()) continue;
    const Hotspot& top = side.hotspots.front();
    const auto at = application_line(top);
    if (!at) continue;
    Named& n = lines[{at->file, at->line}];
    if (n.what.empty())
      n.what = top.function + " (" + top.location + ")" + (top.caller.empty() ? "" : ", called here,");
    ++n.runs;
  }
  std::string out;
  for (const auto& [at, n] : lines) {
    const std::string text = fmt::format("{} is the top hotspot of the blocked loop in {} of {} head runs", n.what,
                                         n.runs, head.size());
    out += fmt::format("::{} file={},line={},title={}::{}\n", level, workflow_property_escape(at.first), at.second,
                       workflow_property_escape("loopdoctor: blocked loop"), workflow_data_escape(text));
  }
  return out;
}

}  // namespace

std::string junit_escape(std::string_view s) {
  std::string clean;
  for (char c : s) {
    if (xml_forbidden(static_cast<unsigned char>(c)))
      clean += kReplacementChar;
    else
      clean += c;
  }
  return render::xml_escape(clean);
}

std::string junit_xml(const std::vector<gate::BudgetResult>& results, const std::string& no_interval) {
  std::size_t failures = 0;
  for (const auto& r : results) failures += r.fails();
  const std::string counts = fmt::format("tests=\"{}\" failures=\"{}\"", results.size(), failures);
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += "<testsuites name=\"loopdoctor\" " + counts + ">\n";
  xml += "  <testsuite name=\"loopdoctor budgets\" " + counts + " errors=\"0\" skipped=\"0\">\n";
  for (const gate::BudgetResult& r : results) {
    const std::string name = junit_escape(render::budget_name(r.budget));
    const std::string line = junit_escape(render::budget_line(r, no_interval));
    xml += "    <testcase classname=\"loopdoctor.budget\" name=\"" + name + "\"";
    if (!r.fails()) {
      xml += ">\n      <system-out>" + line + "</system-out>\n    </testcase>\n";
      continue;
    }
    xml += ">\n      <failure message=\"" + line + "\" type=\"budget\">" + line + "</failure>\n    </testcase>\n";
  }
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

std::string workflow_data_escape(std::string_view s) { return percent_escape(s, false); }
std::string workflow_property_escape(std::string_view s) { return percent_escape(s, true); }

std::optional<AppLine> application_line(const Hotspot& h) {
  if (!h.caller.empty()) return app_line_at(caller_location(h.caller));
  if (auto at = app_line_at(h.hot_line)) return at;
  return app_line_at(h.location);
}

std::string github_commands(const std::vector<gate::BudgetResult>& results,
                            const std::vector<render::CompareSide>& head, const std::string& no_interval) {
  std::string out;
  bool fails = false;
  for (const gate::BudgetResult& r : results) {
    if (!r.fails()) continue;
    fails = true;
    out += "::error title=loopdoctor budget::" + workflow_data_escape(render::budget_line(r, no_interval)) + "\n";
  }
  return out + hotspot_annotations(head, fails ? "error" : "warning");
}

bool on_github_actions() {
  const char* v = std::getenv("GITHUB_ACTIONS");
  return v && std::string_view(v) == "true";
}

bool append_step_summary(const std::string& markdown, std::string* error) {
  const char* path = std::getenv("GITHUB_STEP_SUMMARY");
  if (!path || !*path) return true;
  std::ofstream out(path, std::ios::app);
  out << markdown << "\n";
  out.flush();
  if (!out) {
    *error = std::string("cannot append to $GITHUB_STEP_SUMMARY '") + path + "'";
    return false;
  }
  return true;
}

}  // namespace loopdoctor::cli
