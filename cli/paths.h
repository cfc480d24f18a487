// Where the binary finds its data files: the Node probe and report templates.
#pragma once

#include <string>

namespace loopdoctor::cli {

struct DataPaths {
  std::string probe_js;       // agent/probes/node/probe.js
  std::string templates_dir;  // report_templates/
  // Where the native probe's addon is when it is not in native/ beside
  // probe.js: the build tree's probes/node/native for a binary run from
  // build/ (probe.js is then the source tree's). Empty otherwise.
  std::string native_dir;
};

// Looks, in order, in $LOOPDOCTOR_DATA_DIR, <exe>/../share/loopdoctor (an
// installed binary) and the source tree the binary was built from (a binary
// run from build/). Returns false with *error naming the places tried.
bool find_data_paths(DataPaths* out, std::string* error);

}  // namespace loopdoctor::cli
