/* SPDX-License-Identifier: MIT */
/*
 * p2p_diff.h — desync diffs of a p2p session: the states of a check frame
 * whose checksums differed, exchanged with the peer and compared byte by
 * byte (p2p_diff.c tells the protocol). Every buffer is allocated at create
 * when desync_diff_max_bytes > 0; nothing is allocated after. Internal: not
 * installed.
 */
#ifndef TEMPO_P2P_P2P_DIFF_H
#define TEMPO_P2P_P2P_DIFF_H

#include "base/common.h"
#include "tempo/session.h"
#include "wire/codec.h"
#include "wire/fragment.h"

#define P2P_DIFF_KEEP 4              /* arena mode: newest check frames' states kept */
#define P2P_DIFF_FRAGS_PER_TICK 4    /* fragments of a state per peer per tick, at most */
#define P2P_DIFF_HEAD 24             /* DESYNC_STATE body bytes before the state, at most */
#define P2P_DIFF_HOLD_US 3000000u    /* one diff at a time: a frame holds the exchange this long */
#define P2P_DIFF_FRAG_TIMEOUT_US 2000000u /* a partial state is dropped this old */

struct tempo_p2p;

typedef struct p2p_diff {
    size_t cap;                /* desync_diff_max_bytes; 0: off, nothing below allocated */
    /* Our states of check frames: copies of the arena (a ring), or the one
     * state the game provided. */
    uint8_t *keep;
    size_t keep_each;          /* bytes per kept state */
    int keep_slots;
    int keep_next;
    int32_t keep_frame[P2P_DIFF_KEEP]; /* -1: empty */
    size_t keep_size[P2P_DIFF_KEEP];

    /* The exchange under way: one frame at a time (-1: none). */
    int32_t frame;
    uint64_t since_us;
    uint32_t sent_to;          /* peers our state of `frame` went (or goes) to */
    uint32_t want_from;        /* no arena: peers waiting for the game's state */
    uint32_t reported;         /* peers whose DESYNC_DIFF event was raised */

    /* Our state of `frame` coded as a DESYNC_STATE body, going out in fragments. */
    uint8_t *out;
    size_t out_size;
    bool out_ready;
    int out_next[TEMPO_MAX_PLAYERS]; /* next fragment to each peer, by peer index */
    uint16_t out_id[TEMPO_MAX_PLAYERS]; /* message ids, per peer */
    int32_t got_frame[TEMPO_MAX_PLAYERS]; /* newest frame whose state each peer gave */

    /* Coming in: one peer's fragments at a time, then its state. */
    tempo_frag_assembler frag;
    uint8_t *frag_mem;
    int frag_peer;
    uint8_t *remote;
    size_t remote_size;
    int remote_peer;           /* -1: none held */

    /* The newest diff, as tempo_session_desync_diff hands it out. */
    bool shown;
    int32_t shown_frame;
    int shown_player, shown_local_player;
    uint8_t *shown_local, *shown_remote;
    size_t shown_local_size, shown_remote_size;
    tempo_diff_range ranges[TEMPO_DIFF_MAX_RANGES];
    int num_ranges;

    uint64_t diffs, skipped, ignored;
} p2p_diff;

/* Allocate the buffers (cfg->desync_diff_max_bytes > 0) through the
 * session's allocator: TEMPO_OK or TEMPO_E_NO_MEMORY. */
tempo_result p2p_diff_open(struct tempo_p2p *n);
void p2p_diff_close(struct tempo_p2p *n);

/* Our checksum of check frame `frame` is final (p2p_take_checksums): in
 * arena mode, keep a copy of the state it was computed from. */
void p2p_diff_capture(struct tempo_p2p *n, int32_t frame, uint64_t checksum);
/* Peer `peer`'s checksum of `frame` differs from ours: start or join the
 * exchange. True if the game is to provide its state (no arena). */
bool p2p_diff_on_desync(struct tempo_p2p *n, int peer, int32_t frame);
/* A DESYNC_STATE from peer `peer` (-1: not a peer). */
void p2p_diff_on_state(struct tempo_p2p *n, int peer, const tempo_msg_desync_state *m);
/* A fragment datagram's body from peer `peer`, opened: 1 and *body,
 * *size set to the whole message when it completes one; 0 when it is held
 * or refused by policy (counted); TEMPO_E_MALFORMED with *why. */
int p2p_diff_fragment(struct tempo_p2p *n, int peer, uint8_t type, const uint8_t **body,
                      size_t *size, tempo_drop_reason *why);
/* Send what is due of the state going out (the end of each tick). */
void p2p_diff_send(struct tempo_p2p *n);

/* The ops behind tempo_session_provide_state and tempo_session_desync_diff. */
tempo_result p2p_diff_provide(void *b, int32_t frame, const void *state, size_t size);
tempo_result p2p_diff_get(const void *b, tempo_desync_diff *out);

#endif /* TEMPO_P2P_P2P_DIFF_H */
