// The text outputs (terminal, Markdown) format the one diagnosis: the same
// figures, the same issues.
#include <catch2/catch.hpp>

#include "analyzer/analyze.h"
#include "cli/terminal_summary.h"
#include "synthetic.h"

using namespace loopdoctor;
