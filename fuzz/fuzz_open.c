/* SPDX-License-Identifier: MIT */
/*
 * fuzz_open.c — the opener of sealed datagrams against arbitrary bytes, in
 * two halves chosen by the input's length (odd or even), so any corpus
 * exercises both.
 *
 * Known key (odd lengths): the fuzzer holds the link's keys, as a test may
 * (seal_keys_set with fixed keys: no path of the library hands keys out),
 * so it seals the input itself first. The input is taken as a plain
 * datagram (its byte 0 made the plain protocol byte, its length cut to what
 * a sealed datagram can carry), sealed under the sequence its header bits
 * recover to, and then:
 *   - the sealed datagram opens to exactly the input again;
 *   - the same datagram with one bit flipped (which bit: from the input)
 *     refuses to open;
 *   - the opened body goes to the message decoder, as a receiver would
 *     hand it on, so the fuzzer reaches the decoding behind the seal: a
 *     refusal has a reason.
 * Unknown key (even lengths): the input is a received datagram opened
 * under keys drawn from a hash of the input (so no input can know them):
 * a refusal has a reason from the opener's list, an accepted one has the
 * tag's 16 bytes taken off, and nothing is read outside the datagram.
 * Built without libsodium there is nothing to open: every call is
 * TEMPO_E_UNSUPPORTED, and that is checked instead.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_codec_ctx.h"
#include "fuzz_target.h"
#include "wire/codec.h"
#include "wire/packet.h"
#include "wire/seal.h"

static const uint8_t KEY_UP[SEAL_KEY_SIZE] = "fuzz_open: the client's 32 key.";
static const uint8_t KEY_DOWN[SEAL_KEY_SIZE] = "fuzz_open: the server's 32 key.";

/* The sequence a receiver that accepted up to `highest` recovers. */
static uint64_t recover(const uint8_t *d, uint64_t highest)
{
    return packet_sequence_recover((uint16_t)(d[5] | d[6] << 8), highest);
}

static uint64_t fnv1a(const uint8_t *d, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ d[i]) * 0x100000001b3ull;
    return h;
}

static void decode_body(const uint8_t *opened, size_t size)
{
    /* the plain form of the opened datagram: header with S clear, body */
    static uint8_t plain[TEMPO_MAX_DATAGRAM];
    memcpy(plain, opened, size);
    plain[0] = packet_protocol_byte(false);
    tempo_codec_ctx ctx;
    fuzz_codec_ctx((int)(size % FUZZ_CODEC_CTX_COUNT), &ctx);
    static tempo_msg msg;
    tempo_drop_reason why = TEMPO_DROP_REASON_COUNT_;
    int rc = tempo_codec_decode(plain, size, &ctx, &msg, &why);
    if (rc != TEMPO_OK && (rc != TEMPO_E_MALFORMED || why <= TEMPO_DROP_NONE ||
                           why >= TEMPO_DROP_REASON_COUNT_))
        abort();
}

static void known_key(const uint8_t *data, size_t size, const wire_keys *client,
                      const wire_keys *server)
{
    if (size < PACKET_HEADER_SIZE)
        return;
    if (size > PACKET_HEADER_SIZE + PACKET_MAX_SEALED_BODY)
        size = PACKET_HEADER_SIZE + PACKET_MAX_SEALED_BODY;
    static uint8_t orig[TEMPO_MAX_DATAGRAM], buf[TEMPO_MAX_DATAGRAM], flipped[TEMPO_MAX_DATAGRAM];
    memcpy(orig, data, size);
    orig[0] = packet_protocol_byte(false);
    uint64_t seq = recover(orig, fnv1a(data, size) >> 20); /* anywhere in 2^44 */
    memcpy(buf, orig, size);
    int sealed = seal_datagram(client, seq, buf, size, sizeof buf);
    if (sealed != (int)(size + SEAL_TAG_SIZE))
        abort();
    memcpy(flipped, buf, (size_t)sealed);

    tempo_drop_reason why = TEMPO_DROP_REASON_COUNT_;
    if (seal_open(server, seq, buf, (size_t)sealed, &why) != (int)size || why != TEMPO_DROP_NONE ||
        buf[0] != packet_protocol_byte(true) || memcmp(buf + 1, orig + 1, size - 1) != 0)
        abort();
    decode_body(buf, size);

    /* one bit flipped: past byte 0 (which would make it unsealed or foreign) */
    size_t bit = 8 + (size_t)(fnv1a(data, size) % (((size_t)sealed - 1) * 8));
    flipped[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    int rc = seal_open(server, recover(flipped, seq), flipped, (size_t)sealed, &why);
    if (rc != TEMPO_E_MALFORMED || why != TEMPO_DROP_FORGED)
        abort();
}

static void unknown_key(const uint8_t *data, size_t size)
{
    uint8_t k1[SEAL_KEY_SIZE], k2[SEAL_KEY_SIZE];
    uint64_t h = fnv1a(data, size);
    for (int i = 0; i < SEAL_KEY_SIZE; i++) {
        h = h * 6364136223846793005ull + 1442695040888963407ull;
        k1[i] = (uint8_t)(h >> 56);
        k2[i] = (uint8_t)(h >> 48);
    }
    wire_keys k;
    if (seal_keys_set(&k, k1, k2, (uint8_t)(size / 2 % 2)) != 0)
        abort();
    static uint8_t buf[TEMPO_MAX_DATAGRAM + 64];
    size_t n = size < sizeof buf ? size : sizeof buf;
    if (n > 0) /* an empty input may come as NULL */
        memcpy(buf, data, n);
    uint64_t seq = n >= PACKET_HEADER_SIZE ? recover(buf, h >> 24) : 0;
    tempo_drop_reason why = TEMPO_DROP_REASON_COUNT_;
    int rc = seal_open(&k, seq, buf, n, &why);
    if (rc >= 0) {
        if ((size_t)rc != n - SEAL_TAG_SIZE || why != TEMPO_DROP_NONE)
            abort();
    } else if (rc == TEMPO_E_MALFORMED) {
        if (why != TEMPO_DROP_TOO_SHORT && why != TEMPO_DROP_TOO_LONG && why != TEMPO_DROP_FORGED)
            abort();
    } else if (rc != TEMPO_E_INVALID_ARG) {
        abort(); /* an unsealed byte 0 or bits that disagree: nothing else */
    }
    seal_keys_wipe(&k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wire_keys client, server;
    if (seal_keys_set(&client, KEY_UP, KEY_DOWN, SEAL_DIRECTION_LOW) != 0 ||
        seal_keys_set(&server, KEY_DOWN, KEY_UP, SEAL_DIRECTION_HIGH) != 0) {
        if (seal_available())
            abort();
        return 0; /* built without libsodium: the refusal is the whole story */
    }
    if (size % 2 == 1)
        known_key(data, size, &client, &server);
    else
        unknown_key(data, size);
    return 0;
}
