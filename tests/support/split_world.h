/* SPDX-License-Identifier: MIT */
/*
 * split_world.h — five machines of rejoin_world.h, some of them stopped at
 * nearly the same moment (their processes paused past the disconnect
 * timeout), and what must hold afterwards: the machines never stopped
 * play on together and never take themselves for dropped; each stopped
 * machine says it was dropped and ends or, with rejoin, comes back and
 * plays the same game as the rest. A stop is a pause unless it says
 * otherwise: the process may instead end and start again (its session
 * destroyed and created with rejoin), or its network may go (it plays on,
 * cut off from every other machine). Shared by test_split.c and the
 * test_rejoin_*.c of machines that come back.
 */
#ifndef TEMPO_TESTS_SPLIT_WORLD_H
#define TEMPO_TESTS_SPLIT_WORLD_H

#ifndef N
#define N 5
#endif
#include "rejoin_world.h"

typedef enum stop_kind {
    STOP_PAUSE,   /* the process is paused: no ticks, no polls; what arrives waits for it */
    STOP_RESTART, /* the process ends (its port closed) and starts again with rejoin at the stop's end */
    STOP_CUT,     /* its network goes (nothing in or out); it plays on */
} stop_kind;

typedef struct stop {
    int machine;
    uint64_t at_us, for_us;
    stop_kind kind;
    uint32_t epoch; /* STOP_RESTART in a keyed match: the new process's key epoch (0: 1) */
} stop;

static const char *const stop_kind_names[] = {"paused", "restarted", "cut off"};

/* Called every millisecond of run_with_stops when set (an attacker), and
 * at the end of stopped_together before the world goes (its checks). */
static void (*meddler)(world *w);
static void (*inspector)(world *w);

/* Run to `until_us` with the machines of `stops` stopped as they say.
 * The stops are read every millisecond: a meddler may move one that has
 * not begun. */
static inline void run_with_stops(world *w, const stop *s, int n, uint64_t until_us)
{
    while (w->now < until_us) {
        for (int k = 0; k < n; k++) {
            machine *m = &w->m[s[k].machine];
            bool during = w->now >= s[k].at_us && w->now < s[k].at_us + s[k].for_us;
            if (s[k].kind == STOP_CUT && during && !m->cut) { /* its network goes for the whole stop */
                m->cut = true;
                assert_int_equal(tempo_simnet_add_blackout(w->net, &m->addr, NULL, w->now, s[k].at_us + s[k].for_us),
                                 TEMPO_OK);
                assert_int_equal(tempo_simnet_add_blackout(w->net, NULL, &m->addr, w->now, s[k].at_us + s[k].for_us),
                                 TEMPO_OK);
            }
            if (s[k].kind == STOP_CUT || during == m->down)
                continue;
            if (s[k].kind == STOP_RESTART && during) { /* the process ends */
                tempo_session_destroy(m->s);
                m->s = NULL;
                m->port_closed = true;
            } else if (s[k].kind == STOP_RESTART) { /* a new process, rejoining */
                tempo_config c = base_cfg(w);
                w->epoch = s[k].epoch != 0 ? s[k].epoch : 1u;
                make_session(w, s[k].machine, &c, true);
                m->port_closed = false;
                m->samples = 0;
                m->rejoined_events = 0;
                memset(m->hash_after, 0, sizeof m->hash_after);
            }
            m->down = during;
        }
        if (meddler)
            meddler(w);
        run_until(w, w->now + 1000u);
    }
}

/* The stop of machine `who`, or NULL if it was never stopped. */
static inline const stop *stop_of(const stop *s, int n, int who)
{
    for (int k = 0; k < n; k++)
        if (s[k].machine == who)
            return &s[k];
    return NULL;
}

static inline bool is_stopped(const stop *s, int n, int who)
{
    return stop_of(s, n, who) != NULL;
}

/* How many of the machines in `mask` ran the same states as the lowest of
 * them from `from` up to what all of them confirmed; negative (minus the
 * first differing frame, minus one) if two differ. */
static inline int32_t agreed_among(const world *w, uint32_t mask, int32_t from)
{
    int32_t c = INT32_MAX;
    int ref = -1;
    for (int i = 0; i < N; i++) {
        if (!(mask & (1u << i)))
            continue;
        if (ref < 0)
            ref = i;
        int32_t k = tempo_session_confirmed_frame(w->m[i].s);
        if (k < c)
            c = k;
    }
    for (int32_t f = from; f < c; f++)
        for (int i = 0; i < N; i++)
            if ((mask & (1u << i)) && w->m[i].hash_after[f] != w->m[ref].hash_after[f])
                return -1 - f;
    return c - from;
}

static inline tempo_session_state state_of(const world *w, int i)
{
    tempo_session_state st;
    assert_int_equal(tempo_session_get_state(w->m[i].s, &st), TEMPO_OK);
    return st;
}

static inline int live_peers(const world *w, int i)
{
    const tempo_p2p *q = w->m[i].s->net;
    int live = 0;
    for (int k = 0; k < q->npeers; k++)
        live += q->peers[k].role == P2P_ROLE_PEER && !p2p_lost(&q->peers[k]);
    return live;
}

/* A broken promise: fails the test, or in a sweep by hand (REJOIN_SEEDS)
 * is printed and counted so every seed of the range runs. */
static bool sweeping;
static int complaints;
#define complain(...)                                                                                                  \
    do {                                                                                                               \
        if (!sweeping)                                                                                                 \
            fail_msg(__VA_ARGS__);                                                                                     \
        printf("ERROR: " __VA_ARGS__);                                                                                 \
        printf("\n");                                                                                                  \
        complaints++;                                                                                                  \
    } while (0)

/* A stop of machine `who` drawn from `seed` (salt: which of the test's stops)
 * at `at_us`: its kind, and for 3.3 to 6 s (past the disconnect timeout),
 * or a restart for 0.2 to 6 s (a new process may be back before the
 * others timed its earlier life out). */
static inline stop drawn_stop(uint64_t seed, uint64_t salt, int who, uint64_t at_us)
{
    stop s = {who, at_us, 0, (stop_kind)(mix(seed, 40 + salt) % 3u), 0};
    s.for_us = s.kind == STOP_RESTART ? 200000u + mix(seed, 50 + salt) % 5800000u
                                      : 3300000u + mix(seed, 50 + salt) % 2700000u;
    return s;
}

/* The seeds a property runs: [*first, *first + *count), or the range the
 * environment variable `env` names (first:count, by hand), which makes the
 * run a sweep: a failure is printed and counted, and every seed runs. */
static inline void seed_range(const char *env, uint64_t *first, uint64_t *count)
{
    const char *range = getenv(env);
    if (range) {
        char *end;
        *first = strtoull(range, &end, 10);
        *count = *end == ':' ? strtoull(end + 1, NULL, 10) : *count;
    }
    sweeping = range != NULL;
}

/* The stops of `s` at a match of five, with rejoin (window_ms > 0) or
 * without. Never a silent split: the machines never stopped never raise
 * DROPPED and agree throughout; each stopped machine raises DROPPED; without
 * rejoin its session ends; with rejoin it either came back and agrees with
 * the rest from the last rejoin frame on, or is still SYNCHRONIZING (it
 * plays nothing), or was dropped again and plays alone (it plays with
 * nobody). Returns how many stopped machines did not come back. */
static inline int stopped_together(const stop *s, int n, uint32_t window_ms, bool keyed, uint64_t seed)
{
    static world w; /* large: the games and their saved states */
    memset(&w, 0, sizeof w);
    world_init(&w, window_ms, keyed, seed);
    uint64_t end = 0;
    for (int k = 0; k < n; k++)
        if (s[k].at_us + s[k].for_us > end)
            end = s[k].at_us + s[k].for_us;
    run_with_stops(&w, s, n, end + (window_ms != 0 ? 14000000u : 7000000u));
    uint32_t rest = 0, back = 0;
    int32_t back_from = 0;
    int not_back = 0;
    for (int i = 0; i < N; i++) {
        machine *m = &w.m[i];
        if (!is_stopped(s, n, i)) {
            rest |= 1u << i;
            if (m->dropped_events != 0)
                complain("seed %llu: machine %d, never stopped, raised DROPPED (reason %d)",
                         (unsigned long long)seed, i, (int)m->dropped_reason);
            continue;
        }
        const stop *st = stop_of(s, n, i);
        if (st->kind == STOP_RESTART) { /* a new process: it knows it comes back; nobody tells it it was dropped */
            if (window_ms == 0 || m->dropped_events != 0)
                complain("seed %llu: restarted machine %d raised %d DROPPED events (rejoin window %u ms)",
                         (unsigned long long)seed, i, m->dropped_events, (unsigned)window_ms);
        } else if (m->dropped_events < 1 || (window_ms == 0 && m->dropped_events != 1))
            complain("seed %llu: stopped machine %d raised %d DROPPED events (at frame %d, state %d)",
                     (unsigned long long)seed, i, m->dropped_events, (int)tempo_session_frame(m->s),
                     (int)state_of(&w, i));
        if (window_ms == 0) {
            if (m->dropped_rejoining || state_of(&w, i) != TEMPO_SESSION_ENDED)
                complain("seed %llu: stopped machine %d did not end", (unsigned long long)seed, i);
        } else if (m->rejoined_events >= 1 && state_of(&w, i) != TEMPO_SESSION_SYNCHRONIZING) {
            if (live_peers(&w, i) == 0) { /* dropped again, alone: what it plays is nobody's */
                not_back++;
                continue;
            }
            back |= 1u << i;
            if (m->rejoined_frame > back_from)
                back_from = m->rejoined_frame;
        } else {
            if (state_of(&w, i) != TEMPO_SESSION_SYNCHRONIZING) /* it plays nothing */
                complain("seed %llu: stopped machine %d not back, in state %d", (unsigned long long)seed, i,
                         (int)state_of(&w, i));
            not_back++;
        }
    }
    int32_t agreed = agreed_among(&w, rest, 0);
    if (agreed < 600)
        complain("seed %llu: the machines never stopped agree on %d frames", (unsigned long long)seed, (int)agreed);
    if (back != 0) {
        agreed = agreed_among(&w, rest | back, back_from);
        if (agreed < 300)
            complain("seed %llu: the machines playing agree on %d frames from frame %d", (unsigned long long)seed,
                     (int)agreed, (int)back_from);
    }
    if (sweeping && complaints != 0)
        for (int i = 0; i < N; i++)
            printf("  machine %d%s%s%s: frame %d, confirmed %d, state %d, %d live peers, rejoined at %d\n", i,
                   is_stopped(s, n, i) ? " (" : "", is_stopped(s, n, i) ? stop_kind_names[stop_of(s, n, i)->kind] : "",
                   is_stopped(s, n, i) ? ")" : "", (int)tempo_session_frame(w.m[i].s),
                   (int)tempo_session_confirmed_frame(w.m[i].s), (int)state_of(&w, i), live_peers(&w, i),
                   (int)w.m[i].rejoined_frame);
    for (int i = 0; i < N; i++)
        if (w.m[i].desyncs != 0)
            complain("seed %llu: machine %d raised %d DESYNC events", (unsigned long long)seed, i, w.m[i].desyncs);
    if (inspector)
        inspector(&w);
    world_free(&w);
    return not_back;
}

/* The soak's case (seed 30001682): machine 2 stops for 4.7 s, and 67 ms
 * earlier machine 1 for 3.9 s. On waking they hear each other, and the
 * three others dropped them both. */
static const stop soak_pair[] = {{1, 15000000u, 3869000u, STOP_PAUSE, 0}, {2, 15067000u, 4698000u, STOP_PAUSE, 0}};

#endif /* TEMPO_TESTS_SPLIT_WORLD_H */
