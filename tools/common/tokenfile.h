/* SPDX-License-Identifier: MIT */
/*
 * tokenfile.h — a connect token from a file (tempo-token --out), and what
 * a client can tell of it before it sends it, for every program that
 * connects with one (tempo-pong, tempo-pong-sdl, tempo-arena through a
 * relay). A server or relay that refuses a token does not answer (no
 * oracle for forgers), so whatever the client can see for itself is worth
 * saying before it waits for nothing.
 */
#ifndef TEMPO_TOOLS_TOKENFILE_H
#define TEMPO_TOOLS_TOKENFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/secure.h"

/* Read a token file: exactly TEMPO_TOKEN_SIZE bytes that read as a token.
 * False with "program: --token-file PATH: why" on stderr. */
bool token_read_file(const char *program, const char *path, uint8_t token[TEMPO_TOKEN_SIZE]);

/* What this client can know is wrong with its token: expired by this
 * machine's clock (now_seconds, Unix time), not naming `server` (the
 * address it will connect to; NULL: not checked, as over a WebSocket
 * whose TCP address a token does not name), or made for another protocol id than
 * *protocol_id (NULL: any; a relay member takes the token's). Writes the
 * first problem into why[0..size) as a phrase ("it expired 5 min ago by
 * this machine's clock") and returns false; true (why empty) if none
 * shows. */
bool token_check(const uint8_t token[TEMPO_TOKEN_SIZE], const tempo_address *server,
                 const uint64_t *protocol_id, uint64_t now_seconds, char *why, size_t size);

#endif /* TEMPO_TOOLS_TOKENFILE_H */
