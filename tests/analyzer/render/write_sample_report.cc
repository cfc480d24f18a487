// Writes a sample report for the browser test and for looking at the design:
//   write_sample_report OUT.html [blocked|crash|noprobe|long]
#include <cstdio>
#include <fstream>
#include <string>

#include "analyzer/render/html_report.h"
#include "tests/analyzer/render/synthetic.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.html [blocked|crash|noprobe|long]\n", argv[0]);
    return 1;
  }
  std::string scenario = argc > 2 ? argv[2] : "blocked";
  loopdoctor::render::testing::Scenario sc;
  if (scenario == "crash") sc.crash = true;
  if (scenario == "noprobe") sc.probe = false, sc.load = false, sc.duration_s = 3;
  if (scenario == "long") sc.duration_s = 3600;
  auto tl = loopdoctor::render::testing::synthetic_timeline(sc);
  auto dx = loopdoctor::render::testing::synthetic_diagnosis(tl);
  std::string err;
  std::string html = loopdoctor::render::html_report(
      tl, dx, {LOOPDOCTOR_TEMPLATES_DIR, "2024-05-01T10:00:12Z", "0.1.0"}, &err);
  if (html.empty()) {
    std::fprintf(stderr, "render failed: %s\n", err.c_str());
    return 2;
  }
  std::ofstream out(argv[1], std::ios::binary);
  out << html;
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", argv[1]);
    return 2;
  }
  std::printf("%s: %zu bytes\n", argv[1], html.size());
  return 0;
}
