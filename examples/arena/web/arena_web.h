/* SPDX-License-Identifier: MIT */
/*
 * arena_web.h — what the page's JavaScript calls in the WebAssembly build
 * of the arena (arena_web.c; arena_page.js calls them through cwrap).
 */
#ifndef ARENA_WEB_H
#define ARENA_WEB_H

#include <stdint.h>

/* Start a relay member of `players` (2..8) with local player `player`
 * (below players), playing until frame `frames` (>= 1) is confirmed. With
 * a token (token_size TEMPO_TOKEN_SIZE, copied; tempo-token or the game's
 * backend made it) the member joins the token's match sealed, as a native
 * one does (a page built without libsodium cannot: TEMPO_E_UNSUPPORTED);
 * with none (token NULL, token_size 0) it joins match `match`
 * (1..2^32-1) of an unsealed relay.
 * seed: the board's and the bots'; use_bot: the bot flies the player (else
 * the keyboard, web_keys); input_delay: 0..8 frames; nonce: random, for
 * the handshake. Returns 0, or a negative tempo_result (TEMPO_E_INVALID_ARG
 * for a value out of range, or what session creation returned), the
 * reason in web_why. */
int web_start(int players, int player, double match, int frames, double seed, int use_bot,
              int input_delay, double nonce, const uint8_t *token, int token_size);

/* The keyboard's input for the local player: angle 0..255, magnitude
 * 0..255, buttons (ARENA_FIRE_*, ARENA_CHARGE). */
void web_keys(int angle, int magnitude, int buttons);

/* One tick at now_ms (performance.now()). Returns the status: 0
 * connecting, 1 running, 2 done (web_final has the line), 3 failed
 * (web_why says why). */
int web_tick(double now_ms);

/* "final frame=F checksum=C" once done, "" before. */
const char *web_final(void);
/* Why the start or the match failed, "" otherwise. */
const char *web_why(void);

/* Microseconds per tick of tempo's own work (which = 0: poll, input,
 * advance and taking the requests, the game's steps left out) or of the
 * game's steps (which = 1), averaged over the ticks since the match ran;
 * which = 2: the median tick of tempo's work (of the first 32768); which
 * = 3: the part of tempo's work spent in the browser's WebSocket calls
 * (mean); which = 4: the median tick of tempo's work without them. */
double web_cost_us(int which);

/* The picture and the overlay as int32s, owned by the module, valid until
 * the next call:
 *   [0] status  [1] frame  [2] confirmed frame  [3] rtt in 0.1 ms
 *   [4] last rollback depth  [5] deepest  [6] players waited for (bits)
 *   [7] players  [8] local player  [9] inputs the relay substituted
 *   [10] own inputs it replaced  [11] ticks timed  [12] stalls  [13] skipped
 *   from 16, 8 ships of 8: state, team, x, y, facing, score, timer, ammo
 *   from 80, 48 shots of 5: active, x, y, dir + 4 * charged, owner
 *   from 320, the 32 x 18 tiles, row by row */
const int32_t *web_view(void);

#endif /* ARENA_WEB_H */
