/* SPDX-License-Identifier: MIT */
/*
 * network.h — the network backends' state and their shared machinery: one
 * p2p_peer per remote machine (its rollback fields beside its net_link),
 * the handshake, input exchange, spectators, the disconnect agreement and
 * desync checks. Two backends run on it: p2p (peers hosting players, feeding
 * spectators) and spectator (one peer, the host).
 *
 * p2p.c         the p2p backend's ops: state, remote machines and their
 *               keys, the poll's order of work, the tick, leaving, stats
 * p2p_packets.c the packet layer both ways: sending, the handshake's SYNC
 *               messages, a datagram's way in, dispatch to each part
 * p2p_liveness.c each link serviced (handshake, liveness events, pings),
 *               and what losing a machine means
 * p2p_pace.c    when frames run: start-up, time sync, the input delay
 * p2p_input.c   INPUT messages out and in, the spectator feed and its ring
 * p2p_agree.c   agreeing on a dropped player's last frame; desync checks
 * p2p_diff.c    desync diffs: the states of a desync frame exchanged, compared
 * p2p_rejoin.c  a dropped machine coming back by state transfer
 * p2p_restart.c a new process at a peer's address, told from its earlier
 *               one before that one is dropped
 * p2p_dropped.c a machine dropped from a running match: refused by the
 *               others, learning it was dropped, coming back by itself
 * spectator.c   the spectator backend's ops: create, the tick, the state
 *
 * Calls between these files form one circle, on purpose. p2p.c and
 * p2p_packets.c are the hub: the poll, the tick and the dispatch call
 * every part. The parts call back into it for
 * the packet layer (sending, opening and decoding, a peer's keys, its
 * record's reset, the handshake's SYNC messages), for starting links and
 * running again (a machine that comes back starts over), for the input
 * delay in force, and for losing a peer (p2p_lose_peer), an outcome any
 * part can reach (a silent link, a drop agreed, a restart seen, a rejoin
 * given up) whose consequences every part must see in the same step. The
 * parts call each other where one protocol event belongs to two of them:
 * INPUT carries the drop gossip (input <-> agree), a checksum found
 * differing opens a diff that reads our own sum (agree <-> diff), a new
 * process is revived by a rejoin that adopts its sequence floor (rejoin <->
 * restart), a dropped machine's return goes through both (dropped -> rejoin,
 * restart). They share one state (tempo_p2p and its p2p_peer records) and
 * one per-peer protocol; what splits them is the topic, not a layer, so
 * none may be read as a layer below another and the calls stay direct
 * (queued, a peer lost or a desync found would reach the other parts a tick
 * late and change what goes on the wire). spectator.c is outside the
 * circle: it only calls p2p.c's and p2p_rejoin.c's shared entry points.
 *
 * Everything about a remote machine that is not about players or frames
 * (sequences, round trips, loss, liveness, the throttle, the handshake's
 * nonces and hash) is its link's (net/link.h); the replay window is the
 * wire's (wire/replay_window.h). The network state reaches its session only through
 * the session_host (backend.h). Internal: not installed. All state is
 * preallocated at create.
 */
#ifndef TEMPO_P2P_NETWORK_H
#define TEMPO_P2P_NETWORK_H

#include "wire/codec.h"
#include "wire/seal.h"
#include "wire/replay_window.h"
#include "net/link.h"
#include "net/receive.h"
#include "session/backend.h"
#include "p2p/p2p_diff.h"
#include "p2p/p2p_rejoin.h"
#include "timing/timesync.h"

#define P2P_MAX_PEERS TEMPO_MAX_PLAYERS
#define P2P_SUM_LOG 256         /* own checksums kept for sending and comparison */
#define P2P_PENDING_SUMS 32     /* peers' checksums waiting for ours */
#define P2P_SUMS_PER_TICK 4     /* CHECKSUM datagrams per peer per tick, at most */
#define P2P_SUM_RESEND_US 100000u /* unacknowledged checksums go again after this, or the RTO if longer */
#define P2P_KEEPALIVE_US 100000u /* an INPUT (its ack) goes at least this often */
/* Largest step ahead in a peer's sequence taken as its newest: half the
 * replay window, so the datagrams still in flight behind the newest stay
 * inside the window. A longer gap (over 2 s of loss at 60 datagrams a second)
 * is followed once a second datagram confirms it (net/link.c). */
#define P2P_SEQ_JUMP (REPLAY_WINDOW / 2)

enum { DROP_NONE = 0, DROP_PENDING = 1, DROP_FINAL = 2 };

/* How a remote machine was lost here (p2p_peer.lost_how). */
enum {
    P2P_LOST_DROPPED = 0, /* we dropped it: news of its drop, a watchdog, the game, a restart */
    P2P_LOST_TIMEOUT = 1, /* silent for the timeout, or its handshake timed out */
    P2P_LOST_LEFT = 2,    /* it said it leaves (DISCONNECT) */
    P2P_LOST_REFUSED = 3  /* it refused us: it had dropped this machine (REJOIN_REFUSED) */
};
/* A dropped machine's traffic is answered with REJOIN_REFUSED at most this often. */
#define P2P_REFUSE_US 250000u
/* AUTH_FAILED about one machine at most this often. */
#define P2P_AUTH_EVENT_US 5000000u

typedef enum p2p_role {
    P2P_ROLE_PEER = 1,      /* hosts players */
    P2P_ROLE_SPECTATOR = 2, /* watches us */
    P2P_ROLE_HOST = 3       /* we watch it */
} p2p_role;

/* One remote machine: a peer hosting players, a spectator we feed, or (on a
 * spectator session) the host. Everything but `link` and `replay` is the
 * rollback part: what it told us about frames and what we owe it. */
typedef struct p2p_peer {
    tempo_address addr;
    p2p_role role;
    uint32_t players;          /* players it hosts */

    /* inputs */
    int32_t remote_ack;        /* next frame of ours it wants */
    int32_t remote_frame;      /* its current frame, as last said */
    int32_t remote_lag;        /* frames of ours it was predicting, as last said */
    int32_t sent_ack;          /* the ack we last sent it */
    bool input_sent;           /* an INPUT (INPUT_ACK) went to it ... */
    uint64_t input_sent_us;    /* ... last at this time */

    /* our checksums to it, resent until acknowledged (0: no frame yet) */
    int32_t sum_acked;         /* it holds every check frame of ours up to this */
    int32_t sum_next;          /* next check frame of ours to send it */
    int32_t sum_sent_max;      /* newest check frame of ours ever sent to it */
    uint64_t sum_timer_us;     /* when the oldest unacknowledged one was last sent */

    /* disconnect gossip it sent us: the drops it claims, those we believe */
    uint8_t claim_mask;
    uint8_t gossip_mask;
    int32_t gossip_have[TEMPO_MAX_PLAYERS];

    /* It sent an INPUT: its process runs the match, and sends no
     * handshake again (a SYNC_REQUEST from its address is a new process's). */
    bool ran;
    /* A dropped machine whose link a fresh handshake revived: it gets no
     * inputs until it runs again (its first INPUT). */
    bool rejoining;
    uint32_t epoch;            /* its key epoch (wire/keys.h): 0 until it rejoins */
    uint8_t lost_how;          /* P2P_LOST_*, once lost */
    uint64_t lost_at_us;       /* when it was lost here */
    uint64_t refused_us;       /* when we last refused its traffic (0: never) */
    /* datagrams from its address that failed to authenticate, and the
     * count and time of the last AUTH_FAILED event about them */
    uint64_t auth_failures, auth_reported, auth_event_us;

    tempo_replay replay;       /* its sequences we accepted (wire/replay_window.h) */
    net_link link;             /* set up at the session's first poll */
    /* The pair's keys (keyed sessions): derived at the first poll, wiped
     * when the peer is lost, the session has left, or it is destroyed. Not
     * ready means nothing goes to it and nothing from it opens. */
    wire_keys keys;
} p2p_peer;

/* Handshake done with it (and stays so once it is lost). */
static inline bool p2p_synced(const p2p_peer *p) { return p->link.hs.complete; }
/* Lost: timed out, left, or dropped by us. */
static inline bool p2p_lost(const p2p_peer *p) { return link_closed(&p->link); }

/* A new process at a live peer's address (p2p_restart.c): a link of its
 * own, numbered from where the last one at that key epoch stopped (0 at
 * first), that probes it with handshake requests. Taken over as the
 * peer's link when the peer is revived. */
typedef struct p2p_successor {
    bool active;               /* probing it now */
    bool used;                 /* a successor ran before: link.send_seq is where it stopped */
    uint32_t epoch;            /* keyed: the key epoch its handshake opened under */
    uint64_t since_us;         /* when it was first heard */
    net_link link;
    tempo_replay replay;
    wire_keys keys;            /* keyed: the pair keys at that epoch */
} p2p_successor;

typedef struct p2p_pending_sum {
    int32_t frame; /* -1: empty */
    uint64_t sum;
} p2p_pending_sum;

/* The check frames of one peer's we hold (compared, waiting for ours, or
 * given up as missed): all up to `held`, and of the P2P_SUM_LOG after it,
 * those whose bit is set. `held` is the ack we send it. */
typedef struct p2p_sum_window {
    int32_t held;
    int32_t newest;        /* newest check frame of its that came */
    uint64_t bits[P2P_SUM_LOG / 64]; /* bit k: held + (k + 1) * interval */
    bool ack_owed;         /* a checksum came since we last sent it one */
} p2p_sum_window;

/* Counters of the network backends, reported in tempo_session_stats. */
typedef struct p2p_counts {
    uint64_t desync_checks, desyncs;
    uint64_t dropped_malformed, dropped_unknown, dropped_session, dropped_replay;
    uint64_t dropped_forged, held_jumps;
    uint64_t send_errors;
    uint64_t desync_checks_missed, checksums_ignored;
    uint64_t acks_ignored, claims_ignored;
    uint64_t dropped_early;          /* not the handshake, from a machine not yet synchronized */
    uint64_t restarts, restarts_unproven;
} p2p_counts;

typedef struct tempo_p2p {
    const session_host *host;        /* the facade, through its narrow interface */
    const tempo_config *cfg;         /* host->cfg, host->sync, host->clock, */
    tempo_sync *sync;                /* at hand */
    const session_clock *clock;
    tempo_transport transport;
    bool spectating;                 /* a spectator session (peers[0] is the host) */
    bool keyed;                      /* a match key: every datagram sealed */
    uint8_t offer;                   /* our cipher offer (wire/seal.h), sent in every SYNC */

    p2p_peer peers[P2P_MAX_PEERS];   /* machines hosting players (or the host) */
    int npeers;
    p2p_peer *specs;                 /* spectators we feed (max_spectators) */
    int nspecs, max_specs;
    int player_peer[TEMPO_MAX_PLAYERS]; /* peer index hosting player p, -1 local */
    uint32_t local_mask;

    bool started;                    /* first poll happened */
    uint64_t clock_jumps;            /* the session clock's jumps the links were told of */
    bool running, left;
    int leave_repeats;               /* DISCONNECTs still to send on later polls */
    /* start-up: ready = synchronized with every peer */
    bool ready;
    uint64_t ready_us;
    bool run_scheduled;
    uint64_t run_at_us;
    uint32_t startup_delay_ms;
    /* time sync */
    tempo_timesync ts;
    bool decided, stall_next;        /* this tick's stall, decided at its first poll */
    uint64_t next_quality_us;
    tempo_rng rng;                   /* handshake nonces */
    uint32_t config_hash;

    /* disconnect agreement, per player */
    uint8_t drop_state[TEMPO_MAX_PLAYERS];
    int32_t drop_frame[TEMPO_MAX_PLAYERS];      /* the frame agreed, or the candidate */
    uint32_t drop_reported[TEMPO_MAX_PLAYERS];  /* peers (bit = index) that reported it this round */
    uint64_t drop_waiting_since[TEMPO_MAX_PLAYERS]; /* final but inputs missing since, 0 none */
    uint64_t drop_pending_since[TEMPO_MAX_PLAYERS]; /* pending (not final) since */

    /* desync checks */
    sync_sum own_sums[P2P_SUM_LOG];  /* by frame / interval % P2P_SUM_LOG */
    int32_t own_newest;              /* newest own check frame computed (0: none) */
    p2p_pending_sum pending[P2P_MAX_PEERS][P2P_PENDING_SUMS];
    p2p_sum_window sum_in[P2P_MAX_PEERS];
    int32_t desync_reported[8];      /* frames already reported, ring ... */
    uint64_t desync_remote[8];       /* ... with the remote checksum that differed */
    int desync_head;
    p2p_diff diff;                   /* desync diffs (p2p_diff.c) */
    p2p_rejoin rejoin;               /* rejoin by state transfer (p2p_rejoin.c) */
    p2p_successor next[P2P_MAX_PEERS]; /* new processes at peers' addresses (p2p_restart.c) */

    uint64_t drops[TEMPO_DROP_REASON_COUNT_];
    p2p_counts count;
    tempo_msg msg;                   /* decode/encode scratch (large) */
    uint8_t buf[TEMPO_MAX_DATAGRAM + 1];
} tempo_p2p;

static inline void p2p_push_event(const tempo_p2p *n, const tempo_event *ev)
{
    n->host->push_event(n->host->ctx, ev);
}

static inline void p2p_disconnect(const tempo_p2p *n, int player, int32_t frame)
{
    n->host->disconnect(n->host->ctx, player, frame);
}

/* ---- p2p.c: the machinery both network backends share ---- */
/* Allocate the state (*out, NULL on failure) and set what every network
 * session starts from; TEMPO_OK or TEMPO_E_NO_MEMORY. */
tempo_result p2p_open(const session_host *host, const session_args *args, tempo_p2p **out);
/* Set up e as a remote machine at addr hosting `players`; its link starts
 * at the session's first poll. */
void p2p_peer_init(p2p_peer *e, const tempo_address *addr, p2p_role role, uint32_t players);
/* Ops shared by both backends (b: a tempo_p2p). */
void p2p_destroy(void *b);
void p2p_poll(void *b);
bool p2p_will_stall(const void *b);
tempo_result p2p_leave(void *b);
tempo_session_state p2p_state(const void *b);
void p2p_stats(const void *b, tempo_session_stats *out);
tempo_result p2p_player_stats(const void *b, int player, tempo_endpoint_stats *out);
/* A tick's network part before planning: false if the tick ends there
 * (left: *r is TEMPO_E_STATE; not running yet: SYNCHRONIZING). */
bool p2p_tick_opens(tempo_p2p *n, tempo_tick *tick, tempo_result *r);
/* ...and after planning: checksums, the spectator ring, sending. */
void p2p_tick_closes(tempo_p2p *n);
/* Send msg to e: the packet header with e's next sequence, then the body,
 * sealed with e's keys in a keyed session; its link counts the datagram.
 * False if it could not be encoded, sealed or sent (a keyed session sends
 * nothing to a peer whose keys are gone). */
bool p2p_send(tempo_p2p *n, p2p_peer *e, tempo_msg *msg, const tempo_codec_ctx *ctx);
/* p2p_send of an INPUT whose middle part may come from, or go to, `run`
 * (wire/codec.h, tempo_codec_run: one round of sends, inputs unchanged). */
bool p2p_send_run(tempo_p2p *n, p2p_peer *e, tempo_msg *msg, const tempo_codec_ctx *ctx,
                  tempo_codec_run *run);
/* Send the datagram in n->buf (size bytes, header and body, sequence seq
 * from link_next_seq), sealed in a keyed session; as p2p_send. */
bool p2p_send_datagram(tempo_p2p *n, p2p_peer *e, uint64_t seq, size_t size);
/* Drop e and its players (we give up on it); nothing if lost. */
void p2p_lose_peer(tempo_p2p *n, p2p_peer *e);
/* The same, saying how it was lost (P2P_LOST_*). */
void p2p_lose_peer_as(tempo_p2p *n, p2p_peer *e, uint8_t how);
/* Start every link afresh at the session's time (the first poll, or a
 * machine coming back by itself): keys derived at this machine's key
 * epoch, handshakes from the first round. */
void p2p_start_links(tempo_p2p *n);
void p2p_event(tempo_p2p *n, tempo_event_kind kind, int player);
int p2p_first_player(uint32_t mask);
/* The lowest player of a mask that is not empty, for loops over a mask's
 * players (for (m = mask; m; m &= m - 1) p = p2p_low_player(m)) in place of
 * loops over every player of the match. */
static inline int p2p_low_player(uint32_t mask)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctz(mask);
#else
    int p = 0;
    while (!(mask & 1u))
        mask >>= 1, p++;
    return p;
#endif
}
/* True if some player's drop is being agreed or final: most ticks of most
 * matches have none, and the drop rounds' work can be skipped. */
static inline bool p2p_any_drop(const tempo_p2p *n)
{
    uint8_t any = 0;
    for (int x = 0; x < n->cfg->num_players; x++)
        any |= n->drop_state[x];
    return any != DROP_NONE;
}
/* Fill the public stats of e, from its link and its rollback fields. */
void p2p_peer_stats(const p2p_peer *e, tempo_endpoint_stats *out);

/* Send the datagram in n->buf (size bytes, header and body, sequence seq
 * from link_next_seq(l)) to `to` over link l, sealed with `keys` in a
 * keyed session; l counts it. As p2p_send. */
bool p2p_send_on(tempo_p2p *n, net_link *l, const wire_keys *keys, const tempo_address *to,
                 uint64_t seq, size_t size);
/* Encode msg after a header with l's next sequence and send it as
 * p2p_send_on does. */
bool p2p_send_msg_on(tempo_p2p *n, net_link *l, const wire_keys *keys, const tempo_address *to,
                     tempo_msg *msg, const tempo_codec_ctx *ctx);
/* A SYNC_REQUEST or SYNC_REPLY of ours carrying `nonce`, into m. */
void p2p_fill_sync(const tempo_p2p *n, tempo_msg *m, uint8_t type, uint32_t nonce);
/* What only the game can check in a SYNC message from e. */
bool p2p_sync_fits(const tempo_p2p *n, const p2p_peer *e, const tempo_msg_sync *y);
/* A datagram refused for why: counted by its reason and in the counter
 * the reason moves (net/receive.h; EARLY in dropped_early). */
void p2p_drop(tempo_p2p *n, tempo_drop_reason why);
/* Decode the body of the datagram in n->buf (header read into *v) into
 * n->msg: TEMPO_OK, or the reason it was dropped. */
tempo_drop_reason p2p_decode(tempo_p2p *n, const p2p_peer *e, const tempo_packet_view *v,
                             const uint8_t *body, size_t body_size);

/* The remote machine at address a, or NULL; *peer_index is its index
 * among the peers, or -1 (a spectator, or none). */
p2p_peer *p2p_find(tempo_p2p *n, const tempo_address *a, int *peer_index);

/* ---- p2p_packets.c ---- */
/* Every datagram waiting on the transport, each through the receive
 * pipeline and to its handler; at most a bounded number per poll. */
void p2p_receive_all(tempo_p2p *n);
/* A SYNC_REQUEST to e if its link says one is due: the handshake's round
 * trips, then, from a peer until the match runs, our readiness and our
 * round trips (the ping mesh). */
void p2p_handshake(tempo_p2p *n, p2p_peer *e);

/* ---- p2p_liveness.c ---- */
/* e's link at this poll's time: its handshake, its liveness events as
 * the game sees them, a ping when one is due. */
void p2p_service(tempo_p2p *n, p2p_peer *e);

/* ---- p2p_pace.c ---- */
/* The match runs from now on (RUNNING event, the first automatic delay). */
void p2p_start_running(tempo_p2p *n);
/* Start running once every peer is ready and the start-up delay passed. */
void p2p_check_running(tempo_p2p *n);
/* GGPO's quality reports to every synchronized peer, once a second, when
 * time sync uses that method. */
void p2p_send_quality(tempo_p2p *n);
/* After each planned tick: every live peer's lags to time sync, and the
 * automatic input delay moved. */
void p2p_timesync_after_tick(tempo_p2p *n);

/* Derive the pair keys of this machine and peer e (a peer hosting
 * players) at e's key epoch into *out; false if they cannot be made. */
bool p2p_link_keys(const tempo_p2p *n, const p2p_peer *e, wire_keys *out);
/* The same with this machine taken at key epoch `self_epoch` (one it had
 * before: only to open what a peer that knows it there sealed). */
bool p2p_link_keys_as(const tempo_p2p *n, const p2p_peer *e, uint32_t self_epoch, wire_keys *out);

/* The input delay the local players use now (the largest; p2p_pace.c). */
int p2p_local_delay(const tempo_p2p *n);

/* ---- p2p_restart.c ---- */
/* A datagram from live peer `peer` (header read into *v, size bytes in
 * n->buf) that may be a new process's at its address: true if it was
 * taken (or dropped and counted) here, false if it goes the usual way.
 * n->buf is left as it came when false. */
bool p2p_restart_take(tempo_p2p *n, int peer, const tempo_packet_view *v, size_t size);
/* Each poll: probe the new processes; the earlier one of a peer whose new
 * process answered is lost once its own sequence stopped for
 * disconnect_notify_ms; a lost peer's new process is taken back once
 * rejoin allows it. */
void p2p_restart_poll(tempo_p2p *n);
/* Lost peer `peer` is revived at key epoch `epoch`: its link, window and
 * keys become those of the new process that answered at that epoch.
 * False if there is none (the caller starts a fresh link). */
bool p2p_restart_adopt(tempo_p2p *n, int peer, uint32_t epoch);
/* Lost peer `peer` is revived on a fresh link at key epoch `epoch` (no
 * successor had been answered there): a successor still probing under the
 * same epoch stops. Its probes would carry the fresh link's numbers under
 * the same keys, and the new process's handshake replies, which open
 * under its keys too, would reach it instead of the link, whose handshake
 * then never completes. */
void p2p_restart_superseded(tempo_p2p *n, int peer, uint32_t epoch);
/* Where a fresh link to peer `peer` at key epoch `epoch` starts numbering
 * (*floor: past what a new process's link sent under the same keys);
 * false in a keyed session if a successor already probed a newer epoch
 * (its keys may not start again). */
bool p2p_restart_seq_floor(const tempo_p2p *n, int peer, uint32_t epoch, uint64_t *floor);
/* Forget every new process (the session starts its links again). */
void p2p_restart_clear(tempo_p2p *n);

/* ---- p2p_dropped.c ---- */
/* A datagram from lost peer `peer` that rejoin did not take (header in *v,
 * size bytes in n->buf): if it is its earlier life's (authentic game
 * traffic, or keyed a handshake at a key epoch already used), answer with
 * REJOIN_REFUSED, at most every P2P_REFUSE_US. */
void p2p_dropped_refuse_lost(tempo_p2p *n, int peer, const tempo_packet_view *v, size_t size);
/* An INPUT from e at its frame `sender_frame`: true if e is a revived
 * machine none of whose players is back and it runs from a frame before
 * their drop (a process started again without rejoining plays a match of
 * its own from frame 0): it is refused, and the INPUT must not be used. */
bool p2p_dropped_runs_alone(tempo_p2p *n, p2p_peer *e, int32_t sender_frame);
/* A REJOIN_REFUSED from e (peer: its index, -1 for a spectator). */
void p2p_dropped_on_refused(tempo_p2p *n, p2p_peer *e, int peer, const tempo_msg_rejoin_refused *m);
/* A peer machine was lost: if none is left, decide whether this machine
 * was the one dropped (refused, every peer lost after its own pause, or
 * two or more lost at once) and say so; with rejoin it comes back. */
void p2p_dropped_check(tempo_p2p *n);

/* ---- p2p_input.c ---- */
/* The frame end every local player has an input for (what we can send). */
int32_t p2p_local_end(const tempo_p2p *n);
/* The next frame we want from peer e (the lowest end over its players). */
int32_t p2p_wanted(const tempo_p2p *n, const p2p_peer *e);
void p2p_send_inputs(tempo_p2p *n, bool keepalive_only);
/* fresh: the datagram is the newest from e (its timing values are current). */
void p2p_on_input(tempo_p2p *n, p2p_peer *e, const tempo_msg_input *m, bool fresh);
void p2p_on_input_ack(tempo_p2p *n, p2p_peer *e, const tempo_msg_input_ack *m);
void p2p_feed_spectators(tempo_p2p *n, bool keepalive_only);
bool p2p_reference(void *ctx, int player, int32_t frame, uint8_t *out);

/* ---- p2p_agree.c ---- */
void p2p_begin_drop(tempo_p2p *n, int player);
/* A survivor was lost: every drop collects reports again. */
void p2p_restart_drops(tempo_p2p *n);
void p2p_on_gossip(tempo_p2p *n, int peer, const tempo_msg_input *m);
void p2p_try_finalize(tempo_p2p *n);
/* Fill the gossip fields of an outgoing INPUT (final_only: for spectators). */
void p2p_fill_gossip(const tempo_p2p *n, tempo_msg_input *m, bool final_only);
void p2p_send_relays(tempo_p2p *n);
void p2p_take_checksums(tempo_p2p *n);
void p2p_send_checksums(tempo_p2p *n);
/* A CHECKSUM from e (peer: its index in peers, -1 for a spectator). */
void p2p_on_checksum(tempo_p2p *n, p2p_peer *e, int peer, const tempo_msg_checksum *m);
/* Our checksum of check frame `frame` into *sum, if still in the log. */
bool p2p_own_sum(const tempo_p2p *n, int32_t frame, uint64_t *sum);
/* Peer `peer` is lost: the comparisons still owed with it are missed. */
void p2p_forget_sums(tempo_p2p *n, int peer);

#endif /* TEMPO_P2P_NETWORK_H */
