/* SPDX-License-Identifier: MIT */
/*
 * test_event_ring.c — the event queue every role keeps: events come out in
 * the order they went in, a full ring gives up its oldest and counts it,
 * and any mix of pushes and pops agrees with a plain list kept beside it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/event_ring.h"
#include "tempo/rng.h"

#define CAP 8

typedef struct queue {
    event_ring ring;
    int slots[CAP];
} queue;

static void put(queue *q, int v) { q->slots[event_ring_push(&q->ring)] = v; }

/* The oldest value, or -1 when empty. */
static int take(queue *q)
{
    int i = event_ring_pop(&q->ring);
    return i < 0 ? -1 : q->slots[i];
}

static void events_come_out_in_the_order_they_went_in(void **state)
{
    (void)state;
    queue q;
    event_ring_init(&q.ring, CAP);
    assert_int_equal(take(&q), -1);
    for (int round = 0; round < 3; round++) { /* across the wrap */
        for (int v = 0; v < 5; v++)
            put(&q, round * 10 + v);
        for (int v = 0; v < 5; v++)
            assert_int_equal(take(&q), round * 10 + v);
        assert_int_equal(take(&q), -1);
    }
    assert_int_equal(q.ring.dropped, 0);
}

static void a_full_ring_drops_its_oldest_and_counts_it(void **state)
{
    (void)state;
    queue q;
    event_ring_init(&q.ring, CAP);
    for (int v = 0; v < CAP + 3; v++)
        put(&q, v);
    assert_int_equal(q.ring.count, CAP);
    assert_int_equal(q.ring.dropped, 3);
    for (int v = 3; v < CAP + 3; v++) /* 0, 1 and 2 went */
        assert_int_equal(take(&q), v);
    assert_int_equal(take(&q), -1);
    assert_int_equal(q.ring.dropped, 3); /* popping loses nothing */
}

static void a_ring_of_one_keeps_the_newest(void **state)
{
    (void)state;
    queue q;
    event_ring_init(&q.ring, 1);
    put(&q, 7);
    put(&q, 8);
    assert_int_equal(q.ring.dropped, 1);
    assert_int_equal(take(&q), 8);
    assert_int_equal(take(&q), -1);
}

/* Random pushes and pops from many seeds, against a list that keeps
 * everything and drops from its front what the ring could not hold. */
static void any_mix_agrees_with_a_plain_list(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, seed, 3);
        int cap = 1 + (int)tempo_rng_below(&rng, CAP);
        queue q;
        event_ring_init(&q.ring, cap);
        int list[4096];
        int front = 0, back = 0, next = 0;
        uint64_t lost = 0;
        for (int step = 0; step < 2000; step++) {
            if (tempo_rng_below(&rng, 100) < 55) {
                put(&q, next);
                list[back++] = next++;
                if (back - front > cap) {
                    front++;
                    lost++;
                }
            } else {
                int want = back > front ? list[front++] : -1;
                assert_int_equal(take(&q), want);
            }
            assert_int_equal(q.ring.count, back - front);
            assert_int_equal(q.ring.dropped, lost);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(events_come_out_in_the_order_they_went_in),
        cmocka_unit_test(a_full_ring_drops_its_oldest_and_counts_it),
        cmocka_unit_test(a_ring_of_one_keeps_the_newest),
        cmocka_unit_test(any_mix_agrees_with_a_plain_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
