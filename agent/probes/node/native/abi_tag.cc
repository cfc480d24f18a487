// The Node ABI this addon was compiled against, readable in the file's bytes
// without loading it: lib/native.js checks it before require(), because an
// addon built against another Node's V8 headers must never be loaded (a
// renamed or copied file would otherwise pass the file-name check).
#include "abi_tag.h"

#include <node_version.h>

#define LOOPDOCTOR_STR2(x) #x
#define LOOPDOCTOR_STR(x) LOOPDOCTOR_STR2(x)

// `used`: nothing references it; it must survive to the file all the same.
extern "C" __attribute__((used)) const char loopdoctor_probe_abi_tag[] =
    "loopdoctor-probe-abi:" LOOPDOCTOR_STR(NODE_MODULE_VERSION) ";";
