#pragma once

#include <string>

namespace loopdoctor::collector {

// "SIGTERM" for 15; "SIG<n>" for numbers without a common name.
std::string signal_name(int signum);

}  // namespace loopdoctor::collector
