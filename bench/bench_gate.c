/* SPDX-License-Identifier: MIT */
/*
 * bench_gate.c — what the server handshake (net/gate.h) costs the server
 * per datagram, by what the datagram is: the price of each refusal next
 * to the price of an honest request and response, sealed and unsealed.
 *
 * Each row: nanoseconds of CPU per gate_server_on_datagram call, median of
 * RUNS runs of CALLS calls on the same datagram. The row "valid request"
 * is the most a stranger can make the server spend per 1024 bytes it
 * sends (one token opening, one cookie and one challenge sealed).
 */
#include <string.h>

#include "bench_common.h"
#include "net/gate.h"
#include "tempo/base.h"
#include "tempo/secure.h"

#define RUNS 15
#define CALLS 400
#define PROTOCOL 0xBE7C4ull
#define NOW_S 1700000000ull
#define NOW_US 1000000ull

static tempo_address server_addr, client_addr, other_addr;
static uint8_t reply[TEMPO_MAX_DATAGRAM];

static double cost(gate_server *g, const tempo_address *from, const uint8_t *d, size_t n,
                   gate_outcome expect)
{
    double runs[RUNS];
    gate_admit admit;
    size_t reply_size;
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_now();
        for (int i = 0; i < CALLS; i++) {
            gate_outcome o = gate_server_on_datagram(g, NOW_US, NOW_S, from, d, n, reply,
                                                     sizeof reply, &reply_size, &admit);
            if (o != expect) {
                fprintf(stderr, "bench_gate: outcome %d, expected %d\n", (int)o, (int)expect);
                exit(1);
            }
            bench_keep(reply_size);
        }
        runs[r] = (bench_now() - t0) * 1e9 / CALLS;
    }
    seal_keys_wipe(&admit.keys);
    return bench_median(runs, RUNS);
}

static void table(bool sealed)
{
    static const uint8_t backend[TEMPO_KEY_SIZE] = {1, 2, 3};
    static const uint8_t cookie_key[TEMPO_KEY_SIZE] = {4, 5, 6};
    gate_server g;
    gate_server_config sc;
    memset(&sc, 0, sizeof sc);
    sc.protocol_id = PROTOCOL;
    sc.has_private_key = sealed;
    memcpy(sc.private_key, backend, TEMPO_KEY_SIZE);
    sc.self = server_addr;
    if (gate_server_init(&g, &sc, cookie_key) != TEMPO_OK)
        exit(1);
    uint8_t token[TEMPO_TOKEN_SIZE], expired[TEMPO_TOKEN_SIZE], forged[TEMPO_TOKEN_SIZE];
    if (sealed) {
        if (tempo_token_create(backend, PROTOCOL, 7, NOW_S + 60, NOW_S - 1, &server_addr, 1,
                               NULL, token) != TEMPO_OK ||
            tempo_token_create(backend, PROTOCOL, 7, NOW_S, NOW_S - 1, &server_addr, 1, NULL,
                               expired) != TEMPO_OK)
            exit(1);
        memcpy(forged, token, sizeof forged);
        forged[100] ^= 1;
    }
    gate_client c;
    gate_client_config cc;
    memset(&cc, 0, sizeof cc);
    cc.protocol_id = PROTOCOL;
    cc.token = sealed ? token : NULL;
    cc.nonce = 99;
    cc.server = server_addr;
    cc.slots = 1;
    if (gate_client_init(&c, &cc, NOW_US) != TEMPO_OK)
        exit(1);
    uint8_t req[TEMPO_MAX_DATAGRAM], resp[TEMPO_MAX_DATAGRAM], junk[64] = {0};
    int nreq = gate_client_write(&c, NOW_US, req, sizeof req);
    gate_admit admit;
    size_t n;
    if (nreq <= 0 || gate_server_on_datagram(&g, NOW_US, NOW_S, &client_addr, req, (size_t)nreq,
                                             reply, sizeof reply, &n, &admit) != GATE_REPLY ||
        gate_client_on_datagram(&c, NOW_US, &server_addr, reply, n) != GATE_CLIENT_CHALLENGED)
        exit(1);
    int nresp = gate_client_write(&c, NOW_US, resp, sizeof resp);
    if (nresp <= 0)
        exit(1);

    printf("\n%s mode\n\n| datagram | bytes | outcome | ns per call |\n|---|---|---|---|\n",
           sealed ? "sealed" : "unsealed");
    printf("| not tempo (byte 0 wrong) | 64 | ignored | %.0f |\n",
           cost(&g, &client_addr, junk, sizeof junk, GATE_IGNORED));
    printf("| request, one byte short | %d | ignored | %.0f |\n", nreq - 1,
           cost(&g, &client_addr, req, (size_t)nreq - 1, GATE_IGNORED));
    if (sealed) {
        uint8_t r2[CONNECT_REQUEST_SIZE];
        connect_request_write(r2, PROTOCOL, 1, expired, 0);
        printf("| request, expired token | %d | ignored | %.0f |\n", CONNECT_REQUEST_SIZE,
               cost(&g, &client_addr, r2, sizeof r2, GATE_IGNORED));
        connect_request_write(r2, PROTOCOL, 1, forged, 0);
        printf("| request, altered token | %d | ignored | %.0f |\n", CONNECT_REQUEST_SIZE,
               cost(&g, &client_addr, r2, sizeof r2, GATE_IGNORED));
    }
    printf("| valid request | %d | challenge (%zu bytes) | %.0f |\n", nreq, n,
           cost(&g, &client_addr, req, (size_t)nreq, GATE_REPLY));
    printf("| response from another address | %d | ignored | %.0f |\n", nresp,
           cost(&g, &other_addr, resp, (size_t)nresp, GATE_IGNORED));
    printf("| valid response | %d | admit | %.0f |\n", nresp,
           cost(&g, &client_addr, resp, (size_t)nresp, GATE_ADMIT));
    gate_client_wipe(&c);
    gate_server_wipe(&g);
}

int main(void)
{
    printf("## bench_gate (tempo %s)\n\n", tempo_version_string());
    bench_machine_line();
    server_addr = tempo_address_ipv4(10, 0, 0, 1, 40000);
    client_addr = tempo_address_ipv4(10, 0, 0, 2, 50000);
    other_addr = tempo_address_ipv4(10, 0, 0, 3, 50000);
    printf("CPU per gate_server_on_datagram call (median of %d runs of %d calls)\n", RUNS, CALLS);
    table(false);
    if (tempo_secure_available())
        table(true);
    else
        printf("\nbuilt without libsodium: no sealed mode\n");
    return 0;
}
