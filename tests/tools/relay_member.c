/* SPDX-License-Identifier: MIT */
/*
 * relay_member.c — one member of a rollback match through tempo-relay
 * over real UDP, for the tests that run the relay as a program
 * (tests/agones.sh): the toy game (tests/support/toy.h) at 60 frames a
 * second of the real clock, its own player's inputs from toy_true_input.
 *
 *   relay-member RELAY_HOST:PORT MATCH PLAYER PLAYERS FRAMES [TIMEOUT_S]
 *
 * Once frames 0..FRAMES-1 are confirmed it prints
 *
 *   final frame=FRAMES checksum=<16 hex digits> desyncs=D substituted=S
 *
 * (the toy state after frame FRAMES - 1: every member of a match prints
 * the same checksum), leaves the match and exits 0. Exit 3: the relay
 * refused it (the session ended before its match started); 1: anything
 * else (timed out, ended mid-match); 2: usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "tempo/relay.h"
#include "tempo/udp.h"
#include "toy.h"

#define TICK_US 16667u

static long arg(const char *s, long lo, long hi)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < lo || v > hi) {
        fprintf(stderr, "relay-member: %s: want %ld..%ld\n", s, lo, hi);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 6 || argc > 7) {
        fprintf(stderr, "usage: relay-member RELAY_HOST:PORT MATCH PLAYER PLAYERS FRAMES "
                        "[TIMEOUT_S]\n");
        return 2;
    }
    tempo_address relay;
    char why[128];
    if (!platform_resolve(argv[1], TEMPO_ADDRESS_IPV4, &relay, why, sizeof why)) {
        fprintf(stderr, "relay-member: %s: %s\n", argv[1], why);
        return 2;
    }
    uint64_t match = (uint64_t)arg(argv[2], 1, 1000000);
    int players = (int)arg(argv[4], 1, TEMPO_MAX_PLAYERS);
    int player = (int)arg(argv[3], 0, players - 1);
    int32_t frames = (int32_t)arg(argv[5], 1, TOY_MAX_FRAMES - 64);
    long timeout_s = argc == 7 ? arg(argv[6], 1, 3600) : 60;

    tempo_address any = tempo_address_ipv4(0, 0, 0, 0, 0);
    tempo_udp *u;
    if (tempo_udp_open(&any, NULL, &u) != TEMPO_OK) {
        fprintf(stderr, "relay-member: cannot open a UDP socket\n");
        return 1;
    }
    tempo_transport tr = tempo_udp_transport(u);
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = players;
    cfg.input_size = 4;
    cfg.max_prediction = 16;
    cfg.desync_interval = 30;
    cfg.session_id = (uint32_t)match;
    cfg.random_seed = platform_now_us() ^ (uint64_t)player << 40;
    tempo_session *s;
    if (tempo_session_create_relay_member(&cfg, &tr, &relay, NULL, &s) != TEMPO_OK ||
        tempo_session_add_local_player(s, player) != TEMPO_OK) {
        fprintf(stderr, "relay-member: cannot create the session\n");
        return 1;
    }
    static toy_driver d;
    toy_driver_init(&d, players, cfg.input_size);
    uint64_t start = platform_now_us(), next = start;
    uint64_t deadline = start + (uint64_t)timeout_s * 1000000u;
    int32_t sample = 0;
    bool running = false;
    int rc = 1;
    for (;;) {
        platform_sleep_until_us(next);
        uint64_t now = platform_now_us();
        next += TICK_US;
        if (next < now)
            next = now + TICK_US;
        tempo_session_poll(s, now);
        uint8_t in[TEMPO_MAX_INPUT_SIZE];
        toy_true_input(match, player, sample++, in, cfg.input_size);
        tempo_session_add_local_input(s, player, in, (size_t)cfg.input_size);
        tempo_tick t;
        tempo_session_advance(s, &t);
        toy_driver_run(&d, s);
        tempo_event ev;
        while (tempo_session_poll_event(s, &ev) > 0)
            running = running || ev.kind == TEMPO_EVENT_RUNNING;
        tempo_session_state st;
        tempo_session_get_state(s, &st);
        if (tempo_session_confirmed_frame(s) >= frames) { /* frames 0..frames-1 are final */
            tempo_session_stats ss;
            tempo_session_get_stats(s, &ss);
            tempo_relay_member_info mi;
            tempo_session_relay_info(s, &mi);
            uint64_t sub = 0;
            for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
                sub += mi.substituted[p];
            printf("final frame=%" PRId32 " checksum=%016" PRIx64 " desyncs=%" PRIu64
                   " substituted=%" PRIu64 "\n",
                   frames, d.hash_after[frames - 1], ss.desyncs, sub);
            rc = d.errors ? 1 : 0;
            break;
        }
        if (st == TEMPO_SESSION_ENDED) {
            fprintf(stderr, "relay-member: match %" PRIu64 " player %d: %s\n", match, player,
                    running ? "the session ended mid-match" : "refused by the relay");
            rc = running ? 1 : 3;
            break;
        }
        if (now >= deadline) {
            fprintf(stderr, "relay-member: timed out at frame %" PRId32 " (confirmed %" PRId32 ")\n",
                    tempo_session_frame(s), tempo_session_confirmed_frame(s));
            break;
        }
    }
    fflush(stdout);
    /* say goodbye so the relay frees the match at once */
    if (tempo_session_leave(s) == TEMPO_OK)
        for (int i = 0; i < 10; i++) {
            platform_sleep_until_us(platform_now_us() + 10000u);
            tempo_session_poll(s, platform_now_us());
        }
    tempo_session_destroy(s);
    tempo_udp_close(u);
    return rc;
}
