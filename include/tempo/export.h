/* SPDX-License-Identifier: MIT */
/* export.h — TEMPO_API marks the public functions (symbol visibility).
 *
 * Windows: a program linking tempo's DLL defines TEMPO_SHARED (the CMake
 * target tempo::tempo_shared does it), so the functions are imported; the
 * DLL itself is compiled with TEMPO_SHARED and TEMPO_BUILDING and exports
 * exactly these. The static library needs neither. Elsewhere the library is
 * compiled with hidden visibility and TEMPO_API makes these visible. */
#ifndef TEMPO_EXPORT_H
#define TEMPO_EXPORT_H

#if defined(_WIN32) && defined(TEMPO_SHARED)
#  ifdef TEMPO_BUILDING
#    define TEMPO_API __declspec(dllexport)
#  else
#    define TEMPO_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) && !defined(_WIN32) && defined(TEMPO_BUILDING)
#  define TEMPO_API __attribute__((visibility("default")))
#else
#  define TEMPO_API
#endif

#endif /* TEMPO_EXPORT_H */
