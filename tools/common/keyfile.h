/* SPDX-License-Identifier: MIT */
/*
 * keyfile.h — 32-byte keys (a match key, a backend's private key) from the
 * command line or a file, for every program of tools/ and examples/.
 */
#ifndef TEMPO_TOOLS_KEYFILE_H
#define TEMPO_TOOLS_KEYFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/secure.h"

/* Exactly 64 hex digits (either case) at text[0..len) into out; false
 * otherwise, with out wiped. */
bool key_from_hex(const char *text, size_t len, uint8_t out[TEMPO_KEY_SIZE]);

/* A key file: 32 raw bytes, or 64 hex digits with white space around
 * them. False with the reason in why (out wiped); the bytes read are
 * wiped either way. */
bool key_read_file(const char *path, uint8_t out[TEMPO_KEY_SIZE], char *why, size_t why_size);

#endif /* TEMPO_TOOLS_KEYFILE_H */
