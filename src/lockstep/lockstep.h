/* SPDX-License-Identifier: MIT */
/*
 * lockstep.h — what the parts of turn-based lockstep share: the object's
 * state, one list per player and turn, one ls_peer (a link and what
 * lockstep knows beside it) per remote machine. lockstep.c keeps the
 * schedule and the game's side; lockstep_net.c the datagrams both ways
 * between machines; lockstep_relay.c the datagrams to and from a relay;
 * lockstep_lists.c what all three read and report into. Calls go down that
 * list only (lockstep.c drives net and relay, both report through lists),
 * never back up. The invariants are in lockstep.c's opening comment.
 */
#ifndef TEMPO_LOCKSTEP_LOCKSTEP_H
#define TEMPO_LOCKSTEP_LOCKSTEP_H

#include "tempo/lockstep.h"

#include "base/common.h"
#include "base/event_ring.h"
#include "net/gate.h"
#include "net/link.h"
#include "net/receive.h"
#include "tempo/rng.h"
#include "wire/fragment.h"
#include "wire/replay_window.h"
#include "wire/seal.h"
#include "wire/turn_msg.h"

#define LS_WINDOW 64          /* turn lists held per player */
#define LS_EVENTS 64
#define LS_SUMS 64            /* own checksums remembered, by turn */
#define LS_KEEPALIVE_US 100000u /* a machine with nothing new still sends this often */
#define LS_RESEND_US 33000u   /* lists not acknowledged go again this often (two ticks) */
#define LS_FRAG_SLOTS 2
#define LS_RECV_BUDGET 4096   /* datagrams one poll reads at most */
#define LS_SEQ_JUMP (REPLAY_WINDOW / 2) /* a longer step is held (net/receive.h) */
#define LS_PING_US 200000u    /* ping period: round trips settle within a second or two */

_Static_assert(TEMPO_LOCKSTEP_MAX_COMMAND == TURN_MAX_COMMAND, "command size");
_Static_assert(TEMPO_LOCKSTEP_MAX_COMMANDS == TURN_MAX_COMMANDS, "commands per turn");
_Static_assert(TEMPO_LOCKSTEP_TURN_BUDGET == TURN_BUDGET, "turn budget");
_Static_assert(LS_WINDOW >= 2 * TEMPO_LOCKSTEP_MAX_DELAY + 4, "the window holds every honest list");
_Static_assert(TURN_MSG_MAX_LISTS >= 2 * TEMPO_LOCKSTEP_MAX_DELAY + 2, "one message resends all");

/* One player's list for one turn, in its wire form (turn_msg.h). */
typedef struct ls_list {
    int32_t turn;             /* -1: the slot is empty */
    uint8_t flags;
    uint16_t length_ms;
    uint8_t count;
    uint16_t size;
    uint64_t added_sum_us;    /* own lists: sum of the add times, for latency */
    uint64_t first_added_us;
    uint8_t cmds[TURN_LIST_BYTES];
} ls_list;

/* One remote machine: the link beside what lockstep knows of it. */
typedef struct ls_peer {
    bool added, lost, started;
    tempo_address addr;
    net_link link;
    tempo_replay replay;
    wire_keys keys;
    tempo_frag_assembler frag;
    uint16_t frag_id;
    int32_t acked;            /* the first turn of ours it lacks, by its word */
    int32_t have;             /* the first turn of its list we lack */
    uint64_t last_send_us;
    int32_t sent_have, sent_sum, sent_sealed; /* what the last datagram told it */
    uint32_t pong_owed;       /* its newest ping, not answered yet (0: none) */
    uint8_t sent_lost;        /* the lost players the last datagram named */
    uint8_t heard_lost;       /* players it told us it holds lost ... */
    int32_t lost_have[TEMPO_MAX_PLAYERS]; /* ... and the first turn of each it lacks */
    bool reported;            /* it reported its round trips */
    uint32_t sim_us;
    uint16_t rtt_ms, rttvar_ms;
    int32_t sum_turn;         /* its checksum of a turn we have not done yet */
    uint64_t sum;
    int32_t desync_turn;      /* the turn a mismatch with it was reported for, -1: none */
} ls_peer;

/* Through a relay (lockstep_relay.c): the one link, to the relay. */
typedef enum ls_relay_phase { LR_CONNECTING, LR_JOINING, LR_IN, LR_ENDED } ls_relay_phase;

typedef struct ls_relay {
    ls_relay_phase phase;
    tempo_address addr;
    uint64_t protocol_id;
    bool sealed;              /* came with a token: every datagram sealed with its keys */
    uint8_t token[TEMPO_TOKEN_SIZE];
    uint64_t nonce;           /* unsealed: our client id */
    gate_client gate;
    net_link link;
    tempo_replay replay;
    wire_keys keys;
    int32_t final;            /* turns below are final (ours decided) */
    int32_t acked;            /* the first turn of ours the relay lacks */
    int32_t sent_sealed, sent_ack, sent_sum; /* what the last datagram told it */
    uint64_t last_send_us, last_join_us;
} ls_relay;

struct tempo_lockstep {
    tempo_lockstep_config cfg;
    tempo_transport tr;
    tempo_logger log;
    tempo_rng rng;
    uint32_t config_hash;
    bool keyed, polled, starting, running, ended, outstanding;
    bool took_host;           /* a survivor that became the host has taken over the length */
    uint8_t lost_mask;        /* players whose machines are gone */
    bool cut_final[TEMPO_MAX_PLAYERS];
    int32_t cut[TEMPO_MAX_PLAYERS]; /* a lost player's last turn with its own list */
    int32_t cut_cap[TEMPO_MAX_PLAYERS]; /* the cut agreed before a survivor was lost: the
                                           next agreement can only lower it */
    uint64_t cut_lacking_us[TEMPO_MAX_PLAYERS]; /* since when we lack lists up to a final
                                                   cut (0: we hold them) */
    uint64_t cut_pending_us[TEMPO_MAX_PLAYERS]; /* since when a lost player's cut waits
                                                   for the survivors' reports */
    uint64_t now_us, start_at_us, run_start_us;
    ls_peer peer[TEMPO_MAX_PLAYERS]; /* by player; the local one unused */
    ls_relay *relay;                 /* through a relay: its link (no peers); else NULL */
    ls_list *lists;                  /* num_players * LS_WINDOW */

    int32_t executed;         /* newest turn handed out, -1 before turn 0 */
    int32_t done;             /* newest turn reported done */
    int32_t sealed;           /* newest own list sealed */
    uint64_t due_us;          /* when executed + 1 is due */
    uint64_t anchor_us;       /* where executed's time began (render) */
    uint32_t len_ms;          /* length of turn `executed` and later, until a switch */
    uint32_t announced_ms;    /* host: the length in force at the newest sealed turn */
    int32_t next_adapt;       /* host: the first turn the rule may decide for */
    bool frozen;
    uint64_t freeze_start_us;
    uint32_t missing_mask;

    int32_t sum_turn[LS_SUMS];
    uint64_t sum[LS_SUMS];
    uint64_t sim_avg_us;      /* running mean of the turn cost, 1/8 per turn */
    bool sim_any;

    int32_t hist_turn[TEMPO_LOCKSTEP_HISTORY];
    uint32_t hist_ms[TEMPO_LOCKSTEP_HISTORY];
    int nhist;                /* switches ever recorded */

    tempo_lockstep_event events[LS_EVENTS];
    event_ring ev;            /* which of events[] are held, oldest first; its drops */

    tempo_lockstep_stats st;
    uint64_t latency_sum_us;

    turn_msg msg;
    uint8_t dgram[TEMPO_MAX_DATAGRAM];
    uint8_t payload[FRAG_MAX_PAYLOAD];
};

static inline bool lockstep_is_host(const tempo_lockstep *ls) { return ls->cfg.local_player == 0; }

/* ---- lockstep_lists.c ---- */

/* The slot of player's list for turn, whatever turn it holds now. */
ls_list *lockstep_slot(tempo_lockstep *ls, int player, int32_t turn);
/* The list of player for turn, or NULL if not held (turns below the delay:
 * the agreed empty list, also NULL). */
ls_list *lockstep_held(tempo_lockstep *ls, int player, int32_t turn);
/* True if player's list for turn is held or agreed empty (below the delay,
 * or past a lost player's cut). */
bool lockstep_have(tempo_lockstep *ls, int player, int32_t turn);
/* True if player's list for turn is replaced by an empty one: the player
 * is lost and turn is past the cut the survivors agreed. */
bool lockstep_dropped(const tempo_lockstep *ls, int player, int32_t turn);
/* The host for turn: the lowest player not dropped at that turn. */
int lockstep_host_of(const tempo_lockstep *ls, int32_t turn);
void lockstep_push_event(tempo_lockstep *ls, const tempo_lockstep_event *e);
void lockstep_event(tempo_lockstep *ls, tempo_lockstep_event_kind kind, int player);
/* The match runs from at_us: turn 0 is due then. */
void lockstep_start_running(tempo_lockstep *ls, uint64_t at_us);
/* player's checksum of turn against ours: a DESYNC event at the first
 * mismatch with that machine. */
void lockstep_compare(tempo_lockstep *ls, int player, int32_t turn, uint64_t theirs);
/* Our round trips as one report: the largest smoothed RTT over our links
 * and the largest deviation; false until every link has one. */
bool lockstep_own_rtt(const tempo_lockstep *ls, uint64_t *rtt, uint64_t *var);

/* ---- lockstep_net.c ---- */

/* Every link starts at the first poll. */
void lockstep_start_links(tempo_lockstep *ls);
/* Read and handle the datagrams waiting, at most LS_RECV_BUDGET. */
void lockstep_receive_all(tempo_lockstep *ls);
/* What each machine should hear now: hellos, the start, turn lists. */
void lockstep_send_all(tempo_lockstep *ls);
/* One bodiless message (START, LEAVE) to e. */
void lockstep_send_plain(tempo_lockstep *ls, ls_peer *e, uint8_t type);
/* player's machine is gone: the match ends. */
void lockstep_lose(tempo_lockstep *ls, int player);
/* The ack of l's datagrams into t, with how long l held it at `now`. */
void lockstep_ack_out(const net_link *l, uint64_t now, turn_turns *t);
/* t's ack, for the receive pipeline to give the link at the take. */
void lockstep_ack_in(const turn_turns *t, net_datagram *d);

/* ---- lockstep_relay.c ---- */
/* Set up the handshake with the relay at the first poll. Errors as
 * gate_client_init. */
tempo_result lockstep_relay_open(tempo_lockstep *ls);
/* Read every datagram waiting, run the handshake, the join and liveness. */
void lockstep_relay_poll(tempo_lockstep *ls);
/* Our lists the relay lacks, and how far we hold its final ones. */
void lockstep_relay_send(tempo_lockstep *ls);
/* Tell the relay we leave. */
void lockstep_relay_leave(tempo_lockstep *ls);
#endif /* TEMPO_LOCKSTEP_LOCKSTEP_H */
