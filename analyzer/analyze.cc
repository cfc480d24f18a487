#include "analyzer/analyze.h"

#include <fstream>
#include <sstream>

#include "analyzer/analysers/analysers.h"

namespace loopdoctor {

Diagnosis analyze(const Timeline& tl) {
  const Window w = analysis_window(tl);
  const WindowStats st = compute_window_stats(tl, w);
  std::vector<Finding> findings = {
      analysers::delay(st),           analysers::utilisation(st),
      analysers::cpu(st),             analysers::gc(st, tl.heap_limit),
      analysers::memory(st, tl.heap_limit), analysers::handles(st),
      analysers::http(st),
  };
  Diagnosis dx = combine(tl, st, std::move(findings));
  dx.window = w;
  dx.window_samples = st.samples;
  return dx;
}

bool attach_recommendations(Diagnosis* dx, const std::string& templates_dir, std::string* error) {
  bool ok = true;
  for (Issue& issue : dx->issues) {
    const std::string path =
        templates_dir + "/recommendations/" + std::string(to_string(issue.kind)) + ".txt";
    std::ifstream in(path);
    if (!in) {
      ok = false;
      if (error) *error = "cannot read recommendations '" + path + "'";
      continue;
    }
    std::string line, para;
    auto flush = [&] {
      if (!para.empty()) issue.recommendations.push_back(para);
      para.clear();
    };
    while (std::getline(in, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) {
        flush();
        continue;
      }
      if (!line.empty() && line.back() == '\r') line.pop_back();
      para += para.empty() ? line : " " + line;
    }
    flush();
  }
  return ok;
}

}  // namespace loopdoctor
