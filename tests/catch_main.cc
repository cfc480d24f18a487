// Catch2's runner, compiled only where the Catch2 package has no prebuilt
// Catch2WithMain (tests/CMakeLists.txt); Debian's has one.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
