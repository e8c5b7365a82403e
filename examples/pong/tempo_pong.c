/* SPDX-License-Identifier: MIT */
/*
 * tempo_pong.c — tempo-pong: Pong over tempo's client-server role, one
 * process per machine, headless.
 *
 *   tempo-pong --server --port P [--players N] [--frames N] [--private-key-file F]
 *              [--agones | --no-agones] [--drain-seconds S]
 *   tempo-pong --client --connect HOST:PORT [--bot] [--frames N] [--token-file F]
 *              [--reconcile replay|none|dumb]
 *   tempo-pong --local [--frames N]
 *
 * (tempo-pong --help lists every option; docs/PONG.md shows matches.)
 * The server ticks at 60 Hz of the real clock, catching up after a hitch;
 * a client ticks when its client says the next tick is due
 * (tempo_client_next_tick_at).
 * With --frames N each prints, on stdout,
 *
 *   final tick=<N> checksum=<16 hex digits>
 *
 * the checksum of the state after the server's tick N - 1 (pong_app.h
 * says why every process of a match prints the same line), then one
 * "stats ..." line. The server then keeps ticking with the match over
 * until every client has acknowledged a snapshot of tick N or later (at
 * most LINGER_US), so none waits for the final state in vain. Without
 * --frames they play until Ctrl-C (a client: until the server goes) and
 * print the newest state they have. --local runs bots on every paddle
 * with no network, as fast as it computes. Progress goes to
 * stderr. Under Agones (--agones, the default when AGONES_SDK_HTTP_PORT is
 * set) or Edgegap the server hosts one match (match_host.h,
 * docs/DEPLOY.md): Ready, Allocated, the match, Shutdown; without
 * --frames its match ends when its players have gone.
 * Exit codes: 0 done, 1 runtime error or timeout, 2 usage error.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "agones.h"
#include "match_host.h"
#include "platform.h"
#include "pong_app.h"

#define PROGRAM "tempo-pong"
#define TICK_US 16667u           /* 60 Hz */
#define MAX_BEHIND_US 250000u    /* further behind than this: drop the time */
#define LINGER_US 3000000u       /* the server waits this long for final acks */

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = interrupted + 1; /* counted: a hosted server drains on the first */
}

static void print_final(int32_t tick, uint64_t checksum)
{
    printf("final tick=%" PRId32 " checksum=%016" PRIx64 "\n", tick, checksum);
    fflush(stdout);
}

static int run_local(const pong_options *o)
{
    static pong_state game;
    pong_init(&game, o->players, o->seed);
    uint8_t in[PONG_MAX_PLAYERS] = {0};
    for (int f = 0; f < o->frames && !interrupted; f++) {
        for (int p = 0; p < o->players; p++)
            in[p] = pong_bot_input(&game, p, o->seed);
        pong_step(&game, in, NULL);
    }
    int hits = 0, misses = 0;
    for (int p = 0; p < o->players; p++) {
        hits += game.paddles[p].hits;
        misses += game.paddles[p].misses;
    }
    print_final((int32_t)game.frame, pong_checksum(&game));
    printf("stats score=%u:%u returns=%d misses=%d longest_rally=%" PRIu32 "\n",
           game.score[PONG_LEFT], game.score[PONG_RIGHT], hits, misses, game.longest_rally);
    return 0;
}

/* Whether the match must stop now: a signal, or for a hosted server
 * (match_host.h) a second one, the drain bound, a Shutdown. */
static bool must_stop(match_host *host, bool hosted, sig_atomic_t *handled, uint64_t now)
{
    if (interrupted != *handled) {
        *handled = interrupted;
        match_host_signal(host, now);
    }
    match_host_update(host, now);
    return hosted ? match_host_cut(host, now) : interrupted != 0;
}

static int run_server(const pong_options *o)
{
    match_host_config hc = {PROGRAM, false, 0, o->drain_seconds};
    if (!agones_choose(o->agones, o->no_agones, PROGRAM, &hc.agones, &hc.agones_port))
        return 2;
    static pong_server ps;
    if (!pong_server_open(&ps, o, PROGRAM))
        return 1;
    match_host host;
    if (!match_host_start(&host, &hc)) {
        pong_server_close(&ps);
        return 1;
    }
    bool hosted = hc.agones || host.has_eg;
    sig_atomic_t handled = 0;
    uint64_t next = platform_now_us();
    /* Under Agones no tick runs before the allocation: players who come
     * are refused, with the reason in the log. */
    while ((ps.refuse = match_host_refusal(&host)) != NULL) {
        platform_sleep_until_us(next);
        uint64_t now = platform_now_us();
        next = now + TICK_US;
        must_stop(&host, hosted, &handled, now);
        if (match_host_quit(&host)) {
            match_host_end(&host, now);
            match_host_close(&host);
            pong_server_close(&ps);
            return 0;
        }
        pong_server_wait(&ps, now);
    }
    bool had_clients = false;
    while (o->frames == 0 || ps.tick < o->frames) {
        platform_sleep_until_us(next);
        uint64_t now = platform_now_us();
        if (now > next + MAX_BEHIND_US)
            next = now; /* a long hitch: carry on from now rather than race */
        next += TICK_US;
        if (must_stop(&host, hosted, &handled, now))
            break;
        pong_server_tick(&ps, now);
        /* hosted without --frames: the match ends when its players have gone */
        tempo_server_stats st;
        tempo_server_get_stats(ps.server, &st);
        had_clients = had_clients || st.clients > 0;
        if (hosted && o->frames == 0 && had_clients && st.clients == 0)
            break;
    }
    print_final(ps.tick, pong_checksum(&ps.game));
    /* The match is over; tick on (the state stays that of the final tick)
     * until every client has acknowledged a snapshot of it. */
    if (o->frames > 0) {
        uint64_t until = platform_now_us() + LINGER_US;
        while (!pong_server_all_acked(&ps, o->frames)) {
            platform_sleep_until_us(next);
            uint64_t now = platform_now_us();
            if (now >= until || must_stop(&host, hosted, &handled, now))
                break;
            next += TICK_US;
            pong_server_tick(&ps, now);
        }
    }
    pong_server_print_stats(&ps, stdout);
    match_host_end(&host, platform_now_us());
    match_host_close(&host);
    pong_server_close(&ps);
    return 0;
}

static int run_client(const pong_options *o)
{
    static pong_client pc;
    if (!pong_client_open(&pc, o, PROGRAM))
        return 1;
    const uint64_t start = platform_now_us();
    const uint64_t deadline = start + (uint64_t)o->timeout_s * 1000000u;
    uint64_t next = start;
    bool played = false, failed = false;
    for (;;) {
        platform_sleep_until_us(next);
        uint64_t now = platform_now_us();
        tempo_client_state state = pong_client_tick(&pc, now, 0);
        played = played || pc.placed_tick >= 0;
        if (pc.have_final || interrupted)
            break;
        if (state == TEMPO_CLIENT_DENIED || state == TEMPO_CLIENT_TIMED_OUT ||
            state == TEMPO_CLIENT_DISCONNECTED) {
            /* Without --frames a server that said goodbye ends the game
             * well; one that fell silent, or never took us, is a failure. */
            failed = o->frames > 0 || !played || state != TEMPO_CLIENT_DISCONNECTED;
            if (o->frames > 0 && played)
                fprintf(stderr, "%s: the connection ended before tick %d (newest %" PRId32 ")\n",
                        PROGRAM, o->frames, pc.placed_tick);
            break;
        }
        if (pc.wrong_final) {
            fprintf(stderr, "%s: the server's state at tick %" PRId32 " is not that of tick %d: "
                            "is its --frames %d?\n",
                    PROGRAM, pc.placed_tick, o->frames, o->frames);
            failed = true;
            break;
        }
        if (o->frames > 0 && now >= deadline) {
            char why[320];
            pong_client_not_admitted(&pc, why, sizeof why);
            if (state == TEMPO_CLIENT_CONNECTING)
                fprintf(stderr, "%s: timed out after %d s, not admitted: %s\n", PROGRAM,
                        o->timeout_s, why);
            else
                fprintf(stderr, "%s: timed out after %d s: no snapshot of tick %d (newest %" PRId32
                                ")\n",
                        PROGRAM, o->timeout_s, o->frames, pc.placed_tick);
            failed = true;
            break;
        }
        next = pong_client_next_tick_at(&pc);
    }
    if (!failed) {
        if (pc.have_final)
            print_final(pc.final_tick, pc.final_checksum);
        else
            print_final(pc.placed_tick, pc.placed_checksum);
        pong_client_print_stats(&pc, stdout);
    }
    pong_client_close(&pc, platform_now_us());
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    pong_options o;
    pong_options_result pr = pong_options_parse(PONG_PROGRAM_HEADLESS, argc, argv, &o);
    if (pr != PONG_OPTIONS_RUN)
        return pr == PONG_OPTIONS_HELP ? 0 : 2;
    platform_on_interrupt(on_interrupt);
    switch (o.mode) {
    case PONG_MODE_SERVER:
        return run_server(&o);
    case PONG_MODE_CLIENT:
        return run_client(&o);
    case PONG_MODE_LOCAL:
        return run_local(&o);
    }
    return 2;
}
