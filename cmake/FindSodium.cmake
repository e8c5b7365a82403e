# SPDX-License-Identifier: MIT
# FindSodium.cmake — libsodium as the imported target Sodium::Sodium.
#
# pkg-config (module libsodium) gives hints when it is there; find_path and
# find_library do the finding, so a cross build's find root and a machine
# without pkg-config behave the same. Sets Sodium_FOUND, Sodium_VERSION
# (when pkg-config knows it), SODIUM_INCLUDE_DIR and SODIUM_LIBRARY.
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(PC_SODIUM QUIET libsodium)
endif()
find_path(SODIUM_INCLUDE_DIR sodium.h HINTS ${PC_SODIUM_INCLUDEDIR} ${PC_SODIUM_INCLUDE_DIRS})
find_library(SODIUM_LIBRARY NAMES sodium libsodium HINTS ${PC_SODIUM_LIBDIR} ${PC_SODIUM_LIBRARY_DIRS})
if(PC_SODIUM_VERSION)
  set(Sodium_VERSION ${PC_SODIUM_VERSION})
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Sodium
  REQUIRED_VARS SODIUM_LIBRARY SODIUM_INCLUDE_DIR
  VERSION_VAR Sodium_VERSION)

if(Sodium_FOUND AND NOT TARGET Sodium::Sodium)
  add_library(Sodium::Sodium UNKNOWN IMPORTED)
  set_target_properties(Sodium::Sodium PROPERTIES
    IMPORTED_LOCATION "${SODIUM_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${SODIUM_INCLUDE_DIR}")
endif()
mark_as_advanced(SODIUM_INCLUDE_DIR SODIUM_LIBRARY)
