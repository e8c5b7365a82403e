/* SPDX-License-Identifier: MIT */
/*
 * sim_cs.c — one client-server match: build it, run it in virtual time,
 * measure it from outside, compare the clients' states with the server's.
 *
 * Machine 0 is a tempo server, machines 1..N tempo clients, each on its own
 * simnet node, arena and clock (a seeded phase within the first tick, plus
 * the start skew and drift asked for). The server ticks at 60 Hz of its
 * clock; a client's next tick falls tempo_client_tick_us later on its own
 * clock, so tick sync's dilation moves it for real. The event loop runs the
 * earliest thing due (a machine's tick or a sample); ties go to the lower
 * machine, which keeps runs reproducible bit for bit.
 *
 * The match part lasts `frames` server ticks. Then every bot holds its last
 * input for SIM_CS_SETTLE_TICKS more server ticks, so that the clients'
 * predictions come true, and each client's presented state is compared with
 * the server's state of the same tick: the newest tick the client presented
 * that the server has stepped. Counters are taken at the end of the match
 * part; the settling adds nothing to them.
 *
 * With --seal on (the default) and libsodium, the server has a private key
 * drawn from the seed and each client a connect token made with it, so
 * every datagram after the handshake is sealed, as in a real deployment.
 *
 * Server CPU is the wall time of tempo_server_poll, the event loop and
 * tempo_server_advance, the game's step left out: what the library costs
 * per tick, in this build; and the same less the time spent inside
 * simnet's send and receive (what sockets would cost instead).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cs.h"
#include "sim_clock.h"
#include "sim_net.h"
#include "sim_svg.h"

#define CS_RING 256     /* presented (tick, checksum) pairs kept per client */
#define CS_PENDING 128  /* input changes not seen yet, per client */
#define CS_TOKEN_TIME 1800000000u /* the Unix time tokens are made and checked at */

typedef struct cs_pending {
    uint16_t seq;
    uint64_t tick;
} cs_pending;

typedef struct cs_machine {
    int index;                  /* 0: the server; i: client i - 1 */
    tempo_address addr;
    tempo_transport net;        /* simnet's */
    tempo_transport counted;    /* the same, counting a client's traffic */
    sim_clock clock;
    uint64_t next_vt;
    uint64_t ticks;             /* ticks run so far */
    uint8_t *arena;             /* header + game state */
    uint8_t *before;            /* a client's arena before its last advance */
    struct cs_match *mt;
    /* a client */
    tempo_client *c;
    int player;                 /* its slot, -1 until admitted */
    int srv_client;             /* the server's index of it, -1 until admitted */
    bool connected, lost;
    uint64_t connect_vt;
    uint8_t bot[SIM_CS_BOT_BYTES];
    uint8_t last_in[TEMPO_MAX_INPUT_SIZE];
    uint16_t seq;               /* its bot's changes so far */
    cs_pending pend[CS_PENDING];
    int pend_head, pend_n;
    uint64_t changes, snapbacks_after;
    sim_stat resp;              /* input-to-response, ticks */
    sim_stat vis;               /* visible corrections, by size */
    sim_stat own;               /* those that moved its own piece (the snap-backs) */
    sim_stat oth;               /* those that moved anything else */
    int32_t label;              /* the tick its presented state belongs to, -1 none */
    struct {
        int32_t label;
        uint64_t sum;
    } ring[CS_RING];
    int ring_next, ring_n;
    uint64_t tick_us;           /* the coming tick's length */
    double dil_max;
    double lead_sum, lead_min, lead_max;
    uint64_t lead_n;
    double true_lead_sum;       /* its last step's tick minus the server's, at the same samples */
    uint64_t snaps, snaps_after;
    uint64_t up, down;          /* payload bytes in the match part */
    uint64_t prev_up, prev_down, prev_corrections, prev_late;
    tempo_client_stats end;     /* its stats when the match part ended */
    tempo_server_client_stats srv_end;
    uint64_t late_settle;       /* the server's count of its late inputs at SIM_CS_LATE_SETTLE_S */
} cs_machine;

typedef struct cs_match {
    const sim_options *o;
    const sim_cs_game *g;
    bool sealed;                /* a private key, connect tokens, every datagram sealed */
    tempo_simnet *net;
    tempo_server *srv;
    int clients;
    cs_machine *m[SIM_CS_MAX_CLIENTS + 1];
    size_t hdr, arena_size;
    int game_in, in_size;
    uint8_t *scratch;           /* the game's inputs of one step */
    uint64_t *sums;             /* server: checksum of the state after ADVANCE(f) */
    int32_t sums_len;
    int32_t last_frame;         /* the server's last tick stepped, -1 none */
    bool in_match, settle_taken;
    uint64_t vt, match_end_vt, settle_vt;
    double cpu_s;               /* the server's poll, events and advance */
    double net_s;               /* of which in simnet's send and receive */
    uint64_t next_sample_vt, sample_us;
    sim_cs_timeline *tl;
    bool hiccup_fired[SIM_MAX_FAULTS];
    uint8_t blackout_marked[SIM_MAX_BLACKOUTS];
} cs_match;

static tempo_address cs_addr(int i)
{
    return tempo_address_ipv4(10, 1, (uint8_t)(i / 200), (uint8_t)(i % 200 + 1), 7000);
}

/* FNV-1a, 64 bits, over a whole arena. */
static uint64_t cs_checksum(const uint8_t *p, size_t n)
{
    uint64_t h = 0xCBF29CE484222325ULL;
    for (size_t k = 0; k < n; k++)
        h = (h ^ p[k]) * 0x100000001B3ULL;
    return h;
}

/* Serial comparison of 16-bit counts (RFC 1982). */
static bool cs_seq_before(uint16_t a, uint16_t b)
{
    return (int16_t)(uint16_t)(a - b) < 0;
}

static void cs_mark(cs_match *mt, int client, int kind, const char *label)
{
    sim_cs_timeline *t = mt->tl;
    if (!t || t->num_marks >= SIM_CS_MAX_MARKS)
        return;
    t->marks[t->num_marks].t_s = (double)mt->vt / 1e6;
    t->marks[t->num_marks].client = client;
    t->marks[t->num_marks].kind = kind;
    snprintf(t->marks[t->num_marks].label, sizeof t->marks[t->num_marks].label, "%s", label);
    t->num_marks++;
}

/* ---- the timeline ------------------------------------------------------------------------ */

bool sim_cs_timeline_init(sim_cs_timeline *t, int clients, int capacity, double interval_s)
{
    memset(t, 0, sizeof *t);
    t->interval_s = interval_s;
    t->capacity = capacity;
    t->clients = clients;
    for (int i = 0; i < clients; i++) {
        float **series[] = {&t->lead[i], &t->true_lead[i], &t->dilation[i], &t->corrections[i], &t->late[i], &t->up[i],
                            &t->down[i]};
        for (size_t k = 0; k < sizeof series / sizeof series[0]; k++) {
            *series[k] = malloc((size_t)capacity * sizeof(float));
            if (!*series[k]) {
                sim_cs_timeline_free(t);
                return false;
            }
        }
    }
    return true;
}

void sim_cs_timeline_free(sim_cs_timeline *t)
{
    for (int i = 0; i < SIM_CS_MAX_CLIENTS; i++) {
        free(t->lead[i]);
        free(t->true_lead[i]);
        free(t->dilation[i]);
        free(t->corrections[i]);
        free(t->late[i]);
        free(t->up[i]);
        free(t->down[i]);
    }
    memset(t, 0, sizeof *t);
}

/* ---- transports ---------------------------------------------------------------------------- */

/* A client's traffic is counted; the server's transport calls are timed,
 * to tell the library's own cost from simnet's. */
static int cs_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    cs_machine *m = ctx;
    if (m->index == 0) {
        double t0 = sim_wall_seconds();
        int r = m->net.send(m->net.ctx, to, data, size);
        m->mt->net_s += sim_wall_seconds() - t0;
        return r;
    }
    if (m->mt->in_match)
        m->up += size;
    return m->net.send(m->net.ctx, to, data, size);
}

static int cs_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    cs_machine *m = ctx;
    if (m->index == 0) {
        double t0 = sim_wall_seconds();
        int r = m->net.recv(m->net.ctx, from, buf, capacity);
        m->mt->net_s += sim_wall_seconds() - t0;
        return r;
    }
    int n = m->net.recv(m->net.ctx, from, buf, capacity);
    if (n > 0 && m->mt->in_match)
        m->down += (uint64_t)n;
    return n;
}

/* ---- the game behind its header ------------------------------------------------------------ */

/* One ADVANCE on an arena: the header takes each player's change count,
 * the game its own bytes. */
static void cs_step(cs_match *mt, uint8_t *arena, const tempo_request *r)
{
    for (int p = 0; p < mt->clients; p++) {
        const uint8_t *in = r->inputs + (size_t)p * (size_t)mt->in_size;
        memcpy(mt->scratch + (size_t)p * (size_t)mt->game_in, in, (size_t)mt->game_in);
        arena[2 * p] = in[mt->game_in];
        arena[2 * p + 1] = in[mt->game_in + 1];
    }
    mt->g->step(arena + mt->hdr, mt->scratch, r->status, mt->clients);
}

static double cs_correction(void *ctx, const void *predicted, const void *corrected, size_t size)
{
    const cs_match *mt = ctx;
    (void)size;
    return mt->g->correction((const uint8_t *)predicted + mt->hdr, (const uint8_t *)corrected + mt->hdr,
                             mt->clients, -1);
}

/* ---- building the match ----------------------------------------------------------------------- */

static cs_machine *cs_new_machine(cs_match *mt, int i)
{
    const sim_options *o = mt->o;
    cs_machine *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    mt->m[i] = m;
    m->index = i;
    m->mt = mt;
    m->player = m->srv_client = -1;
    m->label = -1;
    m->addr = cs_addr(i);
    m->arena = calloc(1, mt->arena_size);
    m->before = calloc(1, mt->arena_size);
    if (!m->arena || !m->before || tempo_simnet_add_node(mt->net, &m->addr, &m->net) != TEMPO_OK)
        return NULL;
    m->counted.send = cs_send;
    m->counted.recv = cs_recv;
    m->counted.ctx = m;
    if (!mt->g->init(m->arena + mt->hdr, mt->clients, o->seed))
        return NULL;
    uint64_t phase = sim_mix64(o->seed ^ ((uint64_t)i << 32)) % (uint64_t)SIM_TICK_PERIOD_US;
    bool listed = i < SIM_MAX_MACHINES;
    sim_clock_init(&m->clock, (listed ? (uint64_t)o->start_skew_ms[i] * 1000u : 0u) + phase,
                   listed ? o->clock_drift_pct[i] : 0.0);
    m->next_vt = sim_clock_tick_vt(&m->clock, 0);
    m->tick_us = (uint64_t)llround(SIM_TICK_PERIOD_US);
    return m;
}

static bool cs_setup(cs_match *mt)
{
    const sim_options *o = mt->o;
    mt->game_in = mt->g->input_size;
    mt->in_size = mt->game_in + SIM_CS_SEQ_BYTES;
    mt->hdr = ((size_t)mt->clients * 2 + 15) / 16 * 16;
    mt->arena_size = mt->hdr + mt->g->state_size;
    mt->scratch = calloc((size_t)mt->clients, (size_t)mt->game_in);
    mt->sums_len = o->frames + SIM_CS_SETTLE_TICKS + 1;
    mt->sums = calloc((size_t)mt->sums_len, sizeof *mt->sums);
    mt->last_frame = -1;
    mt->in_match = true;
    if (!mt->scratch || !mt->sums || !sim_net_create(o, mt->clients + 1, &mt->net))
        return false;
    if (mt->arena_size > TEMPO_CS_MAX_STATE) {
        fprintf(stderr, "tempo-sim: %s's state with %d players is over %d bytes\n", mt->g->name, mt->clients,
                TEMPO_CS_MAX_STATE);
        return false;
    }

    cs_machine *s = cs_new_machine(mt, 0);
    if (!s)
        return false;
    tempo_server_config sc;
    tempo_server_config_default(&sc);
    sc.num_players = mt->clients;
    sc.input_size = mt->in_size;
    sc.max_clients = mt->clients;
    sc.max_slots_per_client = 1;
    sc.frames_per_second = 60;
    sc.arena = s->arena;
    sc.arena_size = mt->arena_size;
    sc.random_seed = sim_mix64(o->seed * 131u);
    uint8_t key[TEMPO_KEY_SIZE];
    if (mt->sealed) {
        uint64_t k = o->seed;
        for (size_t b = 0; b < sizeof key; b++)
            key[b] = (uint8_t)(sim_mix64(k + b) >> 24);
        sc.has_private_key = true;
        memcpy(sc.private_key, key, sizeof key);
        sc.self = s->addr;
    }
    tempo_result r = tempo_server_create(&sc, &s->counted, &mt->srv);
    if (r != TEMPO_OK) {
        fprintf(stderr, "tempo-sim: cannot create the server: %s\n", tempo_strerror(r));
        return false;
    }
    for (int i = 1; i <= mt->clients; i++) {
        cs_machine *m = cs_new_machine(mt, i);
        if (!m)
            return false;
        tempo_client_config cc;
        tempo_client_config_default(&cc);
        cc.num_players = mt->clients;
        cc.input_size = mt->in_size;
        cc.frames_per_second = 60;
        cc.slots = 1;
        cc.reconcile = o->reconcile;
        cc.arena = m->arena;
        cc.arena_size = mt->arena_size;
        cc.correction = cs_correction;
        cc.correction_ctx = mt;
        cc.random_seed = sim_mix64(o->seed * 131u + (uint64_t)i);
        if (mt->sealed) {
            r = tempo_token_create(key, 0, (uint64_t)i, CS_TOKEN_TIME + 3600u, CS_TOKEN_TIME, &s->addr, 1, NULL,
                                   cc.token);
            if (r != TEMPO_OK) {
                fprintf(stderr, "tempo-sim: cannot make client %d's connect token: %s\n", i - 1, tempo_strerror(r));
                return false;
            }
            cc.has_token = true;
        }
        r = tempo_client_create(&cc, &m->counted, &s->addr, &m->c);
        if (r != TEMPO_OK) {
            fprintf(stderr, "tempo-sim: cannot create client %d: %s\n", i - 1, tempo_strerror(r));
            return false;
        }
    }
    tempo_wipe(key, sizeof key);
    if (mt->sealed)
        tempo_server_set_token_time(mt->srv, CS_TOKEN_TIME);
    if (!sim_net_links(mt->net, o, mt->clients + 1, cs_addr) || !sim_net_blackouts(mt->net, o, cs_addr))
        return false;
    double seconds = (double)(o->frames + SIM_CS_SETTLE_TICKS) / 60.0 + 5.0;
    double interval = SIM_SAMPLE_S;
    while (seconds / interval > SIM_CS_MAX_SAMPLES)
        interval *= 2.0;
    mt->sample_us = (uint64_t)(interval * 1e6);
    mt->settle_vt = mt->m[0]->next_vt + (uint64_t)(SIM_CS_LATE_SETTLE_S * 1e6);
    if (mt->tl && !sim_cs_timeline_init(mt->tl, mt->clients, (int)(seconds / interval) + 2, interval))
        return false;
    return true;
}

static void cs_teardown(cs_match *mt)
{
    tempo_server_destroy(mt->srv);
    for (int i = 0; i <= mt->clients; i++) {
        if (!mt->m[i])
            continue;
        tempo_client_destroy(mt->m[i]->c);
        free(mt->m[i]->arena);
        free(mt->m[i]->before);
        free(mt->m[i]);
    }
    tempo_simnet_destroy(mt->net);
    free(mt->scratch);
    free(mt->sums);
}

/* ---- the server's tick ----------------------------------------------------------------------- */

static cs_machine *cs_client_at(cs_match *mt, const tempo_address *a)
{
    for (int i = 1; i <= mt->clients; i++)
        if (tempo_address_equal(&mt->m[i]->addr, a))
            return mt->m[i];
    return NULL;
}

static void cs_server_tick(cs_match *mt, cs_machine *s)
{
    uint64_t now = sim_clock_local_us(&s->clock, mt->vt);
    double t0 = sim_wall_seconds();
    tempo_server_poll(mt->srv, now);
    tempo_server_event ev;
    while (tempo_server_poll_event(mt->srv, &ev) > 0) {
        tempo_server_client_stats cs;
        cs_machine *m = tempo_server_get_client_stats(mt->srv, ev.client, &cs) == TEMPO_OK
                            ? cs_client_at(mt, &cs.address) : NULL;
        if (m && ev.kind == TEMPO_SERVER_CLIENT_CONNECTED)
            m->srv_client = ev.client;
    }
    tempo_server_tick tick;
    tempo_result r = tempo_server_advance(mt->srv, &tick);
    mt->cpu_s += sim_wall_seconds() - t0;
    if (r != TEMPO_OK)
        return;
    for (int k = 0; k < tick.num_requests; k++)
        if (tick.requests[k].kind == TEMPO_REQUEST_ADVANCE)
            cs_step(mt, s->arena, &tick.requests[k]);
    mt->last_frame = tick.frame;
    if (tick.frame >= 0 && tick.frame < mt->sums_len)
        mt->sums[tick.frame] = cs_checksum(s->arena, mt->arena_size);
}

/* ---- a client's tick -------------------------------------------------------------------------- */

static void cs_client_events(cs_match *mt, cs_machine *m)
{
    tempo_client_event ev;
    char label[40];
    while (tempo_client_poll_event(m->c, &ev) > 0) {
        switch (ev.kind) {
        case TEMPO_CLIENT_EVENT_CONNECTED:
            m->connected = true;
            m->connect_vt = mt->vt;
            for (int p = 0; p < 64 && m->player < 0; p++)
                if (ev.slots & (UINT64_C(1) << p))
                    m->player = p;
            if (m->player < 0)
                m->player = 0;
            mt->g->bot_init(m->bot, mt->o->seed, m->player);
            break;
        case TEMPO_CLIENT_EVENT_SNAP:
            if (!mt->in_match)
                break;
            m->snaps++;
            if (mt->vt >= m->connect_vt + (uint64_t)(SIM_CS_SNAP_GRACE_S * 1e6))
                m->snaps_after++;
            snprintf(label, sizeof label, "client %d jumped %+d ticks", m->index - 1, ev.ticks);
            cs_mark(mt, m->index - 1, SIM_MARK_HICCUP, label);
            break;
        default:
            if (!m->lost) {
                snprintf(label, sizeof label, "client %d %s", m->index - 1,
                         ev.kind == TEMPO_CLIENT_EVENT_DENIED ? "denied" : ev.kind == TEMPO_CLIENT_EVENT_TIMED_OUT
                                                                            ? "timed out" : "disconnected");
                cs_mark(mt, m->index - 1, SIM_MARK_DISCONNECT, label);
            }
            m->lost = true;
            break;
        }
    }
}

static void cs_send_input(cs_match *mt, cs_machine *m, uint8_t *in)
{
    in[mt->game_in] = (uint8_t)(m->seq & 0xFF);
    in[mt->game_in + 1] = (uint8_t)(m->seq >> 8);
    tempo_client_add_local_input(m->c, m->player, in, (size_t)mt->in_size);
}

/* The bot's input for this tick, with its change count behind it. A change
 * waits to be seen in the presented state. */
static void cs_client_input(cs_match *mt, cs_machine *m)
{
    uint8_t in[TEMPO_MAX_INPUT_SIZE];
    memcpy(in, m->last_in, (size_t)mt->game_in);
    if (mt->in_match)
        mt->g->bot_next(m->bot, m->arena + mt->hdr, m->player, in);
    /* Changes in the first second after connecting (start-up and its
     * tick-sync jumps) are not measured. */
    bool measured = mt->vt >= m->connect_vt + (uint64_t)(SIM_CS_SNAP_GRACE_S * 1e6);
    bool changed = memcmp(in, m->last_in, (size_t)mt->game_in) != 0;
    if (changed) {
        memcpy(m->last_in, in, (size_t)mt->game_in);
        m->seq++;
    }
    if (changed && measured) {
        m->changes++;
        if (m->pend_n == CS_PENDING) { /* the oldest goes unmeasured */
            m->pend_head = (m->pend_head + 1) % CS_PENDING;
            m->pend_n--;
        }
        cs_pending *p = &m->pend[(m->pend_head + m->pend_n) % CS_PENDING];
        p->seq = m->seq;
        p->tick = m->ticks;
        m->pend_n++;
    }
    cs_send_input(mt, m, in);
}

/* What the presented state shows of this client's own input. */
static void cs_client_presented(cs_match *mt, cs_machine *m)
{
    uint16_t seen = (uint16_t)(m->arena[2 * m->player] | m->arena[2 * m->player + 1] << 8);
    while (m->pend_n > 0 && !cs_seq_before(seen, m->pend[m->pend_head].seq)) {
        uint64_t took = m->ticks - m->pend[m->pend_head].tick;
        if (mt->in_match) {
            sim_stat_add(&m->resp, (double)took);
        }
        m->pend_head = (m->pend_head + 1) % CS_PENDING;
        m->pend_n--;
    }
    if (m->label >= 0 && !mt->in_match) { /* only the settling's states are compared */
        m->ring[m->ring_next].label = m->label;
        m->ring[m->ring_next].sum = cs_checksum(m->arena, mt->arena_size);
        m->ring_next = (m->ring_next + 1) % CS_RING;
        m->ring_n += m->ring_n < CS_RING;
    }
}

/* A correction as the player sees it: the state presented last tick
 * against the state the client holds for that moment once the snapshot is
 * in place (replayed, or not), before the new tick's step. The game's bytes
 * only: the header's counts of other players are guesses by design. One
 * that moves the client's own piece is a snap-back; one may also (or only)
 * move other pieces. A dumb client never predicts: it has nothing to
 * correct. */
static void cs_visible_correction(cs_match *mt, cs_machine *m)
{
    if (!mt->in_match || m->label < 0 || mt->o->reconcile == TEMPO_RECONCILE_DUMB ||
        memcmp(m->before + mt->hdr, m->arena + mt->hdr, mt->g->state_size) == 0)
        return;
    const uint8_t *before = m->before + mt->hdr, *now = m->arena + mt->hdr;
    double d = mt->g->correction(before, now, mt->clients, -1);
    sim_stat_add(&m->vis, d);
    double own = m->player >= 0 ? mt->g->player_distance(before, now, m->player) : 0.0;
    if (own > 0.0) {
        sim_stat_add(&m->own, own);
        m->snapbacks_after += mt->vt >= mt->settle_vt;
    }
    double other = mt->g->correction(before, now, mt->clients, m->player);
    if (other > 0.0) {
        sim_stat_add(&m->oth, other);
    }
}

static void cs_client_tick(cs_match *mt, cs_machine *m)
{
    tempo_client_poll(m->c, sim_clock_local_us(&m->clock, mt->vt));
    cs_client_events(mt, m);
    bool playing = m->connected && !m->lost && m->player >= 0;
    if (playing)
        cs_client_input(mt, m);
    memcpy(m->before, m->arena, mt->arena_size); /* the arena may change inside the advance */
    tempo_client_tick tick;
    if (tempo_client_advance(m->c, &tick) == TEMPO_OK) {
        bool advanced = false, measured = !tick.corrected || tick.state != TEMPO_CLIENT_CONNECTED;
        for (int k = 0; k < tick.num_requests; k++) {
            const tempo_request *r = &tick.requests[k];
            if (r->kind == TEMPO_REQUEST_ADVANCE) {
                if (!r->resimulating && !measured) {
                    cs_visible_correction(mt, m);
                    measured = true;
                }
                cs_step(mt, m->arena, r);
                m->label = r->frame;
                advanced = true;
            } else if (r->kind == TEMPO_REQUEST_LOAD && r->state && r->state_size == mt->arena_size) {
                memcpy(m->arena, r->state, mt->arena_size);
            }
        }
        if (!measured)
            cs_visible_correction(mt, m);
        /* Without a step, the client shows the newest snapshot: the state
         * after the server's tick before the snapshot's. */
        if (tick.corrected && !advanced) {
            tempo_client_stats st;
            if (tempo_client_get_stats(m->c, &st) == TEMPO_OK)
                m->label = st.server_frame - 1;
        }
    }
    if (playing)
        cs_client_presented(mt, m);
    m->tick_us = tempo_client_tick_us(m->c);
    if (playing && mt->in_match) {
        double d = fabs((double)m->tick_us / SIM_TICK_PERIOD_US - 1.0);
        m->dil_max = d > m->dil_max ? d : m->dil_max;
    }
}

/* ---- faults -------------------------------------------------------------------------------------- */

static void cs_faults(cs_match *mt, cs_machine *m)
{
    const sim_options *o = mt->o;
    if (!mt->in_match)
        return;
    for (int k = 0; k < o->num_hiccups; k++) {
        const sim_fault *h = &o->hiccups[k];
        if (mt->hiccup_fired[k] || h->peer != m->index || (int64_t)m->ticks < h->frame)
            continue;
        mt->hiccup_fired[k] = true;
        /* Frozen: no ticks and no polls; its clock runs on meanwhile. */
        uint64_t until = mt->vt + (uint64_t)h->ms * 1000u;
        if (m->index == 0)
            m->next_vt = sim_clock_tick_vt(&m->clock, sim_clock_first_tick_from(&m->clock, until));
        else
            m->next_vt = until;
        char label[40];
        snprintf(label, sizeof label, "%s froze %" PRIu32 " ms", m->index ? "a client" : "the server", h->ms);
        cs_mark(mt, m->index - 1, SIM_MARK_HICCUP, label);
    }
    for (int k = 0; k < o->num_blackouts; k++) {
        const sim_blackout *b = &o->blackouts[k];
        if (!mt->blackout_marked[k] && mt->vt >= b->from_us) {
            mt->blackout_marked[k] = 1;
            cs_mark(mt, b->a - 1, SIM_MARK_BLACKOUT_START, "blackout");
        }
    }
}

/* ---- samples ------------------------------------------------------------------------------------- */

static void cs_sample(cs_match *mt)
{
    sim_cs_timeline *t = mt->tl;
    double dt = (double)mt->sample_us / 1e6;
    for (int i = 1; i <= mt->clients; i++) {
        cs_machine *m = mt->m[i];
        tempo_client_stats st;
        tempo_server_client_stats ss;
        bool have = tempo_client_get_stats(m->c, &st) == TEMPO_OK;
        bool srv = m->srv_client >= 0 && tempo_server_get_client_stats(mt->srv, m->srv_client, &ss) == TEMPO_OK;
        bool on = have && m->connected && !m->lost;
        if (on && mt->vt >= m->connect_vt + (uint64_t)(SIM_CS_SNAP_GRACE_S * 1e6)) {
            m->lead_sum += st.lead_ticks;
            m->lead_min = m->lead_n == 0 || st.lead_ticks < m->lead_min ? st.lead_ticks : m->lead_min;
            m->lead_max = m->lead_n == 0 || st.lead_ticks > m->lead_max ? st.lead_ticks : m->lead_max;
            m->lead_n++;
            m->true_lead_sum += (double)(m->label - mt->last_frame);
        }
        if (t && t->count < t->capacity) {
            int k = t->count, c = i - 1;
            t->lead[c][k] = on ? (float)st.lead_ticks : NAN;
            t->true_lead[c][k] = on && m->label >= 0 ? (float)(m->label - mt->last_frame) : NAN;
            t->dilation[c][k] = on ? (float)(((double)m->tick_us / SIM_TICK_PERIOD_US - 1.0) * 100.0) : NAN;
            t->corrections[c][k] = on ? (float)((double)(st.corrections - m->prev_corrections) / dt) : NAN;
            t->late[c][k] = srv ? (float)((double)(ss.late_inputs - m->prev_late) / dt) : NAN;
            t->up[c][k] = (float)((double)(m->up - m->prev_up) / dt);
            t->down[c][k] = (float)((double)(m->down - m->prev_down) / dt);
        }
        if (have)
            m->prev_corrections = st.corrections;
        if (srv)
            m->prev_late = ss.late_inputs;
        m->prev_up = m->up;
        m->prev_down = m->down;
    }
    if (t && t->count < t->capacity)
        t->count++;
}

/* The server's count of each client's late inputs, once settled. */
static void cs_take_settle(cs_match *mt)
{
    for (int i = 1; i <= mt->clients; i++) {
        cs_machine *m = mt->m[i];
        tempo_server_client_stats ss;
        if (m->srv_client >= 0 && tempo_server_get_client_stats(mt->srv, m->srv_client, &ss) == TEMPO_OK)
            m->late_settle = ss.late_inputs;
    }
    mt->settle_taken = true;
}

static void cs_end_match_part(cs_match *mt)
{
    mt->in_match = false;
    mt->match_end_vt = mt->vt;
    if (!mt->settle_taken)
        cs_take_settle(mt);
    for (int i = 1; i <= mt->clients; i++) {
        cs_machine *m = mt->m[i];
        tempo_client_get_stats(m->c, &m->end);
        if (m->srv_client >= 0)
            tempo_server_get_client_stats(mt->srv, m->srv_client, &m->srv_end);
    }
}

/* ---- the run --------------------------------------------------------------------------------------- */

static void cs_run(cs_match *mt)
{
    const sim_options *o = mt->o;
    uint64_t last_tick = (uint64_t)o->frames + SIM_CS_SETTLE_TICKS;
    for (;;) {
        cs_machine *next = mt->m[0];
        for (int i = 1; i <= mt->clients; i++)
            if (mt->m[i]->next_vt < next->next_vt)
                next = mt->m[i];
        if (mt->in_match && mt->next_sample_vt <= next->next_vt) {
            mt->vt = mt->next_sample_vt;
            cs_sample(mt);
            mt->next_sample_vt += mt->sample_us;
            continue;
        }
        mt->vt = next->next_vt;
        if (!mt->settle_taken && mt->vt >= mt->settle_vt)
            cs_take_settle(mt);
        tempo_simnet_set_time(mt->net, mt->vt);
        if (next->index == 0) {
            cs_server_tick(mt, next);
            next->ticks++;
            next->next_vt = sim_clock_tick_vt(&next->clock, next->ticks);
        } else {
            cs_client_tick(mt, next);
            next->ticks++;
            double vt_us = (double)next->tick_us / next->clock.rate;
            next->next_vt = mt->vt + (uint64_t)ceil(vt_us > 1.0 ? vt_us : 1.0);
        }
        cs_faults(mt, next);
        if (next->index == 0 && mt->in_match && next->ticks >= (uint64_t)o->frames)
            cs_end_match_part(mt);
        if (next->index == 0 && next->ticks >= last_tick)
            break;
    }
}

/* ---- results ---------------------------------------------------------------------------------------- */

static void cs_client_result(const cs_match *mt, const cs_machine *m, sim_cs_client_result *c)
{
    memset(c, 0, sizeof *c);
    c->connected = m->connected;
    c->lost = m->lost;
    c->connect_s = (double)m->connect_vt / 1e6;
    c->changes = m->changes;
    c->responses = m->resp.n;
    c->response_mean = sim_stat_mean(&m->resp, NAN);
    c->response_max = (int)m->resp.max;
    c->snapbacks = m->own.n;
    c->snapbacks_after = m->snapbacks_after;
    if (!m->connected)
        return;
    uint64_t from = m->connect_vt, to = mt->match_end_vt;
    c->visible = m->vis.n;
    c->visible_per_min = sim_per_min_vt(m->vis.n, from, to);
    c->visible_mean = sim_stat_mean(&m->vis, 0.0);
    c->visible_max = m->vis.max;
    c->own_per_min = sim_per_min_vt(m->own.n, from, to);
    c->own_mean = sim_stat_mean(&m->own, 0.0);
    c->own_max = m->own.max;
    c->others = m->oth.n;
    c->others_per_min = sim_per_min_vt(m->oth.n, from, to);
    c->others_mean = sim_stat_mean(&m->oth, 0.0);
    c->others_max = m->oth.max;
    c->corrections = m->end.corrections;
    c->corrections_per_min = sim_per_min_vt(m->end.corrections, from, to);
    c->correction_mean = sim_mean(m->end.correction_sum, m->end.corrections, 0.0);
    c->correction_max = m->end.correction_max;
    c->resim_frames = m->end.resim_frames;
    c->stall_ticks = m->end.stall_ticks;
    c->late_inputs = m->srv_end.late_inputs;
    c->late_after = m->srv_end.late_inputs - m->late_settle;
    c->late_per_min = sim_per_min_vt(c->late_inputs, from, to);
    c->late_after_per_min = sim_per_min_vt(c->late_after, from > mt->settle_vt ? from : mt->settle_vt, to);
    c->lead_mean = m->lead_n ? m->lead_sum / (double)m->lead_n : NAN;
    c->lead_min = m->lead_n ? m->lead_min : NAN;
    c->lead_max = m->lead_n ? m->lead_max : NAN;
    c->true_lead_mean = m->lead_n ? m->true_lead_sum / (double)m->lead_n : NAN;
    c->dilation_max = m->dil_max;
    c->snaps = m->snaps;
    c->snaps_after = m->snaps_after;
    double secs = to > from ? (double)(to - from) / 1e6 : 0.0;
    c->up_bytes_per_s = secs > 0 ? (double)m->up / secs : 0.0;
    c->down_bytes_per_s = secs > 0 ? (double)m->down / secs : 0.0;
    c->snapshots = m->srv_end.snapshots_sent;
    c->full_snapshots = m->srv_end.full_snapshots;
    c->snapshot_bytes = m->srv_end.snapshots_sent ? (double)m->srv_end.snapshot_bytes /
                                                        (double)m->srv_end.snapshots_sent : 0.0;
    c->rtt_ms = m->end.rtt_ms;
    /* The newest state it presented of a tick the server stepped. */
    for (int k = 1; k <= m->ring_n; k++) {
        int at = (m->ring_next - k + CS_RING) % CS_RING;
        int32_t f = m->ring[at].label;
        if (f < 0 || f > mt->last_frame || f >= mt->sums_len)
            continue;
        c->compared = true;
        c->compared_frame = f;
        c->agrees = m->ring[at].sum == mt->sums[f];
        break;
    }
}

static void cs_totals(const cs_match *mt, sim_cs_result *out)
{
    double corr_sum = 0, vis_sum = 0, own_sum = 0, oth_sum = 0;
    sim_stat resp = {0};
    int n = out->clients;
    for (int i = 0; i < n; i++) {
        const sim_cs_client_result *c = &out->c[i];
        const cs_machine *m = mt->m[i + 1];
        out->connected += c->connected;
        sim_stat_merge(&resp, &m->resp);
        out->response_max = c->response_max > out->response_max ? c->response_max : out->response_max;
        out->snapbacks += c->snapbacks;
        out->snapbacks_after += c->snapbacks_after;
        out->corrections += c->corrections;
        out->visible += c->visible;
        vis_sum += c->visible_mean * (double)c->visible;
        out->visible_max = c->visible_max > out->visible_max ? c->visible_max : out->visible_max;
        out->visible_per_min += c->visible_per_min / n;
        own_sum += c->own_mean * (double)c->snapbacks;
        out->own_per_min += c->own_per_min / n;
        out->own_max = c->own_max > out->own_max ? c->own_max : out->own_max;
        out->others += c->others;
        oth_sum += c->others_mean * (double)c->others;
        out->others_per_min += c->others_per_min / n;
        out->others_max = c->others_max > out->others_max ? c->others_max : out->others_max;
        corr_sum += c->correction_mean * (double)c->corrections;
        out->correction_max = c->correction_max > out->correction_max ? c->correction_max : out->correction_max;
        out->resim_frames += c->resim_frames;
        out->snaps_after += c->snaps_after;
        out->corrections_per_min += c->corrections_per_min / n;
        out->late_per_min += c->late_per_min / n;
        out->late_after_per_min += c->late_after_per_min / n;
        out->dilation_max = c->dilation_max > out->dilation_max ? c->dilation_max : out->dilation_max;
        out->up_bytes_per_s += c->up_bytes_per_s / n;
        out->down_bytes_per_s += c->down_bytes_per_s / n;
        out->snapshot_bytes += c->snapshot_bytes / n;
        out->agree += c->compared && c->agrees;
    }
    out->response_mean = sim_stat_mean(&resp, NAN);
    out->correction_mean = out->corrections ? corr_sum / (double)out->corrections : 0.0;
    out->visible_mean = out->visible ? vis_sum / (double)out->visible : 0.0;
    out->own_mean = out->snapbacks ? own_sum / (double)out->snapbacks : 0.0;
    out->others_mean = out->others ? oth_sum / (double)out->others : 0.0;
    if (out->connected < n)
        snprintf(out->problem, sizeof out->problem, "%d of %d clients connected", out->connected, n);
    else if (out->agreement_expected && out->agree < n)
        snprintf(out->problem, sizeof out->problem, "%d of %d clients disagree with the server at the end",
                 n - out->agree, n);
}

int sim_cs_run(const sim_options *o, sim_cs_result *out, sim_cs_timeline *tl)
{
    memset(out, 0, sizeof *out);
    char why[160];
    const sim_cs_game *g = sim_cs_game_pick(o, why, sizeof why);
    if (!g) {
        fprintf(stderr, "tempo-sim: %s\n", why);
        return SIM_EXIT_USAGE;
    }
    cs_match *mt = calloc(1, sizeof *mt);
    if (!mt) {
        fprintf(stderr, "tempo-sim: out of memory\n");
        return SIM_EXIT_USAGE;
    }
    mt->o = o;
    mt->g = g;
    mt->clients = o->clients;
    mt->sealed = o->seal && tempo_secure_available();
    mt->tl = tl;
    if (!cs_setup(mt)) {
        fprintf(stderr, "tempo-sim: cannot set up the client-server match\n");
        cs_teardown(mt);
        if (tl)
            sim_cs_timeline_free(tl);
        free(mt);
        return SIM_EXIT_USAGE;
    }
    double t0 = sim_wall_seconds();
    cs_run(mt);
    out->wall_s = sim_wall_seconds() - t0;
    out->game = g;
    out->sealed = mt->sealed;
    out->clients = mt->clients;
    out->reconcile = o->reconcile;
    tempo_client_config cc;
    tempo_client_config_default(&cc);
    out->max_dilation = cc.max_dilation;
    out->agreement_expected = o->reconcile != TEMPO_RECONCILE_NONE;
    out->faults = o->num_hiccups > 0 || o->num_blackouts > 0;
    out->match_s = (double)mt->match_end_vt / 1e6;
    out->server_ticks = (uint64_t)o->frames;
    out->server_cpu_us = mt->cpu_s * 1e6;
    uint64_t all_ticks = mt->m[0]->ticks;
    out->cpu_us_per_client_tick = all_ticks ? out->server_cpu_us / (double)all_ticks / mt->clients : 0.0;
    out->lib_us_per_client_tick = all_ticks ? (mt->cpu_s - mt->net_s) * 1e6 / (double)all_ticks / mt->clients : 0.0;
    for (int i = 1; i <= mt->clients; i++)
        cs_client_result(mt, mt->m[i], &out->c[i - 1]);
    cs_totals(mt, out);
    cs_teardown(mt);
    free(mt);
    return SIM_EXIT_OK;
}
