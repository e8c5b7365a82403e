/*
 * tempo_arena.c — one arena peer per process over real UDP, played by bots.
 *
 *   tempo-arena --headless --players N --player I[,J...] --port P
 *               --peer I=host:port [--peer ...] --frames F --seed S
 *               [--input-delay D | --auto-delay] [--timeout S] [--verbose]
 *
 * Every player is either local (--player) or at a peer address (--peer;
 * players sharing an address share a machine). The program ticks at 60 Hz
 * of the real clock, feeds its bots' inputs to a tempo p2p session, runs the
 * arena in arena mode, and once frame F is confirmed (every peer's input for
 * every frame below it known, so no rollback can change it) prints
 *
 *   final frame=<F> checksum=<16 hex digits>
 *
 * the checksum of the game state at frame F. Every peer of a match must
 * print the same line. It then lingers a moment, still answering, so peers
 * that lost a datagram can get its repeat. Exit codes: 0 done, 1 runtime
 * error or timeout, 2 usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "bot.h"
#include "demo_os.h"
#include "tempo/udp.h"

typedef struct options {
    int players;
    uint32_t local;                      /* local player mask */
    tempo_address peer[ARENA_MAX_PLAYERS]; /* remote players' machines */
    uint32_t remote;
    int port;
    int frames;
    uint64_t seed;
    int input_delay;
    bool auto_delay;
    int timeout_s;
    bool verbose;
} options;

static int usage(const char *why)
{
    if (why)
        fprintf(stderr, "tempo-arena: %s\n", why);
    fprintf(stderr,
            "usage: tempo-arena --headless --players N --player I[,J...] --port P\n"
            "                   --peer I=host:port [--peer ...] --frames F --seed S\n"
            "                   [--input-delay D | --auto-delay] [--timeout S] [--verbose]\n");
    return 2;
}

static bool int_arg(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static int parse(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->timeout_s = 120;
    bool headless = false;
    long v;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--headless")) {
            headless = true;
        } else if (!strcmp(a, "--auto-delay")) {
            o->auto_delay = true;
        } else if (!strcmp(a, "--verbose")) {
            o->verbose = true;
        } else if (!strcmp(a, "--players") && int_arg(val, 1, ARENA_MAX_PLAYERS, &v)) {
            o->players = (int)v, i++;
        } else if (!strcmp(a, "--port") && int_arg(val, 1, 65535, &v)) {
            o->port = (int)v, i++;
        } else if (!strcmp(a, "--frames") && int_arg(val, 1, 10000000, &v)) {
            o->frames = (int)v, i++;
        } else if (!strcmp(a, "--seed") && int_arg(val, 0, 0x7fffffffL, &v)) {
            o->seed = (uint64_t)v, i++;
        } else if (!strcmp(a, "--input-delay") && int_arg(val, 0, 8, &v)) {
            o->input_delay = (int)v, i++;
        } else if (!strcmp(a, "--timeout") && int_arg(val, 1, 3600, &v)) {
            o->timeout_s = (int)v, i++;
        } else if (!strcmp(a, "--player") && val) {
            for (const char *p = val; *p;) { /* I[,J...] */
                char *end;
                long k = strtol(p, &end, 10);
                if (end == p || k < 0 || k >= ARENA_MAX_PLAYERS || (*end && *end != ','))
                    return usage("bad --player list");
                o->local |= 1u << k;
                p = *end ? end + 1 : end;
            }
            i++;
        } else if (!strcmp(a, "--peer") && val) {
            char *end;
            long k = strtol(val, &end, 10);
            if (end == val || *end != '=' || k < 0 || k >= ARENA_MAX_PLAYERS ||
                tempo_address_parse(&o->peer[k], end + 1) != TEMPO_OK)
                return usage("bad --peer (want I=host:port with a numeric host)");
            o->remote |= 1u << k;
            i++;
        } else {
            return usage("unknown option or missing value");
        }
    }
    if (!headless)
        return usage("only --headless is built here (the window is tempo-arena-sdl)");
    uint32_t all = o->players ? (1u << o->players) - 1u : 0;
    if (!o->players || !o->port || !o->frames || !o->local)
        return usage("--players, --player, --port and --frames are required");
    if ((o->local & o->remote) || (o->local | o->remote) != all)
        return usage("every player must be either local (--player) or at a --peer, not both");
    return 0;
}

static uint64_t now_us(void) { return demo_os_now_us(); }

static void sleep_until(uint64_t t)
{
    uint64_t n = now_us();
    if (t > n)
        demo_os_sleep_us(t - n);
}

static void report_events(tempo_session *s, bool verbose)
{
    tempo_event ev;
    while (tempo_session_poll_event(s, &ev) > 0) {
        if (!verbose)
            continue;
        fprintf(stderr, "tempo-arena: event %d player %d", (int)ev.kind, ev.player);
        if (ev.kind == TEMPO_EVENT_DESYNC)
            fprintf(stderr, " desync at frame %" PRId32, ev.u.desync.frame);
        fprintf(stderr, "\n");
    }
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc;

    tempo_address bind_addr = tempo_address_ipv4(0, 0, 0, 0, (uint16_t)o.port);
    tempo_udp *udp;
    if (tempo_udp_open(&bind_addr, NULL, &udp) != TEMPO_OK) {
        char why[128];
        fprintf(stderr, "tempo-arena: cannot bind port %d: %s\n", o.port,
                demo_os_socket_error(why, sizeof why));
        return 1;
    }
    static arena_state game;
    arena_init(&game, o.players, o.seed);
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = o.players;
    cfg.input_size = ARENA_INPUT_SIZE;
    cfg.arena = &game;
    cfg.arena_size = sizeof game;
    cfg.random_seed = now_us() ^ ((uint64_t)o.port << 32); /* handshake nonces */
    cfg.auto_delay.enabled = o.auto_delay;
    tempo_transport tr = tempo_udp_transport(udp);
    tempo_session *s;
    if (tempo_session_create_p2p(&cfg, &tr, &s) != TEMPO_OK) {
        fprintf(stderr, "tempo-arena: cannot create the session\n");
        return 1;
    }
    arena_bot bots[ARENA_MAX_PLAYERS];
    for (int p = 0; p < o.players; p++) {
        if (o.local & (1u << p)) {
            tempo_session_add_local_player(s, p);
            tempo_session_set_input_delay(s, p, o.input_delay);
            arena_bot_init(&bots[p], o.seed, p);
        } else {
            tempo_session_add_remote_player(s, p, &o.peer[p]);
        }
    }

    const uint64_t period = 16667, start = now_us();
    const uint64_t deadline = start + (uint64_t)o.timeout_s * 1000000u;
    uint64_t next = start, final_checksum = 0, linger_until = 0;
    bool have_final = false;
    while (now_us() < deadline) {
        sleep_until(next);
        next += period;
        uint64_t now = now_us();
        tempo_session_poll(s, now);
        report_events(s, o.verbose);
        if (have_final) { /* done: keep answering, stop simulating */
            if (now >= linger_until)
                break;
            continue;
        }
        if (!tempo_session_will_stall(s))
            for (int p = 0; p < o.players; p++)
                if (o.local & (1u << p)) {
                    uint8_t in[ARENA_INPUT_SIZE];
                    arena_bot_next(&bots[p], in);
                    tempo_session_add_local_input(s, p, in, sizeof in);
                }
        tempo_tick tick;
        tempo_session_advance(s, &tick);
        const tempo_request *r;
        while (tempo_session_next(s, &r) > 0) {
            arena_step(&game, r->inputs, r->status);
            if (r->frame == o.frames - 1) /* state F, as last (re)computed */
                final_checksum = arena_checksum(&game);
        }
        if (tempo_session_confirmed_frame(s) >= o.frames) {
            have_final = true;
            linger_until = now + 1500000u;
        }
    }
    tempo_session_destroy(s);
    tempo_udp_close(udp);
    if (!have_final) {
        fprintf(stderr, "tempo-arena: timed out before frame %d was confirmed\n", o.frames);
        return 1;
    }
    printf("final frame=%d checksum=%016" PRIx64 "\n", o.frames, final_checksum);
    return 0;
}
