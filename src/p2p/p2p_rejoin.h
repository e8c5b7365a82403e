/* SPDX-License-Identifier: MIT */
/*
 * p2p_rejoin.h — a dropped machine coming back into a running p2p match
 * (p2p_rejoin.c tells the protocol). Buffers are allocated at create when
 * rejoin is on; nothing is allocated after. Internal: not installed.
 */
#ifndef TEMPO_P2P_P2P_REJOIN_H
#define TEMPO_P2P_P2P_REJOIN_H

#include "base/common.h"
#include "tempo/session.h"
#include "wire/codec.h"
#include "wire/fragment.h"
#include "wire/packet.h"
#include "wire/seal.h"

#define P2P_REJOIN_ASK_US 200000u     /* a rejoining machine asks again after this */
#define P2P_REJOIN_FRAGS_PER_TICK 8   /* fragments of a state per tick, at most */
#define P2P_REJOIN_ANNOUNCE_US 50000u /* REJOIN_FRAME repeated this often until the frame */
#define P2P_REJOIN_EPOCHS 4           /* key epochs tried above the one a peer had */
#define P2P_REJOIN_TRIES_PER_POLL 8   /* keyed handshakes from lost peers tried per poll, at most */

struct tempo_p2p;
struct p2p_peer;

typedef struct p2p_rejoin {
    bool serving;              /* rejoin_window_ms > 0 with an arena: we may send states */
    /* This machine comes back into a running match: cfg.rejoin, or it
     * learned it was dropped and comes back by itself (p2p_dropped.c). */
    bool returning;
    bool can_return;           /* the buffers a return needs were made at create */
    bool dropped;              /* it learned it was dropped and said so; not back yet */
    uint64_t returning_us;     /* when its links started for the return */
    uint32_t epoch;            /* this machine's key epoch */
    int epoch_moves;           /* key epochs moved on refusals since it began coming back */
    uint64_t lost_us[TEMPO_MAX_PLAYERS]; /* by peer index: when it was lost, 0 never */
    uint64_t revived_us[TEMPO_MAX_PLAYERS]; /* by peer index: when its link was revived */
    /* By peer index: the link was closed while both of us were coming
     * back, so its revival numbers on past what that machine heard. */
    bool closed_beside[TEMPO_MAX_PLAYERS];
    uint64_t rekeyed;          /* links that took a peer's newer key epoch (p2p_rejoin_rekey) */
    /* By peer index: its epoch was learned so since this machine came
     * back; a revival then takes that epoch too, not only newer ones. */
    bool learned[TEMPO_MAX_PLAYERS];

    /* Sending a state: one rejoining machine at a time. */
    uint8_t *out;              /* the REJOIN_STATE body */
    size_t out_size;
    struct p2p_peer *out_to;   /* the machine it goes to (a peer or a spectator), or NULL */
    /* Without an arena: the machine whose state the game was asked for
     * (TEMPO_EVENT_REJOIN_STATE), and the frame. */
    struct p2p_peer *wanted_for;
    int32_t wanted_frame;
    int out_next;
    uint16_t out_id;
    /* Telling the other peers the rejoin frame. */
    uint8_t announce_mask;     /* the rejoining players (0: nothing to tell) */
    int32_t announce_frame;
    uint64_t announce_us;
    int32_t attached_at[TEMPO_MAX_PLAYERS]; /* the rejoin frame each player came back at, 0 none */
    /* By player: the state this machine came back with names it dropped
     * from this frame, and its queue here begins at the state's frame, so
     * none of its inputs from this frame on is held (IQ_NO_FRAME: none
     * such; p2p_rejoin_have). */
    int32_t held_to[TEMPO_MAX_PLAYERS];

    /* The rejoining side (cfg.rejoin). */
    tempo_frag_assembler frag;
    bool assembling;
    bool loaded;               /* the state came: the match runs */
    uint64_t asked_us;
    int asked_peer;            /* the peer asked last (-1: none yet) */
    int32_t catch_up_end;      /* the sender's live frame: ADVANCEs below are flagged resimulating */
    bool catching_up;          /* every tick so far since the state ran several frames */
    int32_t loaded_frame;
    /* Every player's input of loaded_frame - 1: the delta reference of the
     * first inputs that come after the state. */
    uint8_t prev[TEMPO_MAX_PLAYERS * TEMPO_MAX_INPUT_SIZE];
    /* Without an arena: the state that came, for the game to load. */
    uint8_t *in;
    size_t in_size;

    int tries;                 /* keyed revivals tried this poll */

    uint64_t rejoins, refused, states_sent, fast_forwarded, refusals_sent;
} p2p_rejoin;

tempo_result p2p_rejoin_open(struct tempo_p2p *n);
/* How far this machine holds real inputs of dropped player x (its "have"
 * in the drop agreement): the queue's known end, but no further than the
 * frame a state it came back with names x dropped from (the queue restarts
 * at the state's frame as if every input before it were real). */
int32_t p2p_rejoin_have(const struct tempo_p2p *n, int x);
void p2p_rejoin_close(struct tempo_p2p *n);
/* Peer index `peer` was lost now. */
void p2p_rejoin_on_lost(struct tempo_p2p *n, int peer);
/* A datagram (header read into *v, size bytes in n->buf) from lost peer
 * `peer`: true if it is a fresh handshake within the window (in a keyed
 * session, one that opens under the pair keys of a newer key epoch of the
 * peer's) and the link was revived; counted refused otherwise, for a
 * handshake. *used: the datagram opened only under keys naming this
 * machine at an epoch it had (p2p_rejoin_newer_epoch): it revived the
 * link at the peer's epoch and is not received further. n->buf is left as
 * it came. */
bool p2p_rejoin_revive(struct tempo_p2p *n, int peer, const tempo_packet_view *v, size_t size, bool *used);
/* Lost peer `peer` may be revived now: rejoin serves, its window is open
 * and every one of its players' drops is final. */
bool p2p_rejoin_may_revive(const struct tempo_p2p *n, int peer);
/* Peer `peer`'s link was just revived (a fresh one, or a new process's
 * taken over): it rejoins. */
void p2p_rejoin_revived(struct tempo_p2p *n, int peer);
/* Keyed: the pair keys of the first key epoch above e's (at most
 * P2P_REJOIN_EPOCHS above, at most P2P_REJOIN_TRIES_PER_POLL tries a
 * poll) under which the datagram (header read into *v, size bytes in
 * n->buf, numbered as a fresh link's) opens, into *keys and *epoch.
 * With `stale` non-NULL, keys naming this machine at one of the
 * P2P_REJOIN_EPOCHS epochs below its own are tried too (a peer that came
 * back beside it knows it at the epoch it had): *stale is then true and
 * *keys are still those of this machine's own epoch, the ones to answer
 * with (the datagram itself opens under none it may use). Opened in a
 * copy: n->buf stays as it came. */
bool p2p_rejoin_newer_epoch(struct tempo_p2p *n, const struct p2p_peer *e, const tempo_packet_view *v,
                            size_t size, wire_keys *keys, uint32_t *epoch, bool *stale);
/* Keyed, on a machine coming back: a handshake from live peer `peer`,
 * not yet synchronized, that its pair keys do not open may come from a
 * machine that came back beside this one at a newer key epoch. If it
 * opens under that epoch's keys (or under keys naming this machine at an
 * epoch it had), the link takes the epoch and its keys. Returns true if
 * the datagram was used up so (opened only under an earlier epoch of
 * ours: it told the peer's epoch, nothing more); false to receive it as
 * usual (with the new keys, if any). */
bool p2p_rejoin_rekey(struct tempo_p2p *n, int peer, const tempo_packet_view *v, size_t size);
/* The game's state of the frame a TEMPO_EVENT_REJOIN_STATE asked for
 * (tempo_session_provide_state): true if it was that one (*r: TEMPO_OK,
 * TEMPO_E_FULL, TEMPO_E_FRAME or TEMPO_E_STATE when the machine is gone),
 * false if it is none of rejoin's (a desync diff's, maybe). */
bool p2p_rejoin_provide(struct tempo_p2p *n, int32_t frame, const void *state, size_t size,
                        tempo_result *r);
/* The op behind tempo_session_rejoin_state. */
tempo_result p2p_rejoin_state(const void *b, const void **state, size_t *size, int32_t *frame);
/* A REJOIN_STATE fragment: as p2p_diff_fragment. */
int p2p_rejoin_fragment(struct tempo_p2p *n, int peer, const uint8_t **body, size_t *size,
                        tempo_drop_reason *why);
/* A REJOIN_REQUEST from e (peer: its index, -1 for a spectator). */
void p2p_rejoin_on_request(struct tempo_p2p *n, struct p2p_peer *e, int peer,
                           const tempo_msg_rejoin_request *m);
void p2p_rejoin_on_state(struct tempo_p2p *n, int peer, const tempo_msg_rejoin_state *m);
void p2p_rejoin_on_frame(struct tempo_p2p *n, int peer, const tempo_msg_rejoin_frame *m);
/* Each poll: ask (rejoining), send what is due (serving). */
void p2p_rejoin_poll(struct tempo_p2p *n);
/* After a rejoining machine's planned tick: count its catch-up. */
void p2p_rejoin_after_tick(struct tempo_p2p *n, const tempo_tick *tick);
/* A rejoining machine's input of `player` at the frame before its state's
 * (the delta reference of the first inputs after it): true and *out
 * filled, or false for any other frame. */
bool p2p_rejoin_reference(const struct tempo_p2p *n, int player, int32_t frame, uint8_t *out);
/* e's link was revived by a handshake but its players were not taken
 * back (every one still disconnected): losing it again changes nothing. */
bool p2p_rejoin_never_back(const struct tempo_p2p *n, const struct p2p_peer *e);
/* The rejoining machine waits for its state before running. */
bool p2p_rejoin_waiting(const struct tempo_p2p *n);

#endif /* TEMPO_P2P_P2P_REJOIN_H */
