// Where the binary finds its data files: the Node probe and report templates.
#pragma once

#include <string>

namespace loopdoctor::cli {

struct DataPaths {
  std::string probe_js;       // agent/probes/node/probe.js
  std::string templates_dir;  // report_templates/
};

// Looks, in order, in $LOOPDOCTOR_DATA_DIR, <exe>/../share/loopdoctor (an
// installed binary) and the source tree the binary was built from (a binary
// run from build/). Returns false with *error naming the places tried.
bool find_data_paths(DataPaths* out, std::string* error);

}  // namespace loopdoctor::cli
