#pragma once

// "loopdoctor-probe-abi:<NODE_MODULE_VERSION>;" (abi_tag.cc).
extern "C" const char loopdoctor_probe_abi_tag[];
