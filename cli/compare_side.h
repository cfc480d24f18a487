// One side of `loopdoctor compare`: a run read from a recording (analysed
// here) or from a diagnosis JSON written by --json, as the key figures and
// hotspots the comparison shows.
#pragma once

#include <string>

#include "analyzer/render/compare_report.h"

namespace loopdoctor::cli {

// False with *error naming the file and what is wrong. A recording's
// warnings go to stderr.
bool load_side(const std::string& path, render::CompareSide* side, std::string* error);

}  // namespace loopdoctor::cli
