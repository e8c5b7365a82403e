/* SPDX-License-Identifier: MIT */
/*
 * edgegap.h — stopping one's own deployment on Edgegap, which runs one
 * container per match: the platform puts a URL in ARBITRIUM_DELETE_URL
 * and a token in ARBITRIUM_DELETE_TOKEN, and the game server, once its
 * match is over, sends DELETE to that URL with the token as its
 * `authorization` header (Edgegap's documentation of its injected
 * variables).
 *
 * An http:// URL is called with tempo's own HTTP client (http_conn.h); an
 * https:// one (Edgegap's API is HTTPS) through the curl program, with the
 * token handed to it on its standard input so it never shows in a process
 * list. Either way the call is bounded in time and its outcome logged; a
 * failure is never fatal (the program exits as it would have).
 */
#ifndef TOOLS_EDGEGAP_H
#define TOOLS_EDGEGAP_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct edgegap_stop {
    char url[1024];
    char token[512];
} edgegap_stop;

/* Read ARBITRIUM_DELETE_URL and ARBITRIUM_DELETE_TOKEN into *out: true
 * when the URL is set (the token may be empty). A URL or token too long
 * for *out, or a URL that is neither http:// nor https://, is reported on
 * stderr (naming `program`) and leaves it unset: false. */
bool edgegap_from_env(edgegap_stop *out, const char *program);

/* Send the DELETE (blocks at most timeout_ms), logging on stderr what came
 * of it. True on a 2xx answer. */
bool edgegap_call(const edgegap_stop *e, const char *program, int timeout_ms);

#ifdef __cplusplus
}
#endif

#endif /* TOOLS_EDGEGAP_H */
