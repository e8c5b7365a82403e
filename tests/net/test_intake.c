/* SPDX-License-Identifier: MIT */
/*
 * test_intake.c — the bounded receive loop: every datagram waiting is
 * handed over in order until the transport is drained, no more than the
 * budget in one call, and none after the role says stop; the source is
 * cleared before each read and a truncated datagram keeps its full size.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "net/intake.h"

typedef struct queue {
    int waiting;     /* datagrams left */
    int next;        /* the next one's number: its first byte and its port */
    size_t size;     /* each one's size */
    int reads;
} queue;

static int q_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t cap)
{
    queue *q = ctx;
    q->reads++;
    if (from->family != TEMPO_ADDRESS_NONE || from->port != 0)
        return -1; /* a source left over from the previous datagram */
    if (q->waiting == 0)
        return 0;
    q->waiting--;
    memset(buf, q->next, cap < q->size ? cap : q->size);
    from->family = TEMPO_ADDRESS_IPV4;
    from->port = (uint16_t)q->next;
    q->next++;
    return (int)q->size;
}

static int q_send(void *ctx, const tempo_address *to, const uint8_t *d, size_t n)
{
    (void)ctx, (void)to, (void)d, (void)n;
    return 0;
}

typedef struct role {
    int taken;
    int stop_after; /* 0: never */
    int seen[16];
    size_t sizes[16];
} role;

static bool take(void *ctx, const tempo_address *from, uint8_t *data, size_t size)
{
    role *r = ctx;
    assert_int_equal(from->port, data[0]);
    r->seen[r->taken] = data[0];
    r->sizes[r->taken] = size;
    r->taken++;
    return r->stop_after == 0 || r->taken < r->stop_after;
}

typedef struct rig {
    queue q;
    tempo_transport t;
    role r;
    uint8_t buf[64];
} rig;

/* waiting datagrams of size bytes each, numbered from 1. */
static void rig_init(rig *g, int waiting, size_t size)
{
    memset(g, 0, sizeof *g);
    g->q.waiting = waiting;
    g->q.next = 1;
    g->q.size = size;
    g->t.send = q_send;
    g->t.recv = q_recv;
    g->t.ctx = &g->q;
}

static net_intake_end run(rig *g, int budget)
{
    return net_intake(&g->t, g->buf, sizeof g->buf, budget, take, &g->r);
}

static void every_waiting_datagram_is_taken_in_order_until_drained(void **state)
{
    (void)state;
    rig g;
    rig_init(&g, 5, 20);
    assert_int_equal(run(&g, 16), NET_INTAKE_DRAINED);
    assert_int_equal(g.r.taken, 5);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(g.r.seen[i], i + 1);
        assert_int_equal(g.r.sizes[i], 20);
    }
    assert_int_equal(g.q.reads, 6); /* the sixth found nothing */
}

static void no_more_than_the_budget_in_one_call(void **state)
{
    (void)state;
    rig g;
    rig_init(&g, 10, 8);
    assert_int_equal(run(&g, 4), NET_INTAKE_BUDGET);
    assert_int_equal(g.r.taken, 4);
    assert_int_equal(g.q.waiting, 6); /* left for the next poll */
    assert_int_equal(run(&g, 4), NET_INTAKE_BUDGET);
    assert_int_equal(run(&g, 4), NET_INTAKE_DRAINED);
    assert_int_equal(g.r.taken, 10);
    assert_int_equal(g.r.seen[9], 10);
}

static void nothing_is_read_after_the_role_says_stop(void **state)
{
    (void)state;
    rig g;
    rig_init(&g, 10, 8);
    g.r.stop_after = 3;
    assert_int_equal(run(&g, 16), NET_INTAKE_STOPPED);
    assert_int_equal(g.r.taken, 3);
    assert_int_equal(g.q.reads, 3);
    assert_int_equal(g.q.waiting, 7);
}

static void a_truncated_datagram_keeps_its_full_size(void **state)
{
    (void)state;
    rig g;
    rig_init(&g, 1, 100);
    assert_int_equal(run(&g, 16), NET_INTAKE_DRAINED);
    assert_int_equal(g.r.taken, 1);
    assert_int_equal(g.r.sizes[0], 100); /* the receive path sees it is too large */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_waiting_datagram_is_taken_in_order_until_drained),
        cmocka_unit_test(no_more_than_the_budget_in_one_call),
        cmocka_unit_test(nothing_is_read_after_the_role_says_stop),
        cmocka_unit_test(a_truncated_datagram_keeps_its_full_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
