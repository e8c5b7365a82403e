/* SPDX-License-Identifier: MIT */
/*
 * hitscan_net.c — the hitscan match over UDP (hitscan_net.h): the server's
 * and a client's loop around hitscan_match.c's ticks, the clock read here.
 */
#include "hitscan_net.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "platform.h"
#include "tempo/udp.h"

#define TICK_US 16667u

static bool open_udp(int port, tempo_udp **u, tempo_transport *t)
{
    tempo_address bind = tempo_address_ipv4(0, 0, 0, 0, (uint16_t)port);
    tempo_udp_options uo = {.batch_send = true}; /* the server's snapshots: one system call a tick */
    if (tempo_udp_open_ex(&bind, &uo, NULL, u) != TEMPO_OK) {
        fprintf(stderr, "tempo-hitscan: cannot bind UDP port %d\n", port);
        return false;
    }
    *t = tempo_udp_transport(*u);
    return true;
}

/* Before the allocation: the network only; whoever connects is dropped
 * with the reason logged. */
static void turn_away(tempo_server *server, uint64_t now, const char *why)
{
    tempo_server_poll(server, now);
    tempo_server_event ev;
    while (tempo_server_poll_event(server, &ev))
        if (ev.kind == TEMPO_SERVER_CLIENT_CONNECTED) {
            tempo_server_kick(server, ev.client);
            fprintf(stderr, "tempo-hitscan: client %d refused: %s\n", ev.client, why);
        }
}

int hs_net_serve(const hs_net_options *o, volatile sig_atomic_t *signals)
{
    tempo_udp *u;
    tempo_transport t;
    if (!open_udp(o->port, &u, &t))
        return 1;
    static hs_state g;
    hs_judge judge;
    memset(&judge, 0, sizeof judge);
    hs_init(&g, o->ships);
    tempo_server *server = NULL;
    match_host host;
    if (!hs_server_start(&server, &t, o->ships, o->seed) ||
        (o->lagcomp && hs_lagcomp_create(&judge.lc) != TEMPO_OK) ||
        !match_host_start(&host, &o->host)) {
        fprintf(stderr, "tempo-hitscan: the server could not be set up\n");
        tempo_server_destroy(server);
        tempo_udp_close(u);
        return 1;
    }
    bool hosted = o->host.agones || host.has_eg;
    fprintf(stderr, "tempo-hitscan: serving %d ships on port %d for %d s\n", o->ships, o->port,
            o->seconds);
    sig_atomic_t handled = 0;
    uint64_t next = platform_now_us();
    int32_t ticks = 0, want = o->seconds * 60;
    bool had_clients = false, quit = false;
    for (;;) {
        platform_sleep_until_us(next);
        uint64_t now = platform_now_us();
        next = now + TICK_US > next + TICK_US ? now + TICK_US : next + TICK_US;
        if (*signals != handled) {
            handled = *signals;
            match_host_signal(&host, now);
        }
        match_host_update(&host, now);
        const char *refusal = match_host_refusal(&host);
        if (refusal) {
            if (match_host_quit(&host)) {
                quit = true;
                break;
            }
            turn_away(server, now, refusal);
            continue;
        }
        if (hosted ? match_host_cut(&host, now) : *signals != 0)
            break;
        hs_server_tick(server, &g, &judge, now);
        tempo_server_stats st;
        tempo_server_get_stats(server, &st);
        had_clients = had_clients || st.clients > 0;
        if (++ticks >= want || (hosted && had_clients && st.clients == 0))
            break;
    }
    if (!quit) {
        printf("final ticks=%" PRId32 " shots=%" PRIu64 " claims=%" PRIu64 " confirmed=%" PRIu64 "\n",
               ticks, judge.shots, judge.claims, judge.confirmed);
        fflush(stdout);
        for (int c = 0; c < o->ships; c++) /* the match is over: tell them */
            tempo_server_kick(server, c);
        for (int i = 0; i < 3; i++) {
            tempo_server_poll(server, platform_now_us());
            platform_sleep_until_us(platform_now_us() + TICK_US);
        }
    }
    match_host_end(&host, platform_now_us());
    match_host_close(&host);
    tempo_lagcomp_destroy(judge.lc);
    tempo_server_destroy(server);
    tempo_udp_close(u);
    return 0;
}

int hs_net_play(const hs_net_options *o, volatile sig_atomic_t *signals)
{
    tempo_udp *u;
    static hs_client c;
    memset(&c, 0, sizeof c);
    if (!open_udp(0, &u, &c.t))
        return 1;
    uint64_t seed = o->seed ^ platform_now_us();
    if (!hs_client_start(&c, o->ships, seed, (int)(seed % 997u), &o->connect)) {
        fprintf(stderr, "tempo-hitscan: the client could not be set up\n");
        tempo_udp_close(u);
        return 1;
    }
    uint64_t start = platform_now_us();
    uint64_t deadline = start + (uint64_t)(o->seconds + 10) * 1000000u;
    c.next_us = start;
    int32_t played = 0;
    tempo_client_stats cs;
    memset(&cs, 0, sizeof cs);
    for (;;) {
        platform_sleep_until_us(c.next_us);
        uint64_t now = platform_now_us();
        if (c.next_us + 250000u < now)
            c.next_us = now; /* a long hitch: carry on from now */
        hs_client_tick(&c, now);
        tempo_client_get_stats(c.c, &cs);
        played += c.me >= 0 && cs.state == TEMPO_CLIENT_CONNECTED;
        if (cs.state != TEMPO_CLIENT_CONNECTING && cs.state != TEMPO_CLIENT_CONNECTED)
            break;
        if (now >= deadline || *signals)
            break;
    }
    bool ok = played >= 60 && cs.state == TEMPO_CLIENT_DISCONNECTED;
    if (ok)
        printf("played ticks=%" PRId32 " rtt=%.1f ms\n", played, cs.rtt_ms);
    else
        fprintf(stderr, "tempo-hitscan: %s after %" PRId32 " ticks of play\n",
                cs.state == TEMPO_CLIENT_DISCONNECTED ? "the server ended the connection"
                : cs.state == TEMPO_CLIENT_DENIED     ? "refused by the server"
                                                      : "no end of the match",
                played);
    tempo_client_destroy(c.c);
    tempo_interp_destroy(c.ip);
    tempo_udp_close(u);
    return ok ? 0 : 1;
}
