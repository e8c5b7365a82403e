# SPDX-License-Identifier: MIT
# Cross build for 64-bit Windows with mingw-w64 (Debian: mingw-w64,
# gcc-mingw-w64-x86-64; wine64 to run what it builds):
#   cmake -S . -B build/windows -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake
# `make test-windows` does this and runs the unit tests under Wine.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(TEMPO_MINGW_TRIPLE x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${TEMPO_MINGW_TRIPLE}-gcc)
set(CMAKE_RC_COMPILER ${TEMPO_MINGW_TRIPLE}-windres)

# Libraries, headers and packages come from the mingw-w64 tree only; programs
# (pkg-config, sh) from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${TEMPO_MINGW_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# The host's pkg-config must not hand Linux libraries (SDL2) to this build.
set(ENV{PKG_CONFIG_LIBDIR} /usr/${TEMPO_MINGW_TRIPLE}/lib/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# xxHash is header-only and the same for every target: the host's header is
# copied alone into the build tree (CMakeLists.txt), so no other host header
# is seen by the cross compiler.
if(NOT TEMPO_XXHASH_HEADER AND EXISTS /usr/include/xxhash.h)
  set(TEMPO_XXHASH_HEADER /usr/include/xxhash.h CACHE FILEPATH "xxhash.h to copy into the build")
endif()

# Static runtime pieces, so a test or tool runs without libgcc's DLL beside it.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static-libgcc")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc")

# CTest runs the programs under Wine (wine64 on Debian lives in /usr/lib/wine).
find_program(TEMPO_WINE NAMES wine64 wine PATHS /usr/lib/wine NO_CMAKE_FIND_ROOT_PATH)
if(TEMPO_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${TEMPO_WINE})
endif()

# Debian has no libsodium for mingw-w64: build without sealing (the sealing
# functions return TEMPO_E_UNSUPPORTED) unless one is found in the find root.
set(TEMPO_REQUIRE_SODIUM OFF CACHE BOOL "Stop when libsodium is missing")
