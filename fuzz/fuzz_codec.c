/* SPDX-License-Identifier: MIT */
/*
 * fuzz_codec.c — the decoder against arbitrary datagrams, under each receiver
 * context of fuzz_codec_ctx.h.
 *
 * Properties (abort when broken): a rejected datagram has a reason; the
 * header peek agrees with the decode; an accepted datagram is a valid
 * message: it re-encodes, no longer than it came (the encoder's forms are
 * the shortest), and decodes back to the same message.
 */
#include <stdlib.h>

#include "fuzz_codec_ctx.h"
#include "fuzz_target.h"

static void check(const uint8_t *data, size_t size, const tempo_codec_ctx *ctx, tempo_msg *a,
                  tempo_msg *b)
{
    tempo_drop_reason why = TEMPO_DROP_REASON_COUNT_;
    int rc = tempo_codec_decode(data, size, ctx, a, &why);
    if (rc != TEMPO_OK) {
        if (rc != TEMPO_E_MALFORMED || why <= TEMPO_DROP_NONE || why >= TEMPO_DROP_REASON_COUNT_)
            abort();
        return;
    }
    uint32_t session;
    uint16_t sequence;
    uint8_t type;
    if (why != TEMPO_DROP_NONE ||
        tempo_codec_peek_header(data, size, &session, &sequence, &type, NULL) != TEMPO_OK ||
        session != a->session_id || sequence != a->sequence || type != a->type)
        abort();
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    int n = tempo_codec_encode(a, ctx, buf, sizeof buf);
    if (n <= 0 || (size_t)n > size)
        abort();
    if (tempo_codec_decode(buf, (size_t)n, ctx, b, NULL) != TEMPO_OK ||
        !tempo_codec_msg_equal(a, b, ctx != NULL ? ctx->input_size : 1))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tempo_msg *m = malloc(2 * sizeof *m); /* ~32 KB each: not on the stack */
    if (m == NULL)
        return 0;
    for (int c = 0; c < FUZZ_CODEC_CTX_COUNT; c++) {
        tempo_codec_ctx ctx;
        fuzz_codec_ctx(c, &ctx);
        check(data, size, &ctx, &m[0], &m[1]);
    }
    check(data, size, NULL, &m[0], &m[1]); /* a receiver expecting no INPUT */
    free(m);
    return 0;
}
