/* SPDX-License-Identifier: MIT */
/*
 * test_fragment.c — splitting and reassembly: the fragment vector of
 * docs/PROTOCOL.md both ways, round trips of random sizes up to 64 KiB with
 * loss, duplication and reordering, every hostile fragment refused with its
 * reason, partial messages expiring, bounded slots and eviction, and memory
 * allocated once (or not at all).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "doc_vectors.h"

#include "tempo/rng.h"
#include "wire/fragment.h"

#define TIMEOUT 1000000u

static uint8_t payload[FRAG_MAX_PAYLOAD + 1];
static uint8_t dgram[FRAG_MAX_COUNT][TEMPO_MAX_DATAGRAM];
static int dsize[FRAG_MAX_COUNT];

static void fill(uint32_t seed, size_t n)
{
    tempo_rng rng;
    tempo_rng_seed(&rng, seed, 3);
    for (size_t i = 0; i < n; i++)
        payload[i] = (uint8_t)tempo_rng_next(&rng);
}

/* Every fragment of payload[0, size) as message `id` of `type`. */
static int split(size_t size, uint16_t id, uint8_t type)
{
    int count = frag_count(size);
    tempo_packet_header h = {0x12345678u, 0, type, false, false};
    for (int i = 0; i < count; i++) {
        h.sequence = (uint16_t)i;
        dsize[i] = frag_write(&h, id, payload, size, i, dgram[i], sizeof dgram[i]);
        assert_true(dsize[i] > 0 && dsize[i] <= TEMPO_MAX_DATAGRAM - PACKET_TAG_SIZE);
    }
    return count;
}

/* Offer datagram i to the assembler as a receiver would: header first. */
static int offer(tempo_frag_assembler *a, uint64_t now, const uint8_t *d, size_t n,
                 tempo_frag_message *out, tempo_drop_reason *why)
{
    tempo_packet_view v;
    assert_int_equal(packet_read(d, n, &v, NULL), TEMPO_OK);
    assert_true(v.h.fragment);
    return frag_receive(a, now, v.h.type, d + v.body, v.body_size, out, why);
}

static void test_count_follows_the_chunk_size(void **state)
{
    (void)state;
    assert_int_equal(frag_count(0), 0);
    assert_int_equal(frag_count(FRAG_CHUNK), 0); /* fits one datagram: not fragmented */
    assert_int_equal(frag_count(FRAG_CHUNK + 1), 2);
    assert_int_equal(frag_count(2 * FRAG_CHUNK), 2);
    assert_int_equal(frag_count(FRAG_MAX_PAYLOAD), FRAG_MAX_COUNT);
    assert_int_equal(FRAG_MAX_COUNT, 57);
    assert_int_equal(frag_count(FRAG_MAX_PAYLOAD + 1), 0);
    /* the largest fragment, sealed, still fits a datagram */
    assert_true(PACKET_HEADER_SIZE + FRAG_HEADER_SIZE + FRAG_CHUNK + PACKET_TAG_SIZE <= TEMPO_MAX_DATAGRAM);
}

/* PROTOCOL.md "fragment last": the last fragment of a 1200-byte payload of
 * bytes i mod 256, message id 0x0102, type 3, session 0x12345678, sequence 9. */
static void test_fragment_vector_of_protocol_md_both_ways(void **state)
{
    (void)state;
    FILE *f = fopen(TEMPO_SOURCE_DIR "/docs/PROTOCOL.md", "r");
    assert_non_null(f);
    char line[8192];
    int found = 0;
    uint8_t doc[TEMPO_MAX_DATAGRAM], mine[TEMPO_MAX_DATAGRAM];
    for (int i = 0; i < 1200; i++)
        payload[i] = (uint8_t)i;
    tempo_packet_header h = {0x12345678u, 9, 3, false, false};
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "fragment last ", 14) != 0)
            continue;
        int n = from_hex(line + 14, doc, sizeof doc);
        int m = frag_write(&h, 0x0102, payload, 1200, 1, mine, sizeof mine);
        assert_int_equal(n, m);
        assert_memory_equal(doc, mine, (size_t)n);
        /* and back: with the first fragment, the payload */
        static uint8_t mem[FRAG_MAX_PAYLOAD];
        tempo_frag_assembler a;
        assert_int_equal(frag_init(&a, 1, TIMEOUT, mem, sizeof mem), TEMPO_OK);
        tempo_frag_message out;
        assert_int_equal(offer(&a, 0, doc, (size_t)n, &out, NULL), 0);
        m = frag_write(&h, 0x0102, payload, 1200, 0, mine, sizeof mine);
        assert_int_equal(offer(&a, 1, mine, (size_t)m, &out, NULL), 1);
        assert_int_equal(out.size, 1200);
        assert_int_equal(out.type, 3);
        assert_int_equal(out.id, 0x0102);
        assert_memory_equal(out.data, payload, 1200);
        found++;
    }
    fclose(f);
    assert_int_equal(found, 1);
}

/* Random sizes up to 64 KiB, fragments shuffled and duplicated, some lost:
 * a message with every fragment delivered comes out whole and once; one
 * with a loss never does, and expires. */
static void test_random_payloads_survive_reordering_duplication_and_loss(void **state)
{
    (void)state;
    tempo_frag_assembler a;
    assert_int_equal(frag_create(&a, 2, TIMEOUT, NULL), TEMPO_OK);
    uint64_t now = 5;
    int complete = 0, lost = 0;
    for (uint32_t k = 0; k < 300; k++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, k, 4);
        size_t size = k == 0 ? FRAG_MAX_PAYLOAD
                             : FRAG_CHUNK + 1 + tempo_rng_below(&rng, FRAG_MAX_PAYLOAD - FRAG_CHUNK);
        fill(k, size);
        int count = split(size, (uint16_t)(k * 7919u), (uint8_t)(1 + k % PACKET_MAX_TYPE));
        int order[2 * FRAG_MAX_COUNT], n = 0;
        bool drop = tempo_rng_below(&rng, 4) == 0;
        int dropped = drop ? (int)tempo_rng_below(&rng, (uint32_t)count) : -1;
        for (int i = 0; i < count; i++) {
            if (i != dropped)
                order[n++] = i;
            if (i != dropped && tempo_rng_below(&rng, 5) == 0)
                order[n++] = i; /* duplicated */
        }
        for (int i = n - 1; i > 0; i--) { /* shuffled */
            int j = (int)tempo_rng_below(&rng, (uint32_t)i + 1), t = order[i];
            order[i] = order[j], order[j] = t;
        }
        int done = 0;
        for (int i = 0; i < n; i++) {
            tempo_frag_message out;
            tempo_drop_reason why = TEMPO_DROP_NONE;
            int rc = offer(&a, now += 100, dgram[order[i]], (size_t)dsize[order[i]], &out, &why);
            if (rc == 1) {
                done++;
                assert_int_equal(out.size, size);
                assert_int_equal(out.type, 1 + k % PACKET_MAX_TYPE);
                assert_memory_equal(out.data, payload, size);
            } else if (rc < 0) {
                /* a duplicate of a held fragment, or of a finished message's (that
                 * one starts a partial that never completes) */
                assert_int_equal(why, TEMPO_DROP_FRAG_DUPLICATE);
            }
        }
        assert_int_equal(done, drop ? 0 : 1);
        complete += done;
        lost += drop;
        if (drop) { /* the partial waits, then expires */
            assert_true(frag_pending(&a) >= 1);
            now += TIMEOUT;
            assert_true(frag_expire(&a, now) >= 1);
            assert_int_equal(frag_pending(&a), 0);
        }
        now += TIMEOUT; /* leftovers of duplicates expire too */
        frag_expire(&a, now);
    }
    assert_true(complete > 150 && lost > 30);
    frag_destroy(&a);
}

/* A fragment body by hand. */
static size_t body(uint8_t *b, uint16_t id, int index, int count, size_t len)
{
    b[0] = (uint8_t)id, b[1] = (uint8_t)(id >> 8), b[2] = (uint8_t)index, b[3] = (uint8_t)count;
    memset(b + 4, 0xAB, len);
    return 4 + len;
}

static void test_hostile_fragments_are_refused_with_a_reason(void **state)
{
    (void)state;
    static uint8_t mem[2 * FRAG_MAX_PAYLOAD];
    static uint8_t b[FRAG_HEADER_SIZE + FRAG_CHUNK + 8];
    tempo_frag_assembler a;
    assert_int_equal(frag_init(&a, 2, TIMEOUT, mem, sizeof mem), TEMPO_OK);
    tempo_frag_message out;
    tempo_drop_reason why;
#define REFUSE(reason, type, n)                                                  \
    do {                                                                         \
        assert_int_equal(frag_receive(&a, 10, (type), b, (n), &out, &why), TEMPO_E_MALFORMED); \
        assert_int_equal(why, (reason));                                         \
    } while (0)
    REFUSE(TEMPO_DROP_FRAG_BAD, 3, body(b, 1, 0, 0, FRAG_CHUNK));              /* count 0 */
    REFUSE(TEMPO_DROP_FRAG_BAD, 3, body(b, 1, 0, 1, 10));                      /* count 1 */
    REFUSE(TEMPO_DROP_FRAG_BAD, 3, body(b, 1, 0, FRAG_MAX_COUNT + 1, FRAG_CHUNK));
    REFUSE(TEMPO_DROP_FRAG_BAD, 3, body(b, 1, 255, 255, 10));
    REFUSE(TEMPO_DROP_FRAG_BAD, 3, body(b, 1, 5, 5, 10));                      /* index = count */
    REFUSE(TEMPO_DROP_FRAG_BAD, 3, body(b, 1, 0, 3, FRAG_CHUNK - 1));          /* short middle */
    REFUSE(TEMPO_DROP_FRAG_BAD, 3, body(b, 1, 0, 3, 0));                       /* empty */
    REFUSE(TEMPO_DROP_FRAG_BAD, 3, body(b, 1, 2, 3, FRAG_CHUNK + 1));          /* oversize last */
    REFUSE(TEMPO_DROP_FRAG_BAD, 3, 3);                                          /* no header */
    /* the last of 57 may not take the total past 64 KiB */
    REFUSE(TEMPO_DROP_FRAG_BAD, 3, body(b, 1, 56, 57, FRAG_MAX_PAYLOAD - 56 * FRAG_CHUNK + 1));
    REFUSE(TEMPO_DROP_FRAG_BAD, 0, body(b, 1, 0, 3, FRAG_CHUNK));              /* type 0 */
    REFUSE(TEMPO_DROP_FRAG_BAD, 128, body(b, 1, 0, 3, FRAG_CHUNK));
    assert_int_equal(frag_pending(&a), 0); /* nothing above took a slot */
    /* message 7 starts as 3 fragments of type 3; everything inconsistent after is refused */
    assert_int_equal(frag_receive(&a, 10, 3, b, body(b, 7, 0, 3, FRAG_CHUNK), &out, &why), 0);
    REFUSE(TEMPO_DROP_FRAG_DUPLICATE, 3, body(b, 7, 0, 3, FRAG_CHUNK));
    REFUSE(TEMPO_DROP_FRAG_BAD, 3, body(b, 7, 1, 4, FRAG_CHUNK));              /* another count */
    REFUSE(TEMPO_DROP_FRAG_BAD, 4, body(b, 7, 1, 3, FRAG_CHUNK));              /* another type */
    assert_int_equal(frag_pending(&a), 1);
    assert_int_equal(frag_receive(&a, 10, 3, b, body(b, 7, 2, 3, 1), &out, &why), 0);
    assert_int_equal(frag_receive(&a, 10, 3, b, body(b, 7, 1, 3, FRAG_CHUNK), &out, &why), 1);
    assert_int_equal(out.size, 2 * FRAG_CHUNK + 1);
    assert_int_equal(frag_pending(&a), 0);
    assert_int_equal(frag_receive(&a, 10, 3, NULL, 5, &out, &why), TEMPO_E_INVALID_ARG);
    assert_int_equal(frag_receive(&a, 10, 3, b, 5, NULL, &why), TEMPO_E_INVALID_ARG);
#undef REFUSE
}

/* Two slots: a third message evicts the oldest partial only if it is newer;
 * partials that never complete expire after the timeout, whatever arrives. */
static void test_slots_are_bounded_and_partials_expire(void **state)
{
    (void)state;
    static uint8_t mem[2 * FRAG_MAX_PAYLOAD];
    static uint8_t b[FRAG_HEADER_SIZE + FRAG_CHUNK];
    tempo_frag_assembler a;
    assert_int_equal(frag_init(&a, 2, TIMEOUT, mem, sizeof mem), TEMPO_OK);
    tempo_frag_message out;
    tempo_drop_reason why;
    assert_int_equal(frag_receive(&a, 100, 3, b, body(b, 10, 0, 2, FRAG_CHUNK), &out, &why), 0);
    assert_int_equal(frag_receive(&a, 200, 3, b, body(b, 11, 0, 2, FRAG_CHUNK), &out, &why), 0);
    /* an older id finds no room */
    assert_int_equal(frag_receive(&a, 300, 3, b, body(b, 9, 0, 2, FRAG_CHUNK), &out, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_FRAG_BUSY);
    /* a newer one evicts message 10 (the oldest) */
    assert_int_equal(frag_receive(&a, 400, 3, b, body(b, 12, 0, 2, FRAG_CHUNK), &out, &why), 0);
    assert_int_equal(frag_pending(&a), 2);
    assert_int_equal(frag_receive(&a, 500, 3, b, body(b, 10, 1, 2, 5), &out, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_FRAG_BUSY); /* 10 is gone and older than both */
    /* wrap: id 3 is newer than 65530 */
    assert_int_equal(frag_receive(&a, 600, 3, b, body(b, 65530, 0, 2, FRAG_CHUNK), &out, &why), TEMPO_E_MALFORMED);
    /* expiry: at 200 + TIMEOUT message 11 is exactly TIMEOUT old */
    assert_int_equal(frag_expire(&a, 200 + TIMEOUT - 1), 0);
    assert_int_equal(frag_expire(&a, 200 + TIMEOUT), 1);
    assert_int_equal(frag_pending(&a), 1);
    /* a clock that steps back expires nothing */
    assert_int_equal(frag_expire(&a, 50), 0);
    /* frag_receive expires by itself: its completing fragment comes too late */
    assert_int_equal(frag_receive(&a, 400 + TIMEOUT, 3, b, body(b, 12, 1, 2, 5), &out, &why), 0);
    assert_int_equal(frag_pending(&a), 1); /* a new partial of 12, never to complete */
    frag_destroy(&a);
    assert_int_equal(frag_pending(&a), 0);
}

static int allocations;
static void *counting_alloc(void *ctx, size_t size)
{
    (void)ctx;
    allocations++;
    return malloc(size);
}
static void counting_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}
static void *failing_alloc(void *ctx, size_t size)
{
    (void)ctx, (void)size;
    return NULL;
}

/* One allocation at create, none per fragment; a failed one is an error. */
static void test_memory_is_taken_once_and_bounded(void **state)
{
    (void)state;
    tempo_allocator al = {counting_alloc, counting_free, NULL};
    tempo_frag_assembler a;
    allocations = 0;
    assert_int_equal(frag_create(&a, 2, TIMEOUT, &al), TEMPO_OK);
    assert_int_equal(allocations, 1);
    fill(9, 20000);
    for (uint16_t id = 0; id < 50; id++) {
        int count = split(20000, id, 2);
        tempo_frag_message out;
        for (int i = 0; i < count; i++)
            assert_int_equal(offer(&a, id, dgram[i], (size_t)dsize[i], &out, NULL), i == count - 1);
    }
    assert_int_equal(allocations, 1);
    assert_int_equal(frag_memory_size(2), 2 * FRAG_MAX_PAYLOAD);
    frag_destroy(&a);
    tempo_allocator bad = {failing_alloc, counting_free, NULL};
    assert_int_equal(frag_create(&a, 2, TIMEOUT, &bad), TEMPO_E_NO_MEMORY);
    assert_int_equal(frag_create(&a, 0, TIMEOUT, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(frag_create(&a, FRAG_MAX_SLOTS + 1, TIMEOUT, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(frag_create(&a, 1, 0, NULL), TEMPO_E_INVALID_ARG);
    static uint8_t small[FRAG_MAX_PAYLOAD];
    assert_int_equal(frag_init(&a, 2, TIMEOUT, small, sizeof small), TEMPO_E_INVALID_ARG);
}

static void test_writer_refuses_what_it_cannot_split(void **state)
{
    (void)state;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    tempo_packet_header h = {1, 0, 3, false, false};
    assert_int_equal(frag_write(&h, 0, payload, FRAG_CHUNK, 0, buf, sizeof buf), TEMPO_E_INVALID_ARG);
    assert_int_equal(frag_write(&h, 0, payload, FRAG_MAX_PAYLOAD + 1, 0, buf, sizeof buf), TEMPO_E_INVALID_ARG);
    assert_int_equal(frag_write(&h, 0, payload, 5000, 5, buf, sizeof buf), TEMPO_E_INVALID_ARG);
    assert_int_equal(frag_write(&h, 0, payload, 5000, -1, buf, sizeof buf), TEMPO_E_INVALID_ARG);
    assert_int_equal(frag_write(&h, 0, payload, 5000, 0, buf, 100), TEMPO_E_FULL);
    h.sealed = true;
    assert_int_equal(frag_write(&h, 0, payload, 5000, 0, buf, sizeof buf), TEMPO_E_INVALID_ARG);
    h.sealed = false;
    h.type = 0;
    assert_int_equal(frag_write(&h, 0, payload, 5000, 0, buf, sizeof buf), TEMPO_E_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_follows_the_chunk_size),
        cmocka_unit_test(test_fragment_vector_of_protocol_md_both_ways),
        cmocka_unit_test(test_random_payloads_survive_reordering_duplication_and_loss),
        cmocka_unit_test(test_hostile_fragments_are_refused_with_a_reason),
        cmocka_unit_test(test_slots_are_bounded_and_partials_expire),
        cmocka_unit_test(test_memory_is_taken_once_and_bounded),
        cmocka_unit_test(test_writer_refuses_what_it_cannot_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
