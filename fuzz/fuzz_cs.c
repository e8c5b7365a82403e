/* SPDX-License-Identifier: MIT */
/*
 * fuzz_cs.c — hostile datagrams against a running client-server match.
 *
 * A server and one client (unsealed) talk through an in-memory network
 * until the client plays; from then on the fuzz input adds datagrams: to
 * the server from the client's address (past the address check, into the
 * channel and the input intake) or to the client from the server's
 * address (into snapshots, fragments and deltas). Every chunk is either
 * raw bytes behind a valid header of a client-server type, or raw bytes
 * as they are. Between chunks both sides tick like a game would. Nothing
 * may crash, trip an assert or read out of bounds, and the client's
 * requests must stay within the contract (a LOAD's state of the agreed
 * size, ADVANCE inputs of every player).
 *
 * Input: chunks of [direction][length][bytes...].
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "tempo/tempo.h"
#include "wire/cs_msg.h"
#include "wire/packet.h"

#define QUEUE 64
#define STATE 64

typedef struct box {
    tempo_address from[QUEUE];
    uint8_t data[QUEUE][TEMPO_MAX_DATAGRAM];
    size_t size[QUEUE];
    int head, count;
} box;

typedef struct end {
    box in;
    struct end *peer;
    tempo_address self;
} end;

static void put(box *b, const tempo_address *from, const uint8_t *d, size_t n)
{
    if (b->count == QUEUE || n > TEMPO_MAX_DATAGRAM)
        return;
    int i = (b->head + b->count) % QUEUE;
    b->from[i] = *from;
    memcpy(b->data[i], d, n);
    b->size[i] = n;
    b->count++;
}

static int send_fn(void *ctx, const tempo_address *to, const uint8_t *d, size_t n)
{
    end *e = (end *)ctx;
    (void)to;
    put(&e->peer->in, &e->self, d, n);
    return 0;
}

static int recv_fn(void *ctx, tempo_address *from, uint8_t *buf, size_t cap)
{
    end *e = (end *)ctx;
    if (e->in.count == 0)
        return 0;
    int i = e->in.head;
    e->in.head = (e->in.head + 1) % QUEUE;
    e->in.count--;
    size_t n = e->in.size[i] < cap ? e->in.size[i] : cap;
    memcpy(buf, e->in.data[i], n);
    *from = e->in.from[i];
    return (int)e->in.size[i];
}

static uint8_t server_state[STATE], client_state[STATE];

static void tick(tempo_server *s, tempo_client *c, uint64_t now)
{
    tempo_server_poll(s, now);
    tempo_server_tick t;
    tempo_server_advance(s, &t);
    server_state[t.frame % STATE] ^= t.requests[0].inputs[0];
    if (t.snapshot_due)
        tempo_server_submit_state(s, t.frame, server_state, STATE);
    tempo_client_poll(c, now + 100);
    uint64_t mine = tempo_client_local_players(c);
    uint8_t in[4] = {1, 2, 3, 4};
    for (int p = 0; p < 2; p++)
        if (mine >> p & 1u)
            tempo_client_add_local_input(c, p, in, sizeof in);
    tempo_client_tick k;
    tempo_client_advance(c, &k);
    for (int i = 0; i < k.num_requests; i++) {
        const tempo_request *r = &k.requests[i];
        if (r->kind == TEMPO_REQUEST_LOAD) {
            if (r->state == NULL || r->state_size != STATE)
                abort();
            memcpy(client_state, r->state, STATE);
        } else if (r->kind == TEMPO_REQUEST_ADVANCE) {
            if (r->inputs == NULL || r->status == NULL || r->status[0] > 2 || r->status[1] > 2)
                abort();
            client_state[r->frame % STATE] ^= r->inputs[0];
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static end se, ce;
    memset(&se, 0, sizeof se);
    memset(&ce, 0, sizeof ce);
    se.self = tempo_address_ipv4(10, 0, 0, 1, 1);
    ce.self = tempo_address_ipv4(10, 0, 0, 2, 2);
    se.peer = &ce;
    ce.peer = &se;
    memset(server_state, 0, sizeof server_state);
    tempo_transport st = {send_fn, recv_fn, &se, NULL}, ct = {send_fn, recv_fn, &ce, NULL};
    tempo_server_config sc;
    tempo_server_config_default(&sc);
    sc.max_state_size = STATE;
    sc.random_seed = 1;
    tempo_server *s;
    if (tempo_server_create(&sc, &st, &s) != TEMPO_OK)
        abort();
    tempo_client_config cc;
    tempo_client_config_default(&cc);
    cc.max_state_size = STATE;
    cc.random_seed = 2;
    tempo_client *c;
    if (tempo_client_create(&cc, &ct, &se.self, &c) != TEMPO_OK)
        abort();
    const uint64_t period = 16667;
    uint64_t now = 0;
    for (int i = 0; i < 20; i++, now += period)
        tick(s, c, now);
    while (size >= 3) {
        uint8_t dir = data[0];
        size_t n = (size_t)(data[1] | data[2] << 8) % (TEMPO_MAX_DATAGRAM + 1);
        data += 3, size -= 3;
        if (n > size)
            n = size;
        uint8_t d[TEMPO_MAX_DATAGRAM + PACKET_HEADER_SIZE];
        size_t len = n;
        memcpy(d, data, n);
        if (dir & 2) { /* behind a valid header of a client-server type */
            uint16_t seq = (uint16_t)((n > 0 ? data[0] : 0) | (n > 1 ? data[1] << 8 : 0));
            tempo_packet_header h = {0, seq,
                                     (uint8_t)(CS_MSG_ACCEPT + (dir >> 2) % 4),
                                     (dir & 8) != 0, false};
            len = n + PACKET_HEADER_SIZE > TEMPO_MAX_DATAGRAM ? TEMPO_MAX_DATAGRAM - PACKET_HEADER_SIZE : n;
            packet_write(&h, d, sizeof d);
            memcpy(d + PACKET_HEADER_SIZE, data, len);
            len += PACKET_HEADER_SIZE;
        }
        if (len > 0) {
            if (dir & 1)
                put(&ce.in, &se.self, d, len);
            else
                put(&se.in, &ce.self, d, len);
        }
        data += n, size -= n;
        tick(s, c, now);
        now += period;
    }
    tempo_client_destroy(c);
    tempo_server_destroy(s);
    return 0;
}
