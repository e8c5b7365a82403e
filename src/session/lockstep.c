/* SPDX-License-Identifier: MIT */
/*
 * lockstep.c — turn-based lockstep (tempo/lockstep.h; docs/LOCKSTEP.md):
 * turn lists collected, sealed, sent until acknowledged, received, handed
 * to the game in turn order once every player's list is here; checksums
 * compared; the host's turn-length decisions carried inside its own lists.
 *
 * Invariants, with E the newest turn handed to the game and D the delay:
 *   - turns below D have an empty list for every player by agreement;
 *   - our own list for turn E + D is sealed once turn E + 1 is due (the
 *     turn it was collected during is over); commands added later go to
 *     the next list, so `sealed` is E + D or E + D + 1;
 *   - a turn is handed out only when it is due and every player's list for
 *     it is held; lists are kept by turn modulo LS_WINDOW, which holds the
 *     furthest any honest machine can be ahead or behind (2 D + 2 turns);
 *   - the host announces a length only in its own list for a turn, so every
 *     machine holds the announcement before it executes that turn, and
 *     switches at that same turn with no timing assumption.
 *
 * Receiving follows the p2p session (docs/PROTOCOL.md section 7):
 * strangers are dropped before parsing, then other session ids; sequences
 * are recovered against the link and checked by the replay window before
 * any cryptography; a keyed match opens the seal with the pair key
 * (wire/keys.h) and drops anything plain; fragments are reassembled in
 * memory fixed at create. Only a datagram that opened and decoded moves the
 * link (liveness, acks, round trips) and the replay window.
 */
#include "tempo/lockstep.h"

#include <string.h>

#include "base/common.h"
#include "net/link.h"
#include "timing/turns.h"
#include "wire/fragment.h"
#include "wire/keys.h"
#include "wire/packet.h"
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
#define LS_SEQ_JUMP 4096u

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
    bool reported;            /* it reported its round trips */
    uint32_t sim_us;
    uint16_t rtt_ms, rttvar_ms;
    int32_t sum_turn;         /* its checksum of a turn we have not done yet */
    uint64_t sum;
    int32_t desync_turn;      /* the turn a mismatch with it was reported for, -1: none */
} ls_peer;

struct tempo_lockstep {
    tempo_lockstep_config cfg;
    tempo_transport tr;
    tempo_logger log;
    tempo_rng rng;
    uint32_t config_hash;
    bool keyed, polled, starting, running, ended, outstanding;
    uint64_t now_us, start_at_us, run_start_us;
    ls_peer peer[TEMPO_MAX_PLAYERS]; /* by player; the local one unused */
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

    tempo_lockstep_event ev[LS_EVENTS];
    int ev_head, ev_count;

    tempo_lockstep_stats st;
    uint64_t latency_sum_us;

    turn_msg msg;
    uint8_t dgram[TEMPO_MAX_DATAGRAM];
    uint8_t payload[FRAG_MAX_PAYLOAD];
};

/* ---- small helpers ---------------------------------------------------------- */

static ls_list *slot(tempo_lockstep *ls, int player, int32_t turn)
{
    return &ls->lists[(size_t)player * LS_WINDOW + (size_t)turn % LS_WINDOW];
}

/* The list of player for turn, or NULL if not held (turns below the delay:
 * the agreed empty list, also NULL). */
static ls_list *held(tempo_lockstep *ls, int player, int32_t turn)
{
    if (turn < ls->cfg.execution_delay)
        return NULL;
    ls_list *l = slot(ls, player, turn);
    return l->turn == turn ? l : NULL;
}

static bool have_list(tempo_lockstep *ls, int player, int32_t turn)
{
    return turn < ls->cfg.execution_delay || held(ls, player, turn) != NULL;
}

static void push_event(tempo_lockstep *ls, const tempo_lockstep_event *e)
{
    if (ls->ev_count == LS_EVENTS) { /* the oldest goes */
        ls->ev_head = (ls->ev_head + 1) % LS_EVENTS;
        ls->ev_count--;
        ls->st.events_dropped++;
    }
    ls->ev[(ls->ev_head + ls->ev_count) % LS_EVENTS] = *e;
    ls->ev_count++;
}

static void event(tempo_lockstep *ls, tempo_lockstep_event_kind kind, int player)
{
    tempo_lockstep_event e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    e.player = player;
    push_event(ls, &e);
}

static void record_length(tempo_lockstep *ls, int32_t turn, uint32_t ms)
{
    int i = ls->nhist % TEMPO_LOCKSTEP_HISTORY;
    ls->hist_turn[i] = turn;
    ls->hist_ms[i] = ms;
    ls->nhist++;
}

static bool is_host(const tempo_lockstep *ls) { return ls->cfg.local_player == 0; }

/* ---- configuration ---------------------------------------------------------- */

void tempo_lockstep_config_default(tempo_lockstep_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->num_players = 2;
    cfg->turn_ms = 100;
    cfg->min_turn_ms = 50;
    cfg->max_turn_ms = 500;
    cfg->execution_delay = 2;
    cfg->adaptive = true;
    cfg->adapt_every = 10;
    cfg->disconnect_timeout_ms = 5000;
    cfg->random_seed = 1;
}

static bool config_ok(const tempo_lockstep_config *c)
{
    return c->num_players >= 1 && c->num_players <= TEMPO_MAX_PLAYERS && c->local_player >= 0 &&
           c->local_player < c->num_players && c->min_turn_ms >= 10 &&
           c->min_turn_ms <= c->max_turn_ms && c->max_turn_ms <= 2000 &&
           c->turn_ms >= c->min_turn_ms && c->turn_ms <= c->max_turn_ms &&
           c->execution_delay >= 2 && c->execution_delay <= TEMPO_LOCKSTEP_MAX_DELAY &&
           c->adapt_every >= 1 && c->adapt_every <= 1000 && c->disconnect_timeout_ms >= 100 &&
           c->disconnect_timeout_ms <= 60000;
}

/* What every machine must share for the same commands to mean the same. */
static uint32_t config_hash(const tempo_lockstep_config *c)
{
    uint32_t v[8] = {TEMPO_PROTOCOL_VERSION, 0x4C4B5354u /* "LKST" */, (uint32_t)c->num_players,
                     (uint32_t)c->execution_delay, c->turn_ms, c->min_turn_ms, c->max_turn_ms,
                     (c->adaptive ? 1u : 0u) | (uint32_t)c->adapt_every << 1};
    uint8_t b[sizeof v];
    for (size_t i = 0; i < 8; i++)
        for (size_t k = 0; k < 4; k++)
            b[i * 4 + k] = (uint8_t)(v[i] >> (8 * k));
    return (uint32_t)tempo_checksum(b, sizeof b);
}

/* ---- create and destroy ------------------------------------------------------- */

static void free_all(tempo_lockstep *ls)
{
    const tempo_allocator a = ls->cfg.allocator;
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++) {
        seal_keys_wipe(&ls->peer[p].keys);
        if (ls->peer[p].frag.memory)
            frag_destroy(&ls->peer[p].frag);
    }
    tempo__free(&a, ls->lists);
    seal_wipe(ls, sizeof *ls);
    tempo__free(&a, ls);
}

tempo_result tempo_lockstep_create(const tempo_lockstep_config *cfg,
                                   const tempo_transport *transport, tempo_lockstep **out)
{
    if (out)
        *out = NULL;
    if (!cfg || !transport || !out || !transport->send || !transport->recv || !config_ok(cfg))
        return TEMPO_E_INVALID_ARG;
    if (cfg->has_match_key && seal_start() != TEMPO_OK)
        return TEMPO_E_UNSUPPORTED;
    tempo_lockstep *ls = tempo__calloc(&cfg->allocator, 1, sizeof *ls);
    if (!ls)
        return TEMPO_E_NO_MEMORY;
    ls->cfg = *cfg;
    ls->tr = *transport;
    ls->log.fn = cfg->log;
    ls->log.ctx = cfg->log_ctx;
    ls->log.level = TEMPO_LOG_INFO;
    ls->keyed = cfg->has_match_key;
    ls->config_hash = config_hash(cfg);
    tempo_rng_seed(&ls->rng, cfg->random_seed, cfg->session_id);
    ls->lists = tempo__calloc(&ls->cfg.allocator, (size_t)cfg->num_players * LS_WINDOW,
                              sizeof *ls->lists);
    if (!ls->lists) {
        free_all(ls);
        return TEMPO_E_NO_MEMORY;
    }
    for (size_t i = 0; i < (size_t)cfg->num_players * LS_WINDOW; i++)
        ls->lists[i].turn = -1;
    for (int p = 0; p < cfg->num_players; p++) {
        if (p == cfg->local_player)
            continue;
        if (frag_create(&ls->peer[p].frag, LS_FRAG_SLOTS, 1000000u, &ls->cfg.allocator) !=
            TEMPO_OK) {
            free_all(ls);
            return TEMPO_E_NO_MEMORY;
        }
    }
    ls->executed = -1;
    ls->done = -1;
    ls->sealed = cfg->execution_delay - 1;
    ls->len_ms = cfg->turn_ms;
    ls->announced_ms = cfg->turn_ms;
    ls->next_adapt = cfg->execution_delay;
    for (int i = 0; i < LS_SUMS; i++)
        ls->sum_turn[i] = -1;
    record_length(ls, 0, cfg->turn_ms);
    if (!ls->keyed)
        tempo__log(&ls->log, TEMPO_LOG_WARN,
                   "tempo: no match key: datagrams are not authenticated or encrypted");
    *out = ls;
    return TEMPO_OK;
}

static void send_plain(tempo_lockstep *ls, ls_peer *e, uint8_t type);

void tempo_lockstep_destroy(tempo_lockstep *ls)
{
    if (!ls)
        return;
    if (ls->polled)
        for (int p = 0; p < ls->cfg.num_players; p++)
            if (ls->peer[p].added && !ls->peer[p].lost)
                send_plain(ls, &ls->peer[p], TURN_MSG_LEAVE);
    free_all(ls);
}

tempo_result tempo_lockstep_add_peer(tempo_lockstep *ls, int player, const tempo_address *addr)
{
    if (!ls || !addr || addr->family == TEMPO_ADDRESS_NONE)
        return TEMPO_E_INVALID_ARG;
    if (player < 0 || player >= ls->cfg.num_players || player == ls->cfg.local_player)
        return TEMPO_E_PLAYER;
    if (ls->polled)
        return TEMPO_E_STATE;
    if (ls->peer[player].added)
        return TEMPO_E_ALREADY;
    for (int p = 0; p < ls->cfg.num_players; p++)
        if (ls->peer[p].added && tempo_address_equal(&ls->peer[p].addr, addr))
            return TEMPO_E_ALREADY;
    ls_peer *e = &ls->peer[player];
    if (ls->keyed) {
        tempo_result r = (tempo_result)keys_derive_link(ls->cfg.match_key, ls->cfg.session_id,
                                                        (uint32_t)ls->cfg.local_player,
                                                        (uint32_t)player, &e->keys);
        if (r != TEMPO_OK)
            return r;
    }
    e->added = true;
    e->addr = *addr;
    return TEMPO_OK;
}

/* ---- sending ------------------------------------------------------------------ */

/* Header, optional seal, send: one datagram of `body` bytes already at
 * ls->dgram + PACKET_HEADER_SIZE (or a whole fragment when frag is set). */
static void transmit(tempo_lockstep *ls, ls_peer *e, size_t size)
{
    uint64_t seq = link_next_seq(&e->link);
    if (ls->keyed) {
        int sealed = seal_datagram(&e->keys, seq, ls->dgram, size, sizeof ls->dgram);
        if (sealed < 0)
            return; /* bodies are sized to leave room: not expected */
        size = (size_t)sealed;
    }
    link_on_sent(&e->link, ls->now_us, size);
    e->last_send_us = ls->now_us;
    ls->st.packets_sent++;
    ls->st.bytes_sent += size;
    (void)ls->tr.send(ls->tr.ctx, &e->addr, ls->dgram, size);
}

static void send_msg(tempo_lockstep *ls, ls_peer *e, const turn_msg *m)
{
    if (ls->keyed && !e->keys.ready)
        return;
    size_t cap = ls->keyed ? PACKET_MAX_SEALED_BODY : PACKET_MAX_BODY;
    int body = turn_msg_encode(m, ls->payload, sizeof ls->payload);
    if (body < 0) {
        tempo__log(&ls->log, TEMPO_LOG_ERROR, "tempo: cannot encode %s: %s",
                   turn_msg_name(m->type), tempo_strerror(body));
        return;
    }
    tempo_packet_header h = {ls->cfg.session_id, 0, m->type, false, false};
    if ((size_t)body <= cap) {
        h.sequence = (uint16_t)link_next_seq(&e->link);
        (void)packet_write(&h, ls->dgram, sizeof ls->dgram);
        memcpy(ls->dgram + PACKET_HEADER_SIZE, ls->payload, (size_t)body);
        transmit(ls, e, PACKET_HEADER_SIZE + (size_t)body);
        return;
    }
    int count = frag_count((size_t)body);
    uint16_t id = e->frag_id++;
    for (int i = 0; i < count; i++) {
        h.sequence = (uint16_t)link_next_seq(&e->link);
        int n = frag_write(&h, id, ls->payload, (size_t)body, i, ls->dgram, sizeof ls->dgram);
        if (n < 0)
            return;
        transmit(ls, e, (size_t)n);
    }
}

static void send_plain(tempo_lockstep *ls, ls_peer *e, uint8_t type)
{
    ls->msg.type = type;
    send_msg(ls, e, &ls->msg);
}

static bool all_established(const tempo_lockstep *ls)
{
    for (int p = 0; p < ls->cfg.num_players; p++)
        if (p != ls->cfg.local_player && !link_established(&ls->peer[p].link))
            return false;
    return true;
}

static void send_hello(tempo_lockstep *ls, ls_peer *e, uint8_t type, uint32_t nonce)
{
    ls->msg.type = type;
    ls->msg.u.hello.nonce = nonce;
    ls->msg.u.hello.config_hash = ls->config_hash;
    ls->msg.u.hello.player = (uint8_t)ls->cfg.local_player;
    ls->msg.u.hello.ready = all_established(ls);
    send_msg(ls, e, &ls->msg);
}

/* Our round trips as one report: the largest smoothed RTT over our links
 * and the largest deviation; unknown until every link has one. */
static bool own_rtt(const tempo_lockstep *ls, uint64_t *rtt, uint64_t *var)
{
    *rtt = 0;
    *var = 0;
    for (int p = 0; p < ls->cfg.num_players; p++) {
        const ls_peer *e = &ls->peer[p];
        if (p == ls->cfg.local_player || e->lost)
            continue;
        if (!link_has_rtt(&e->link))
            return false;
        if (link_rtt_us(&e->link) > *rtt)
            *rtt = link_rtt_us(&e->link);
        if (link_rttvar_us(&e->link) > *var)
            *var = link_rttvar_us(&e->link);
    }
    return true;
}

static uint16_t ms16(uint64_t us)
{
    uint64_t ms = (us + 500u) / 1000u;
    return (uint16_t)(ms >= TURN_RTT_UNKNOWN ? TURN_RTT_UNKNOWN - 1u : ms);
}

static void send_turns(tempo_lockstep *ls, ls_peer *e, int player)
{
    turn_msg *m = &ls->msg;
    m->type = TURN_MSG_TURNS;
    turn_turns *t = &m->u.turns;
    t->ack = (uint32_t)e->have;
    t->sum_turn = TURN_NONE;
    t->sum = 0;
    if (ls->done >= 0 && ls->sum_turn[ls->done % LS_SUMS] == ls->done) {
        t->sum_turn = (uint32_t)ls->done;
        t->sum = ls->sum[ls->done % LS_SUMS];
    }
    t->sim_us = ls->sim_avg_us > UINT32_MAX ? UINT32_MAX : (uint32_t)ls->sim_avg_us;
    uint64_t rtt, var;
    if (own_rtt(ls, &rtt, &var)) {
        t->rtt_ms = ms16(rtt);
        t->rttvar_ms = ms16(var);
    } else {
        t->rtt_ms = TURN_RTT_UNKNOWN;
        t->rttvar_ms = 0;
    }
    t->ping = link_ping_due(&e->link, ls->now_us) ? link_ping_sent(&e->link, ls->now_us) : 0;
    t->pong = e->pong_owed;
    e->pong_owed = 0;
    t->nlists = 0;
    int32_t from = e->acked > ls->cfg.execution_delay ? e->acked : ls->cfg.execution_delay;
    if (from < ls->sealed - LS_WINDOW + 2) /* older own lists are gone from the window */
        from = ls->sealed - LS_WINDOW + 2;
    for (int32_t turn = from; turn <= ls->sealed && t->nlists < TURN_MSG_MAX_LISTS; turn++) {
        const ls_list *l = held(ls, player, turn);
        if (!l)
            break; /* not expected: own lists are held until acknowledged */
        turn_list *w = &t->list[t->nlists++];
        w->player = (uint8_t)player;
        w->flags = l->flags;
        w->turn = turn;
        w->length_ms = l->length_ms;
        w->count = l->count;
        w->cmds_size = l->size;
        w->cmds = l->cmds;
    }
    e->sent_have = e->have;
    e->sent_sum = ls->done;
    e->sent_sealed = ls->sealed;
    send_msg(ls, e, m);
}

/* ---- the schedule ---------------------------------------------------------------- */

static ls_list *open_list(tempo_lockstep *ls)
{
    int32_t turn = ls->sealed + 1;
    ls_list *l = slot(ls, ls->cfg.local_player, turn);
    if (l->turn != turn) {
        memset(l, 0, offsetof(ls_list, cmds));
        l->turn = turn;
    }
    return l;
}

/* The host's decision for `turn`, written into its own list for it. */
static void adapt(tempo_lockstep *ls, ls_list *l)
{
    if (!ls->cfg.adaptive || !is_host(ls) || l->turn < ls->next_adapt)
        return;
    turns_load load = {ls->sim_avg_us, 0, 0};
    if (!own_rtt(ls, &load.rtt_us, &load.rttvar_us))
        return;
    for (int p = 0; p < ls->cfg.num_players; p++) {
        const ls_peer *e = &ls->peer[p];
        if (p == ls->cfg.local_player || e->lost)
            continue;
        if (!e->reported)
            return; /* decide on every machine's numbers or not at all */
        if (e->sim_us > load.sim_us)
            load.sim_us = e->sim_us;
        if ((uint64_t)e->rtt_ms * 1000u > load.rtt_us)
            load.rtt_us = (uint64_t)e->rtt_ms * 1000u;
        if ((uint64_t)e->rttvar_ms * 1000u > load.rttvar_us)
            load.rttvar_us = (uint64_t)e->rttvar_ms * 1000u;
    }
    turns_rule rule = {ls->cfg.min_turn_ms, ls->cfg.max_turn_ms, ls->cfg.execution_delay};
    uint32_t next = turns_adapt(&rule, ls->announced_ms, &load);
    ls->next_adapt = l->turn + ls->cfg.adapt_every;
    if (next == ls->announced_ms)
        return;
    l->flags |= TURN_LIST_HAS_LENGTH;
    l->length_ms = (uint16_t)next;
    ls->announced_ms = next;
}

/* Once turn executed + 1 is due, the list collected during turn executed
 * is complete: seal it (it goes out with the next datagrams). */
static void seal_due(tempo_lockstep *ls)
{
    int32_t turn = ls->executed + ls->cfg.execution_delay;
    if (ls->now_us < ls->due_us || ls->sealed >= turn)
        return;
    ls_list *l = open_list(ls);
    adapt(ls, l);
    ls->sealed = turn;
}

static void start_running(tempo_lockstep *ls, uint64_t at_us)
{
    ls->running = true;
    ls->starting = false;
    ls->run_start_us = at_us;
    ls->due_us = at_us;
    ls->anchor_us = at_us;
    for (int p = 0; p < ls->cfg.num_players; p++)
        if (ls->peer[p].added)
            link_handshake_announce(&ls->peer[p].link, false);
    event(ls, TEMPO_LOCKSTEP_RUNNING, -1);
}

/* A due turn whose lists are not all here: a freeze begins, or names
 * other players. */
static void check_freeze(tempo_lockstep *ls)
{
    if (!ls->running || ls->ended || ls->outstanding || ls->now_us < ls->due_us)
        return;
    int32_t turn = ls->executed + 1;
    uint32_t missing = 0;
    for (int p = 0; p < ls->cfg.num_players; p++)
        if (!have_list(ls, p, turn))
            missing |= 1u << p;
    if (missing == 0 || (ls->frozen && missing == ls->missing_mask))
        return;
    if (!ls->frozen) {
        ls->frozen = true;
        ls->freeze_start_us = ls->due_us;
        ls->st.freezes++;
    }
    ls->missing_mask = missing;
    tempo_lockstep_event e;
    memset(&e, 0, sizeof e);
    e.kind = TEMPO_LOCKSTEP_WAITING;
    e.player = -1;
    for (int p = 0; p < ls->cfg.num_players && e.player < 0; p++)
        if (missing & (1u << p))
            e.player = p;
    e.u.waiting.turn = turn;
    e.u.waiting.missing_mask = missing;
    push_event(ls, &e);
}

/* ---- receiving ---------------------------------------------------------------------- */

static void malformed(tempo_lockstep *ls) { ls->st.dropped_malformed++; }

static void lose(tempo_lockstep *ls, int player)
{
    ls_peer *e = &ls->peer[player];
    if (e->lost)
        return;
    e->lost = true;
    link_close(&e->link);
    seal_keys_wipe(&e->keys);
    ls->ended = true; /* the match cannot go on without its commands */
    event(ls, TEMPO_LOCKSTEP_DISCONNECTED, player);
}

static void compare(tempo_lockstep *ls, int player, int32_t turn, uint64_t theirs)
{
    ls_peer *e = &ls->peer[player];
    if (turn < 0 || turn > ls->done || ls->sum_turn[turn % LS_SUMS] != turn)
        return;
    uint64_t ours = ls->sum[turn % LS_SUMS];
    if (ours == theirs || e->desync_turn >= 0)
        return; /* the first turn found differing is the one worth reading */
    e->desync_turn = turn;
    ls->st.desyncs++;
    tempo_lockstep_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TEMPO_LOCKSTEP_DESYNC;
    ev.player = player;
    ev.u.desync.turn = turn;
    ev.u.desync.ours = ours;
    ev.u.desync.theirs = theirs;
    push_event(ls, &ev);
}

/* Checks a message's lists before any is stored: a list no honest machine
 * sends drops the whole datagram. */
static bool lists_honest(const tempo_lockstep *ls, int player, const turn_turns *t)
{
    for (int i = 0; i < t->nlists; i++) {
        const turn_list *l = &t->list[i];
        if (l->player != player || (l->flags & TURN_LIST_SUBSTITUTED))
            return false; /* a peer sends its own lists, never stands in */
        if ((l->flags & TURN_LIST_HAS_LENGTH) &&
            (player != 0 || l->length_ms < ls->cfg.min_turn_ms ||
             l->length_ms > ls->cfg.max_turn_ms))
            return false; /* only the host decides, within the bounds */
    }
    return true;
}

static void on_turns(tempo_lockstep *ls, int player, const turn_turns *t)
{
    ls_peer *e = &ls->peer[player];
    e->started = true;
    if (!ls->running)
        start_running(ls, ls->now_us); /* its lists show the match began */
    for (int i = 0; i < t->nlists; i++) {
        const turn_list *w = &t->list[i];
        /* Held already, below the agreed empty turns, or beyond what an
         * honest machine can be ahead: nothing to store. */
        if (w->turn < ls->cfg.execution_delay || w->turn <= ls->executed ||
            w->turn >= ls->executed + LS_WINDOW || held(ls, player, w->turn))
            continue;
        ls_list *l = slot(ls, player, w->turn);
        memset(l, 0, offsetof(ls_list, cmds));
        l->turn = w->turn;
        l->flags = w->flags;
        l->length_ms = w->length_ms;
        l->count = w->count;
        l->size = w->cmds_size;
        if (w->cmds_size > 0)
            memcpy(l->cmds, w->cmds, w->cmds_size);
    }
    while (have_list(ls, player, e->have))
        e->have++;
    /* Its ack of our lists: never beyond what we sealed, never backwards. */
    int32_t ack = t->ack > (uint32_t)ls->sealed + 1u ? ls->sealed + 1 : (int32_t)t->ack;
    if (ack > e->acked)
        e->acked = ack;
    if (t->rtt_ms != TURN_RTT_UNKNOWN) {
        e->reported = true;
        e->rtt_ms = t->rtt_ms;
        e->rttvar_ms = t->rttvar_ms;
    }
    e->sim_us = t->sim_us;
    if (t->sum_turn != TURN_NONE) {
        int32_t turn = (int32_t)t->sum_turn;
        if (turn <= ls->done) {
            compare(ls, player, turn, t->sum);
        } else if (turn > e->sum_turn) {
            e->sum_turn = turn;
            e->sum = t->sum;
        }
    }
    if (t->ping != 0)
        e->pong_owed = t->ping; /* answered at the end of this poll */
    if (t->pong != 0)
        (void)link_on_pong(&e->link, ls->now_us, t->pong);
}

static void on_hello(tempo_lockstep *ls, int player, const turn_msg *m)
{
    ls_peer *e = &ls->peer[player];
    const turn_hello *h = &m->u.hello;
    if (h->player != player) {
        malformed(ls);
        return;
    }
    bool was = link_established(&e->link);
    link_sync sy = {m->type == TURN_MSG_HELLO_REPLY, h->nonce, h->config_hash, h->ready, NULL, 0};
    switch (link_on_sync(&e->link, ls->now_us, &sy)) {
    case LINK_SYNC_MISMATCH:
        tempo__log(&ls->log, TEMPO_LOG_WARN,
                   "tempo: lockstep handshake from player %d with other settings; ignored",
                   player);
        malformed(ls);
        return;
    case LINK_SYNC_IGNORED: return;
    case LINK_SYNC_ANSWER: send_hello(ls, e, TURN_MSG_HELLO_REPLY, h->nonce); return;
    case LINK_SYNC_ROUND:
    case LINK_SYNC_COMPLETE: break;
    }
    if (!was && link_established(&e->link)) {
        event(ls, TEMPO_LOCKSTEP_CONNECTED, player);
        for (int p = 0; p < ls->cfg.num_players; p++) /* our readiness may have changed */
            if (ls->peer[p].added)
                link_handshake_resend_now(&ls->peer[p].link);
    }
}

static void dispatch(tempo_lockstep *ls, int player, const turn_msg *m)
{
    switch (m->type) {
    case TURN_MSG_HELLO:
    case TURN_MSG_HELLO_REPLY: on_hello(ls, player, m); break;
    case TURN_MSG_START:
        if (player == 0 && !ls->running)
            start_running(ls, ls->now_us);
        break;
    case TURN_MSG_TURNS: on_turns(ls, player, &m->u.turns); break;
    case TURN_MSG_LEAVE: lose(ls, player); break;
    default: break;
    }
}

static int find_peer(const tempo_lockstep *ls, const tempo_address *a)
{
    for (int p = 0; p < ls->cfg.num_players; p++)
        if (ls->peer[p].added && tempo_address_equal(&ls->peer[p].addr, a))
            return p;
    return -1;
}

static void on_datagram(tempo_lockstep *ls, const tempo_address *from, size_t size)
{
    int player = find_peer(ls, from);
    if (player < 0) { /* strangers: nothing of theirs is parsed */
        ls->st.dropped_unknown++;
        return;
    }
    ls_peer *e = &ls->peer[player];
    if (e->lost)
        return;
    uint32_t sid;
    tempo_drop_reason why;
    if (packet_peek_session(ls->dgram, size, &sid, &why) != TEMPO_OK) {
        malformed(ls);
        return;
    }
    if (sid != ls->cfg.session_id) {
        ls->st.dropped_session++;
        return;
    }
    tempo_packet_view v;
    if (packet_read(ls->dgram, size, &v, &why) != TEMPO_OK) {
        malformed(ls);
        return;
    }
    if (v.h.sealed != ls->keyed) { /* sealed with no key to open, or plain in a keyed match */
        if (ls->keyed)
            ls->st.dropped_forged++;
        else
            malformed(ls);
        return;
    }
    uint64_t seq = packet_sequence_recover(v.h.sequence, link_recv_newest(&e->link));
    if (replay_check(&e->replay, seq) != TEMPO_DROP_NONE) {
        ls->st.dropped_replay++;
        return;
    }
    size_t body_size = v.body_size;
    if (ls->keyed) {
        int opened = seal_open(&e->keys, seq, ls->dgram, size, &why);
        if (opened < 0) {
            ls->st.dropped_forged++;
            return;
        }
        body_size = (size_t)opened - PACKET_HEADER_SIZE;
    }
    const uint8_t *body = ls->dgram + v.body;
    bool whole = true;
    if (v.h.fragment) {
        tempo_frag_message fm;
        int r = v.h.type == TURN_MSG_TURNS
                    ? frag_receive(&e->frag, ls->now_us, v.h.type, body, body_size, &fm, &why)
                    : TEMPO_E_MALFORMED; /* only turn lists are ever large */
        if (r < 0) {
            malformed(ls);
            return;
        }
        whole = r == 1;
        if (whole) {
            body = fm.data;
            body_size = fm.size;
        }
    }
    if (whole && turn_msg_decode(v.h.type, body, body_size, &ls->msg, &why) != TEMPO_OK) {
        malformed(ls);
        return;
    }
    if (whole && ls->msg.type == TURN_MSG_TURNS && !lists_honest(ls, player, &ls->msg.u.turns)) {
        malformed(ls);
        return;
    }
    link_rx rx = link_on_datagram(&e->link, ls->now_us, seq, size);
    if (rx == LINK_RX_DUPLICATE) {
        ls->st.dropped_replay++;
        return;
    }
    if (e->link.jump_confirmed)
        (void)replay_accept(&e->replay, e->link.jump_seq);
    if (rx != LINK_RX_JUMP)
        (void)replay_accept(&e->replay, seq);
    ls->st.packets_received++;
    ls->st.bytes_received += size;
    if (whole)
        dispatch(ls, player, &ls->msg);
}

/* ---- the poll ------------------------------------------------------------------------ */

static void start_links(tempo_lockstep *ls)
{
    link_config lc;
    link_config_default(&lc);
    lc.notify_us = (uint64_t)ls->cfg.disconnect_timeout_ms * 500u;
    lc.timeout_us = (uint64_t)ls->cfg.disconnect_timeout_ms * 1000u;
    lc.seq_jump = LS_SEQ_JUMP;
    lc.rtt_from_acks = false; /* round trips come from the handshake and pings */
    lc.handshake_timeout_us = 0;
    lc.config_hash = ls->config_hash;
    for (int p = 0; p < ls->cfg.num_players; p++) {
        ls_peer *e = &ls->peer[p];
        if (!e->added)
            continue;
        link_init(&e->link, &lc, ls->now_us);
        link_handshake_announce(&e->link, true);
        replay_init(&e->replay);
        e->acked = ls->cfg.execution_delay;
        e->have = ls->cfg.execution_delay;
        e->sent_have = -1;
        e->sent_sum = -1;
        e->sent_sealed = -1;
        e->sum_turn = -1;
        e->desync_turn = -1;
    }
}

/* The host starts the match once every machine is connected to every
 * other; it runs its own turn 0 half its worst round trip later, about
 * when the others hear the start. */
static void maybe_start(tempo_lockstep *ls)
{
    if (ls->running || !is_host(ls))
        return;
    if (!ls->starting) {
        uint64_t worst = 0;
        for (int p = 1; p < ls->cfg.num_players; p++) {
            const ls_peer *e = &ls->peer[p];
            if (!link_established(&e->link) || !e->link.hs.remote_ready)
                return;
            if (link_rtt_us(&e->link) > worst)
                worst = link_rtt_us(&e->link);
        }
        ls->starting = true;
        ls->start_at_us = ls->now_us + worst / 2u;
    }
    if (ls->now_us >= ls->start_at_us)
        start_running(ls, ls->start_at_us);
}

static void send_all(tempo_lockstep *ls)
{
    for (int p = 0; p < ls->cfg.num_players; p++) {
        ls_peer *e = &ls->peer[p];
        if (!e->added || e->lost || !link_may_send(&e->link, ls->now_us))
            continue;
        if (link_handshake_due(&e->link, ls->now_us))
            send_hello(ls, e, TURN_MSG_HELLO,
                       link_handshake_request(&e->link, ls->now_us, &ls->rng));
        if (ls->starting || (ls->running && is_host(ls) && !e->started))
            send_plain(ls, e, TURN_MSG_START);
        if (!ls->running)
            continue;
        /* Something it has not heard goes at once; lists it has not
         * acknowledged go again every LS_RESEND_US until it does. */
        bool news = e->sent_sealed != ls->sealed || e->sent_have != e->have ||
                    e->sent_sum != ls->done || e->pong_owed != 0 ||
                    link_ping_due(&e->link, ls->now_us);
        uint64_t quiet = ls->now_us - e->last_send_us;
        bool unacked = e->acked <= ls->sealed;
        if (news || (unacked && quiet >= LS_RESEND_US) || quiet >= LS_KEEPALIVE_US)
            send_turns(ls, e, ls->cfg.local_player);
    }
}

tempo_result tempo_lockstep_poll(tempo_lockstep *ls, uint64_t now_us)
{
    if (!ls)
        return TEMPO_E_INVALID_ARG;
    if (now_us > ls->now_us)
        ls->now_us = now_us;
    if (!ls->polled) {
        for (int p = 0; p < ls->cfg.num_players; p++)
            if (p != ls->cfg.local_player && !ls->peer[p].added)
                return TEMPO_E_STATE;
        ls->polled = true;
        start_links(ls);
    }
    for (int i = 0; i < LS_RECV_BUDGET; i++) {
        tempo_address from;
        memset(&from, 0, sizeof from);
        int got = ls->tr.recv(ls->tr.ctx, &from, ls->dgram, sizeof ls->dgram);
        if (got <= 0)
            break;
        on_datagram(ls, &from, (size_t)got);
    }
    for (int p = 0; p < ls->cfg.num_players; p++) {
        ls_peer *e = &ls->peer[p];
        if (e->added && !e->lost && (link_update(&e->link, ls->now_us) & LINK_EV_TIMED_OUT))
            lose(ls, p);
    }
    maybe_start(ls);
    if (ls->running && !ls->ended)
        seal_due(ls);
    check_freeze(ls);
    send_all(ls);
    return TEMPO_OK;
}

/* ---- the game's side ------------------------------------------------------------------- */

tempo_result tempo_lockstep_add_command(tempo_lockstep *ls, const void *data, size_t size,
                                        uint64_t now_us)
{
    if (!ls || !data || size < 1 || size > TURN_MAX_COMMAND)
        return TEMPO_E_INVALID_ARG;
    if (ls->ended)
        return TEMPO_E_STATE;
    if (now_us > ls->now_us)
        ls->now_us = now_us;
    if (ls->running)
        seal_due(ls); /* a command after the turn ended belongs to the next */
    ls_list *l = open_list(ls);
    size_t bytes = l->size - l->count; /* command bytes without their size bytes */
    if (l->count >= TURN_MAX_COMMANDS || bytes + size > TURN_BUDGET)
        return TEMPO_E_FULL;
    l->cmds[l->size] = (uint8_t)(size - 1u);
    memcpy(l->cmds + l->size + 1, data, size);
    l->size = (uint16_t)(l->size + 1u + size);
    if (l->count == 0)
        l->first_added_us = ls->now_us;
    l->count++;
    l->added_sum_us += ls->now_us;
    return TEMPO_OK;
}

int tempo_lockstep_next_turn(tempo_lockstep *ls, uint64_t now_us, tempo_lockstep_turn *out)
{
    if (!ls || !out)
        return TEMPO_E_INVALID_ARG;
    if (ls->outstanding || ls->ended)
        return TEMPO_E_STATE;
    if (now_us > ls->now_us)
        ls->now_us = now_us;
    if (!ls->running)
        return 0;
    seal_due(ls);
    check_freeze(ls);
    int32_t turn = ls->executed + 1;
    if (ls->now_us < ls->due_us)
        return 0;
    for (int p = 0; p < ls->cfg.num_players; p++)
        if (!have_list(ls, p, turn))
            return 0;
    bool waited = ls->frozen;
    if (ls->frozen) {
        ls->frozen = false;
        uint64_t frozen = ls->now_us - ls->freeze_start_us;
        ls->st.frozen_us += frozen;
        tempo_lockstep_event e;
        memset(&e, 0, sizeof e);
        e.kind = TEMPO_LOCKSTEP_RUNNING;
        e.player = -1;
        e.u.running.frozen_us = frozen;
        push_event(ls, &e);
    }
    const ls_list *host = held(ls, 0, turn);
    if (host && (host->flags & TURN_LIST_HAS_LENGTH) && host->length_ms != ls->len_ms) {
        ls->len_ms = host->length_ms;
        record_length(ls, turn, ls->len_ms);
        ls->st.length_changes++;
        tempo_lockstep_event e;
        memset(&e, 0, sizeof e);
        e.kind = TEMPO_LOCKSTEP_TURN_LENGTH;
        e.player = 0;
        e.u.length.turn = turn;
        e.u.length.ms = ls->len_ms;
        push_event(ls, &e);
    }
    uint64_t len_us = (uint64_t)ls->len_ms * 1000u;
    uint64_t next_due = turns_next_due(ls->due_us, ls->now_us, len_us, waited);
    ls->anchor_us = next_due - len_us;
    ls->due_us = next_due;
    memset(out, 0, sizeof *out);
    out->turn = turn;
    out->length_ms = ls->len_ms;
    out->num_players = ls->cfg.num_players;
    for (int p = 0; p < ls->cfg.num_players; p++) {
        const ls_list *l = held(ls, p, turn);
        if (!l)
            continue; /* an agreed empty list */
        out->player[p].list = l->cmds;
        out->player[p].list_size = l->size;
        out->player[p].count = l->count;
        out->player[p].substituted = (l->flags & TURN_LIST_SUBSTITUTED) != 0;
        if (p == ls->cfg.local_player && l->count > 0) {
            ls->latency_sum_us += (uint64_t)l->count * ls->now_us - l->added_sum_us;
            ls->st.commands_executed += l->count;
            if (ls->now_us - l->first_added_us > ls->st.latency_max_us)
                ls->st.latency_max_us = ls->now_us - l->first_added_us;
        }
    }
    ls->executed = turn;
    ls->outstanding = true;
    return 1;
}

int tempo_lockstep_turn_command(const tempo_lockstep_turn *t, int player, size_t *cursor,
                                const uint8_t **data, size_t *size)
{
    if (!t || !cursor || !data || !size || player < 0 || player >= t->num_players ||
        player >= TEMPO_MAX_PLAYERS)
        return TEMPO_E_INVALID_ARG;
    size_t at = *cursor, end = t->player[player].list_size;
    if (at >= end || !t->player[player].list)
        return 0;
    size_t n = (size_t)t->player[player].list[at] + 1u;
    if (n > end - at - 1u)
        return 0; /* lists are checked on arrival: not expected */
    *data = t->player[player].list + at + 1;
    *size = n;
    *cursor = at + 1u + n;
    return 1;
}

tempo_result tempo_lockstep_turn_done(tempo_lockstep *ls, int32_t turn, uint64_t checksum,
                                      uint64_t cost_us)
{
    if (!ls)
        return TEMPO_E_INVALID_ARG;
    if (!ls->outstanding)
        return TEMPO_E_STATE;
    if (turn != ls->executed)
        return TEMPO_E_FRAME;
    ls->outstanding = false;
    ls->done = turn;
    ls->sum_turn[turn % LS_SUMS] = turn;
    ls->sum[turn % LS_SUMS] = checksum;
    if (!ls->sim_any) {
        ls->sim_any = true;
        ls->sim_avg_us = cost_us;
    } else {
        ls->sim_avg_us = ls->sim_avg_us - ls->sim_avg_us / 8u + cost_us / 8u;
    }
    for (int p = 0; p < ls->cfg.num_players; p++) {
        ls_peer *e = &ls->peer[p];
        if (e->added && e->sum_turn == turn)
            compare(ls, p, turn, e->sum);
    }
    return TEMPO_OK;
}

tempo_result tempo_lockstep_render(const tempo_lockstep *ls, uint64_t now_us,
                                   tempo_lockstep_blend *out)
{
    if (!ls || !out)
        return TEMPO_E_INVALID_ARG;
    if (ls->executed < 0)
        return TEMPO_E_STATE;
    out->to = ls->executed;
    out->from = ls->executed - 1;
    out->alpha = turns_blend(ls->anchor_us, (uint64_t)ls->len_ms * 1000u, now_us);
    return TEMPO_OK;
}

int tempo_lockstep_next_event(tempo_lockstep *ls, tempo_lockstep_event *out)
{
    if (!ls || !out)
        return TEMPO_E_INVALID_ARG;
    if (ls->ev_count == 0)
        return 0;
    *out = ls->ev[ls->ev_head];
    ls->ev_head = (ls->ev_head + 1) % LS_EVENTS;
    ls->ev_count--;
    return 1;
}

tempo_result tempo_lockstep_get_stats(const tempo_lockstep *ls, tempo_lockstep_stats *out)
{
    if (!ls || !out)
        return TEMPO_E_INVALID_ARG;
    *out = ls->st;
    out->running = ls->running && !ls->ended;
    out->turn = ls->executed;
    out->turn_ms = ls->len_ms;
    out->sim_mean_us = ls->sim_avg_us;
    out->latency_mean_us =
        ls->st.commands_executed ? ls->latency_sum_us / ls->st.commands_executed : 0;
    uint64_t frozen = ls->st.frozen_us + (ls->frozen ? ls->now_us - ls->freeze_start_us : 0);
    out->frozen_us = frozen;
    if (ls->running && ls->now_us > ls->run_start_us)
        out->freezes_per_minute =
            (double)ls->st.freezes * 60e6 / (double)(ls->now_us - ls->run_start_us);
    return TEMPO_OK;
}

int tempo_lockstep_length_history(const tempo_lockstep *ls, int32_t *turns, uint32_t *ms, int max)
{
    if (!ls || max < 0 || (max > 0 && (!turns || !ms)))
        return TEMPO_E_INVALID_ARG;
    int kept = ls->nhist < TEMPO_LOCKSTEP_HISTORY ? ls->nhist : TEMPO_LOCKSTEP_HISTORY;
    int first = ls->nhist - kept, n = 0;
    for (int i = 0; i < kept && n < max; i++, n++) {
        int k = (first + i) % TEMPO_LOCKSTEP_HISTORY;
        turns[n] = ls->hist_turn[k];
        ms[n] = ls->hist_ms[k];
    }
    return n;
}
