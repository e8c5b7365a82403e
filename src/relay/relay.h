/* SPDX-License-Identifier: MIT */
/*
 * relay.h — the relay's state: a pool of matches and a pool of members,
 * both allocated at create, and what relay.c (the object, datagram intake,
 * members, sending) and relay_match.c (one match: its clock, deadlines,
 * substitution, checksums) share. Internal: not installed.
 *
 * A match's frames live in a ring of RELAY_RING slots: frames from
 * `finalized` up to finalized + RELAY_AHEAD collect inputs; the
 * RELAY_RING - RELAY_AHEAD frames below `finalized` are kept, final, for
 * members that have not acknowledged them yet. Finalizing frame F clears
 * the slot frame F + RELAY_AHEAD will use.
 */
#ifndef TEMPO_RELAY_RELAY_H
#define TEMPO_RELAY_RELAY_H

#include "base/common.h"
#include "tempo/relay.h"
#include "net/gate.h"
#include "net/link.h"
#include "relay/relay_msg.h"
#include "wire/nat_msg.h"
#include "wire/replay_window.h"
#include "wire/turn_msg.h"

#define RELAY_RING 256          /* frames a match keeps */
#define RELAY_AHEAD 64          /* frames past `finalized` that take inputs */
#define RELAY_HISTORY (RELAY_RING - RELAY_AHEAD)
#define RELAY_SUM_RING 16       /* check frames compared at once per match */
#define RELAY_RESEND_US 50000u  /* a member hears from the relay at least this often */
#define RELAY_RECV_MAX 1024     /* datagrams taken per update (a few ms of work): a backlog
                                   is read over several */
#define RELAY_SWEEP_US 5000u    /* every member's liveness and resends, at most this often */
#define RELAY_TURN_RING 64      /* turns a lockstep match keeps */
#define RELAY_TURN_AHEAD 32     /* turns past `finalized` that take lists */
#define RELAY_TURN_SENDS 4      /* datagrams of lists to one member per send, at most */
#define RELAY_NEWS_US 250000u   /* peer to peer: a member's news goes to the others this often */

/* One player's list for one turn of a lockstep match, as turn_msg.h
 * writes it (no length: lockstep through a relay keeps one turn length). */
typedef struct relay_turn_list {
    uint8_t flags;              /* TURN_LIST_SUBSTITUTED or 0 */
    uint8_t count;
    uint16_t size;
    uint8_t cmds[TURN_LIST_BYTES];
} relay_turn_list;

typedef struct relay_member {
    bool used;
    /* Not used, but guarding the address and keys of a sealed member that
     * went within the cookie lifetime of its admission: a copy of its
     * response is refused until guard_until_us (the entry stays in the
     * address table, off the free list, its keys kept). */
    bool guard;
    uint64_t guard_until_us;
    uint64_t admitted_us;
    int next_free;              /* the free list, -1 ends it */
    int match;                  /* index in matches, -1 before it joined one */
    uint8_t slots;              /* players it has */
    int nslots;
    uint64_t client_id;
    tempo_address addr;
    bool sealed;
    wire_keys keys;
    net_link link;
    tempo_replay replay;
    int32_t acked;              /* relay frames it holds: 0..acked-1 (lockstep: the
                                   first turn it lacks a final list of) */
    int32_t sum_held;           /* newest check frame of its we hold */
    int32_t sent_final;         /* `finalized` when we last sent it frames */
    uint64_t last_send_us;
    bool introduced;            /* peer to peer: its CANDIDATES came, the others were told */
    uint64_t news_us;           /* peer to peer: when the others were last told of it */
    int ncand;                  /* peer to peer: the local addresses it sent */
    tempo_address cand[NAT_MAX_LOCAL];
    tempo_relay_member_stats st;
} relay_member;

typedef struct relay_check {
    int32_t frame;              /* -1: empty */
    uint64_t sum;               /* the first checksum that came */
    uint8_t seen;               /* players whose member sent one */
    bool differs;
} relay_check;

typedef struct relay_match {
    bool used;
    int next_free;
    uint64_t id;
    int num_players, input_size, fps;
    uint32_t turn_ms;           /* 0: rollback; else a lockstep match (relay_turns.c) */
    bool p2p;                   /* peers introduced to each other (relay_peers.c): no frames */
    uint8_t secret[NAT_SECRET_SIZE]; /* p2p: authenticates its members' probes */
    int delay;                  /* lockstep: the execution delay, turns below it are empty */
    int store;                  /* lockstep: index of its list store, -1 none */
    relay_turn_list *tl;        /* lockstep: RELAY_TURN_RING * TEMPO_MAX_PLAYERS lists */
    size_t frame_bytes;         /* num_players * input_size */
    uint8_t all;                /* bit p for each player */
    int member_of[TEMPO_MAX_PLAYERS]; /* member index, -1 none */
    uint8_t gone;               /* players whose member left: substituted at once */
    int members;
    uint64_t first_join_us;
    bool start_decided;
    uint64_t start_us;          /* frame 0's time */
    int32_t finalized;          /* frames below are final */
    int32_t sent_final;         /* `finalized` when its members were last sent frames */
    uint8_t *inputs;            /* RELAY_RING * frame_bytes */
    uint8_t *have;              /* RELAY_RING: bit p, player p's input is in */
    uint8_t *subst;             /* RELAY_RING: bit p, substituted */
    uint8_t *late;              /* RELAY_RING: bit p, a late real input was counted */
    relay_check checks[RELAY_SUM_RING];
    int32_t desync_frame;       /* newest frame found to differ, -1 none */
    uint64_t desync_sums[2];
    tempo_relay_match_stats st;
} relay_match;

/* What the relay tells its operator (relay_note.c), one kind per line:
 * each told at most once per RELAY_NOTE_US. */
typedef enum relay_note {
    RELAY_NOTE_NONE = 0,
    RELAY_NOTE_FULL,            /* max_members in use */
    RELAY_NOTE_NO_MATCH,        /* max_matches (or max_turn_matches) in use */
    RELAY_NOTE_DRAINING,        /* no new match while draining (INFO) */
    RELAY_NOTE_NOT_A_JOIN,      /* a token's user data is no join, or names other slots */
    RELAY_NOTE_TOO_LARGE,       /* a match's frame over max_frame_bytes */
    RELAY_NOTE_DISAGREES,       /* a join's settings are not its match's */
    RELAY_NOTE_TAKEN,           /* a player somebody has */
    RELAY_NOTE_STARTED,         /* a match that has started */
    RELAY_NOTE_SEND,            /* the transport refused a datagram */
    RELAY_NOTE_COUNT_
} relay_note;

#define RELAY_NOTE_US 10000000u /* 10 s */

struct tempo_relay {
    tempo_relay_config cfg;
    tempo_logger log;
    tempo_note notes[RELAY_NOTE_COUNT_];
    tempo_allocator alloc;
    tempo_transport transport;
    gate_server gate;
    link_config link_cfg;
    uint64_t now_us, now_seconds;
    bool refuse_matches;        /* draining: no match is opened */
    uint64_t p2p_opened;        /* peer-to-peer matches opened: each secret's own input */
    uint64_t backlog_since_us;  /* datagrams have waited unread since then (0: none) */
    bool swept;
    uint64_t last_sweep_us;     /* the last sweep over every member */

    relay_match *matches;
    int free_match;
    relay_member *members;
    int free_member;
    int *table;                 /* address -> member index, open addressing, -1 empty */
    uint32_t table_mask;
    uint8_t *frame_store;       /* every match's ring, one block */
    relay_turn_list *turn_store; /* max_turn_matches stores of lockstep lists */
    int *turn_free;             /* stores not taken: a stack */
    int nturn_free;
    turn_msg tmsg;              /* a decoded member's turns, or the notice being written */

    tempo_relay_stats st;
    uint8_t buf[TEMPO_MAX_DATAGRAM + 1];
    uint8_t out[TEMPO_MAX_DATAGRAM];
};

/* True once `deadline` has passed at the relay's now. While datagrams
 * wait unread (a backlog: a flood, a stall of this process), the relay is
 * late, not its members: an input that came in time may wait among them,
 * so deadlines move back by as long as the backlog has lasted, up to one
 * more tolerance. No further: a relay that stays behind would otherwise
 * hold every frame back, its members would aim further and further
 * behind, and more of their inputs would come too late. */
static inline bool relay_past(const tempo_relay *r, uint64_t deadline)
{
    uint64_t grace = 0;
    if (r->backlog_since_us != 0) {
        uint64_t cap = (uint64_t)r->cfg.tolerance_ms * 1000u;
        grace = r->now_us - r->backlog_since_us;
        if (grace > cap)
            grace = cap;
    }
    return r->now_us >= deadline + grace;
}

/* ---- relay_match.c ---- */
/* Take a free match for join (its fields are checked): its index, or -1. */
int relay_match_open(tempo_relay *r, const tempo_relay_join *j);
/* The index of the match with this id, or -1. */
int relay_match_find(const tempo_relay *r, uint64_t id);
/* Free a match that has no member left. */
void relay_match_close(tempo_relay *r, int index);
/* The match's frame clock at now: negative before frame 0, INT32_MIN
 * before the start is decided. */
int32_t relay_match_clock(const relay_match *m, uint64_t now_us);
/* A rollback match: decide the start when due, then finalize every frame
 * that is complete or past its deadline (a lockstep match's turns are
 * relay_turns_advance's). */
void relay_match_advance(tempo_relay *r, relay_match *m);
/* A member's inputs: `count` frames from `first` for its slots. */
void relay_match_inputs(tempo_relay *r, relay_match *m, relay_member *e, int32_t first,
                        int count, const uint8_t *inputs);
/* A member's checksum of a check frame. */
void relay_match_checksum(tempo_relay *r, relay_match *m, relay_member *e, int32_t frame,
                          uint64_t sum);
/* The next frame of e's inputs the match lacks (from `finalized`). */
int32_t relay_match_wanted(const relay_match *m, const relay_member *e);
/* Decide the match's start once every player is in or start_wait passed. */
void relay_match_start(tempo_relay *r, relay_match *m);
/* Player p's input (or list) of the frame (or turn) being finalized was
 * substituted: count it for the match, the relay and its member. */
void relay_match_substituted(tempo_relay *r, relay_match *m, int p);
/* The frame (or turn) in slot `s` is final, `missing` its substituted
 * players: record it, move `finalized` on, and clear slot `next`, the one
 * the unit that many ahead will take. */
void relay_match_finalized(tempo_relay *r, relay_match *m, int s, uint8_t missing, int next);

/* ---- relay_turns.c ---- */
/* A lockstep member's turns message (decoded): its own lists stored. */
void relay_turns_lists(tempo_relay *r, relay_match *m, relay_member *e, const turn_turns *t);
/* Finalize every turn that is complete or past its deadline. */
void relay_turns_advance(tempo_relay *r, relay_match *m);
/* Send e what it lacks: one or a few turn_relay datagrams. */
void relay_turns_send(tempo_relay *r, relay_member *e);
/* The datagram of `body` bytes at r->out + PACKET_HEADER_SIZE to e (relay_send.c). */
void relay_send_to(tempo_relay *r, relay_member *e, uint8_t type, size_t body);

/* ---- relay_peers.c: peer-to-peer matches ---- */
/* A new p2p match m: its secret, from the cookie key and a count only
 * this relay knows. */
void relay_peers_open(tempo_relay *r, relay_match *m);
/* A member's CANDIDATES: kept, and answered with an INTRO. */
void relay_peers_candidates(tempo_relay *r, relay_member *e, const uint8_t *body, size_t size);
/* Member `index`, new and sealed, joins p2p match `mi` for `slots`: a
 * member there with the same client id (the same token, so the same
 * player, from a new address: a mobile network's move) is let go for it.
 * True if one was. */
bool relay_peers_moved(tempo_relay *r, int mi, int index, uint8_t slots);
/* Free member `index` (relay.c). */
void relay_member_free(tempo_relay *r, int index);
/* A member's FORWARD: to the member of its match it names. */
void relay_peers_forward(tempo_relay *r, relay_member *e, const uint8_t *body, size_t size);

/* ---- relay_note.c ---- */
/* Tell the operator of `kind`, about the member at `who`: a line through
 * the config's log unless one of that kind was told in the last
 * RELAY_NOTE_US (then counted into the next). */
void relay_tell(tempo_relay *r, relay_note kind, const tempo_address *who);
/* The transport refused a datagram to `to`: counted, and told. */
void relay_send_failed(tempo_relay *r, const tempo_address *to);

/* The ring slot of frame f. */
static inline int relay_slot(int32_t f) { return (int)((uint32_t)f % RELAY_RING); }

#endif /* TEMPO_RELAY_RELAY_H */
