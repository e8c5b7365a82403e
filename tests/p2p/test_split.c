/* SPDX-License-Identifier: MIT */
/*
 * test_split.c — machines stopped at nearly the same moment never split the
 * match in two. Five machines play the arena-mode game of rejoin_world.h
 * over simnet; a few of them are paused past the disconnect timeout within
 * a fraction of a second of each other. The others drop them; on waking,
 * the paused ones still hear each other, but together they are not the
 * match (fewer than the machines they lost): each says it was dropped
 * (TEMPO_EVENT_DROPPED) and, with rejoin, comes back into the one match by
 * state transfer. Nobody on the other side takes itself for dropped, and
 * every machine that plays on plays the same game.
 */
#define N 5
#include "rejoin_world.h"

#include "tempo/secure.h"

typedef struct stop {
    int machine;
    uint64_t at_us, for_us;
} stop;

/* Called every millisecond of run_with_stops when set (an attacker), and
 * at the end of stopped_together before the world goes (its checks). */
static void (*meddler)(world *w);
static void (*inspector)(world *w);

/* Run to `until_us` with the machines of `stops` paused as they say (no
 * ticks, no polls; what arrives waits for them). */
static void run_with_stops(world *w, const stop *s, int n, uint64_t until_us)
{
    while (w->now < until_us) {
        for (int k = 0; k < n; k++)
            w->m[s[k].machine].down = w->now >= s[k].at_us && w->now < s[k].at_us + s[k].for_us;
        if (meddler)
            meddler(w);
        run_until(w, w->now + 1000u);
    }
}

static bool is_stopped(const stop *s, int n, int who)
{
    for (int k = 0; k < n; k++)
        if (s[k].machine == who)
            return true;
    return false;
}

/* How many of the machines in `mask` ran the same states as the lowest of
 * them from `from` up to what all of them confirmed; negative (minus the
 * first differing frame, minus one) if two differ. */
static int32_t agreed_among(const world *w, uint32_t mask, int32_t from)
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

static tempo_session_state state_of(const world *w, int i)
{
    tempo_session_state st;
    assert_int_equal(tempo_session_get_state(w->m[i].s, &st), TEMPO_OK);
    return st;
}

static int live_peers(const world *w, int i)
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

/* The stops of `s` at a match of five, with rejoin (window_ms > 0) or
 * without. Never a silent split: the machines never stopped never raise
 * DROPPED and agree throughout; each stopped machine raises DROPPED; without
 * rejoin its session ends; with rejoin it either came back and agrees with
 * the rest from the last rejoin frame on, or is still SYNCHRONIZING (it
 * plays nothing), or was dropped again and plays alone (it plays with
 * nobody). Returns how many stopped machines did not come back. */
static int stopped_together(const stop *s, int n, uint32_t window_ms, bool keyed, uint64_t seed)
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
        if (m->dropped_events < 1 || (window_ms == 0 && m->dropped_events != 1))
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
            printf("  machine %d%s: frame %d, confirmed %d, state %d, %d live peers, rejoined at %d\n", i,
                   is_stopped(s, n, i) ? " (stopped)" : "", (int)tempo_session_frame(w.m[i].s),
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
static const stop soak_pair[] = {{1, 15000000u, 3869000u}, {2, 15067000u, 4698000u}};

static void a_paused_pair_without_rejoin_ends(void **state)
{
    (void)state;
    assert_int_equal(stopped_together(soak_pair, 2, 0, false, 30001682u), 0);
}

static void a_paused_pair_with_rejoin_comes_back(void **state)
{
    (void)state;
    assert_int_equal(stopped_together(soak_pair, 2, 30000, false, 30001682u), 0);
}

/* The pair holds player 0, the lowest: three machines are still more than
 * two, so the three are the match. */
static void the_lowest_player_does_not_outvote_a_majority(void **state)
{
    (void)state;
    static const stop pair_with_0[] = {{0, 12000000u, 4200000u}, {3, 12150000u, 3600000u}};
    assert_int_equal(stopped_together(pair_with_0, 2, 30000, false, 7u), 0);
}

/* Over 50 seeds (few enough for the sanitizers): one or two of the five
 * machines (drawn by the seed) stopped within 300 ms of each other for 3.3
 * to 6 s, without rejoin: each stopped machine says it was dropped and
 * ends, the others play on together. */
static void stops_of_a_minority_over_many_seeds(void **state)
{
    (void)state;
    int stopped = 0;
    for (uint64_t seed = 100; seed < 150; seed++) {
        stop s[2];
        int n = 1 + (int)(mix(seed, 1) % 2u);
        int first = (int)(mix(seed, 2) % N);
        for (int k = 0; k < n; k++) {
            s[k].machine = (first + k * (1 + (int)(mix(seed, 3) % (N - 1)))) % N;
            s[k].at_us = 10000000u + mix(seed, 4 + (uint64_t)k) % 300000u;
            s[k].for_us = 3300000u + mix(seed, 8 + (uint64_t)k) % 2700000u;
        }
        assert_int_equal(stopped_together(s, n, 0, false, seed), 0);
        stopped += n;
    }
    printf("50 seeds: %d stopped machines, each said it was dropped and ended; the others played on together\n",
           stopped);
}

/* Two of the five machines (drawn by the seed) stopped within 300 ms of
 * each other for 3.3 to 6 s, with rejoin: both come back (they return
 * within a moment of each other) and all five agree from the later rejoin
 * frame on. `env` names the variable (first:count) that runs another range
 * by hand. */
static void pairs_come_back(bool keyed, uint64_t first_seed, uint64_t count, const char *env)
{
    const char *range = getenv(env);
    if (range) {
        char *end;
        first_seed = strtoull(range, &end, 10);
        count = *end == ':' ? strtoull(end + 1, NULL, 10) : count;
    }
    sweeping = range != NULL;
    int failed = 0;
    for (uint64_t seed = first_seed; seed < first_seed + count; seed++) {
        int before = complaints;
        stop s[2];
        int first = (int)(mix(seed, 2) % N);
        for (int k = 0; k < 2; k++) {
            s[k].machine = (first + k * (1 + (int)(mix(seed, 3) % (N - 1)))) % N;
            s[k].at_us = 10000000u + mix(seed, 4 + (uint64_t)k) % 300000u;
            s[k].for_us = 3300000u + mix(seed, 8 + (uint64_t)k) % 2700000u;
        }
        int not_back = stopped_together(s, 2, 30000, keyed, seed);
        if (not_back != 0)
            complain("seed %llu: %d of the pair did not come back", (unsigned long long)seed, not_back);
        failed += complaints != before;
    }
    printf("%llu seeds of a pair stopped together with rejoin (%s): %d failed\n", (unsigned long long)count,
           keyed ? "sealed" : "open", failed);
    assert_int_equal(failed, 0);
}

static void pairs_stopped_together_come_back(void **state)
{
    (void)state;
    pairs_come_back(false, 100, 16, "REJOIN_SEEDS");
}

/* The same in a sealed match: each of the two comes back at a key epoch
 * the other does not know yet, and they still reach each other. */
static void sealed_pairs_stopped_together_come_back(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    pairs_come_back(true, 100, 6, "REJOIN_SEALED_SEEDS");
}

/* The attacker of sealed_pair_returns_despite_forgeries_and_replays: from
 * 16 s on, every 50 ms, a sealed handshake with a tag it cannot make from
 * each other machine's address to machines 1 and 2 (the pair), and every
 * datagram waiting for them delivered twice (the copy a replay). */
static int forged_sent, copies_sent;
static uint64_t forged_before, replays_before;

static void forge_and_replay(world *w)
{
    if (w->now < 16000000u || w->now % 50000u != 0)
        return;
    if (w->now == 16000000u) { /* the pair's processes are paused: the session's counters are as they were */
        tempo_session_stats s1 = stats_of(w, 1), s2 = stats_of(w, 2);
        forged_before = s1.dropped_forged + s2.dropped_forged;
        replays_before = s1.dropped_replay + s2.dropped_replay;
    }
    for (int to = 1; to <= 2; to++) {
        for (int as = 0; as < N; as++)
            if (as != to) {
                forge_sync(w, as, to, TEMPO_MSG_SYNC_REQUEST, (uint32_t)mix(w->now, (uint64_t)as),
                           (uint16_t)mix(w->now, 9) % 64u);
                forged_sent++;
            }
        uint8_t buf[8][TEMPO_MAX_DATAGRAM];
        size_t size[8];
        tempo_address from[8];
        int got = 0, r;
        while (got < 8 && (r = w->m[to].node.recv(w->m[to].node.ctx, &from[got], buf[got], sizeof buf[got])) > 0)
            size[got++] = (size_t)r;
        for (int k = 0; k < got; k++)
            for (int copy = 0; copy < 2; copy++) {
                assert_int_equal(tempo_simnet_inject(w->net, &from[k], &w->m[to].addr, buf[k], size[k]), TEMPO_OK);
                copies_sent += copy;
            }
    }
}

static void pair_counted_the_attack(world *w)
{
    tempo_session_stats s1 = stats_of(w, 1), s2 = stats_of(w, 2);
    uint64_t forged = s1.dropped_forged + s2.dropped_forged - forged_before;
    uint64_t replays = s1.dropped_replay + s2.dropped_replay - replays_before;
    uint64_t refused = s1.rejoins_refused + s2.rejoins_refused;
    printf("%d forged handshakes, %d copies sent to the pair: %llu dropped as forged, %llu as copies, "
           "%llu refused by rejoin (early %llu, malformed %llu, ignored %llu)\n",
           forged_sent, copies_sent, (unsigned long long)forged, (unsigned long long)replays,
           (unsigned long long)refused, (unsigned long long)(s1.dropped_early + s2.dropped_early),
           (unsigned long long)(s1.dropped_malformed + s2.dropped_malformed),
           (unsigned long long)(s1.claims_ignored + s2.claims_ignored));
    assert_true(forged + replays + refused >= (uint64_t)(forged_sent + copies_sent));
    assert_true(forged > 0 && replays > 0);
    /* each learned the other's new epoch: the one the survivors know */
    assert_int_equal(record_of(w, 1, 2)->epoch, record_of(w, 0, 2)->epoch);
    assert_int_equal(record_of(w, 2, 1)->epoch, record_of(w, 0, 1)->epoch);
    assert_true(record_of(w, 0, 1)->epoch >= 1 && record_of(w, 0, 2)->epoch >= 1);
    const tempo_p2p *n1 = w->m[1].s->net, *n2 = w->m[2].s->net;
    assert_true(n1->rejoin.rekeyed + n2->rejoin.rekeyed > 0);
}

/* The soak's pair in a sealed match, with an attacker at work while the
 * two come back: every forgery and every copy is dropped and counted at
 * the pair, both come back and all five agree (stopped_together's checks),
 * and each of the two knows the other at the key epoch the others know it
 * at. */
static void sealed_pair_returns_despite_forgeries_and_replays(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    forged_sent = copies_sent = 0;
    meddler = forge_and_replay;
    inspector = pair_counted_the_attack;
    assert_int_equal(stopped_together(soak_pair, 2, 30000, true, 30001682u), 0);
    meddler = NULL;
    inspector = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_paused_pair_without_rejoin_ends),
        cmocka_unit_test(a_paused_pair_with_rejoin_comes_back),
        cmocka_unit_test(the_lowest_player_does_not_outvote_a_majority),
        cmocka_unit_test(stops_of_a_minority_over_many_seeds),
        cmocka_unit_test(pairs_stopped_together_come_back),
        cmocka_unit_test(sealed_pairs_stopped_together_come_back),
        cmocka_unit_test(sealed_pair_returns_despite_forgeries_and_replays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
