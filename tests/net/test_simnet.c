/* SPDX-License-Identifier: MIT */
/*
 * test_simnet.c — the seeded simulated network: determinism, each profile's
 * statistics over 100k packets against what its parameters predict, order,
 * reordering, duplication, the bandwidth queue, blackouts, the pool,
 * injected datagrams with a forged source, bad arguments. Everything runs in virtual time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tempo/simnet.h"

#define MS 1000u
#define SEC 1000000u

static tempo_simnet *make_net(uint64_t seed, int max_in_flight)
{
    tempo_simnet_config cfg;
    tempo_simnet_config_default(&cfg);
    cfg.seed = seed;
    cfg.max_nodes = 4;
    if (max_in_flight > 0)
        cfg.max_in_flight = max_in_flight;
    tempo_simnet *net = NULL;
    assert_int_equal(tempo_simnet_create(&cfg, &net), TEMPO_OK);
    return net;
}

static tempo_address node_addr(int i) { return tempo_address_ipv4(10, 0, 0, (uint8_t)(i + 1), 7000); }

static tempo_transport add(tempo_simnet *net, int i)
{
    tempo_transport t;
    tempo_address a = node_addr(i);
    assert_int_equal(tempo_simnet_add_node(net, &a, &t), TEMPO_OK);
    return t;
}

static void set_link(tempo_simnet *net, int from, int to, const tempo_link_params *p)
{
    tempo_address f = node_addr(from), t = node_addr(to);
    assert_int_equal(tempo_simnet_set_link(net, &f, &t, p), TEMPO_OK);
}

static tempo_link_stats stats_of(tempo_simnet *net, int from, int to)
{
    tempo_address f = node_addr(from), t = node_addr(to);
    tempo_link_stats s;
    assert_int_equal(tempo_simnet_link_stats(net, &f, &t, &s), TEMPO_OK);
    return s;
}

static tempo_link_params profile(const char *name)
{
    tempo_link_params p;
    assert_int_equal(tempo_link_profile(name, &p), TEMPO_OK);
    return p;
}

/* Payload of measured packets: sequence number and send time. */
static void put64(uint8_t *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

/* What a receiver saw on one link. */
typedef struct measured {
    uint64_t sent, deliveries, unique, repeats, out_of_order;
    double mean_us, sd_us;
    tempo_link_stats link;
} measured;

typedef struct receiver {
    uint8_t *seen; /* deliveries per sequence number */
    uint64_t max_seq_plus1;
    double sum, sq;
    measured *m;
} receiver;

static void drain(tempo_simnet *net, tempo_transport *t, receiver *r)
{
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    tempo_address from;
    int n;
    while ((n = t->recv(t->ctx, &from, buf, sizeof buf)) > 0) {
        assert_int_equal(n, 16);
        uint64_t seq = get64(buf), lat = tempo_simnet_time(net) - get64(buf + 8);
        r->m->deliveries++;
        if (r->seen[seq]++ == 0)
            r->m->unique++;
        else
            r->m->repeats++;
        if (seq + 1 < r->max_seq_plus1)
            r->m->out_of_order++;
        else
            r->max_seq_plus1 = seq + 1;
        r->sum += (double)lat;
        r->sq += (double)lat * (double)lat;
    }
    assert_int_equal(n, 0);
}

/* Send `count` 16-byte packets node 0 -> node 1 every `spacing_us` over a
 * link with parameters p, stepping time exactly to each delivery. */
static measured measure(const tempo_link_params *p, uint64_t seed, uint32_t count,
                        uint64_t spacing_us)
{
    measured m;
    memset(&m, 0, sizeof m);
    receiver r = {calloc(count, 1), 0, 0, 0, &m};
    assert_non_null(r.seen);
    tempo_simnet *net = make_net(seed, 0);
    tempo_transport a = add(net, 0), b = add(net, 1);
    set_link(net, 0, 1, p);
    tempo_address to = node_addr(1);
    uint64_t at;
    for (uint32_t i = 0; i < count; i++) {
        tempo_simnet_set_time(net, i * spacing_us);
        uint8_t msg[16];
        put64(msg, i);
        put64(msg + 8, tempo_simnet_time(net));
        assert_int_equal(a.send(a.ctx, &to, msg, sizeof msg), 0);
        m.sent++;
        drain(net, &b, &r);
        while (tempo_simnet_next_delivery(net, &at) == 1 && at < (i + 1) * spacing_us) {
            tempo_simnet_set_time(net, at);
            drain(net, &b, &r);
        }
    }
    while (tempo_simnet_next_delivery(net, &at) == 1) {
        tempo_simnet_set_time(net, at);
        drain(net, &b, &r);
    }
    if (m.deliveries > 0) {
        m.mean_us = r.sum / (double)m.deliveries;
        m.sd_us = sqrt(fmax(0.0, r.sq / (double)m.deliveries - m.mean_us * m.mean_us));
    }
    m.link = stats_of(net, 0, 1);
    tempo_simnet_destroy(net);
    free(r.seen);
    return m;
}

/* ---- determinism -------------------------------------------------------- */

/* Three nodes, four kinds of link, varied sizes; returns the net's trace
 * hash and, in *seen, a hash of what the receivers got and when. */
static uint64_t scenario(uint64_t seed, uint64_t *seen)
{
    tempo_simnet *net = make_net(seed, 4096);
    tempo_transport t[3] = {add(net, 0), add(net, 1), add(net, 2)};
    tempo_link_params shaped = profile("broadband");
    shaped.bandwidth_bps = 256000;
    shaped.queue_bytes = 8000;
    tempo_link_params terrible = profile("terrible"), mobile = profile("mobile");
    set_link(net, 0, 1, &terrible);
    set_link(net, 1, 0, &mobile);
    set_link(net, 0, 2, &shaped);
    uint64_t h = 1469598103934665603ULL;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    for (uint32_t step = 0; step < 20000; step++) {
        tempo_simnet_set_time(net, (uint64_t)step * MS);
        for (int n = 0; n < 3; n++) {
            size_t size = 1 + (step * 131u + (uint32_t)n * 17u) % TEMPO_MAX_DATAGRAM;
            memset(buf, (int)(step + (uint32_t)n), size);
            tempo_address to = node_addr((n + 1 + (int)(step % 2)) % 3);
            assert_int_equal(t[n].send(t[n].ctx, &to, buf, size), 0);
        }
        for (int n = 0; n < 3; n++) {
            tempo_address from;
            int got;
            while ((got = t[n].recv(t[n].ctx, &from, buf, sizeof buf)) > 0) {
                uint64_t v = tempo_simnet_time(net) * 1000003u + from.bytes[3] * 131u +
                             (uint64_t)got * 7u + buf[0];
                h = (h ^ v) * 1099511628211ULL;
            }
        }
    }
    *seen = h;
    uint64_t trace = tempo_simnet_trace_hash(net);
    tempo_simnet_destroy(net);
    return trace;
}

static void test_same_seed_same_deliveries(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        uint64_t seen1, seen2;
        uint64_t h1 = scenario(seed, &seen1), h2 = scenario(seed, &seen2);
        assert_int_equal(h1, h2);
        assert_int_equal(seen1, seen2);
        assert_int_not_equal(h1, 0);
    }
}

static void test_different_seeds_differ(void **state)
{
    (void)state;
    enum { SEEDS = 6 };
    uint64_t trace[SEEDS], seen[SEEDS];
    for (int i = 0; i < SEEDS; i++)
        trace[i] = scenario(1000u + (uint64_t)i, &seen[i]);
    for (int i = 0; i < SEEDS; i++) {
        for (int j = i + 1; j < SEEDS; j++) {
            assert_int_not_equal(trace[i], trace[j]);
            assert_int_not_equal(seen[i], seen[j]);
        }
    }
}

/* A link's outcomes depend on its own traffic only: extra traffic on
 * another link leaves this one's deliveries unchanged. */
static void test_links_are_independent(void **state)
{
    (void)state;
    tempo_link_params p = profile("terrible");
    uint64_t hashes[2];
    for (int extra = 0; extra < 2; extra++) {
        tempo_simnet *net = make_net(77, 0);
        tempo_transport a = add(net, 0), b = add(net, 1), c = add(net, 2);
        set_link(net, 0, 1, &p);
        set_link(net, 2, 1, &p);
        tempo_address to = node_addr(1);
        uint8_t buf[64] = {0};
        uint64_t h = 0;
        for (uint32_t step = 0; step < 5000; step++) {
            tempo_simnet_set_time(net, (uint64_t)step * MS);
            buf[0] = (uint8_t)step;
            assert_int_equal(a.send(a.ctx, &to, buf, 8), 0);
            if (extra && step % 3 == 0)
                assert_int_equal(c.send(c.ctx, &to, buf, 9), 0);
            tempo_address from;
            int n;
            while ((n = b.recv(b.ctx, &from, buf, sizeof buf)) > 0)
                if (from.bytes[3] == 1)
                    h = h * 31u + tempo_simnet_time(net) * 257u + buf[0];
        }
        hashes[extra] = h;
        tempo_simnet_destroy(net);
    }
    assert_int_equal(hashes[0], hashes[1]);
}

/* ---- profile statistics -------------------------------------------------- */

typedef struct expected {
    double loss, mean_us, sd_us;
} expected;

/* What the parameters predict for one packet, on a link where packets are
 * spaced enough that the order floor never holds one back. */
static expected expected_of(const tempo_link_params *p)
{
    expected e;
    double bad = p->burst_enter > 0 ? p->burst_enter / (p->burst_enter + p->burst_exit) : 0;
    e.loss = bad * p->burst_loss + (1 - bad) * p->loss;
    /* Extra delays of the form Bernoulli(q) * Uniform(0, S). */
    double spike = p->spike_enter > 0 ? p->spike_enter / (p->spike_enter + p->spike_exit) : 0;
    double S = p->spike_us, R = p->reorder_us, r = p->reorder;
    double sigma = p->jitter_us;
    e.mean_us = p->latency_us + spike * S / 2 + r * R / 2;
    double var = sigma * sigma + spike * S * S / 3 - (spike * S / 2) * (spike * S / 2) +
                 r * R * R / 3 - (r * R / 2) * (r * R / 2);
    e.sd_us = sqrt(var);
    return e;
}

static void test_profiles_match_their_parameters(void **state)
{
    (void)state;
    const char *const *names = tempo_link_profile_names();
    for (int i = 0; names[i]; i++) {
        tempo_link_params p = profile(names[i]);
        expected e = expected_of(&p);
        for (uint64_t seed = 1; seed <= 2; seed++) {
            /* One packet a second: every delay is well under the spacing. */
            measured m = measure(&p, seed * 7919u, 100000, SEC);
            double loss = 1.0 - (double)m.unique / (double)m.sent;
            double dup = (double)m.repeats / (double)m.unique;
            if (fabs(loss - e.loss) > 0.1 * e.loss + 0.0005 ||
                fabs(m.mean_us - e.mean_us) > 0.01 * e.mean_us + 20 ||
                fabs(m.sd_us - e.sd_us) > 0.05 * e.sd_us + 20 ||
                fabs(dup - p.duplicate) > 0.1 * p.duplicate + 0.0005)
                fail_msg("%s seed %llu: loss %.4f (expected %.4f), mean %.0f us (%.0f), "
                         "sd %.0f us (%.0f), dup %.4f (%.4f)",
                         names[i], (unsigned long long)seed, loss, e.loss, m.mean_us, e.mean_us,
                         m.sd_us, e.sd_us, dup, p.duplicate);
            /* The link's own counters agree with what the receiver saw. */
            assert_int_equal(m.link.sent, m.sent);
            assert_int_equal(m.link.delivered, m.deliveries);
            assert_int_equal(m.link.lost, m.sent - m.unique);
            assert_int_equal(m.link.duplicated, m.repeats);
            assert_true(fabs((double)m.link.latency_us_sum / (double)m.deliveries - m.mean_us) <
                        1e-6 * (m.mean_us + 1));
        }
    }
}

static void test_profile_names_resolve(void **state)
{
    (void)state;
    const char *const *names = tempo_link_profile_names();
    int count = 0;
    for (; names[count]; count++) {
        tempo_link_params p;
        assert_int_equal(tempo_link_profile(names[count], &p), TEMPO_OK);
    }
    assert_int_equal(count, 7);
    tempo_link_params p = profile("transatlantic");
    assert_int_equal(p.latency_us, 75000);
    assert_int_equal(tempo_link_profile("Perfect", &p), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_link_profile("", &p), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_link_profile(NULL, &p), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_link_profile("lan", NULL), TEMPO_E_INVALID_ARG);
}

/* ---- order, reordering, duplication -------------------------------------- */

static void test_order_kept_without_reorder(void **state)
{
    (void)state;
    /* Jitter 20 ms at one packet per ms: delays overlap all the time. */
    tempo_link_params p = {.latency_us = 30 * MS, .jitter_us = 20 * MS, .spike_enter = 0.05,
                           .spike_exit = 0.3, .spike_us = 100 * MS, .duplicate = 0.05};
    for (uint64_t seed = 1; seed <= 5; seed++) {
        measured m = measure(&p, seed, 20000, MS);
        assert_int_equal(m.out_of_order, 0);
        assert_int_equal(m.link.reordered, 0);
        assert_true(m.repeats > 0);
    }
}

static void test_reordering_happens_with_reorder(void **state)
{
    (void)state;
    tempo_link_params p = {.latency_us = 20 * MS, .jitter_us = 1 * MS, .reorder = 0.1,
                           .reorder_us = 10 * MS};
    for (uint64_t seed = 1; seed <= 5; seed++) {
        measured m = measure(&p, seed, 20000, MS);
        /* A picked packet (1 in 10) lands 0..10 ms late; unless that is
         * under about 1 ms, the next packet (1 ms later) overtakes it: about
         * 9% of deliveries come out of order. */
        assert_true(m.out_of_order > 20000 * 7 / 100);
        assert_true(m.out_of_order < 20000 * 11 / 100);
        assert_int_equal(m.link.reordered, m.out_of_order);
        assert_int_equal(m.unique, 20000);
    }
}

static void test_duplication_rate(void **state)
{
    (void)state;
    tempo_link_params p = {.latency_us = 5 * MS, .duplicate = 0.1};
    for (uint64_t seed = 1; seed <= 3; seed++) {
        measured m = measure(&p, seed, 100000, MS);
        assert_int_equal(m.unique, 100000);
        assert_int_equal(m.link.delivered, 100000 + m.link.duplicated);
        double rate = (double)m.repeats / 100000.0;
        assert_true(fabs(rate - 0.1) < 0.005);
    }
}

/* ---- bandwidth, blackouts, pool ----------------------------------------- */

/* Offer 250-byte packets every `gap_us` for `seconds` to a 1 Mbit/s link with
 * a 16 KB queue; returns its counters after everything has drained. */
static tempo_link_stats offer(uint64_t gap_us, uint32_t seconds, uint64_t *last_delivery_us)
{
    tempo_simnet *net = make_net(3, 0);
    tempo_transport a = add(net, 0), b = add(net, 1);
    tempo_link_params p = {.latency_us = 10 * MS, .bandwidth_bps = 1000000, .queue_bytes = 16000};
    set_link(net, 0, 1, &p);
    tempo_address to = node_addr(1);
    uint8_t buf[TEMPO_MAX_DATAGRAM] = {0};
    tempo_address from;
    *last_delivery_us = 0;
    for (uint64_t t = 0; t < (uint64_t)seconds * SEC; t += gap_us) {
        tempo_simnet_set_time(net, t);
        assert_int_equal(a.send(a.ctx, &to, buf, 250), 0);
        while (b.recv(b.ctx, &from, buf, sizeof buf) > 0)
            *last_delivery_us = tempo_simnet_time(net);
    }
    uint64_t at;
    while (tempo_simnet_next_delivery(net, &at) == 1) {
        tempo_simnet_set_time(net, at);
        while (b.recv(b.ctx, &from, buf, sizeof buf) > 0)
            *last_delivery_us = tempo_simnet_time(net);
    }
    tempo_link_stats s = stats_of(net, 0, 1);
    tempo_simnet_destroy(net);
    return s;
}

static void test_bandwidth_cap_limits_throughput(void **state)
{
    (void)state;
    uint64_t last;
    /* Twice the cap: 250 bytes per ms is 2 Mbit/s. */
    tempo_link_stats s = offer(1 * MS, 10, &last);
    double mbps = (double)s.bytes_delivered * 8.0 / (double)last;
    assert_true(fabs(mbps - 1.0) < 0.01);
    assert_true(s.queue_dropped > s.sent / 3);
    assert_int_equal(s.delivered + s.queue_dropped, s.sent);
    /* A full queue holds 16000 bytes: 128 ms at 1 Mbit/s, plus 2 ms to send
     * a packet and 10 ms of latency. */
    assert_true(s.latency_us_sum / s.delivered > 120 * MS);
    assert_true(s.latency_us_sum / s.delivered <= 141 * MS);

    /* Half the cap: nothing dropped, only 2 ms of serialization added. */
    s = offer(4 * MS, 10, &last);
    assert_int_equal(s.queue_dropped, 0);
    assert_int_equal(s.delivered, s.sent);
    assert_int_equal(s.latency_us_sum, s.delivered * 12 * MS);
}

static void test_blackout_drops_exactly_its_window(void **state)
{
    (void)state;
    tempo_simnet *net = make_net(5, 0);
    tempo_transport t[3] = {add(net, 0), add(net, 1), add(net, 2)};
    tempo_address n0 = node_addr(0), n1 = node_addr(1), n2 = node_addr(2);
    assert_int_equal(tempo_simnet_add_blackout(net, &n0, &n1, 30 * MS, 60 * MS), TEMPO_OK);
    assert_int_equal(tempo_simnet_add_blackout(net, NULL, &n2, 70 * MS, 71 * MS), TEMPO_OK);
    uint8_t got[3][100];
    memset(got, 0, sizeof got);
    for (uint32_t ms = 0; ms < 100; ms++) {
        tempo_simnet_set_time(net, (uint64_t)ms * MS);
        uint8_t msg = (uint8_t)ms;
        assert_int_equal(t[0].send(t[0].ctx, &n1, &msg, 1), 0);
        assert_int_equal(t[1].send(t[1].ctx, &n0, &msg, 1), 0);
        assert_int_equal(t[1].send(t[1].ctx, &n2, &msg, 1), 0);
        for (int n = 0; n < 3; n++) {
            tempo_address from;
            uint8_t buf[4];
            while (t[n].recv(t[n].ctx, &from, buf, sizeof buf) == 1)
                got[n][buf[0]]++;
        }
    }
    for (int ms = 0; ms < 100; ms++) {
        assert_int_equal(got[1][ms], ms >= 30 && ms < 60 ? 0 : 1);
        assert_int_equal(got[0][ms], 1); /* the other direction is untouched */
        assert_int_equal(got[2][ms], ms == 70 ? 0 : 1);
    }
    assert_int_equal(stats_of(net, 0, 1).blackout_dropped, 30);
    assert_int_equal(stats_of(net, 1, 0).blackout_dropped, 0);
    assert_int_equal(stats_of(net, 1, 2).blackout_dropped, 1);
    tempo_simnet_destroy(net);
}

static void test_full_pool_drops_and_counts(void **state)
{
    (void)state;
    tempo_simnet *net = make_net(9, 16);
    tempo_transport a = add(net, 0), b = add(net, 1);
    tempo_link_params slow = {.latency_us = SEC};
    set_link(net, 0, 1, &slow);
    tempo_address to = node_addr(1), from;
    uint8_t buf[TEMPO_MAX_DATAGRAM] = {0};
    for (int i = 0; i < 100; i++)
        assert_int_equal(a.send(a.ctx, &to, buf, TEMPO_MAX_DATAGRAM), 0);
    assert_int_equal(stats_of(net, 0, 1).pool_dropped, 84);
    tempo_simnet_set_time(net, SEC);
    int n = 0;
    while (b.recv(b.ctx, &from, buf, sizeof buf) > 0)
        n++;
    assert_int_equal(n, 16);
    /* The slots are free again. */
    for (int i = 0; i < 16; i++)
        assert_int_equal(a.send(a.ctx, &to, buf, 10), 0);
    assert_int_equal(stats_of(net, 0, 1).pool_dropped, 84);
    tempo_simnet_destroy(net);
}

/* ---- delivery order and time --------------------------------------------- */

static void test_recv_takes_earliest_then_send_order(void **state)
{
    (void)state;
    tempo_simnet *net = make_net(1, 0);
    tempo_transport t[3] = {add(net, 0), add(net, 1), add(net, 2)};
    set_link(net, 0, 2, &(tempo_link_params){.latency_us = 10 * MS});
    set_link(net, 1, 2, &(tempo_link_params){.latency_us = 5 * MS});
    tempo_address to = node_addr(2), from;
    uint8_t m;
    m = 'a';
    t[0].send(t[0].ctx, &to, &m, 1); /* due at 10 ms */
    m = 'b';
    t[1].send(t[1].ctx, &to, &m, 1); /* due at 5 ms */
    tempo_simnet_set_time(net, 5 * MS);
    m = 'c';
    t[1].send(t[1].ctx, &to, &m, 1); /* due at 10 ms, sent after 'a' */
    tempo_simnet_set_time(net, 20 * MS);
    const char want[] = "bac";
    for (int i = 0; i < 3; i++) {
        assert_int_equal(t[2].recv(t[2].ctx, &from, &m, 1), 1);
        assert_int_equal(m, want[i]);
    }
    assert_int_equal(t[2].recv(t[2].ctx, &from, &m, 1), 0);
    tempo_simnet_destroy(net);
}

static void test_delivery_waits_for_its_time(void **state)
{
    (void)state;
    tempo_simnet *net = make_net(1, 0);
    tempo_transport a = add(net, 0), b = add(net, 1);
    tempo_address to = node_addr(1), from;
    uint8_t m[3] = {1, 2, 3}, buf[8];
    uint64_t at;
    /* A perfect link delivers at once, without moving time. */
    assert_int_equal(a.send(a.ctx, &to, m, 3), 0);
    assert_int_equal(tempo_simnet_next_delivery(net, &at), 1);
    assert_int_equal(at, 0);
    assert_int_equal(b.recv(b.ctx, &from, buf, sizeof buf), 3);
    tempo_address a_addr = node_addr(0);
    assert_true(tempo_address_equal(&from, &a_addr));
    assert_int_equal(tempo_simnet_next_delivery(net, &at), 0);

    set_link(net, 0, 1, &(tempo_link_params){.latency_us = 40 * MS});
    tempo_simnet_set_time(net, 100 * MS);
    assert_int_equal(a.send(a.ctx, &to, m, 3), 0);
    assert_int_equal(tempo_simnet_next_delivery(net, &at), 1);
    assert_int_equal(at, 140 * MS);
    tempo_simnet_set_time(net, 140 * MS - 1);
    assert_int_equal(b.recv(b.ctx, &from, buf, sizeof buf), 0);
    tempo_simnet_set_time(net, 50 * MS); /* going back is ignored */
    assert_int_equal(tempo_simnet_time(net), 140 * MS - 1);
    tempo_simnet_set_time(net, 140 * MS);
    /* A short buffer gets a prefix; the full size is returned. */
    assert_int_equal(b.recv(b.ctx, &from, buf, 2), 3);
    assert_int_equal(buf[1], 2);
    tempo_simnet_destroy(net);
}

/* ---- injected datagrams --------------------------------------------------- */

/* An injected datagram claims any source (a node's or a stranger's), is due
 * at once even across a blacked-out, lossy, slow link, comes after what was
 * already due, leaves the link counters alone and is freed by recv. */
static void test_inject_forges_the_source_and_skips_the_link(void **state)
{
    (void)state;
    tempo_simnet *net = make_net(1, 4);
    tempo_transport a = add(net, 0), b = add(net, 1);
    tempo_address to = node_addr(1), a_addr = node_addr(0), from;
    tempo_address stranger = tempo_address_ipv4(192, 0, 2, 7, 4000);
    uint8_t m = 'h', buf[8];
    assert_int_equal(a.send(a.ctx, &to, &m, 1), 0); /* honest, due at 0 */
    set_link(net, 0, 1, &(tempo_link_params){.latency_us = SEC, .loss = 1.0});
    assert_int_equal(tempo_simnet_add_blackout(net, NULL, &to, 0, UINT64_MAX), TEMPO_OK);
    m = 'f';
    assert_int_equal(tempo_simnet_inject(net, &a_addr, &to, &m, 1), TEMPO_OK);
    m = 's';
    assert_int_equal(tempo_simnet_inject(net, &stranger, &to, &m, 1), TEMPO_OK);
    const char want[] = "hfs";
    const tempo_address *src[] = {&a_addr, &a_addr, &stranger};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(b.recv(b.ctx, &from, buf, sizeof buf), 1);
        assert_int_equal(buf[0], want[i]);
        assert_true(tempo_address_equal(&from, src[i]));
    }
    assert_int_equal(b.recv(b.ctx, &from, buf, sizeof buf), 0);
    tempo_link_stats st = stats_of(net, 0, 1);
    assert_int_equal(st.sent, 1);
    assert_int_equal(st.delivered, 1);
    /* Four slots: four injections fit, the fifth is refused, and recv frees one. */
    for (int i = 0; i < 4; i++)
        assert_int_equal(tempo_simnet_inject(net, &stranger, &to, &m, 1), TEMPO_OK);
    assert_int_equal(tempo_simnet_inject(net, &stranger, &to, &m, 1), TEMPO_E_FULL);
    assert_int_equal(b.recv(b.ctx, &from, buf, sizeof buf), 1);
    assert_int_equal(tempo_simnet_inject(net, &stranger, &to, &m, 1), TEMPO_OK);
    /* Bad arguments. */
    tempo_address none;
    memset(&none, 0, sizeof none);
    uint8_t big[TEMPO_MAX_DATAGRAM + 1] = {0};
    assert_int_equal(tempo_simnet_inject(NULL, &a_addr, &to, &m, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_simnet_inject(net, NULL, &to, &m, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_simnet_inject(net, &a_addr, NULL, &m, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_simnet_inject(net, &a_addr, &to, NULL, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_simnet_inject(net, &a_addr, &to, &m, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_simnet_inject(net, &a_addr, &to, big, sizeof big), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_simnet_inject(net, &none, &to, &m, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_simnet_inject(net, &a_addr, &stranger, &m, 1), TEMPO_E_ADDRESS);
    tempo_simnet_destroy(net);
}

/* ---- errors -------------------------------------------------------------- */

static int alloc_budget;
static void *budget_alloc(void *ctx, size_t size)
{
    (void)ctx;
    if (alloc_budget-- <= 0)
        return NULL;
    return test_malloc(size);
}
static void budget_free(void *ctx, void *p)
{
    (void)ctx;
    test_free(p);
}

static void test_allocation_failure_is_clean(void **state)
{
    (void)state;
    for (int budget = 0; budget < 8; budget++) {
        tempo_simnet_config cfg;
        tempo_simnet_config_default(&cfg);
        cfg.max_in_flight = 64;
        cfg.allocator = (tempo_allocator){budget_alloc, budget_free, NULL};
        alloc_budget = budget;
        tempo_simnet *net = (tempo_simnet *)&cfg;
        assert_int_equal(tempo_simnet_create(&cfg, &net), TEMPO_E_NO_MEMORY);
        assert_null(net);
    }
    tempo_simnet_config cfg;
    tempo_simnet_config_default(&cfg);
    cfg.max_in_flight = 64;
    cfg.allocator = (tempo_allocator){budget_alloc, budget_free, NULL};
    alloc_budget = 8;
    tempo_simnet *net = NULL;
    assert_int_equal(tempo_simnet_create(&cfg, &net), TEMPO_OK);
    tempo_simnet_destroy(net); /* test_free would report a leak */
}

static void test_bad_args(void **state)
{
    (void)state;
    tempo_simnet_config cfg;
    tempo_simnet *net = NULL;
    tempo_simnet_config_default(&cfg);
    assert_int_equal(tempo_simnet_create(NULL, &net), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_simnet_create(&cfg, NULL), TEMPO_E_INVALID_ARG);
    cfg.max_nodes = 0;
    assert_int_equal(tempo_simnet_create(&cfg, &net), TEMPO_E_INVALID_ARG);
    cfg.max_nodes = 1025;
    assert_int_equal(tempo_simnet_create(&cfg, &net), TEMPO_E_INVALID_ARG);
    tempo_simnet_config_default(&cfg);
    cfg.max_in_flight = 0;
    assert_int_equal(tempo_simnet_create(&cfg, &net), TEMPO_E_INVALID_ARG);
    tempo_simnet_config_default(&cfg);
    cfg.default_link.loss = 1.5;
    assert_int_equal(tempo_simnet_create(&cfg, &net), TEMPO_E_INVALID_ARG);
    cfg.default_link.loss = NAN;
    assert_int_equal(tempo_simnet_create(&cfg, &net), TEMPO_E_INVALID_ARG);
    assert_null(net);
    tempo_simnet_destroy(NULL);
    tempo_simnet_config_default(NULL);

    net = make_net(1, 8); /* max_nodes 4 */
    tempo_transport t[4];
    for (int i = 0; i < 4; i++)
        t[i] = add(net, i);
    tempo_address a0 = node_addr(0), a9 = node_addr(9), none;
    memset(&none, 0, sizeof none);
    tempo_transport extra;
    assert_int_equal(tempo_simnet_add_node(net, &a0, &extra), TEMPO_E_ALREADY);
    assert_int_equal(tempo_simnet_add_node(net, &a9, &extra), TEMPO_E_FULL);
    assert_int_equal(tempo_simnet_add_node(net, &none, &extra), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_simnet_add_node(NULL, &a9, &extra), TEMPO_E_INVALID_ARG);

    tempo_link_params p = {.reorder = -0.1};
    tempo_link_params ok = {0};
    assert_int_equal(tempo_simnet_set_link(net, &a0, &a0, &p), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_simnet_set_link(net, &a0, &a9, &ok), TEMPO_E_ADDRESS);
    assert_int_equal(tempo_simnet_set_link(net, &a0, &a0, NULL), TEMPO_E_INVALID_ARG);

    assert_int_equal(tempo_simnet_add_blackout(net, &a0, NULL, 10, 5), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_simnet_add_blackout(net, &a9, NULL, 0, 5), TEMPO_E_ADDRESS);
    for (int i = 0; i < 64; i++)
        assert_int_equal(tempo_simnet_add_blackout(net, NULL, NULL, 1000, 1000), TEMPO_OK);
    assert_int_equal(tempo_simnet_add_blackout(net, NULL, NULL, 0, 1), TEMPO_E_FULL);

    uint8_t buf[TEMPO_MAX_DATAGRAM + 1] = {0};
    tempo_address from;
    assert_int_equal(t[0].send(t[0].ctx, &a9, buf, 1), TEMPO_E_ADDRESS);
    assert_int_equal(t[0].send(t[0].ctx, &a0, buf, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(t[0].send(t[0].ctx, &a0, buf, sizeof buf), TEMPO_E_INVALID_ARG);
    assert_int_equal(t[0].send(NULL, &a0, buf, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(t[0].recv(t[0].ctx, &from, buf, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(t[0].recv(t[0].ctx, NULL, buf, 1), TEMPO_E_INVALID_ARG);
    tempo_link_stats s;
    assert_int_equal(tempo_simnet_link_stats(net, &a0, &a9, &s), TEMPO_E_ADDRESS);
    assert_int_equal(tempo_simnet_link_stats(net, &a0, &a0, NULL), TEMPO_E_INVALID_ARG);
    uint64_t at;
    assert_int_equal(tempo_simnet_next_delivery(net, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_simnet_next_delivery(NULL, &at), TEMPO_E_INVALID_ARG);
    tempo_simnet_set_time(NULL, 5);
    assert_int_equal(tempo_simnet_time(NULL), 0);
    tempo_simnet_destroy(net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_seed_same_deliveries),
        cmocka_unit_test(test_different_seeds_differ),
        cmocka_unit_test(test_links_are_independent),
        cmocka_unit_test(test_profiles_match_their_parameters),
        cmocka_unit_test(test_profile_names_resolve),
        cmocka_unit_test(test_order_kept_without_reorder),
        cmocka_unit_test(test_reordering_happens_with_reorder),
        cmocka_unit_test(test_duplication_rate),
        cmocka_unit_test(test_bandwidth_cap_limits_throughput),
        cmocka_unit_test(test_blackout_drops_exactly_its_window),
        cmocka_unit_test(test_full_pool_drops_and_counts),
        cmocka_unit_test(test_recv_takes_earliest_then_send_order),
        cmocka_unit_test(test_delivery_waits_for_its_time),
        cmocka_unit_test(test_inject_forges_the_source_and_skips_the_link),
        cmocka_unit_test(test_allocation_failure_is_clean),
        cmocka_unit_test(test_bad_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
