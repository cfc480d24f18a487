# The release binary (-DLOOPDOCTOR_STATIC=ON, scripts/npm-pack.sh): linked so
# that it needs nothing beyond the C library (ldd: libc, libm, the loader).
# Included by the root CMakeLists.txt before its find_package calls; the dev
# build never reads this file.
#
#   libstdc++, libgcc          -static-libstdc++ -static-libgcc
#   libuv, zlib, http-parser   Debian's own .a (libuv_a.a, libz.a, libhttp_parser.a)
#   spdlog, fmt                header-only (Debian's headers; SPDLOG_HEADER_ONLY is
#                              spdlog's default without SPDLOG_COMPILED_LIB,
#                              FMT_HEADER_ONLY for fmt)
#   simdjson, civetweb         Debian ships no .a: compiled from Debian's source
#                              packages by scripts/setup_static.sh into .tools/static
#
# The targets the project links (spdlog::spdlog, fmt::fmt, simdjson::simdjson,
# civetweb::civetweb) are defined here under the names the packages' CMake
# configs use, every target of each config's export set, so that the
# find_package calls further on accept them as found and define nothing else.
set(LOOPDOCTOR_STATIC_DIR "${PROJECT_SOURCE_DIR}/.tools/static" CACHE PATH
  "Where scripts/setup_static.sh puts libsimdjson.a and libcivetweb.a")
foreach(lib simdjson civetweb)
  if(NOT EXISTS "${LOOPDOCTOR_STATIC_DIR}/lib/lib${lib}.a")
    message(FATAL_ERROR "LOOPDOCTOR_STATIC: ${LOOPDOCTOR_STATIC_DIR}/lib/lib${lib}.a is missing: "
                        "run scripts/setup_static.sh (or scripts/npm-pack.sh, which runs it)")
  endif()
endforeach()
find_package(Threads REQUIRED)

# fmt and spdlog, header-only.
foreach(name fmt::fmt fmt::fmt-header-only)
  add_library(${name} INTERFACE IMPORTED)
  set_target_properties(${name} PROPERTIES INTERFACE_COMPILE_DEFINITIONS "FMT_HEADER_ONLY=1")
endforeach()
foreach(name spdlog::spdlog spdlog::spdlog_header_only)
  add_library(${name} INTERFACE IMPORTED)
  set_target_properties(${name} PROPERTIES
    INTERFACE_COMPILE_DEFINITIONS "SPDLOG_FMT_EXTERNAL"
    INTERFACE_LINK_LIBRARIES "Threads::Threads;fmt::fmt")
endforeach()

# simdjson: the same definition Debian's config gives its shared library.
add_library(simdjson::simdjson STATIC IMPORTED)
set_target_properties(simdjson::simdjson PROPERTIES
  IMPORTED_LOCATION "${LOOPDOCTOR_STATIC_DIR}/lib/libsimdjson.a"
  INTERFACE_COMPILE_DEFINITIONS "SIMDJSON_THREADS_ENABLED=1"
  INTERFACE_LINK_LIBRARIES "Threads::Threads")

# civetweb (its export set also names the C++ wrapper and the server, which
# the project does not use).
add_library(civetweb::civetweb STATIC IMPORTED)
set_target_properties(civetweb::civetweb PROPERTIES
  IMPORTED_LOCATION "${LOOPDOCTOR_STATIC_DIR}/lib/libcivetweb.a"
  INTERFACE_LINK_LIBRARIES "Threads::Threads")
foreach(name civetweb::civetweb-cpp civetweb::server)
  add_library(${name} INTERFACE IMPORTED)
endforeach()

# zlib's .a (FindZLIB, CMake >= 3.24); libuv's through its -static .pc
# (libuv_a.a); http-parser's .a.
set(ZLIB_USE_STATIC_LIBS ON)
set(LOOPDOCTOR_LIBUV_PC libuv-static)
set(LOOPDOCTOR_HTTP_PARSER_NAMES libhttp_parser.a)

# --exclude-libs,ALL: the addons export none of the C++ runtime they carry
# (Node's own symbols are never interposed); --gc-sections then drops what
# nothing calls, among it (in the addons) libstdc++'s std::random_device
# and its arc4random (glibc 2.36): the minimum glibc stays 2.35
# (_dl_find_object, the unwinder's). The binary's is wrapped
# (packaging/arc4random_wrap.cc).
add_link_options(-static-libstdc++ -static-libgcc -Wl,--exclude-libs,ALL -Wl,--gc-sections)
