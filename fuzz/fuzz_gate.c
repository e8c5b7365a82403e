/* SPDX-License-Identifier: MIT */
/*
 * fuzz_gate.c — the connect handshake (net/gate.h) against arbitrary
 * bytes, both sides, both modes.
 *
 * Once per process an honest handshake is run (sealed when the build has
 * libsodium, and unsealed) and its messages kept: the request, the
 * challenge, the response and a denial. An input's first byte picks a
 * mode, a message and a target (server or client); the rest of the input
 * is XORed over that message from a position the second byte picks (and
 * one second byte in 16 sends it from another address), or,
 * for one choice in eight, taken whole as the datagram. Then:
 *   - the server never replies with more bytes than it got, and a reply
 *     is a challenge of the mode's exact size;
 *   - the server admits only the honest response, byte for byte, and
 *     only from the address the cookie was made for;
 *   - a sealed client takes a challenge or a denial only if it is the
 *     honest one, byte for byte; either client stays in a known state;
 *   - nothing is read outside the datagram (ASan) and nothing allocated
 *     (the gate has no allocator).
 * The token's keys are drawn at random when the process starts, so an
 * input replays the same checks but not the same ciphertexts.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "net/gate.h"
#include "tempo/secure.h"
#include "wire/connect.h"

#define PROTOCOL 0x6761746566757a7aull
#define NOW_US 1000000ull
#define NOW_S 1800000000ull

typedef struct msg {
    uint8_t b[TEMPO_MAX_DATAGRAM];
    size_t n;
} msg;

typedef struct mode_state {
    bool ready;
    gate_server server;
    gate_client requesting, responding;
    msg m[4]; /* request, challenge, response, denial */
} mode_state;

static mode_state modes[2]; /* [0] unsealed, [1] sealed */
static tempo_address server_addr, client_addr;

static void must(bool ok)
{
    if (!ok)
        abort();
}

static void setup(mode_state *s, bool sealed)
{
    static const uint8_t backend[TEMPO_KEY_SIZE] = "fuzz_gate: the backend's key...";
    static const uint8_t cookie[TEMPO_KEY_SIZE] = "fuzz_gate: the cookie key......";
    uint8_t token[TEMPO_TOKEN_SIZE];
    gate_server_config sc;
    memset(&sc, 0, sizeof sc);
    sc.protocol_id = PROTOCOL;
    sc.has_private_key = sealed;
    memcpy(sc.private_key, backend, TEMPO_KEY_SIZE);
    sc.self = server_addr;
    must(gate_server_init(&s->server, &sc, cookie) == TEMPO_OK);
    if (sealed)
        must(tempo_token_create(backend, PROTOCOL, 42, NOW_S + 60, NOW_S, &server_addr, 1, NULL,
                                token) == TEMPO_OK);
    gate_client_config cc;
    memset(&cc, 0, sizeof cc);
    cc.protocol_id = PROTOCOL;
    cc.token = sealed ? token : NULL;
    cc.nonce = 0x5EED;
    cc.server = server_addr;
    cc.slots = 1;
    must(gate_client_init(&s->requesting, &cc, NOW_US) == TEMPO_OK);

    gate_server srv = s->server;
    gate_client cl = s->requesting;
    gate_admit admit;
    int n = gate_client_write(&cl, NOW_US, s->m[0].b, sizeof s->m[0].b);
    must(n > 0);
    s->m[0].n = (size_t)n;
    must(gate_server_on_datagram(&srv, NOW_US, NOW_S, &client_addr, s->m[0].b, s->m[0].n,
                                 s->m[1].b, sizeof s->m[1].b, &s->m[1].n, &admit) == GATE_REPLY);
    must(gate_client_on_datagram(&cl, NOW_US, &server_addr, s->m[1].b, s->m[1].n) ==
         GATE_CLIENT_CHALLENGED);
    s->responding = cl;
    n = gate_client_write(&cl, NOW_US, s->m[2].b, sizeof s->m[2].b);
    must(n > 0);
    s->m[2].n = (size_t)n;
    size_t none;
    must(gate_server_on_datagram(&srv, NOW_US, NOW_S, &client_addr, s->m[2].b, s->m[2].n,
                                 s->m[3].b, sizeof s->m[3].b, &none, &admit) == GATE_ADMIT);
    n = gate_server_deny(&srv, &admit, s->m[3].b, sizeof s->m[3].b);
    must(n > 0);
    s->m[3].n = (size_t)n;
    seal_keys_wipe(&admit.keys);
    s->server.reply_sequence = srv.reply_sequence; /* later replies stay newer */
    s->ready = true;
}

static void to_server(mode_state *s, bool sealed, const msg *d, bool elsewhere)
{
    gate_server g = s->server;
    static uint8_t reply[TEMPO_MAX_DATAGRAM];
    size_t reply_size = 7;
    gate_admit admit;
    const tempo_address *from = elsewhere ? &server_addr : &client_addr;
    gate_outcome o = gate_server_on_datagram(&g, NOW_US + 1, NOW_S, from, d->b, d->n, reply,
                                             sizeof reply, &reply_size, &admit);
    switch (o) {
    case GATE_IGNORED: must(reply_size == 0); break;
    case GATE_REPLY:
        must(reply_size <= d->n);
        must(reply_size == (sealed ? CONNECT_CHALLENGE_SEALED_SIZE : CONNECT_CHALLENGE_PLAIN_SIZE));
        break;
    case GATE_ADMIT:
        must(reply_size == 0 && from == &client_addr);
        must(d->n == s->m[2].n && memcmp(d->b, s->m[2].b, d->n) == 0);
        seal_keys_wipe(&admit.keys);
        break;
    default: abort();
    }
}

static void to_client(mode_state *s, bool sealed, const msg *d, bool responding)
{
    gate_client c = responding ? s->responding : s->requesting;
    gate_client_event e = gate_client_on_datagram(&c, NOW_US + 1, &server_addr, d->b, d->n);
    if (e == GATE_CLIENT_NOTHING)
        return;
    if (sealed) /* only the honest bytes are taken (the challenge only when new) */
        must((e == GATE_CLIENT_CHALLENGED && !responding && d->n == s->m[1].n &&
              memcmp(d->b, s->m[1].b, d->n) == 0) ||
             (e == GATE_CLIENT_GOT_DENIED && responding && d->n == s->m[3].n &&
              memcmp(d->b, s->m[3].b, d->n) == 0));
    if (e == GATE_CLIENT_CHALLENGED)
        must(c.state == GATE_CLIENT_RESPONDING);
    else
        must(e == GATE_CLIENT_GOT_DENIED && c.state == GATE_CLIENT_DENIED);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!modes[0].ready) {
        server_addr = tempo_address_ipv4(10, 1, 2, 3, 4000);
        client_addr = tempo_address_ipv4(10, 9, 8, 7, 6000);
        setup(&modes[0], false);
        if (tempo_secure_available())
            setup(&modes[1], true);
    }
    if (size < 2)
        return 0;
    uint8_t pick = data[0];
    bool sealed = (pick & 1u) && modes[1].ready;
    mode_state *s = &modes[sealed];
    int which = (pick >> 1) & 3;
    bool whole = ((pick >> 3) & 7) == 0;
    static msg d;
    if (whole) {
        d.n = size - 1 < sizeof d.b ? size - 1 : sizeof d.b;
        memcpy(d.b, data + 1, d.n);
    } else {
        d = s->m[which];
        size_t at = data[1] % (d.n + 1);
        for (size_t i = 2; i < size && at < sizeof d.b; i++, at++)
            d.b[at] ^= data[i];
        if (at > d.n && (pick & 0x80u))
            d.n = at; /* sometimes longer */
    }
    if (pick & 0x40u)
        to_server(s, sealed, &d, data[1] >= 0xF0); /* one in 16 from another address */
    else
        to_client(s, sealed, &d, (pick & 0x20u) != 0);
    return 0;
}
