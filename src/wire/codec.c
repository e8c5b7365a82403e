/* SPDX-License-Identifier: MIT */
/*
 * codec.c — tempo messages <-> datagrams; docs/PROTOCOL.md is the spec and
 * this file follows it field by field.
 *
 * Invariant: the encoder writes only canonical forms the decoder accepts
 * (decode(encode(m)) == m for every valid m), and the decoder accepts only
 * what it can range-check: every field is checked before use, loops run on
 * checked counts, and nothing outside [data, data + size) is read.
 *
 * The registry (`registry[]` below) is the one list of message types: a
 * type's number, name and body codec sit in one row, so adding a message is
 * adding a row and its two functions.
 */
#include "wire/codec.h"

#include <string.h>

#include "base/common.h"
#include "wire/ack.h"
#include "wire/bitpack.h"
#include "wire/connect.h"
#include "wire/cs_msg.h"
#include "wire/flips.h"
#include "wire/fragment.h"
#include "wire/turn_msg.h"

/* Varint group widths, one per kind of field (PROTOCOL.md, "Varints"). */
enum {
    G_OFFSET = 4, /* INPUT: a frame as a zigzag offset from the base frame */
    G_COUNT = 3,  /* INPUT: count - 1 */
    G_FLIPS = 2,  /* INPUT: flipped bits - 1 of a sparse delta */
    G_FRAME = 7,  /* an absolute frame number */
    G_RTT = 5,    /* SYNC: rtt_ms + 1, 0 meaning unknown */
    G_Q8 = 6      /* QUALITY: frames * 256, zigzag */
};

#define RTT_UNKNOWN 0xFFFFu

/* The sender's reference input of every player at start - 1. A struct so a
 * const pointer to it converts cleanly. */
typedef struct input_refs {
    uint8_t b[TEMPO_MAX_PLAYERS][TEMPO_MAX_INPUT_SIZE];
} input_refs;

static bool ctx_ok(const tempo_codec_ctx *c)
{
    return c != NULL && c->input_size >= 1 && c->input_size <= TEMPO_MAX_INPUT_SIZE &&
           c->num_players >= 1 && c->num_players <= TEMPO_MAX_PLAYERS;
}

static bool mask_ok(uint32_t mask, int num_players) { return (mask >> num_players) == 0; }

/* ---- validation of what the caller asks to encode ---- */

static bool input_valid(const tempo_msg_input *in, const tempo_codec_ctx *ctx)
{
    if (!ctx_ok(ctx) || in->count < 0 || in->count > TEMPO_MSG_MAX_FRAMES ||
        !mask_ok(in->player_mask, ctx->num_players) ||
        !mask_ok(in->disconnected_mask, ctx->num_players) || in->start < 0 ||
        (int64_t)in->start + in->count > INT32_MAX || in->ack < 0 || in->sender_frame < 0)
        return false;
    for (int p = 0; p < ctx->num_players; p++)
        if (((in->disconnected_mask >> p) & 1u) &&
            (in->disconnect_frame[p] < 0 || in->have_until[p] < 0))
            return false;
    return true;
}

static bool msg_valid(const tempo_msg *m, const tempo_codec_ctx *ctx)
{
    switch (m->type) {
    case TEMPO_MSG_SYNC_REQUEST:
    case TEMPO_MSG_SYNC_REPLY: {
        const tempo_msg_sync *s = &m->u.sync;
        return s->num_players >= 1 && s->num_players <= TEMPO_MAX_PLAYERS &&
               s->input_size >= 1 && s->input_size <= TEMPO_MAX_INPUT_SIZE &&
               mask_ok(s->player_mask, s->num_players) && mask_ok(s->ready_mask, s->num_players) &&
               s->ciphers <= 3;
    }
    case TEMPO_MSG_INPUT: return input_valid(&m->u.input, ctx);
    case TEMPO_MSG_INPUT_ACK: return m->u.input_ack.ack >= 0 && m->u.input_ack.sender_frame >= 0;
    case TEMPO_MSG_CHECKSUM:
        return m->u.checksum.frame >= 0 && m->u.checksum.ack >= 0 &&
               (m->u.checksum.frame != 0 || m->u.checksum.checksum == 0);
    case TEMPO_MSG_DESYNC_STATE: {
        const tempo_msg_desync_state *d = &m->u.state;
        return d->frame > 0 && (!d->carried || (d->size <= TEMPO_MSG_STATE_MAX &&
                                                (d->size == 0 || d->data != NULL)));
    }
    case TEMPO_MSG_REJOIN_REQUEST: return true;
    case TEMPO_MSG_REJOIN_REFUSED:
        return m->u.rejoin_refused.reason == TEMPO_REFUSED_DROPPED ||
               m->u.rejoin_refused.reason == TEMPO_REFUSED_EPOCH;
    case TEMPO_MSG_REJOIN_FRAME:
        return m->u.rejoin_frame.player_mask != 0 && m->u.rejoin_frame.frame > 0;
    case TEMPO_MSG_REJOIN_STATE: {
        const tempo_msg_rejoin_state *j = &m->u.rejoin_state;
        return j->frame >= 0 && j->live_frame >= j->frame && j->rejoin_frame > j->live_frame &&
               (j->player_mask & j->disconnected_mask) == 0 &&
               j->size >= 1 && j->size <= TEMPO_MSG_STATE_MAX && j->data != NULL &&
               j->prev_size <= TEMPO_MAX_PLAYERS * TEMPO_MAX_INPUT_SIZE &&
               (j->prev_size == 0 || j->prev != NULL);
    }
    default: return tempo_msg_type_known(m->type);
    }
}

/* ---- writing ---- */

static void put_offset(tempo_bitwriter *w, int32_t base, int32_t frame)
{
    tempo_bitwriter_svarint(w, (int32_t)((int64_t)frame - base), G_OFFSET);
}

/* One frame of one player, coded against the previous frame (PROTOCOL.md,
 * "Input deltas"): 0 = unchanged; 1 then the cheaper of a sparse list of
 * flipped bit positions (selector 0) or per-byte change bits with the XOR of
 * each changed byte (selector 1); a tie goes to the bytes. */
static void put_delta(tempo_bitwriter *w, const uint8_t *prev, const uint8_t *cur, int is,
                      int posw)
{
    flips_cost c = flips_measure(prev, cur, is, G_FLIPS, posw);
    if (c.bytes == 0) {
        tempo_bitwriter_bits(w, 0, 1);
        return;
    }
    if (c.sparse < c.dense) {
        tempo_bitwriter_bits(w, 1u, 2); /* changed, selector 0 */
        flips_put_sparse(w, prev, cur, is, G_FLIPS, posw);
    } else {
        tempo_bitwriter_bits(w, 3u, 2); /* changed, selector 1 */
        flips_put_dense(w, prev, cur, is);
    }
}

/* INPUT's player set: one player (the common case: a machine hosting one
 * player) as a flag and its number, 2..4 bits; otherwise a flag and the
 * mask. One player in mask form is not canonical. */
static void put_players(tempo_bitwriter *w, uint32_t mask, int np)
{
    if (flips_popcount(mask) == 1) {
        tempo_bitwriter_bits(w, 1u, 1);
        tempo_bitwriter_ranged(w, flips_popcount((mask & -mask) - 1), 0, np - 1);
    } else {
        tempo_bitwriter_bits(w, 0u, 1);
        tempo_bitwriter_bits(w, mask, np);
    }
}

/* The INPUT body's receiver-independent part (codec.h, tempo_codec_run):
 * everything after the ack up to the datagram ack. */
static void put_input_part(tempo_bitwriter *w, const tempo_msg_input *in,
                           const tempo_codec_ctx *ctx, const input_refs *refs, int count)
{
    int np = ctx->num_players, is = ctx->input_size;
    uint32_t mask = count > 0 ? in->player_mask : 0;
    put_offset(w, in->start, in->sender_frame);
    put_players(w, mask, np);
    if (mask != 0)
        tempo_bitwriter_uvarint(w, (uint32_t)count - 1, G_COUNT);
    tempo_bitwriter_bits(w, in->disconnected_mask != 0, 1);
    if (in->disconnected_mask != 0) {
        tempo_bitwriter_bits(w, in->disconnected_mask, np);
        for (int p = 0; p < np; p++) {
            if ((in->disconnected_mask >> p) & 1u) {
                put_offset(w, in->start, in->disconnect_frame[p]);
                put_offset(w, in->start, in->have_until[p]);
            }
        }
    }
    int posw = tempo_bitpack_bits_required((uint32_t)is * 8 - 1);
    for (int p = 0, i = 0; p < np; p++) {
        if (!((mask >> p) & 1u))
            continue;
        const uint8_t *prev = refs->b[p];
        for (int f = 0; f < count; f++) {
            const uint8_t *cur = in->data + ((size_t)i * (size_t)in->count + (size_t)f) * (size_t)is;
            put_delta(w, prev, cur, is, posw);
            prev = cur;
        }
        i++;
    }
}

/* True if the run holds the part of this message with `count` frames. */
static bool run_holds(const tempo_codec_run *run, const tempo_msg_input *in,
                      const tempo_codec_ctx *ctx, int count)
{
    if (run == NULL || !run->valid || run->start != in->start || run->count != count ||
        run->player_mask != (count > 0 ? in->player_mask : 0) ||
        run->sender_frame != in->sender_frame || run->disconnected_mask != in->disconnected_mask ||
        run->input_size != ctx->input_size || run->num_players != ctx->num_players)
        return false;
    for (uint32_t d = in->disconnected_mask; d != 0; d &= d - 1) {
        int p = flips_popcount((d & (0u - d)) - 1u);
        if (run->disconnect_frame[p] != in->disconnect_frame[p] ||
            run->have_until[p] != in->have_until[p])
            return false;
    }
    return true;
}

/* Keep the part just written, bits [from, w->bits) of w's buffer. */
static void run_keep(tempo_codec_run *run, const tempo_bitwriter *w, size_t from,
                     const tempo_msg_input *in, const tempo_codec_ctx *ctx, int count)
{
    tempo_bitwriter rw;
    tempo_bitwriter_init(&rw, run->part, sizeof run->part);
    run->valid = !w->failed && w->buf != NULL &&
                 tempo_bitwriter_copy(&rw, w->buf, from, w->bits - from);
    if (!run->valid)
        return;
    run->bits = rw.bits;
    run->start = in->start;
    run->count = count;
    run->player_mask = (uint8_t)(count > 0 ? in->player_mask : 0);
    run->sender_frame = in->sender_frame;
    run->disconnected_mask = in->disconnected_mask;
    run->input_size = ctx->input_size;
    run->num_players = ctx->num_players;
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++) {
        bool dropped = p < ctx->num_players && ((in->disconnected_mask >> p) & 1u);
        run->disconnect_frame[p] = dropped ? in->disconnect_frame[p] : 0;
        run->have_until[p] = dropped ? in->have_until[p] : 0;
    }
}

/* The INPUT body with the first `count` frames of each player; its middle
 * part copied from `run` when it holds it (`held`), else coded (and kept in
 * run, if any). */
static void put_input(tempo_bitwriter *w, const tempo_msg_input *in, const tempo_codec_ctx *ctx,
                      const input_refs *refs, int count, tempo_codec_run *run, bool held)
{
    tempo_bitwriter_bits(w, (uint32_t)in->start & 0xFFFFu, 16);
    put_offset(w, in->start, in->ack);
    if (held) {
        tempo_bitwriter_copy(w, run->part, 0, run->bits);
    } else {
        size_t from = w->bits;
        put_input_part(w, in, ctx, refs, count);
        if (run != NULL)
            run_keep(run, w, from, in, ctx, count);
    }
    wire_ack_put(w, &in->datagram_ack);
}

static void put_sync(tempo_bitwriter *w, const tempo_msg_sync *s)
{
    tempo_bitwriter_bits(w, s->nonce, 32);
    tempo_bitwriter_bits(w, s->config_hash, 32);
    tempo_bitwriter_ranged(w, s->num_players, 1, TEMPO_MAX_PLAYERS);
    tempo_bitwriter_ranged(w, s->input_size, 1, TEMPO_MAX_INPUT_SIZE);
    tempo_bitwriter_bits(w, s->player_mask, s->num_players);
    tempo_bitwriter_bits(w, s->ready_mask, s->num_players);
    tempo_bitwriter_bits(w, s->ready ? 1u : 0u, 1);
    tempo_bitwriter_bits(w, s->ciphers, 2);
    for (int p = 0; p < s->num_players; p++)
        tempo_bitwriter_uvarint(w, (s->rtt_ms[p] + 1u) & 0xFFFFu, G_RTT);
}

/* Write the body (INPUT with `count` frames per player) into buf, or only
 * measure it when buf is NULL. True if it fits in cap bytes. */
static bool emit(const tempo_msg *m, const tempo_codec_ctx *ctx, const input_refs *refs,
                 int count, tempo_codec_run *run, bool held, uint8_t *buf, size_t cap,
                 size_t *size);

/* The sender's input of each carried player at start - 1 (zero at frame 0). */
static bool fetch_refs(const tempo_msg_input *in, const tempo_codec_ctx *ctx, input_refs *refs)
{
    for (int p = 0; p < ctx->num_players; p++) {
        if (in->count == 0 || !((in->player_mask >> p) & 1u))
            continue;
        if (in->start == 0)
            memset(refs->b[p], 0, (size_t)ctx->input_size);
        else if (ctx->reference == NULL ||
                 !ctx->reference(ctx->reference_ctx, p, in->start - 1, refs->b[p]))
            return false;
    }
    return true;
}

/* Keep the first `count` frames of each player, re-laid-out for the new count.
 * Each player's block moves down, never over a block not yet moved. */
static void shrink_input(tempo_msg_input *in, int input_size, int count)
{
    size_t old_stride = (size_t)in->count * (size_t)input_size;
    size_t new_stride = (size_t)count * (size_t)input_size;
    int players = flips_popcount(in->player_mask);
    for (int i = 1; i < players; i++)
        memmove(in->data + (size_t)i * new_stride, in->data + (size_t)i * old_stride, new_stride);
    in->count = count;
    if (count == 0)
        in->player_mask = 0;
}

int tempo_codec_encode_body(tempo_msg *msg, const tempo_codec_ctx *ctx, uint8_t *buf,
                            size_t capacity)
{
    return tempo_codec_encode_body_run(msg, ctx, NULL, buf, capacity);
}

int tempo_codec_encode_body_run(tempo_msg *msg, const tempo_codec_ctx *ctx, tempo_codec_run *run,
                                uint8_t *buf, size_t capacity)
{
    if (msg == NULL || buf == NULL || !msg_valid(msg, ctx))
        return TEMPO_E_INVALID_ARG;
    size_t limit = msg->type == TEMPO_MSG_DESYNC_STATE || msg->type == TEMPO_MSG_REJOIN_STATE
                       ? FRAG_MAX_PAYLOAD
                       : PACKET_MAX_BODY;
    size_t cap = capacity < limit ? capacity : limit, size;
    input_refs refs;
    int count = 0;
    if (msg->type == TEMPO_MSG_INPUT) {
        if (msg->u.input.count == 0 || msg->u.input.player_mask == 0)
            msg->u.input.count = 0, msg->u.input.player_mask = 0;
        count = msg->u.input.count;
        /* A part the run holds needs no reference: it was coded with them. */
        if (run_holds(run, &msg->u.input, ctx, count) &&
            emit(msg, ctx, NULL, count, run, true, buf, cap, &size))
            return (int)size;
        if (!fetch_refs(&msg->u.input, ctx, &refs))
            return TEMPO_E_INVALID_ARG;
    } else {
        run = NULL;
    }
    if (emit(msg, ctx, &refs, count, run, false, buf, cap, &size))
        return (int)size;
    if (msg->type != TEMPO_MSG_INPUT || !emit(msg, ctx, &refs, 0, NULL, false, NULL, cap, &size))
        return TEMPO_E_FULL;
    /* The size never shrinks as frames are added, so bisect for the largest
     * count that fits, measuring without writing. */
    int lo = 0, hi = count - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (emit(msg, ctx, &refs, mid, NULL, false, NULL, cap, &size))
            lo = mid;
        else
            hi = mid - 1;
    }
    shrink_input(&msg->u.input, ctx->input_size, lo);
    return emit(msg, ctx, &refs, lo, NULL, false, buf, cap, &size) ? (int)size : TEMPO_E_FULL;
}

int tempo_codec_encode(tempo_msg *msg, const tempo_codec_ctx *ctx, uint8_t *buf, size_t capacity)
{
    if (msg == NULL || buf == NULL || !msg_valid(msg, ctx))
        return TEMPO_E_INVALID_ARG;
    tempo_packet_header h = {msg->session_id, msg->sequence, msg->type, false, false};
    int head = packet_write(&h, buf, capacity);
    if (head < 0)
        return head;
    size_t cap = capacity < TEMPO_MAX_DATAGRAM ? capacity : TEMPO_MAX_DATAGRAM;
    int body = tempo_codec_encode_body(msg, ctx, buf + head, cap - (size_t)head);
    return body < 0 ? body : head + body;
}

/* ---- reading ---- */

static tempo_drop_reason reader_reason(const tempo_bitreader *r)
{
    switch (r->error) {
    case TEMPO_BITREAD_OK: return TEMPO_DROP_NONE;
    case TEMPO_BITREAD_END: return TEMPO_DROP_TRUNCATED;
    default: return TEMPO_DROP_BAD_VALUE;
    }
}

/* A frame in [0, INT32_MAX] as an offset from base; 0 once poisoned. */
static int32_t get_offset(tempo_bitreader *r, int64_t base)
{
    int32_t off;
    if (!tempo_bitreader_svarint(r, G_OFFSET, &off))
        return 0;
    int64_t f = base + off;
    if (f >= 0 && f <= INT32_MAX)
        return (int32_t)f;
    tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
    return 0;
}

/* An absolute frame in [0, INT32_MAX]; 0 once poisoned. */
static int32_t get_frame(tempo_bitreader *r)
{
    uint32_t v;
    if (tempo_bitreader_uvarint(r, G_FRAME, &v) && v > INT32_MAX)
        tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
    return r->error == TEMPO_BITREAD_OK ? (int32_t)v : 0;
}

/* A zigzag q8 value that must fit in 16 bits; 0 once poisoned. */
static int16_t get_q8(tempo_bitreader *r)
{
    int32_t v;
    if (tempo_bitreader_svarint(r, G_Q8, &v) && (v < INT16_MIN || v > INT16_MAX))
        tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
    return r->error == TEMPO_BITREAD_OK ? (int16_t)v : 0;
}

static uint32_t get_bits(tempo_bitreader *r, int n)
{
    uint32_t v;
    tempo_bitreader_bits(r, n, &v);
    return v;
}

/* The frame nearest hint whose low 16 bits are b16; a tie (distance 32768)
 * goes to the older frame. */
static int64_t unwrap16(uint32_t b16, int32_t hint)
{
    int32_t d = (int32_t)((b16 - ((uint32_t)hint & 0xFFFFu)) & 0xFFFFu);
    if (d >= 0x8000)
        d -= 0x10000;
    return (int64_t)hint + d;
}

/* Inverse of put_players; 0 once poisoned. */
static uint32_t get_players(tempo_bitreader *r, int np)
{
    if (get_bits(r, 1) != 0) {
        int32_t p;
        return tempo_bitreader_ranged(r, 0, np - 1, &p) ? 1u << p : 0u;
    }
    uint32_t mask = get_bits(r, np);
    if (flips_popcount(mask) == 1)
        tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
    return r->error == TEMPO_BITREAD_OK ? mask : 0u;
}

/* Inverse of put_delta: cur = prev with the coded bits flipped. */
static bool get_delta(tempo_bitreader *r, const uint8_t *prev, uint8_t *cur, int is, int posw)
{
    memcpy(cur, prev, (size_t)is);
    if (get_bits(r, 1) == 0)
        return r->error == TEMPO_BITREAD_OK;
    if (get_bits(r, 1) == 0)
        return flips_get_sparse(r, cur, is, G_FLIPS, posw);
    return flips_get_dense(r, cur, is);
}

static tempo_drop_reason get_input(tempo_bitreader *r, const tempo_codec_ctx *ctx,
                                   tempo_msg_input *in)
{
    if (ctx == NULL)
        return TEMPO_DROP_NO_REFERENCE;
    int np = ctx->num_players, is = ctx->input_size;
    int64_t start = unwrap16(get_bits(r, 16), ctx->frame_hint);
    if (start < 0 || start > INT32_MAX) {
        tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
        start = 0;
    }
    in->start = (int32_t)start;
    in->ack = get_offset(r, start);
    in->sender_frame = get_offset(r, start);
    uint32_t mask = get_players(r, np);
    in->player_mask = (uint8_t)mask;
    in->count = 0;
    if (mask != 0) {
        uint32_t c1;
        if (tempo_bitreader_uvarint(r, G_COUNT, &c1) &&
            (c1 >= TEMPO_MSG_MAX_FRAMES || start + c1 + 1 > INT32_MAX))
            tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
        in->count = r->error == TEMPO_BITREAD_OK ? (int)c1 + 1 : 0;
    }
    in->disconnected_mask = 0;
    memset(in->disconnect_frame, 0, sizeof in->disconnect_frame);
    memset(in->have_until, 0, sizeof in->have_until);
    if (get_bits(r, 1) != 0) {
        in->disconnected_mask = (uint8_t)get_bits(r, np);
        if (in->disconnected_mask == 0) /* the flag said there was one */
            tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
        for (int p = 0; p < np; p++) {
            if ((in->disconnected_mask >> p) & 1u) {
                in->disconnect_frame[p] = get_offset(r, start);
                in->have_until[p] = get_offset(r, start);
            }
        }
    }
    if (r->error != TEMPO_BITREAD_OK)
        return reader_reason(r);
    int posw = tempo_bitpack_bits_required((uint32_t)is * 8 - 1);
    uint8_t ref[TEMPO_MAX_INPUT_SIZE];
    for (int p = 0, i = 0; p < np; p++) {
        if (!((mask >> p) & 1u))
            continue;
        if (in->start == 0)
            memset(ref, 0, sizeof ref);
        else if (ctx->reference == NULL ||
                 !ctx->reference(ctx->reference_ctx, p, in->start - 1, ref))
            return TEMPO_DROP_NO_REFERENCE;
        const uint8_t *prev = ref;
        for (int f = 0; f < in->count; f++) {
            uint8_t *cur = in->data + ((size_t)i * (size_t)in->count + (size_t)f) * (size_t)is;
            if (!get_delta(r, prev, cur, is, posw))
                return reader_reason(r);
            prev = cur;
        }
        i++;
    }
    if (!wire_ack_get(r, &in->datagram_ack))
        return reader_reason(r);
    return TEMPO_DROP_NONE;
}

static void get_sync(tempo_bitreader *r, tempo_msg_sync *s)
{
    int32_t np, is;
    s->nonce = get_bits(r, 32);
    s->config_hash = get_bits(r, 32);
    tempo_bitreader_ranged(r, 1, TEMPO_MAX_PLAYERS, &np);
    tempo_bitreader_ranged(r, 1, TEMPO_MAX_INPUT_SIZE, &is);
    s->num_players = (uint8_t)np;
    s->input_size = (uint8_t)is;
    int n = r->error == TEMPO_BITREAD_OK ? np : 1; /* bits() needs >= 1 */
    s->player_mask = (uint8_t)get_bits(r, n);
    s->ready_mask = (uint8_t)get_bits(r, n);
    s->ready = get_bits(r, 1) != 0;
    s->ciphers = (uint8_t)get_bits(r, 2);
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++) {
        uint32_t v = 0;
        if (p < np && tempo_bitreader_uvarint(r, G_RTT, &v) && v > 0xFFFFu)
            tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
        s->rtt_ms[p] = (uint16_t)(v == 0 ? RTT_UNKNOWN : v - 1);
    }
}

/* ---- one codec per type ---- */

/* What a body writer may need beyond the message: the receiver's context
 * and, for INPUT, the reference inputs and the frames to carry. */
typedef struct put_args {
    const tempo_codec_ctx *ctx;
    const input_refs *refs;
    int count;
    tempo_codec_run *run; /* INPUT's reusable part, or NULL */
    bool held;            /* run holds this message's part */
} put_args;

static void sync_put(tempo_bitwriter *w, const tempo_msg *m, const put_args *a)
{
    (void)a;
    put_sync(w, &m->u.sync);
}

static tempo_drop_reason sync_get(tempo_bitreader *r, const tempo_codec_ctx *ctx, tempo_msg *m)
{
    (void)ctx;
    get_sync(r, &m->u.sync);
    return reader_reason(r);
}

static bool sync_equal(const tempo_msg *ma, const tempo_msg *mb, int input_size)
{
    const tempo_msg_sync *a = &ma->u.sync, *b = &mb->u.sync;
    (void)input_size;
    if (a->nonce != b->nonce || a->config_hash != b->config_hash ||
        a->num_players != b->num_players || a->input_size != b->input_size ||
        a->player_mask != b->player_mask || a->ready_mask != b->ready_mask || a->ready != b->ready ||
        a->ciphers != b->ciphers)
        return false;
    for (int p = 0; p < a->num_players && p < TEMPO_MAX_PLAYERS; p++)
        if (a->rtt_ms[p] != b->rtt_ms[p])
            return false;
    return true;
}

static void input_put(tempo_bitwriter *w, const tempo_msg *m, const put_args *a)
{
    put_input(w, &m->u.input, a->ctx, a->refs, a->count, a->run, a->held);
}

static tempo_drop_reason input_get(tempo_bitreader *r, const tempo_codec_ctx *ctx, tempo_msg *m)
{
    tempo_drop_reason why = get_input(r, ctx, &m->u.input);
    return why != TEMPO_DROP_NONE ? why : reader_reason(r);
}

static bool input_equal(const tempo_msg *ma, const tempo_msg *mb, int input_size)
{
    const tempo_msg_input *a = &ma->u.input, *b = &mb->u.input;
    if (a->player_mask != b->player_mask || a->start != b->start || a->count != b->count ||
        a->ack != b->ack || a->sender_frame != b->sender_frame ||
        a->disconnected_mask != b->disconnected_mask ||
        !wire_ack_equal(&a->datagram_ack, &b->datagram_ack))
        return false;
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        if (((a->disconnected_mask >> p) & 1u) && (a->disconnect_frame[p] != b->disconnect_frame[p] ||
                                                    a->have_until[p] != b->have_until[p]))
            return false;
    size_t n = (size_t)flips_popcount(a->player_mask) * (size_t)a->count * (size_t)input_size;
    return n <= sizeof a->data && memcmp(a->data, b->data, n) == 0;
}

static void input_ack_put(tempo_bitwriter *w, const tempo_msg *m, const put_args *a)
{
    (void)a;
    tempo_bitwriter_uvarint(w, (uint32_t)m->u.input_ack.ack, G_FRAME);
    tempo_bitwriter_uvarint(w, (uint32_t)m->u.input_ack.sender_frame, G_FRAME);
    wire_ack_put(w, &m->u.input_ack.datagram_ack);
}

static tempo_drop_reason input_ack_get(tempo_bitreader *r, const tempo_codec_ctx *ctx, tempo_msg *m)
{
    (void)ctx;
    m->u.input_ack.ack = get_frame(r);
    m->u.input_ack.sender_frame = get_frame(r);
    (void)wire_ack_get(r, &m->u.input_ack.datagram_ack);
    return reader_reason(r);
}

static bool input_ack_equal(const tempo_msg *a, const tempo_msg *b, int input_size)
{
    (void)input_size;
    return a->u.input_ack.ack == b->u.input_ack.ack &&
           a->u.input_ack.sender_frame == b->u.input_ack.sender_frame &&
           wire_ack_equal(&a->u.input_ack.datagram_ack, &b->u.input_ack.datagram_ack);
}

static void ping_put(tempo_bitwriter *w, const tempo_msg *m, const put_args *a)
{
    (void)a;
    tempo_bitwriter_bits(w, m->u.ping.id, 32);
}

static tempo_drop_reason ping_get(tempo_bitreader *r, const tempo_codec_ctx *ctx, tempo_msg *m)
{
    (void)ctx;
    m->u.ping.id = get_bits(r, 32);
    return reader_reason(r);
}

static bool ping_equal(const tempo_msg *a, const tempo_msg *b, int input_size)
{
    (void)input_size;
    return a->u.ping.id == b->u.ping.id;
}

static void quality_put(tempo_bitwriter *w, const tempo_msg *m, const put_args *a)
{
    (void)a;
    tempo_bitwriter_svarint(w, m->u.quality.advantage_q8, G_Q8);
}

static tempo_drop_reason quality_get(tempo_bitreader *r, const tempo_codec_ctx *ctx, tempo_msg *m)
{
    (void)ctx;
    m->u.quality.advantage_q8 = get_q8(r);
    return reader_reason(r);
}

static bool quality_equal(const tempo_msg *a, const tempo_msg *b, int input_size)
{
    (void)input_size;
    return a->u.quality.advantage_q8 == b->u.quality.advantage_q8;
}

static void checksum_put(tempo_bitwriter *w, const tempo_msg *m, const put_args *a)
{
    (void)a;
    tempo_bitwriter_uvarint(w, (uint32_t)m->u.checksum.frame, G_FRAME);
    if (m->u.checksum.frame != 0) {
        tempo_bitwriter_bits(w, (uint32_t)m->u.checksum.checksum, 32);
        tempo_bitwriter_bits(w, (uint32_t)(m->u.checksum.checksum >> 32), 32);
    }
    tempo_bitwriter_uvarint(w, (uint32_t)m->u.checksum.ack, G_FRAME);
}

static tempo_drop_reason checksum_get(tempo_bitreader *r, const tempo_codec_ctx *ctx, tempo_msg *m)
{
    (void)ctx;
    m->u.checksum.frame = get_frame(r);
    m->u.checksum.checksum = 0;
    if (m->u.checksum.frame != 0) {
        m->u.checksum.checksum = get_bits(r, 32);
        m->u.checksum.checksum |= (uint64_t)get_bits(r, 32) << 32;
    }
    m->u.checksum.ack = get_frame(r);
    return reader_reason(r);
}

static bool checksum_equal(const tempo_msg *a, const tempo_msg *b, int input_size)
{
    (void)input_size;
    return a->u.checksum.frame == b->u.checksum.frame &&
           a->u.checksum.checksum == b->u.checksum.checksum && a->u.checksum.ack == b->u.checksum.ack;
}

/* DESYNC_STATE: frame, checksum, size, the carried bit, zero bits to the
 * next byte, then the state's bytes when carried, to the end of the body. */
static void state_put(tempo_bitwriter *w, const tempo_msg *m, const put_args *a)
{
    (void)a;
    const tempo_msg_desync_state *d = &m->u.state;
    tempo_bitwriter_uvarint(w, (uint32_t)d->frame, G_FRAME);
    tempo_bitwriter_bits(w, (uint32_t)d->checksum, 32);
    tempo_bitwriter_bits(w, (uint32_t)(d->checksum >> 32), 32);
    tempo_bitwriter_bits(w, d->size, 32);
    tempo_bitwriter_bits(w, d->carried ? 1u : 0u, 1);
    if (w->bits % 8 != 0)
        tempo_bitwriter_bits(w, 0, (int)(8 - w->bits % 8));
    if (d->carried && d->size > 0)
        tempo_bitwriter_bytes(w, d->data, d->size);
}

static tempo_drop_reason state_get(tempo_bitreader *r, const tempo_codec_ctx *ctx, tempo_msg *m)
{
    (void)ctx;
    tempo_msg_desync_state *d = &m->u.state;
    d->frame = get_frame(r);
    d->checksum = get_bits(r, 32);
    d->checksum |= (uint64_t)get_bits(r, 32) << 32;
    d->size = get_bits(r, 32);
    d->carried = get_bits(r, 1) != 0;
    d->data = NULL;
    if (r->error == TEMPO_BITREAD_OK && r->bits % 8 != 0 && get_bits(r, (int)(8 - r->bits % 8)) != 0)
        tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE); /* padding is zero: one form only */
    if (r->error != TEMPO_BITREAD_OK)
        return reader_reason(r);
    if (d->frame == 0 || (d->carried && d->size > TEMPO_MSG_STATE_MAX))
        return TEMPO_DROP_BAD_VALUE;
    if (d->carried) {
        if (tempo_bitreader_bits_left(r) < (size_t)d->size * 8u)
            return TEMPO_DROP_TRUNCATED;
        d->data = r->buf + r->bits / 8;
        r->bits += (size_t)d->size * 8u;
    }
    return TEMPO_DROP_NONE;
}

static bool state_equal(const tempo_msg *a, const tempo_msg *b, int input_size)
{
    (void)input_size;
    const tempo_msg_desync_state *x = &a->u.state, *y = &b->u.state;
    if (x->frame != y->frame || x->checksum != y->checksum || x->size != y->size ||
        x->carried != y->carried)
        return false;
    return !x->carried || x->size == 0 || memcmp(x->data, y->data, x->size) == 0;
}

/* REJOIN_REQUEST: the player mask, 8 bits. */
static void rejoin_request_put(tempo_bitwriter *w, const tempo_msg *m, const put_args *a)
{
    (void)a;
    tempo_bitwriter_bits(w, m->u.rejoin_request.player_mask, 8);
}

static tempo_drop_reason rejoin_request_get(tempo_bitreader *r, const tempo_codec_ctx *ctx,
                                            tempo_msg *m)
{
    m->u.rejoin_request.player_mask = (uint8_t)get_bits(r, 8);
    if (r->error != TEMPO_BITREAD_OK)
        return reader_reason(r);
    if (ctx && !mask_ok(m->u.rejoin_request.player_mask, ctx->num_players))
        return TEMPO_DROP_BAD_VALUE;
    return reader_reason(r);
}

static bool rejoin_request_equal(const tempo_msg *a, const tempo_msg *b, int input_size)
{
    (void)input_size;
    return a->u.rejoin_request.player_mask == b->u.rejoin_request.player_mask;
}

/* REJOIN_REFUSED: the reason, 8 bits (1 or 2), then the epoch, 8 bits. */
static void rejoin_refused_put(tempo_bitwriter *w, const tempo_msg *m, const put_args *a)
{
    (void)a;
    tempo_bitwriter_bits(w, m->u.rejoin_refused.reason, 8);
    tempo_bitwriter_bits(w, m->u.rejoin_refused.epoch, 8);
}

static tempo_drop_reason rejoin_refused_get(tempo_bitreader *r, const tempo_codec_ctx *ctx,
                                            tempo_msg *m)
{
    (void)ctx;
    m->u.rejoin_refused.reason = (uint8_t)get_bits(r, 8);
    m->u.rejoin_refused.epoch = (uint8_t)get_bits(r, 8);
    if (r->error != TEMPO_BITREAD_OK)
        return reader_reason(r);
    if (m->u.rejoin_refused.reason != TEMPO_REFUSED_DROPPED &&
        m->u.rejoin_refused.reason != TEMPO_REFUSED_EPOCH)
        return TEMPO_DROP_BAD_VALUE;
    return reader_reason(r);
}

static bool rejoin_refused_equal(const tempo_msg *a, const tempo_msg *b, int input_size)
{
    (void)input_size;
    return a->u.rejoin_refused.reason == b->u.rejoin_refused.reason &&
           a->u.rejoin_refused.epoch == b->u.rejoin_refused.epoch;
}

/* REJOIN_FRAME: the player mask, 8 bits, then the frame. */
static void rejoin_frame_put(tempo_bitwriter *w, const tempo_msg *m, const put_args *a)
{
    (void)a;
    tempo_bitwriter_bits(w, m->u.rejoin_frame.player_mask, 8);
    tempo_bitwriter_uvarint(w, (uint32_t)m->u.rejoin_frame.frame, G_FRAME);
}

static tempo_drop_reason rejoin_frame_get(tempo_bitreader *r, const tempo_codec_ctx *ctx, tempo_msg *m)
{
    m->u.rejoin_frame.player_mask = (uint8_t)get_bits(r, 8);
    m->u.rejoin_frame.frame = get_frame(r);
    if (r->error != TEMPO_BITREAD_OK)
        return reader_reason(r);
    if (m->u.rejoin_frame.player_mask == 0 || m->u.rejoin_frame.frame <= 0 ||
        (ctx && !mask_ok(m->u.rejoin_frame.player_mask, ctx->num_players)))
        return TEMPO_DROP_BAD_VALUE;
    return reader_reason(r);
}

static bool rejoin_frame_equal(const tempo_msg *a, const tempo_msg *b, int input_size)
{
    (void)input_size;
    return a->u.rejoin_frame.player_mask == b->u.rejoin_frame.player_mask &&
           a->u.rejoin_frame.frame == b->u.rejoin_frame.frame;
}

/* REJOIN_STATE: frame, live frame, rejoin frame, player mask (8 bits),
 * disconnected mask (8 bits) and each dropped player's frame, the size of
 * the previous inputs (16 bits) and of the state (32 bits), zero bits to
 * the next byte, then the previous inputs' bytes and the state's to the end. */
static void rejoin_state_put(tempo_bitwriter *w, const tempo_msg *m, const put_args *a)
{
    (void)a;
    const tempo_msg_rejoin_state *j = &m->u.rejoin_state;
    tempo_bitwriter_uvarint(w, (uint32_t)j->frame, G_FRAME);
    tempo_bitwriter_uvarint(w, (uint32_t)j->live_frame, G_FRAME);
    tempo_bitwriter_uvarint(w, (uint32_t)j->rejoin_frame, G_FRAME);
    tempo_bitwriter_bits(w, j->player_mask, 8);
    tempo_bitwriter_bits(w, j->disconnected_mask, 8);
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        if (j->disconnected_mask & (1u << p))
            tempo_bitwriter_uvarint(w, (uint32_t)j->disconnect_frame[p], G_FRAME);
    tempo_bitwriter_bits(w, j->prev_size, 16);
    tempo_bitwriter_bits(w, j->size, 32);
    if (w->bits % 8 != 0)
        tempo_bitwriter_bits(w, 0, (int)(8 - w->bits % 8));
    if (j->prev_size > 0)
        tempo_bitwriter_bytes(w, j->prev, j->prev_size);
    tempo_bitwriter_bytes(w, j->data, j->size);
}

static tempo_drop_reason rejoin_state_get(tempo_bitreader *r, const tempo_codec_ctx *ctx, tempo_msg *m)
{
    tempo_msg_rejoin_state *j = &m->u.rejoin_state;
    j->frame = get_frame(r);
    j->live_frame = get_frame(r);
    j->rejoin_frame = get_frame(r);
    j->player_mask = (uint8_t)get_bits(r, 8);
    j->disconnected_mask = (uint8_t)get_bits(r, 8);
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        j->disconnect_frame[p] = (j->disconnected_mask & (1u << p)) ? get_frame(r) : 0;
    j->prev_size = (uint16_t)get_bits(r, 16);
    j->size = get_bits(r, 32);
    j->data = NULL;
    j->prev = NULL;
    if (r->error == TEMPO_BITREAD_OK && r->bits % 8 != 0 && get_bits(r, (int)(8 - r->bits % 8)) != 0)
        tempo_bitreader_fail(r, TEMPO_BITREAD_RANGE);
    if (r->error != TEMPO_BITREAD_OK)
        return reader_reason(r);
    int np = ctx ? ctx->num_players : TEMPO_MAX_PLAYERS;
    if (j->live_frame < j->frame || j->rejoin_frame <= j->live_frame ||
        (j->player_mask & j->disconnected_mask) != 0 || !mask_ok(j->player_mask, np) ||
        !mask_ok(j->disconnected_mask, np) || j->size == 0 || j->size > TEMPO_MSG_STATE_MAX ||
        j->prev_size > TEMPO_MAX_PLAYERS * TEMPO_MAX_INPUT_SIZE ||
        (ctx && j->prev_size != (j->frame > 0 ? ctx->num_players * ctx->input_size : 0)))
        return TEMPO_DROP_BAD_VALUE;
    if (tempo_bitreader_bits_left(r) < ((size_t)j->prev_size + j->size) * 8u)
        return TEMPO_DROP_TRUNCATED;
    j->prev = r->buf + r->bits / 8;
    r->bits += (size_t)j->prev_size * 8u;
    j->data = r->buf + r->bits / 8;
    r->bits += (size_t)j->size * 8u;
    return TEMPO_DROP_NONE;
}

static bool rejoin_state_equal(const tempo_msg *a, const tempo_msg *b, int input_size)
{
    (void)input_size;
    const tempo_msg_rejoin_state *x = &a->u.rejoin_state, *y = &b->u.rejoin_state;
    if (x->frame != y->frame || x->live_frame != y->live_frame || x->rejoin_frame != y->rejoin_frame ||
        x->player_mask != y->player_mask || x->disconnected_mask != y->disconnected_mask ||
        x->size != y->size || x->prev_size != y->prev_size)
        return false;
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        if ((x->disconnected_mask & (1u << p)) && x->disconnect_frame[p] != y->disconnect_frame[p])
            return false;
    return (x->prev_size == 0 || memcmp(x->prev, y->prev, x->prev_size) == 0) &&
           memcmp(x->data, y->data, x->size) == 0;
}

/* DISCONNECT: the type says it all (the sender leaves). */
static void empty_put(tempo_bitwriter *w, const tempo_msg *m, const put_args *a)
{
    (void)w, (void)m, (void)a;
}

static tempo_drop_reason empty_get(tempo_bitreader *r, const tempo_codec_ctx *ctx, tempo_msg *m)
{
    (void)ctx, (void)m;
    return reader_reason(r);
}

static bool empty_equal(const tempo_msg *a, const tempo_msg *b, int input_size)
{
    (void)a, (void)b, (void)input_size;
    return true;
}

/* ---- the registry ---- */

struct codec_type {
    const char *name; /* NULL: the number is free */
    void (*put)(tempo_bitwriter *w, const tempo_msg *m, const put_args *a);
    tempo_drop_reason (*get)(tempo_bitreader *r, const tempo_codec_ctx *ctx, tempo_msg *m);
    bool (*equal)(const tempo_msg *a, const tempo_msg *b, int input_size);
};

/* Indexed by type; numbers up to PACKET_MAX_TYPE (127) are free to add. */
static const struct codec_type registry[TEMPO_MSG_TYPE_COUNT_] = {
    [TEMPO_MSG_SYNC_REQUEST] = {"sync_request", sync_put, sync_get, sync_equal},
    [TEMPO_MSG_SYNC_REPLY] = {"sync_reply", sync_put, sync_get, sync_equal},
    [TEMPO_MSG_INPUT] = {"input", input_put, input_get, input_equal},
    [TEMPO_MSG_INPUT_ACK] = {"input_ack", input_ack_put, input_ack_get, input_ack_equal},
    [TEMPO_MSG_PING] = {"ping", ping_put, ping_get, ping_equal},
    [TEMPO_MSG_PONG] = {"pong", ping_put, ping_get, ping_equal},
    [TEMPO_MSG_QUALITY] = {"quality", quality_put, quality_get, quality_equal},
    [TEMPO_MSG_CHECKSUM] = {"checksum", checksum_put, checksum_get, checksum_equal},
    [TEMPO_MSG_DISCONNECT] = {"disconnect", empty_put, empty_get, empty_equal},
    [TEMPO_MSG_DESYNC_STATE] = {"desync_state", state_put, state_get, state_equal},
    [TEMPO_MSG_REJOIN_REQUEST] = {"rejoin_request", rejoin_request_put, rejoin_request_get,
                                  rejoin_request_equal},
    [TEMPO_MSG_REJOIN_STATE] = {"rejoin_state", rejoin_state_put, rejoin_state_get, rejoin_state_equal},
    [TEMPO_MSG_REJOIN_FRAME] = {"rejoin_frame", rejoin_frame_put, rejoin_frame_get, rejoin_frame_equal},
    [TEMPO_MSG_REJOIN_REFUSED] = {"rejoin_refused", rejoin_refused_put, rejoin_refused_get,
                                  rejoin_refused_equal},
};

static const struct codec_type *lookup(uint8_t type)
{
    return type < TEMPO_MSG_TYPE_COUNT_ && registry[type].name != NULL ? &registry[type] : NULL;
}

bool tempo_msg_type_known(uint8_t type) { return lookup(type) != NULL; }

/* The server handshake's types: named here, coded in wire/connect.c (no
 * session decodes them, so the registry above does not know them). */
static const char *const connect_names[] = {"connect_request", "challenge",
                                            "challenge_response", "connect_denied"};
/* The client-server types after the handshake: named here, coded in
 * wire/cs_msg.c. */
static const char *const cs_names[] = {"cs_accept", "cs_input", "cs_snapshot", "cs_bye"};

/* The relay's types: named here, coded in relay/relay_msg.c. */
static const char *const relay_names[TEMPO_MSG_RELAY_LAST - TEMPO_MSG_RELAY_FIRST + 1] = {
    "relay_join", "relay_welcome", "relay_input", "relay_frames", "relay_leave"};

const char *tempo_msg_type_name(uint8_t type)
{
    const struct codec_type *t = lookup(type);
    if (type >= CONNECT_TYPE_REQUEST && type <= CONNECT_TYPE_DENIED)
        return connect_names[type - CONNECT_TYPE_REQUEST];
    if (type >= CS_MSG_ACCEPT && type <= CS_MSG_BYE)
        return cs_names[type - CS_MSG_ACCEPT];
    if (turn_msg_name(type) != NULL) /* turn-based lockstep's, coded in wire/turn_msg.c */
        return turn_msg_name(type);
    if (type >= TEMPO_MSG_RELAY_FIRST && type <= TEMPO_MSG_RELAY_LAST)
        return relay_names[type - TEMPO_MSG_RELAY_FIRST] ? relay_names[type - TEMPO_MSG_RELAY_FIRST]
                                                         : "unknown";
    return t != NULL ? t->name : "unknown";
}

static bool emit(const tempo_msg *m, const tempo_codec_ctx *ctx, const input_refs *refs,
                 int count, tempo_codec_run *run, bool held, uint8_t *buf, size_t cap,
                 size_t *size)
{
    const struct codec_type *t = lookup(m->type);
    TEMPO_ASSERT(t != NULL); /* msg_valid checked the type */
    put_args a = {ctx, refs, count, run, held};
    tempo_bitwriter w;
    tempo_bitwriter_init(&w, buf, cap);
    t->put(&w, m, &a);
    *size = tempo_bitwriter_bytes_written(&w);
    return !w.failed;
}

bool tempo_codec_msg_equal(const tempo_msg *a, const tempo_msg *b, int input_size)
{
    if (a->session_id != b->session_id || a->sequence != b->sequence || a->type != b->type)
        return false;
    const struct codec_type *t = lookup(a->type);
    return t == NULL || t->equal(a, b, input_size);
}

/* ---- whole datagrams and bodies ---- */

int tempo_codec_decode_body(uint8_t type, const uint8_t *data, size_t size,
                            const tempo_codec_ctx *ctx, tempo_msg *out, tempo_drop_reason *reason)
{
    tempo_drop_reason unused;
    if (reason == NULL)
        reason = &unused;
    *reason = TEMPO_DROP_NONE;
    if ((data == NULL && size != 0) || out == NULL || (ctx != NULL && !ctx_ok(ctx)))
        return TEMPO_E_INVALID_ARG;
    const struct codec_type *t = lookup(type);
    if (t == NULL)
        *reason = TEMPO_DROP_BAD_TYPE;
    else if (size > FRAG_MAX_PAYLOAD)
        *reason = TEMPO_DROP_TOO_LONG;
    if (*reason != TEMPO_DROP_NONE)
        return TEMPO_E_MALFORMED;
    tempo_bitreader r;
    tempo_bitreader_init(&r, data, size);
    out->type = type;
    *reason = t->get(&r, ctx, out);
    if (*reason == TEMPO_DROP_NONE && !tempo_bitreader_at_end(&r))
        *reason = TEMPO_DROP_TRAILING;
    return *reason == TEMPO_DROP_NONE ? TEMPO_OK : TEMPO_E_MALFORMED;
}

/* The header checks of a plain, whole datagram, in PROTOCOL.md's order. */
static tempo_drop_reason whole_header(const uint8_t *data, size_t size, tempo_packet_view *v)
{
    tempo_drop_reason why;
    if (packet_read(data, size, v, &why) != TEMPO_OK)
        return why;
    if (v->h.sealed)
        return TEMPO_DROP_SEALED;
    if (v->h.fragment)
        return TEMPO_DROP_FRAGMENT;
    if (lookup(v->h.type) == NULL)
        return TEMPO_DROP_BAD_TYPE;
    return TEMPO_DROP_NONE;
}

int tempo_codec_decode(const uint8_t *data, size_t size, const tempo_codec_ctx *ctx,
                       tempo_msg *out, tempo_drop_reason *reason)
{
    tempo_drop_reason unused;
    if (reason == NULL)
        reason = &unused;
    *reason = TEMPO_DROP_NONE;
    if ((data == NULL && size != 0) || out == NULL || (ctx != NULL && !ctx_ok(ctx)))
        return TEMPO_E_INVALID_ARG;
    tempo_packet_view v;
    *reason = whole_header(data, size, &v);
    if (*reason != TEMPO_DROP_NONE)
        return TEMPO_E_MALFORMED;
    out->session_id = v.h.session_id;
    out->sequence = v.h.sequence;
    return tempo_codec_decode_body(v.h.type, data + v.body, v.body_size, ctx, out, reason);
}

int tempo_codec_peek_header(const uint8_t *data, size_t size, uint32_t *session_id,
                            uint16_t *sequence, uint8_t *type, tempo_drop_reason *reason)
{
    tempo_drop_reason unused;
    if (reason == NULL)
        reason = &unused;
    *reason = TEMPO_DROP_NONE;
    if ((data == NULL && size != 0) || session_id == NULL || sequence == NULL || type == NULL)
        return TEMPO_E_INVALID_ARG;
    tempo_packet_view v;
    *reason = whole_header(data, size, &v);
    if (*reason != TEMPO_DROP_NONE)
        return TEMPO_E_MALFORMED;
    *session_id = v.h.session_id;
    *sequence = v.h.sequence;
    *type = v.h.type;
    return TEMPO_OK;
}
