/* SPDX-License-Identifier: MIT */
/*
 * sim_hostile.c — hostile actors in a tempo-sim match, and the accounting of
 * every datagram a session reads (sim_hostile.h).
 *
 * Off-path actors (the spoofer, the handshake flood) put datagrams on the
 * network with tempo_simnet_inject, under a peer's address or a stranger's;
 * the spoofer knows every address and the session id, and keeps the last
 * honest datagrams each machine read to mutate and replay them. The on-path
 * actor sits where the link from a to b ends: it sees each datagram b is
 * about to read from a and may rewrite it, withhold it, hand it over late,
 * hand it over twice, or hand over an earlier one again.
 *
 * Each machine reads through a wrapping transport. It tells hostile
 * datagrams from honest ones (each machine keeps, in send order, the
 * checksums of what was injected for it: injected datagrams come out of
 * simnet in that order), and before each read it charges whatever drop
 * counter moved to the datagram read before. Invariants: per actor and kind,
 * sent = read + unread, and read = the five drops + ignored + accepted; per
 * machine, the session's drop counters = the drops charged to hostile and
 * honest datagrams + those that moved between reads.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_match.h"
#include "tempo/rng.h"
#include "wire/codec.h"

#define CAPTURES 32 /* honest datagrams kept per reading machine */
#define QUEUE 16    /* datagrams held for one machine by the on-path actors */
#define NO_ACTOR (-1)

enum { ONPATH_REWRITE, ONPATH_DROP, ONPATH_REPLAY, ONPATH_DUPLICATE, ONPATH_REORDER, ONPATH_ACTIONS };

typedef struct held {
    int8_t actor;     /* NO_ACTOR: honest */
    int8_t what;
    uint16_t size;
    tempo_address from;
    uint8_t data[TEMPO_MAX_DATAGRAM];
} held;

typedef struct tagged {
    uint64_t hash;
    int8_t actor, what;
} tagged;

/* The five drop counters, in the order sim_hostile_count lists them. */
typedef struct drops {
    uint64_t v[5];
} drops;

typedef struct reader {
    sim_hostile_run *h;
    sim_machine *m;
    tempo_transport inner;  /* simnet's */
    tagged *fifo;           /* injected for this machine, oldest first */
    uint32_t fifo_head, fifo_count;
    held now[QUEUE];        /* handed over before anything new */
    int now_head, now_count;
    held later[QUEUE];      /* handed over after the next datagram (reordered) */
    int later_count;
    held cap[CAPTURES];     /* honest datagrams it read, newest at cap_next - 1 */
    int cap_count, cap_next;
    bool last_valid;        /* a datagram was handed over and not yet charged */
    int last_actor, last_what;
    tempo_address last_from;
    bool have_snap;
    drops snap;
    uint8_t scratch[TEMPO_MAX_DATAGRAM];
} reader;

typedef struct actor_run {
    sim_hostile spec;
    uint64_t budget;        /* most datagrams it sends (--attack), else UINT64_MAX */
    uint64_t due_sent;      /* datagrams its rate has owed so far */
    tempo_rng rng;
} actor_run;

struct sim_hostile_run {
    const sim_options *o;
    tempo_simnet *net;
    int nmach;
    uint32_t fifo_cap;
    uint32_t session_id;
    int num_actors;
    actor_run act[SIM_MAX_ACTORS];
    sim_actor_result res[SIM_MAX_ACTORS];
    sim_hostile_count honest;
    uint64_t elsewhere;
    uint32_t strangers;     /* flood addresses used so far */
    reader *rd[SIM_MAX_MACHINES];
};

/* ---- small pieces ------------------------------------------------------------------ */

static uint64_t datagram_hash(const uint8_t *data, size_t size)
{
    return tempo_checksum(data, size) ^ ((uint64_t)size * 0x9E3779B97F4A7C15ULL);
}

static drops read_drops(const tempo_session *s)
{
    drops d;
    memset(&d, 0, sizeof d);
    tempo_session_stats st;
    if (s && tempo_session_get_stats(s, &st) == TEMPO_OK) {
        d.v[0] = st.dropped_forged;
        d.v[1] = st.dropped_replay;
        d.v[2] = st.dropped_malformed;
        d.v[3] = st.dropped_unknown;
        d.v[4] = st.dropped_session;
    }
    return d;
}

static uint64_t *drop_field(sim_hostile_count *c, int k)
{
    uint64_t *f[5] = {&c->forged, &c->replay, &c->malformed, &c->unknown, &c->session};
    return f[k];
}

static bool live(const reader *r)
{
    return r && r->m && r->m->s && !r->m->dead;
}

/* ---- charging each read to its datagram -------------------------------------------- */

/* Whether the session of r has dropped the machine at `from` (a peer): it
 * then reads that machine's datagrams without counting them. */
static bool from_dropped_machine(const reader *r, const tempo_address *from)
{
    for (int j = 0; j < r->h->nmach; j++) {
        const sim_machine *x = r->h->rd[j]->m;
        if (!x || x == r->m || x->spectator || !tempo_address_equal(&x->addr, from))
            continue;
        tempo_endpoint_stats es;
        return tempo_session_get_endpoint_stats(r->m->s, x->first_player, &es) == TEMPO_OK && es.disconnected;
    }
    return false;
}

static void settle(reader *r)
{
    if (!r->m->s)
        return;
    drops now = read_drops(r->m->s);
    uint64_t moved = 0, d[5];
    for (int k = 0; k < 5; k++) {
        d[k] = now.v[k] - (r->have_snap ? r->snap.v[k] : 0);
        moved += d[k];
    }
    if (!r->last_valid) {
        r->h->elsewhere += moved;
    } else {
        sim_hostile_count *c = r->last_actor == NO_ACTOR ? &r->h->honest
                                                         : &r->h->res[r->last_actor].by[r->last_what];
        c->read++;
        for (int k = 0; k < 5; k++)
            *drop_field(c, k) += d[k];
        if (moved == 0) {
            if (from_dropped_machine(r, &r->last_from))
                c->ignored++;
            else
                c->accepted++;
        }
    }
    r->last_valid = false;
    r->snap = now;
    r->have_snap = true;
}

/* ---- the machine's reading ------------------------------------------------------------- */

static held *push(held *q, int *head, int *count, int cap)
{
    if (*count == cap)
        return NULL;
    held *x = &q[(*head + *count) % cap];
    (*count)++;
    return x;
}

static void capture(reader *r, const tempo_address *from, const uint8_t *data, size_t size)
{
    held *c = &r->cap[r->cap_next];
    c->actor = NO_ACTOR;
    c->from = *from;
    c->size = (uint16_t)size;
    memcpy(c->data, data, size);
    r->cap_next = (r->cap_next + 1) % CAPTURES;
    if (r->cap_count < CAPTURES)
        r->cap_count++;
}

/* A datagram r read earlier from `from`, or NULL. */
static const held *captured_from(const reader *r, const tempo_address *from, uint32_t pick)
{
    for (int k = 0; k < r->cap_count; k++) {
        const held *c = &r->cap[(pick + (uint32_t)k) % (uint32_t)r->cap_count];
        if (tempo_address_equal(&c->from, from))
            return c;
    }
    return NULL;
}

/* Hand a datagram to the session: note it for settle, keep honest ones,
 * and let what was held back for reordering follow it. */
static int hand(reader *r, int actor, int what, const tempo_address *src, const uint8_t *data, size_t size,
                tempo_address *from, uint8_t *buf, size_t capacity)
{
    memcpy(buf, data, size < capacity ? size : capacity);
    *from = *src;
    r->last_valid = true;
    r->last_actor = actor;
    r->last_what = what;
    r->last_from = *src;
    if (actor == NO_ACTOR)
        capture(r, src, data, size);
    for (int k = 0; k < r->later_count; k++) {
        held *x = push(r->now, &r->now_head, &r->now_count, QUEUE);
        if (x)
            *x = r->later[k];
    }
    r->later_count = 0;
    return (int)size;
}

/* The on-path actor on the link from -> r's machine acting now, or NO_ACTOR. */
static int onpath_actor(reader *r, const tempo_address *from)
{
    sim_hostile_run *h = r->h;
    uint64_t vt = tempo_simnet_time(h->net);
    for (int a = 0; a < h->num_actors; a++) {
        const sim_hostile *s = &h->act[a].spec;
        if (s->kind != SIM_HOSTILE_ONPATH || s->b != r->m->index || vt < s->from_us || vt >= s->to_us)
            continue;
        if (s->a >= h->nmach || !tempo_address_equal(&h->rd[s->a]->m->addr, from))
            continue;
        if ((double)tempo_rng_next(&h->act[a].rng) * (1.0 / 4294967296.0) < s->rate)
            return a;
    }
    return NO_ACTOR;
}

static int hostile_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    reader *r = ctx;
    sim_hostile_run *h = r->h;
    settle(r);
    if (r->now_count > 0) {
        held *x = &r->now[r->now_head];
        r->now_head = (r->now_head + 1) % QUEUE;
        r->now_count--;
        held copy = *x;
        return hand(r, copy.actor, copy.what, &copy.from, copy.data, copy.size, from, buf, capacity);
    }
    for (;;) {
        int got = r->inner.recv(r->inner.ctx, from, r->scratch, sizeof r->scratch);
        if (got <= 0) {
            if (r->later_count == 0)
                return got;
            held copy = r->later[0]; /* nothing came after it: it goes now */
            memmove(&r->later[0], &r->later[1], (size_t)(r->later_count - 1) * sizeof r->later[0]);
            r->later_count--;
            return hand(r, copy.actor, copy.what, &copy.from, copy.data, copy.size, from, buf, capacity);
        }
        size_t size = (size_t)got;
        tempo_address src = *from;
        if (r->fifo_count > 0 && r->fifo[r->fifo_head].hash == datagram_hash(r->scratch, size)) {
            tagged t = r->fifo[r->fifo_head];
            r->fifo_head = (r->fifo_head + 1) % h->fifo_cap;
            r->fifo_count--;
            return hand(r, t.actor, t.what, &src, r->scratch, size, from, buf, capacity);
        }
        int a = onpath_actor(r, &src);
        if (a == NO_ACTOR)
            return hand(r, NO_ACTOR, 0, &src, r->scratch, size, from, buf, capacity);
        sim_actor_result *res = &h->res[a];
        tempo_rng *rng = &h->act[a].rng;
        held *x;
        switch (tempo_rng_below(rng, ONPATH_ACTIONS)) {
        case ONPATH_REWRITE: {
            int flips = 1 + (int)tempo_rng_below(rng, 3);
            for (int k = 0; k < flips; k++)
                r->scratch[tempo_rng_below(rng, (uint32_t)size)] ^= (uint8_t)(1u + tempo_rng_below(rng, 255));
            res->by[SIM_HW_REWRITE].sent++;
            return hand(r, a, SIM_HW_REWRITE, &src, r->scratch, size, from, buf, capacity);
        }
        case ONPATH_DROP:
            res->withheld++;
            continue;
        case ONPATH_REORDER:
            if (r->later_count < QUEUE) {
                x = &r->later[r->later_count++];
                x->actor = NO_ACTOR;
                x->what = 0;
                x->from = src;
                x->size = (uint16_t)size;
                memcpy(x->data, r->scratch, size);
                res->held_back++;
                continue;
            }
            break;
        case ONPATH_DUPLICATE:
            x = push(r->now, &r->now_head, &r->now_count, QUEUE);
            if (x) {
                x->actor = (int8_t)a;
                x->what = SIM_HW_DUPLICATE;
                x->from = src;
                x->size = (uint16_t)size;
                memcpy(x->data, r->scratch, size);
                res->by[SIM_HW_DUPLICATE].sent++;
            }
            break;
        case ONPATH_REPLAY: {
            const held *c = captured_from(r, &src, tempo_rng_next(rng));
            x = c ? push(r->now, &r->now_head, &r->now_count, QUEUE) : NULL;
            if (x) {
                *x = *c;
                x->actor = (int8_t)a;
                x->what = SIM_HW_REPLAY;
                res->by[SIM_HW_REPLAY].sent++;
            }
            break;
        }
        }
        return hand(r, NO_ACTOR, 0, &src, r->scratch, size, from, buf, capacity);
    }
}

static int hostile_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    reader *r = ctx;
    return r->inner.send(r->inner.ctx, to, data, size);
}

/* ---- the off-path actors ---------------------------------------------------------------- */

/* Put a datagram on the network for r's machine, claiming `from`. */
static void inject(sim_hostile_run *h, int a, int what, reader *r, const tempo_address *from, const uint8_t *data,
                   size_t size)
{
    if (r->fifo_count == h->fifo_cap ||
        tempo_simnet_inject(h->net, from, &r->m->addr, data, size) != TEMPO_OK) {
        h->res[a].refused++;
        return;
    }
    r->fifo[(r->fifo_head + r->fifo_count) % h->fifo_cap] =
        (tagged){datagram_hash(data, size), (int8_t)a, (int8_t)what};
    r->fifo_count++;
    h->res[a].by[what].sent++;
}

/* A plain datagram of message m, numbered at random; its size, or 0. */
static size_t plain(sim_hostile_run *h, tempo_rng *rng, tempo_msg *m, uint8_t *buf)
{
    m->session_id = h->session_id;
    m->sequence = (uint16_t)tempo_rng_next(rng);
    tempo_codec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.input_size = ARENA_INPUT_SIZE;
    ctx.num_players = h->o->players;
    int n = tempo_codec_encode(m, &ctx, buf, TEMPO_MAX_DATAGRAM);
    return n > 0 ? (size_t)n : 0;
}

/* One spoofed datagram: a live target, a claimed source among the other
 * machines, and one of the five kinds (a captured one needs captures). */
static void spoof_one(sim_hostile_run *h, int a)
{
    tempo_rng *rng = &h->act[a].rng;
    int t = (int)tempo_rng_below(rng, (uint32_t)h->nmach);
    for (int k = 0; k < h->nmach && !live(h->rd[t]); k++)
        t = (t + 1) % h->nmach;
    reader *r = h->rd[t];
    if (!live(r) || h->nmach < 2)
        return;
    int s = (t + 1 + (int)tempo_rng_below(rng, (uint32_t)(h->nmach - 1))) % h->nmach;
    const tempo_address *src = &h->rd[s]->m->addr;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    size_t size = 0;
    int what = (int)tempo_rng_below(rng, 5);
    const held *c = NULL;
    if (what == SIM_HW_MUTATED || what == SIM_HW_REPLAYED) {
        c = r->cap_count ? &r->cap[tempo_rng_below(rng, (uint32_t)r->cap_count)] : NULL;
        if (!c)
            what = SIM_HW_RANDOM;
    }
    tempo_msg m;
    memset(&m, 0, sizeof m);
    switch (what) {
    case SIM_HW_DISCONNECT:
        m.type = TEMPO_MSG_DISCONNECT;
        size = plain(h, rng, &m, buf);
        break;
    case SIM_HW_FAR_ACK: {
        /* Inputs wanted from a frame far ahead: the receiver would skip
         * sending what the claimed sender still needs. */
        int32_t frame = h->rd[s]->m->frame > 0 ? h->rd[s]->m->frame : 0;
        for (int32_t ahead = 30000; ahead >= 30 && size == 0; ahead /= 10) {
            memset(&m, 0, sizeof m);
            m.type = TEMPO_MSG_INPUT;
            m.u.input.start = frame;
            m.u.input.ack = frame + ahead;
            m.u.input.sender_frame = frame;
            size = plain(h, rng, &m, buf);
        }
        break;
    }
    case SIM_HW_MUTATED: {
        src = &c->from;
        size = c->size;
        memcpy(buf, c->data, size);
        int flips = 1 + (int)tempo_rng_below(rng, 4);
        for (int k = 0; k < flips; k++)
            buf[tempo_rng_below(rng, (uint32_t)size)] ^= (uint8_t)(1u + tempo_rng_below(rng, 255));
        break;
    }
    case SIM_HW_REPLAYED:
        src = &c->from;
        size = c->size;
        memcpy(buf, c->data, size);
        break;
    default:
        break;
    }
    if (size == 0) { /* random bytes (or a message that would not encode) */
        what = SIM_HW_RANDOM;
        size = 1 + tempo_rng_below(rng, 200);
        for (size_t k = 0; k < size; k++)
            buf[k] = (uint8_t)tempo_rng_next(rng);
    }
    inject(h, a, what, r, src, buf, size);
}

/* One handshake request from an address no machine has. */
static void flood_one(sim_hostile_run *h, int a)
{
    tempo_rng *rng = &h->act[a].rng;
    int t = (int)tempo_rng_below(rng, (uint32_t)h->nmach);
    for (int k = 0; k < h->nmach && !live(h->rd[t]); k++)
        t = (t + 1) % h->nmach;
    if (!live(h->rd[t]))
        return;
    uint32_t n = h->strangers++;
    tempo_address from = tempo_address_ipv4(10, (uint8_t)(100 + (n >> 24) % 100), (uint8_t)(n >> 16),
                                            (uint8_t)(n >> 8), (uint16_t)(1024 + (n & 0xFF) * 97));
    tempo_msg m;
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_SYNC_REQUEST;
    m.u.sync.nonce = tempo_rng_next(rng);
    m.u.sync.config_hash = tempo_rng_next(rng);
    m.u.sync.num_players = (uint8_t)h->o->players;
    m.u.sync.input_size = ARENA_INPUT_SIZE;
    m.u.sync.player_mask = 1;
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        m.u.sync.rtt_ms[p] = 0xFFFF;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    size_t size = plain(h, rng, &m, buf);
    if (size > 0)
        inject(h, a, SIM_HW_HANDSHAKE, h->rd[t], &from, buf, size);
}

void sim_hostile_step(sim_hostile_run *h, uint64_t vt)
{
    for (int a = 0; a < h->num_actors; a++) {
        actor_run *x = &h->act[a];
        if (x->spec.kind == SIM_HOSTILE_ONPATH || vt < x->spec.from_us)
            continue;
        uint64_t until = vt < x->spec.to_us ? vt : x->spec.to_us;
        double owed = x->spec.rate * (double)(until - x->spec.from_us) / 1e6;
        uint64_t due = owed < (double)x->budget ? (uint64_t)owed : x->budget;
        for (; x->due_sent < due; x->due_sent++) {
            if (x->spec.kind == SIM_HOSTILE_SPOOFER)
                spoof_one(h, a);
            else
                flood_one(h, a);
        }
    }
}

/* ---- setting up and finishing ------------------------------------------------------------ */

static void add_actor(sim_hostile_run *h, const sim_hostile *spec, uint64_t budget)
{
    int a = h->num_actors++;
    h->act[a].spec = *spec;
    h->act[a].budget = budget;
    tempo_rng_seed(&h->act[a].rng, h->o->seed, 0x5EA1u + (uint64_t)a);
    h->res[a].kind = spec->kind;
    h->res[a].a = spec->a;
    h->res[a].b = spec->b;
}

sim_hostile_run *sim_hostile_create(const sim_options *o, tempo_simnet *net, int nmach, bool *failed)
{
    *failed = false;
    if (o->num_hostiles == 0 && o->attack == 0)
        return NULL;
    sim_hostile_run *h = calloc(1, sizeof *h);
    if (!h) {
        *failed = true;
        return NULL;
    }
    h->o = o;
    h->net = net;
    h->nmach = nmach;
    h->fifo_cap = 16384; /* simnet's default pool: never more in flight */
    tempo_config c;
    tempo_config_default(&c);
    h->session_id = c.session_id;
    for (int k = 0; k < o->num_hostiles; k++)
        add_actor(h, &o->hostiles[k], UINT64_MAX);
    if (o->attack > 0) {
        /* --attack N: a spoofer and a handshake flood share N over the
         * match, from 1 s in to 1 s before its planned end. */
        uint64_t end = (uint64_t)o->frames * 1000000u / 60u;
        uint64_t from = end > 4000000u ? 1000000u : end / 4;
        uint64_t to = end > 4000000u ? end - 1000000u : end * 3 / 4;
        uint64_t flood = (uint64_t)o->attack / 6, spoof = (uint64_t)o->attack - flood;
        double secs = (double)(to - from) / 1e6;
        sim_hostile s = {SIM_HOSTILE_SPOOFER, 0, 0, (double)spoof / secs + 1.0, from, to};
        add_actor(h, &s, spoof);
        sim_hostile f = {SIM_HOSTILE_FLOOD, 0, 0, (double)flood / secs + 1.0, from, to};
        if (flood > 0)
            add_actor(h, &f, flood);
    }
    for (int i = 0; i < nmach; i++) {
        h->rd[i] = calloc(1, sizeof *h->rd[i]);
        if (h->rd[i])
            h->rd[i]->fifo = calloc(h->fifo_cap, sizeof *h->rd[i]->fifo);
        if (!h->rd[i] || !h->rd[i]->fifo) {
            sim_hostile_destroy(h);
            *failed = true;
            return NULL;
        }
        h->rd[i]->h = h;
    }
    return h;
}

void sim_hostile_destroy(sim_hostile_run *h)
{
    if (!h)
        return;
    for (int i = 0; i < SIM_MAX_MACHINES; i++)
        if (h->rd[i]) {
            free(h->rd[i]->fifo);
            free(h->rd[i]);
        }
    free(h);
}

void sim_hostile_wrap(sim_hostile_run *h, sim_machine *m)
{
    reader *r = h->rd[m->index];
    r->m = m;
    r->inner = m->net;
    m->net.send = hostile_send;
    m->net.recv = hostile_recv;
    m->net.ctx = r;
}

static void add_count(sim_hostile_count *to, const sim_hostile_count *c)
{
    to->sent += c->sent;
    to->unread += c->unread;
    to->read += c->read;
    to->forged += c->forged;
    to->replay += c->replay;
    to->malformed += c->malformed;
    to->unknown += c->unknown;
    to->session += c->session;
    to->ignored += c->ignored;
    to->accepted += c->accepted;
}

static bool count_adds_up(const sim_hostile_count *c)
{
    return c->sent == c->read + c->unread &&
           c->read == c->forged + c->replay + c->malformed + c->unknown + c->session + c->ignored + c->accepted;
}

void sim_hostile_finish(sim_hostile_run *h, sim_match *mt, sim_result *out)
{
    sim_security *sec = &out->security;
    uint64_t counters = 0;
    for (int i = 0; i < h->nmach; i++) {
        reader *r = h->rd[i];
        if (!r->m)
            continue;
        settle(r);
        for (uint32_t k = 0; k < r->fifo_count; k++) {
            const tagged *t = &r->fifo[(r->fifo_head + k) % h->fifo_cap];
            h->res[t->actor].by[t->what].unread++;
        }
        for (int k = 0; k < r->now_count; k++) {
            const held *x = &r->now[(r->now_head + k) % QUEUE];
            if (x->actor != NO_ACTOR)
                h->res[x->actor].by[x->what].unread++;
        }
        drops d = read_drops(r->m->s);
        for (int k = 0; k < 5; k++)
            counters += d.v[k];
    }
    (void)mt;
    bool ok = true;
    uint64_t charged = 0;
    memset(&sec->hostile, 0, sizeof sec->hostile);
    sec->num_actors = h->num_actors;
    for (int a = 0; a < h->num_actors; a++) {
        sim_actor_result *res = &h->res[a];
        memset(&res->total, 0, sizeof res->total);
        for (int w = 0; w < SIM_HW_COUNT; w++) {
            ok = ok && count_adds_up(&res->by[w]);
            add_count(&res->total, &res->by[w]);
        }
        add_count(&sec->hostile, &res->total);
        sec->actor[a] = *res;
    }
    h->honest.sent = h->honest.read; /* an honest datagram counts once read */
    sec->honest = h->honest;
    sec->dropped_elsewhere = h->elsewhere;
    for (int k = 0; k < 5; k++)
        charged += *drop_field(&sec->hostile, k) + *drop_field(&sec->honest, k);
    sec->counters = counters;
    sec->sums_add_up = ok && count_adds_up(&sec->honest) && count_adds_up(&sec->hostile) &&
                       charged + h->elsewhere == counters;
}
