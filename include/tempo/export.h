/* export.h — TEMPO_API marks the public functions (symbol visibility). */
#ifndef TEMPO_EXPORT_H
#define TEMPO_EXPORT_H

#if defined(_WIN32) && defined(TEMPO_SHARED)
#  ifdef TEMPO_BUILDING
#    define TEMPO_API __declspec(dllexport)
#  else
#    define TEMPO_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) && defined(TEMPO_BUILDING)
#  define TEMPO_API __attribute__((visibility("default")))
#else
#  define TEMPO_API
#endif

#endif /* TEMPO_EXPORT_H */
