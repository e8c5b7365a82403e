/* SPDX-License-Identifier: MIT */
/*
 * test_codec_run.c — an INPUT's receiver-independent part coded once and
 * reused (tempo_codec_run): over many seeds, rounds of INPUTs to several
 * receivers (each its own ack and datagram ack; some a different base
 * frame, count or drops; some bodies too large, cut to fit or not fitting;
 * references unknown) give exactly the bytes, return codes and messages
 * of coding every body whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../fuzz/fuzz_codec_ctx.h"
#include "tempo/rng.h"
#include "wire/codec.h"

#define SEEDS 150
#define RECEIVERS 10

/* The sender's input of `player` at `frame`: the inputs a round carries are
 * read from here, as a session reads them from its queues (so equal keys
 * carry equal inputs, the run's contract). */
static void input_at(const tempo_codec_ctx *ctx, int player, int32_t frame, uint8_t *out)
{
    if (!fuzz_reference((void *)(uintptr_t)ctx, player, frame, out)) /* held all the same */
        memset(out, 0xA5, (size_t)ctx->input_size);
}

/* A round's message key: base frame, count, players, sender frame, drops. */
typedef struct key {
    int32_t start, sender_frame;
    int count;
    uint8_t mask, dropped;
    int32_t drop_frame[TEMPO_MAX_PLAYERS], have_until[TEMPO_MAX_PLAYERS];
} key;

static void random_key(tempo_rng *rng, const tempo_codec_ctx *ctx, key *k)
{
    memset(k, 0, sizeof *k);
    uint32_t all = (1u << ctx->num_players) - 1u;
    k->start = tempo_rng_below(rng, 5) == 0 ? 0 : tempo_rng_range(rng, 1, 100000);
    k->count = tempo_rng_below(rng, 8) == 0 ? 0
               : tempo_rng_below(rng, 6) == 0 ? tempo_rng_range(rng, 1, TEMPO_MSG_MAX_FRAMES)
                                              : tempo_rng_range(rng, 1, 4);
    k->mask = (uint8_t)(tempo_rng_below(rng, 3) == 0 ? tempo_rng_next(rng) & all
                                                     : 1u << tempo_rng_below(rng, (uint32_t)ctx->num_players));
    k->sender_frame = k->start + tempo_rng_range(rng, 0, 20);
    if (tempo_rng_below(rng, 4) == 0) {
        k->dropped = (uint8_t)(tempo_rng_next(rng) & all);
        for (int p = 0; p < ctx->num_players; p++) {
            k->drop_frame[p] = k->start + tempo_rng_range(rng, 0, 40);
            k->have_until[p] = k->start + tempo_rng_range(rng, 0, 40);
        }
    }
}

/* The message a round sends one receiver: the key's inputs, its own acks. */
static void build(tempo_rng *rng, const tempo_codec_ctx *ctx, const key *k, tempo_msg *m)
{
    memset(m, 0, sizeof *m);
    m->type = TEMPO_MSG_INPUT;
    tempo_msg_input *in = &m->u.input;
    in->start = k->start;
    in->count = k->count;
    in->player_mask = k->mask;
    in->sender_frame = k->sender_frame;
    in->ack = k->start + tempo_rng_range(rng, -30, 30);
    if (in->ack < 0 || tempo_rng_below(rng, 10) == 0)
        in->ack = (int32_t)tempo_rng_below(rng, 1000000);
    in->disconnected_mask = k->dropped;
    memcpy(in->disconnect_frame, k->drop_frame, sizeof in->disconnect_frame);
    memcpy(in->have_until, k->have_until, sizeof in->have_until);
    for (int p = 0, i = 0; p < ctx->num_players; p++) {
        if (!((k->mask >> p) & 1u))
            continue;
        for (int f = 0; f < k->count; f++)
            input_at(ctx, p, k->start + f,
                     in->data + ((size_t)i * (size_t)k->count + (size_t)f) * (size_t)ctx->input_size);
        i++;
    }
    uint32_t bits = tempo_rng_below(rng, 2) ? 0xFFFFFFFFu : tempo_rng_next(rng);
    wire_ack_make(&in->datagram_ack, tempo_rng_below(rng, 6) != 0, tempo_rng_next(rng), bits);
}

static void round_of(tempo_rng *rng, bool *reused)
{
    tempo_codec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    fuzz_codec_ctx((int)tempo_rng_below(rng, FUZZ_CODEC_CTX_COUNT), &ctx);
    if (tempo_rng_below(rng, 2) == 0) {
        ctx.num_players = tempo_rng_range(rng, 1, TEMPO_MAX_PLAYERS);
        ctx.input_size = tempo_rng_below(rng, 2) ? tempo_rng_range(rng, 1, 8)
                                                 : tempo_rng_range(rng, 1, TEMPO_MAX_INPUT_SIZE);
    }
    key keys[3];
    int nkeys = tempo_rng_range(rng, 1, 3);
    for (int i = 0; i < nkeys; i++)
        random_key(rng, &ctx, &keys[i]);
    static tempo_codec_run run; /* as a round of sends keeps it */
    run.valid = false;
    if (tempo_rng_below(rng, 4) == 0)
        memset(&run, 0xC3, sizeof run), run.valid = false; /* stale storage never leaks */
    for (int r = 0; r < RECEIVERS; r++) {
        /* Mostly the first key, as peers acknowledging the same frame. */
        const key *k = &keys[tempo_rng_below(rng, 3) == 0 ? tempo_rng_below(rng, (uint32_t)nkeys) : 0];
        static tempo_msg plain, with_run;
        tempo_rng msg_rng = *rng;
        build(rng, &ctx, k, &plain);
        build(&msg_rng, &ctx, k, &with_run);
        size_t cap = tempo_rng_below(rng, 5) == 0 ? tempo_rng_range(rng, 1, 200)
                     : tempo_rng_below(rng, 2)    ? PACKET_MAX_BODY
                                                  : PACKET_MAX_SEALED_BODY;
        uint8_t a[PACKET_MAX_BODY], b[PACKET_MAX_BODY];
        memset(a, 0x5A, sizeof a);
        memset(b, 0x5A, sizeof b);
        bool held = run.valid && run.start == k->start && run.count == (k->mask ? k->count : 0);
        int na = tempo_codec_encode_body(&plain, &ctx, a, cap);
        int nb = tempo_codec_encode_body_run(&with_run, &ctx, &run, b, cap);
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, sizeof a);
        assert_true(tempo_codec_msg_equal(&plain, &with_run, ctx.input_size));
        if (held && nb > 0)
            *reused = true;
    }
}

static void test_reused_parts_give_the_same_bytes_over_many_seeds(void **state)
{
    (void)state;
    bool reused = false;
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, seed, 21);
        for (int round = 0; round < 4; round++)
            round_of(&rng, &reused);
    }
    assert_true(reused); /* the run was used, not only filled */
}

/* A run holds one key: a message of another base frame, count, sender
 * frame or drops is coded whole, and a reset run is never used. */
static void test_another_key_is_coded_whole(void **state)
{
    (void)state;
    tempo_codec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    fuzz_codec_ctx(0, &ctx);
    tempo_rng rng;
    tempo_rng_seed(&rng, 7, 22);
    key k;
    random_key(&rng, &ctx, &k);
    k.start = 100, k.count = 3, k.mask = 1, k.sender_frame = 104, k.dropped = 0;
    tempo_codec_run run;
    run.valid = false;
    tempo_msg m;
    uint8_t buf[PACKET_MAX_BODY], want[PACKET_MAX_BODY];
    build(&rng, &ctx, &k, &m);
    assert_true(tempo_codec_encode_body_run(&m, &ctx, &run, buf, sizeof buf) > 0);
    assert_true(run.valid);
    for (int change = 0; change < 5; change++) {
        key o = k;
        switch (change) {
        case 0: o.start++, o.sender_frame++; break;
        case 1: o.count--; break;
        case 2: o.sender_frame++; break;
        case 3: o.dropped = 2, o.drop_frame[1] = 101, o.have_until[1] = 102; break;
        default: o.mask = 3; break;
        }
        tempo_msg x, y;
        tempo_rng r2 = rng;
        build(&rng, &ctx, &o, &x);
        build(&r2, &ctx, &o, &y);
        int n = tempo_codec_encode_body(&x, &ctx, want, sizeof want);
        assert_int_equal(tempo_codec_encode_body_run(&y, &ctx, &run, buf, sizeof buf), n);
        assert_memory_equal(buf, want, (size_t)n);
        assert_int_equal(run.start, o.start); /* it now holds the new key */
        assert_int_equal(run.sender_frame, o.sender_frame);
        /* back to the first key: coded whole again, same bytes */
        tempo_rng r3 = rng;
        build(&rng, &ctx, &k, &x);
        build(&r3, &ctx, &k, &y);
        n = tempo_codec_encode_body(&x, &ctx, want, sizeof want);
        assert_int_equal(tempo_codec_encode_body_run(&y, &ctx, &run, buf, sizeof buf), n);
        assert_memory_equal(buf, want, (size_t)n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reused_parts_give_the_same_bytes_over_many_seeds),
        cmocka_unit_test(test_another_key_is_coded_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
