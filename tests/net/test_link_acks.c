/* SPDX-License-Identifier: MIT */
/*
 * test_link_acks.c — the acks a link takes, against a plain model of the
 * rule link.h states: an ack names its newest sequence and, in its bits,
 * the 32 before it; a datagram named while it waits is acked (the first
 * naming of an ack's newest gives a round trip sample); each datagram is
 * judged once, lost when the newest ack has moved more than 32 past it
 * without naming it or when its ring slot is needed again.
 *
 * The model keeps every sequence's state in a flat array and applies every
 * bit of every ack; the link remembers what earlier acks named and marks
 * only what an ack adds. Over many seeds of loss, reordering, copies, old
 * acks and forged ones, the two must count the same after every step.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "net/link.h"

#define STEPS 3000
#define SEEDS 200
#define MAX_SENT (STEPS + 1)

enum { M_NONE = 0, M_PENDING, M_ACKED, M_JUDGED };

typedef struct model {
    uint8_t state[MAX_SENT];
    uint64_t sent_us[MAX_SENT];
    uint64_t send_seq, judge_next, acked_max;
    bool acked_any;
    uint64_t acked_total, lost_total, samples, invalid;
} model;

static void model_judge(model *m, uint64_t seq)
{
    if (m->state[seq] == M_ACKED)
        m->acked_total++;
    else if (m->state[seq] == M_PENDING)
        m->lost_total++;
    m->state[seq] = M_JUDGED;
}

static void model_sent(model *m, uint64_t now)
{
    uint64_t seq = m->send_seq++;
    while (m->judge_next + LINK_SENT_RING <= seq)
        model_judge(m, m->judge_next++);
    m->state[seq] = M_PENDING;
    m->sent_us[seq] = now;
}

static bool model_mark(model *m, uint64_t seq)
{
    if (seq < m->judge_next || m->state[seq] != M_PENDING)
        return false;
    m->state[seq] = M_ACKED;
    return true;
}

static void model_ack(model *m, uint64_t now, uint64_t ack, uint32_t bits)
{
    if (ack >= m->send_seq) {
        m->invalid++;
        return;
    }
    if (model_mark(m, ack) && now >= m->sent_us[ack])
        m->samples++;
    for (uint64_t i = 0; i < 32 && i < ack; i++)
        if (bits >> i & 1u)
            (void)model_mark(m, ack - 1 - i);
    if (!m->acked_any || ack > m->acked_max) {
        m->acked_any = true;
        m->acked_max = ack;
    }
    while (m->judge_next + 32 < m->acked_max)
        model_judge(m, m->judge_next++);
}

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void check_same(const net_link *l, const model *m, uint64_t seed, int step)
{
    if (l->acked_total != m->acked_total || l->lost_total != m->lost_total ||
        l->ack_rtt_samples != m->samples || l->acks_invalid != m->invalid ||
        l->judge_next != m->judge_next || l->acked_max != m->acked_max) {
        fprintf(stderr,
                "seed %llu step %d: link acked %llu lost %llu samples %llu judge %llu max %llu; "
                "model %llu %llu %llu %llu %llu\n",
                (unsigned long long)seed, step, (unsigned long long)l->acked_total,
                (unsigned long long)l->lost_total, (unsigned long long)l->ack_rtt_samples,
                (unsigned long long)l->judge_next, (unsigned long long)l->acked_max,
                (unsigned long long)m->acked_total, (unsigned long long)m->lost_total,
                (unsigned long long)m->samples, (unsigned long long)m->judge_next,
                (unsigned long long)m->acked_max);
        fail();
    }
}

/* One seed: we send; the remote (a second link, receiving) sees our
 * datagrams with loss, reordering and copies, and its acks come back with
 * loss and reordering; now and then an old ack again, or a forged one. */
static void run_seed(uint64_t seed, model *m)
{
    uint64_t s = seed;
    link_config cfg;
    link_config_default(&cfg);
    cfg.seq_jump = 1u << 20; /* the remote follows any step: reordering here is deep */
    net_link us, remote;
    link_init(&us, &cfg, 0);
    link_init(&remote, &cfg, 0);
    memset(m, 0, sizeof *m);
    unsigned loss = (unsigned)(rng_next(&s) % 60);  /* percent */
    unsigned depth = (unsigned)(rng_next(&s) % 40); /* how far behind a late datagram lands */
    uint64_t in_flight[64];
    int nflight = 0;
    uint64_t acks_ack[16];
    uint32_t acks_bits[16];
    int nacks = 0;
    uint64_t now = 0;
    for (int step = 0; step < STEPS; step++) {
        now += 1000u;
        uint64_t r = rng_next(&s);
        switch (r % 8) {
        case 0: case 1: case 2: { /* send one */
            uint64_t seq = link_on_sent(&us, now, 20);
            model_sent(m, now);
            if (rng_next(&s) % 100 >= loss && nflight < 64)
                in_flight[nflight++] = seq;
            break;
        }
        case 3: case 4: { /* the remote receives one of those in flight */
            if (nflight == 0)
                break;
            unsigned span = depth < (unsigned)nflight ? depth + 1 : (unsigned)nflight;
            int k = nflight - 1 - (int)(rng_next(&s) % span); /* the newest, or one a little older */
            uint64_t seq = in_flight[k];
            (void)link_on_datagram(&remote, now, seq, 20);
            if (rng_next(&s) % 4 != 0) /* kept in flight a while: a copy may come */
                in_flight[k] = in_flight[--nflight];
            uint64_t a;
            uint32_t b;
            if (link_ack_out(&remote, &a, &b) && nacks < 16) {
                acks_ack[nacks] = a;
                acks_bits[nacks++] = b;
            }
            break;
        }
        case 5: case 6: { /* an ack comes back, perhaps not the newest */
            if (nacks == 0)
                break;
            int k = (int)(rng_next(&s) % (uint64_t)nacks);
            (void)link_on_ack(&us, now, acks_ack[k], acks_bits[k]);
            model_ack(m, now, acks_ack[k], acks_bits[k]);
            if (rng_next(&s) % 3 != 0)
                acks_ack[k] = acks_ack[--nacks], acks_bits[k] = acks_bits[nacks];
            break;
        }
        default: { /* forged: any sequence near ours, any bits */
            uint64_t a = rng_next(&s) % (us.send_seq + 8u);
            uint32_t b = (uint32_t)rng_next(&s);
            (void)link_on_ack(&us, now, a, b);
            model_ack(m, now, a, b);
            break;
        }
        }
        check_same(&us, m, seed, step);
    }
}

static void test_acks_mark_what_the_rule_says_over_many_seeds(void **state)
{
    (void)state;
    static model m;
    uint64_t acked = 0, lost = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        run_seed(seed, &m);
        acked += m.acked_total;
        lost += m.lost_total;
    }
    /* the seeds did exercise both outcomes */
    assert_true(acked > 1000);
    assert_true(lost > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_acks_mark_what_the_rule_says_over_many_seeds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
