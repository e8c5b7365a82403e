/* SPDX-License-Identifier: MIT */
/*
 * memstream.h — open_memstream for Windows, whose C runtime lacks it.
 *
 * Force-included into the tools that write text through open_memstream
 * (tempo-sim; see its CMakeLists.txt), so their sources stay plain POSIX.
 * open_memstream becomes a temporary file that the system deletes on close;
 * fclose of such a stream first reads the file back into a malloc'd,
 * NUL-terminated buffer and stores it and its length where open_memstream
 * was told, as POSIX does at fclose. Any other stream closes as usual.
 * Windows builds only.
 */
#ifndef TEMPO_TOOLS_WIN32_MEMSTREAM_H
#define TEMPO_TOOLS_WIN32_MEMSTREAM_H
#ifdef _WIN32

#include <stddef.h>
#include <stdio.h>

FILE *tempo_win32_open_memstream(char **buf, size_t *len);
int tempo_win32_fclose(FILE *f);

#define open_memstream(buf, len) tempo_win32_open_memstream((buf), (len))
#define fclose(f) tempo_win32_fclose(f)

#endif
#endif /* TEMPO_TOOLS_WIN32_MEMSTREAM_H */
