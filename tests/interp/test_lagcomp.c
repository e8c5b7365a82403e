/* SPDX-License-Identifier: MIT */
/*
 * test_lagcomp.c — the server's rewind: a query at (T, frac) shows the hit
 * test exactly the blended volumes, leaves the shooter and absent players
 * alone, restores the live volumes bit for bit, refuses views beyond the
 * maximum rewind or outside the history without running anything, records
 * by copy or by callback alike, allocates only at create; and the box and
 * sphere segment helpers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "count_malloc.h"
#include "hook_count.h"
#include "tempo/interp.h"

#define PLAYERS 4

/* the game's player: a box among other fields */
typedef struct player {
    uint32_t tag;
    tempo_hit_box box;
    uint8_t other[7];
} player;

/* player p at tick t: a 50-unit box at x = 100 t + 1000 p, y = -30 t */
static tempo_hit_box box_at(int p, int32_t t)
{
    tempo_hit_box b;
    b.min[0] = 100 * t + 1000 * p;
    b.min[1] = -30 * t;
    b.min[2] = 7;
    for (int i = 0; i < 3; i++)
        b.max[i] = b.min[i] + 50;
    return b;
}

static void record_ticks(tempo_lagcomp *lc, int32_t from, int32_t to, const uint8_t *present)
{
    player ps[PLAYERS];
    for (int32_t t = from; t <= to; t++) {
        for (int p = 0; p < PLAYERS; p++)
            ps[p].box = box_at(p, t);
        assert_int_equal(tempo_lagcomp_record(lc, t, &ps[0].box, sizeof(player), present), TEMPO_OK);
    }
}

static tempo_lagcomp *make(void)
{
    tempo_lagcomp_config c;
    tempo_lagcomp_config_default(&c);
    c.max_players = PLAYERS;
    c.history_ticks = 32;
    c.max_rewind_ticks = 20;
    tempo_lagcomp *lc;
    assert_int_equal(tempo_lagcomp_create(&c, &lc), TEMPO_OK);
    return lc;
}

typedef struct probe {
    player *live;
    int calls;
    uint8_t who[PLAYERS];
    tempo_hit_box seen[PLAYERS];
} probe;

static int look(void *ctx, const uint8_t *who)
{
    probe *pr = ctx;
    pr->calls++;
    for (int p = 0; p < PLAYERS; p++) {
        pr->who[p] = who[p];
        pr->seen[p] = pr->live[p].box;
    }
    return 42;
}

static void fill_live(player *live, uint8_t seed)
{
    memset(live, 0, sizeof(player) * PLAYERS);
    for (int p = 0; p < PLAYERS; p++) {
        live[p].tag = 0xC0DE0000u + (uint32_t)p;
        live[p].box = box_at(p, 100);
        memset(live[p].other, seed + p, sizeof live[p].other);
    }
}

static void rewinding_to_a_tick_and_fraction_shows_exactly_the_blend(void **state)
{
    (void)state;
    tempo_lagcomp *lc = make();
    record_ticks(lc, 0, 40, NULL);
    assert_int_equal(tempo_lagcomp_newest(lc), 40);
    player live[PLAYERS], before[PLAYERS];
    fill_live(live, 9);
    memcpy(before, live, sizeof live);
    probe pr = {live, 0, {0}, {{{0}, {0}}}};
    int res = 0;
    /* the shooter (player 1) saw tick 30 and a quarter */
    assert_int_equal(tempo_lagcomp_query(lc, 30, 16384, 1, &live[0].box, sizeof(player), look, &pr, &res),
                     TEMPO_OK);
    assert_int_equal(res, 42);
    assert_int_equal(pr.calls, 1);
    for (int p = 0; p < PLAYERS; p++) {
        if (p == 1) {
            assert_int_equal(pr.who[p], TEMPO_LAGCOMP_LIVE);
            assert_memory_equal(&pr.seen[p], &before[p].box, sizeof(tempo_hit_box));
            continue;
        }
        assert_int_equal(pr.who[p], TEMPO_LAGCOMP_REWOUND);
        /* x: 3000 + 1000 p + 25, y: -900 - 7.5 → -907 (halves round up) */
        assert_int_equal(pr.seen[p].min[0], 3025 + 1000 * p);
        assert_int_equal(pr.seen[p].min[1], -907);
        assert_int_equal(pr.seen[p].min[2], 7);
        assert_int_equal(pr.seen[p].max[0], 3075 + 1000 * p);
        assert_int_equal(pr.seen[p].max[1], -857);
    }
    /* the live state is back, bit for bit, other fields untouched */
    assert_memory_equal(live, before, sizeof live);
    /* fraction 0: the tick's own volumes, even at the newest tick */
    assert_int_equal(tempo_lagcomp_query(lc, 40, 0, -1, &live[0].box, sizeof(player), look, &pr, NULL), TEMPO_OK);
    for (int p = 0; p < PLAYERS; p++) {
        tempo_hit_box want = box_at(p, 40);
        assert_int_equal(pr.who[p], TEMPO_LAGCOMP_REWOUND);
        assert_memory_equal(&pr.seen[p], &want, sizeof want);
    }
    assert_memory_equal(live, before, sizeof live);
    tempo_lagcomp_destroy(lc);
}

static void views_beyond_max_rewind_or_the_history_are_refused(void **state)
{
    (void)state;
    tempo_lagcomp *lc = make();
    player live[PLAYERS], before[PLAYERS];
    fill_live(live, 3);
    memcpy(before, live, sizeof live);
    probe pr = {live, 0, {0}, {{{0}, {0}}}};
    assert_int_equal(tempo_lagcomp_query(lc, 0, 0, -1, &live[0].box, sizeof(player), look, &pr, NULL), TEMPO_E_FRAME);
    record_ticks(lc, 0, 50, NULL);
    /* newest 50, max rewind 20: 30 is the oldest view accepted */
    assert_int_equal(tempo_lagcomp_query(lc, 30, 0, -1, &live[0].box, sizeof(player), look, &pr, NULL), TEMPO_OK);
    assert_int_equal(tempo_lagcomp_query(lc, 29, 65535, -1, &live[0].box, sizeof(player), look, &pr, NULL),
                     TEMPO_E_FRAME);
    assert_int_equal(tempo_lagcomp_query(lc, 51, 0, -1, &live[0].box, sizeof(player), look, &pr, NULL), TEMPO_E_FRAME);
    assert_int_equal(tempo_lagcomp_query(lc, 50, 1, -1, &live[0].box, sizeof(player), look, &pr, NULL), TEMPO_E_FRAME);
    assert_int_equal(pr.calls, 1);
    assert_memory_equal(live, before, sizeof live);
    /* bad arguments */
    assert_int_equal(tempo_lagcomp_query(lc, 40, 65536, -1, &live[0].box, sizeof(player), look, &pr, NULL),
                     TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_lagcomp_query(lc, 40, 0, PLAYERS, &live[0].box, sizeof(player), look, &pr, NULL),
                     TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_lagcomp_query(lc, 40, 0, -1, &live[0].box, 8, look, &pr, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_lagcomp_query(lc, 40, 0, -1, NULL, sizeof(player), look, &pr, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_lagcomp_query(lc, 40, 0, -1, &live[0].box, sizeof(player), NULL, &pr, NULL),
                     TEMPO_E_INVALID_ARG);
    /* ticks only go forward */
    player ps[PLAYERS];
    assert_int_equal(tempo_lagcomp_record(lc, 50, &ps[0].box, sizeof(player), NULL), TEMPO_E_FRAME);
    assert_int_equal(tempo_lagcomp_record(lc, 60, &ps[0].box, 4, NULL), TEMPO_E_INVALID_ARG);
    tempo_lagcomp_destroy(lc);

    /* a history shorter than max rewind allows: the ring bounds it */
    tempo_lagcomp_config c;
    tempo_lagcomp_config_default(&c);
    c.max_players = PLAYERS;
    c.history_ticks = 8;
    c.max_rewind_ticks = 8;
    assert_int_equal(tempo_lagcomp_create(&c, &lc), TEMPO_E_INVALID_ARG);
    c.max_rewind_ticks = 7;
    assert_int_equal(tempo_lagcomp_create(&c, &lc), TEMPO_OK);
    record_ticks(lc, 100, 120, NULL);
    assert_int_equal(tempo_lagcomp_query(lc, 113, 0, -1, &live[0].box, sizeof(player), look, &pr, NULL), TEMPO_OK);
    assert_int_equal(tempo_lagcomp_query(lc, 112, 0, -1, &live[0].box, sizeof(player), look, &pr, NULL),
                     TEMPO_E_FRAME);
    tempo_lagcomp_destroy(lc);
}

static bool fill_box(void *ctx, int p, void *out)
{
    int32_t *tick = ctx;
    if (p == 2 && *tick % 2 == 1)
        return false; /* player 2 exists only on even ticks */
    tempo_hit_box b = box_at(p, *tick);
    memcpy(out, &b, sizeof b);
    return true;
}

static void absent_players_are_not_rewound_and_skipped_ticks_hold_nobody(void **state)
{
    (void)state;
    tempo_lagcomp *lc = make();
    for (int32_t t = 0; t <= 20; t++)
        assert_int_equal(tempo_lagcomp_capture(lc, t, fill_box, &t), TEMPO_OK);
    player live[PLAYERS], before[PLAYERS];
    fill_live(live, 1);
    memcpy(before, live, sizeof live);
    probe pr = {live, 0, {0}, {{{0}, {0}}}};
    /* tick 11: player 2 absent */
    assert_int_equal(tempo_lagcomp_query(lc, 11, 32768, 0, &live[0].box, sizeof(player), look, &pr, NULL), TEMPO_OK);
    assert_int_equal(pr.who[0], TEMPO_LAGCOMP_LIVE);
    assert_int_equal(pr.who[1], TEMPO_LAGCOMP_REWOUND);
    assert_int_equal(pr.who[2], TEMPO_LAGCOMP_ABSENT);
    assert_memory_equal(&pr.seen[2], &before[2].box, sizeof(tempo_hit_box));
    assert_int_equal(pr.seen[1].min[0], 1000 + 1150);
    /* tick 10 with half of 11: player 2 is absent at 11, so tick 10 alone */
    assert_int_equal(tempo_lagcomp_query(lc, 10, 32768, 0, &live[0].box, sizeof(player), look, &pr, NULL), TEMPO_OK);
    tempo_hit_box want = box_at(2, 10);
    assert_int_equal(pr.who[2], TEMPO_LAGCOMP_REWOUND);
    assert_memory_equal(&pr.seen[2], &want, sizeof want);
    assert_memory_equal(live, before, sizeof live);
    /* a jump from 20 to 25: 21..24 hold nobody */
    int32_t t = 25;
    assert_int_equal(tempo_lagcomp_capture(lc, t, fill_box, &t), TEMPO_OK);
    assert_int_equal(tempo_lagcomp_query(lc, 22, 0, -1, &live[0].box, sizeof(player), look, &pr, NULL), TEMPO_OK);
    for (int p = 0; p < PLAYERS; p++)
        assert_int_equal(pr.who[p], TEMPO_LAGCOMP_ABSENT);
    /* record with a presence list */
    uint8_t present[PLAYERS] = {1, 0, 1, 1};
    record_ticks(lc, 26, 27, present);
    assert_int_equal(tempo_lagcomp_query(lc, 26, 100, -1, &live[0].box, sizeof(player), look, &pr, NULL), TEMPO_OK);
    assert_int_equal(pr.who[1], TEMPO_LAGCOMP_ABSENT);
    assert_int_equal(pr.who[3], TEMPO_LAGCOMP_REWOUND);
    tempo_lagcomp_destroy(lc);
}

/* a game's own blend: sphere centres move, radius stays */
static void lerp_center(void *ctx, const void *a, const void *b, uint32_t frac, void *out, size_t size)
{
    int *calls = ctx;
    (*calls)++;
    tempo_hit_sphere sa, sb, so;
    assert_int_equal(size, sizeof so);
    memcpy(&sa, a, sizeof sa);
    memcpy(&sb, b, sizeof sb);
    so = sa;
    for (int i = 0; i < 3; i++)
        so.center[i] = sa.center[i] + (int32_t)(((int64_t)sb.center[i] - sa.center[i]) * frac / 65536);
    memcpy(out, &so, sizeof so);
}

static int hit_first_sphere(void *ctx, const uint8_t *who)
{
    const tempo_hit_sphere *live = ctx;
    int32_t p0[3] = {0, 0, 0}, p1[3] = {10000, 0, 0};
    for (int p = 0; p < 2; p++)
        if (who[p] != TEMPO_LAGCOMP_ABSENT && tempo_hit_sphere_segment(&live[p], p0, p1))
            return p;
    return -1;
}

static void the_games_blend_and_a_hit_that_only_the_past_allows(void **state)
{
    (void)state;
    int calls = 0;
    tempo_lagcomp_config c;
    tempo_lagcomp_config_default(&c);
    c.max_players = 2;
    c.volume_size = sizeof(tempo_hit_sphere);
    c.lerp = lerp_center;
    c.lerp_ctx = &calls;
    tempo_lagcomp *lc;
    assert_int_equal(tempo_lagcomp_create(&c, &lc), TEMPO_OK);
    /* player 1 crosses the firing line (y = 0) going up 100 units a tick,
     * from y = -1000 at tick 0; player 0 stays far away */
    tempo_hit_sphere s[2];
    for (int32_t t = 0; t <= 30; t++) {
        s[0] = (tempo_hit_sphere){{0, 50000, 0}, 10};
        s[1] = (tempo_hit_sphere){{5000, -1000 + 100 * t, 0}, 40};
        assert_int_equal(tempo_lagcomp_record(lc, t, s, sizeof s[0], NULL), TEMPO_OK);
    }
    /* now (tick 30) player 1 is at y = 2000: a miss */
    assert_int_equal(hit_first_sphere(s, (const uint8_t[2]){1, 1}), -1);
    int res = 0;
    /* the shooter saw tick 9.7: y = -30, within the radius */
    assert_int_equal(tempo_lagcomp_query(lc, 9, 45875, -1, s, sizeof s[0], hit_first_sphere, s, &res), TEMPO_OK);
    assert_int_equal(res, 1);
    assert_int_equal(calls, 2);
    assert_int_equal(s[1].center[1], 2000);
    /* at tick 9.5 (y = -50) it is out of reach */
    assert_int_equal(tempo_lagcomp_query(lc, 9, 32768, -1, s, sizeof s[0], hit_first_sphere, s, &res), TEMPO_OK);
    assert_int_equal(res, -1);
    tempo_lagcomp_destroy(lc);
}

static void segment_helpers(void **state)
{
    (void)state;
    tempo_hit_box b = {{0, 0, 0}, {10, 10, 10}};
    assert_true(tempo_hit_box_segment(&b, (int32_t[3]){-5, 5, 5}, (int32_t[3]){15, 5, 5}));
    assert_true(tempo_hit_box_segment(&b, (int32_t[3]){5, 5, 5}, (int32_t[3]){5, 5, 5}));   /* inside */
    assert_true(tempo_hit_box_segment(&b, (int32_t[3]){-10, -10, 0}, (int32_t[3]){0, 0, 0})); /* touches a corner */
    assert_false(tempo_hit_box_segment(&b, (int32_t[3]){-10, -10, 0}, (int32_t[3]){-1, -1, 0}));
    assert_false(tempo_hit_box_segment(&b, (int32_t[3]){-10, 0, 11}, (int32_t[3]){20, 10, 11}));
    assert_false(tempo_hit_box_segment(&b, (int32_t[3]){-10, 31, 5}, (int32_t[3]){31, -10, 5}));
    assert_true(tempo_hit_box_segment(&b, (int32_t[3]){-10, 20, 5}, (int32_t[3]){20, -10, 5}));
    int32_t far = 1 << 30;
    tempo_hit_box big = {{-far, -far, -far}, {far, far, far}};
    assert_true(tempo_hit_box_segment(&big, (int32_t[3]){-far, far, 0}, (int32_t[3]){far, -far, 0}));
    tempo_hit_sphere s = {{0, 0, 0}, 5};
    assert_true(tempo_hit_sphere_segment(&s, (int32_t[3]){-10, 5, 0}, (int32_t[3]){10, 5, 0}));
    assert_false(tempo_hit_sphere_segment(&s, (int32_t[3]){-10, 6, 0}, (int32_t[3]){10, 6, 0}));
    assert_false(tempo_hit_sphere_segment(&s, (int32_t[3]){6, 0, 0}, (int32_t[3]){20, 0, 0}));
    assert_true(tempo_hit_sphere_segment(&s, (int32_t[3]){1, 1, 1}, (int32_t[3]){1, 1, 1}));
    assert_false(tempo_hit_box_segment(NULL, (int32_t[3]){0, 0, 0}, (int32_t[3]){0, 0, 0}));
}

static void create_allocates_once_and_queries_nothing(void **state)
{
    (void)state;
    hook_count h = {0, 0, 0};
    tempo_lagcomp_config c;
    tempo_lagcomp_config_default(&c);
    c.max_players = PLAYERS;
    c.allocator = (tempo_allocator){hc_alloc, hc_free, &h};
    tempo_lagcomp *lc;
    assert_int_equal(tempo_lagcomp_create(&c, &lc), TEMPO_E_NO_MEMORY);
    assert_null(lc);
    h.fail_at = -1;
    assert_int_equal(tempo_lagcomp_create(&c, &lc), TEMPO_OK);
    assert_int_equal(h.count, 2);
    bool counting = count_malloc_start();
    uint64_t before = count_malloc_total();
    player live[PLAYERS];
    fill_live(live, 0);
    probe pr = {live, 0, {0}, {{{0}, {0}}}};
    for (int32_t t = 0; t < 500; t++) {
        player ps[PLAYERS];
        for (int p = 0; p < PLAYERS; p++)
            ps[p].box = box_at(p, t);
        assert_int_equal(tempo_lagcomp_record(lc, t, &ps[0].box, sizeof(player), NULL), TEMPO_OK);
        assert_int_equal(tempo_lagcomp_query(lc, t > 10 ? t - 10 : t, t > 10 ? 777u : 0u, t % PLAYERS, &live[0].box, sizeof(player),
                                             look, &pr, NULL),
                         TEMPO_OK);
    }
    if (counting)
        assert_int_equal(count_malloc_total(), before);
    assert_int_equal(h.count, 2);
    tempo_lagcomp_destroy(lc);
    assert_int_equal(h.live, 0);
    /* bad configs */
    tempo_lagcomp_config_default(&c);
    c.volume_size = 6; /* not int32s, and no blend of the game's */
    assert_int_equal(tempo_lagcomp_create(&c, &lc), TEMPO_E_INVALID_ARG);
    tempo_lagcomp_config_default(&c);
    c.max_players = 257;
    assert_int_equal(tempo_lagcomp_create(&c, &lc), TEMPO_E_INVALID_ARG);
    tempo_lagcomp_config_default(&c);
    c.history_ticks = 1;
    assert_int_equal(tempo_lagcomp_create(&c, &lc), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_lagcomp_create(NULL, &lc), TEMPO_E_INVALID_ARG);
    tempo_lagcomp_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rewinding_to_a_tick_and_fraction_shows_exactly_the_blend),
        cmocka_unit_test(views_beyond_max_rewind_or_the_history_are_refused),
        cmocka_unit_test(absent_players_are_not_rewound_and_skipped_ticks_hold_nobody),
        cmocka_unit_test(the_games_blend_and_a_hit_that_only_the_past_allows),
        cmocka_unit_test(segment_helpers),
        cmocka_unit_test(create_allocates_once_and_queries_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
