/* SPDX-License-Identifier: MIT */
/*
 * arena_p2p.h — tempo-arena's peer-to-peer match through a relay's
 * introduction (--relay with --p2p, docs/NAT.md): the traversal over the
 * game's socket, the wait for every member, and a line whenever the path
 * to a peer changes.
 */
#ifndef ARENA_P2P_H
#define ARENA_P2P_H

#include <stdbool.h>
#include <stdint.h>

#include "tempo/traversal.h"
#include "tempo/udp.h"

typedef struct arena_p2p_args {
    tempo_address relay;
    const uint8_t *token;      /* NULL: unsealed, match `match` */
    uint64_t match;
    int players;
    uint32_t local;            /* this machine's players */
    int input_size, fps;
    bool direct;               /* false: --no-direct, every pair relayed */
    uint64_t nonce;            /* unsealed: the member id */
} arena_p2p_args;

typedef struct arena_paths {
    tempo_path last[8];
} arena_paths;

/* Open the traversal over udp's socket at now_us, with this machine's own
 * addresses as local candidates. False, with why filled, on an error. */
bool arena_p2p_open(tempo_traversal **out, tempo_udp *udp, const arena_p2p_args *a,
                    uint64_t now_us, char *why, size_t why_size);

/* Open the traversal (as arena_p2p_open), then wait, updating it, until
 * the relay has introduced every member or deadline_us passes. True and
 * *out READY; false after a line to stderr (prog: the program's name),
 * with nothing left open. */
bool arena_p2p_meet(tempo_traversal **out, tempo_udp *udp, const arena_p2p_args *a,
                    uint64_t deadline_us, const char *prog);

/* One line per remote machine whose path changed since the last call
 * (every one at the first), to stderr; with `final`, every one with its
 * round trips, as the match's summary. */
void arena_p2p_paths(const tempo_traversal *t, arena_paths *seen, int players, uint32_t local,
                     bool final);

#endif /* ARENA_P2P_H */
