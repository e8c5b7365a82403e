/* SPDX-License-Identifier: MIT */
/*
 * pong_client.c — a Pong client: a tempo_client in arena mode over one
 * pong_state, our paddle's input from the bot or the caller, on a UDP
 * socket (the programs) or any transport (the tests: simnet).
 *
 * Invariant: `game` is the only simulation state. tempo copies each new
 * snapshot into it during tempo_client_advance (arena mode), so right
 * after an advance that placed one, `game` is exactly the server's state
 * of that snapshot's tick: that is when the final checksum is taken (from
 * the first snapshot at or past the final tick), before the requests
 * replay our unacknowledged ticks on top of it.
 * Corrections are measured as how far our own paddle jumped, in pixels.
 */
#include "pong_app.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <time.h>

#include "platform.h"
#include "tempo/secure.h"
#include "tokenfile.h"

static void log_line(void *ctx, tempo_log_level level, const char *message)
{
    (void)level;
    fprintf(stderr, "%s: %s\n", (const char *)ctx, message);
}

/* How far our paddle is from where we predicted it, pixels. The buffers
 * are tempo's and need not be aligned for pong_state: they are copied. */
static double paddle_jump_px(void *ctx, const void *predicted, const void *corrected,
                             size_t size)
{
    const pong_client *pc = ctx;
    if (size != sizeof(pong_state) || pc->me < 0)
        return 0;
    pong_state a, b;
    memcpy(&a, predicted, sizeof a);
    memcpy(&b, corrected, sizeof b);
    return (double)pong_paddle_jump(&a, &b, pc->me) / PONG_UNIT;
}

bool pong_client_start(pong_client *pc, const pong_options *o, const char *program,
                       const tempo_transport *transport)
{
    memset(pc, 0, sizeof *pc);
    pc->program = program;
    pc->quiet = o->quiet;
    pc->verbose = o->verbose;
    pc->bot = o->bot;
    pc->bot_seed = o->seed;
    pc->me = -1;
    pc->final_tick = o->frames;
    pc->placed_tick = -1;
    pc->connect = o->connect;
    pc->connect_timeout_s = o->connect_timeout_s;

    tempo_client_config cfg;
    tempo_client_config_default(&cfg);
    cfg.num_players = o->players;
    cfg.input_size = PONG_INPUT_SIZE;
    cfg.frames_per_second = 60;
    cfg.slots = 1;
    cfg.reconcile = o->reconcile;
    cfg.arena = &pc->game;
    cfg.arena_size = sizeof pc->game;
    cfg.correction = paddle_jump_px;
    cfg.correction_ctx = pc;
    /* the time, the port and where this process's stack lies (the system
     * places it at random): two clients started together still differ */
    cfg.random_seed = o->seed ^ platform_now_us() ^ ((uint64_t)o->port << 32) ^
                      (uint64_t)(uintptr_t)&cfg;
    cfg.log = log_line;
    cfg.log_ctx = (void *)(uintptr_t)program;
    cfg.log_level = o->quiet ? TEMPO_LOG_ERROR : TEMPO_LOG_WARN;
    cfg.protocol_id = PONG_PROTOCOL_ID;
    cfg.handshake_timeout_ms = (uint32_t)(o->connect_timeout_s > 0 ? o->connect_timeout_s : 10) * 1000u;
    if (o->token_file) {
        if (!token_read_file(program, o->token_file, cfg.token))
            return false;
        cfg.has_token = true;
        pc->sealed = true;
        /* a server refuses a token without a word: say now what we can see */
        const uint64_t protocol = PONG_PROTOCOL_ID;
        if (!token_check(cfg.token, &o->connect, &protocol, (uint64_t)time(NULL),
                         pc->token_problem, sizeof pc->token_problem))
            fprintf(stderr, "%s: warning: --token-file %s: %s; the server will refuse it\n",
                    program, o->token_file, pc->token_problem);
    }
    tempo_result r = tempo_client_create(&cfg, transport, &o->connect, &pc->client);
    tempo_wipe(cfg.token, sizeof cfg.token);
    if (r != TEMPO_OK) {
        fprintf(stderr, "%s: cannot create the client: %s%s\n", program, tempo_strerror(r),
                r == TEMPO_E_UNSUPPORTED ? " (this build has no libsodium: no tokens)" : "");
        return false;
    }
    if (!o->quiet) {
        char addr[TEMPO_ADDRESS_STRLEN];
        tempo_address_format(&o->connect, addr, sizeof addr);
        fprintf(stderr, "%s: connecting to %s%s, reconciliation %s\n", program, addr,
                cfg.has_token ? ", sealed with the token" : "", pong_reconcile_name(o->reconcile));
    }
    return true;
}

bool pong_client_open(pong_client *pc, const pong_options *o, const char *program)
{
    tempo_udp *udp;
    tempo_transport tr;
    if (!pong_udp_open(o->connect.family, o->port, program, &udp, &tr))
        return false;
    if (!pong_client_start(pc, o, program, &tr)) {
        tempo_udp_close(udp);
        return false;
    }
    pc->udp = udp;
    return true;
}

static void report_events(pong_client *pc)
{
    tempo_client_event ev;
    while (tempo_client_poll_event(pc->client, &ev)) {
        if (ev.kind == TEMPO_CLIENT_EVENT_CONNECTED) {
            for (int p = 0; p < PONG_MAX_PLAYERS; p++)
                if (ev.slots >> p & 1u) {
                    pc->me = p;
                    break;
                }
        }
        if (pc->quiet || (ev.kind == TEMPO_CLIENT_EVENT_SNAP && !pc->verbose))
            continue;
        switch (ev.kind) {
        case TEMPO_CLIENT_EVENT_CONNECTED:
            fprintf(stderr, "%s: connected: player %d, %s side\n", pc->program, pc->me,
                    pc->me % 2 == PONG_LEFT ? "left" : "right");
            break;
        case TEMPO_CLIENT_EVENT_DENIED:
            if (pc->token_problem[0] && pc->me < 0)
                fprintf(stderr, "%s: cannot connect with this token: %s\n", pc->program,
                        pc->token_problem);
            else
                fprintf(stderr, "%s: the server refused us: it is full (every paddle has a "
                                "client)\n",
                        pc->program);
            break;
        case TEMPO_CLIENT_EVENT_TIMED_OUT: {
            char why[320];
            pong_client_not_admitted(pc, why, sizeof why);
            if (pc->me < 0)
                fprintf(stderr, "%s: not admitted after %d s: %s\n", pc->program,
                        pc->connect_timeout_s, why);
            else
                fprintf(stderr, "%s: the server fell silent\n", pc->program);
            break;
        }
        case TEMPO_CLIENT_EVENT_DISCONNECTED:
            fprintf(stderr, "%s: the server ended the connection\n", pc->program);
            break;
        case TEMPO_CLIENT_EVENT_SNAP:
            fprintf(stderr, "%s: tick sync jumped %+d ticks\n", pc->program, ev.ticks);
            break;
        }
    }
}

void pong_client_not_admitted(const pong_client *pc, char *buf, size_t size)
{
    char addr[TEMPO_ADDRESS_STRLEN];
    tempo_address_format(&pc->connect, addr, sizeof addr);
    tempo_client_stats st;
    tempo_client_get_stats(pc->client, &st);
    if (pc->sealed && pc->token_problem[0])
        snprintf(buf, size, "the token: %s", pc->token_problem);
    else if (pc->sealed)
        snprintf(buf, size, "a server refuses a token without answering; its log says why "
                            "(expired, another key, another server), or no server runs at %s",
                 addr);
    else if (st.bytes_received > 0)
        snprintf(buf, size, "the server at %s answered but did not admit us", addr);
    else
        snprintf(buf, size, "no answer from %s: is tempo-pong --server running there? (one "
                            "with a --key-file answers only clients with a --token-file)",
                 addr);
}

tempo_client_state pong_client_tick(pong_client *pc, uint64_t now_us, uint8_t input)
{
    tempo_client_poll(pc->client, now_us);
    report_events(pc);
    tempo_client_stats st;
    tempo_client_get_stats(pc->client, &st);
    if (pc->me >= 0 && st.state == TEMPO_CLIENT_CONNECTED) {
        uint8_t in = pc->bot ? pong_bot_input(&pc->game, pc->me, pc->bot_seed) : input;
        tempo_client_add_local_input(pc->client, pc->me, &in, sizeof in);
    }
    tempo_client_tick tick;
    tempo_client_advance(pc->client, &tick);
    pc->state = tick.state;
    if (tick.corrected) {
        /* `game` is the server's state of the snapshot just placed. */
        tempo_client_get_stats(pc->client, &st);
        pc->placed_tick = st.server_frame;
        pc->placed_checksum = pong_checksum(&pc->game);
        pc->server = pc->game;
        /* At or past the final tick the server's state is that of the
         * final tick, frame final_tick (pong_app.h). */
        if (pc->final_tick > 0 && pc->placed_tick >= pc->final_tick && !pc->have_final) {
            if (pc->game.frame == (uint32_t)pc->final_tick) {
                pc->have_final = true;
                pc->final_checksum = pc->placed_checksum;
            } else {
                pc->wrong_final = true;
            }
        }
    }
    for (int i = 0; i < tick.num_requests; i++) {
        const tempo_request *r = &tick.requests[i];
        if (r->kind == TEMPO_REQUEST_ADVANCE)
            pong_step(&pc->game, r->inputs, r->status);
    }
    pc->last = tick;
    return pc->state;
}

uint64_t pong_client_next_tick_at(const pong_client *pc)
{
    return tempo_client_next_tick_at(pc->client);
}

tempo_result pong_client_set_reconcile(pong_client *pc, tempo_reconcile_mode mode)
{
    return tempo_client_set_reconcile(pc->client, mode);
}

void pong_client_print_stats(const pong_client *pc, FILE *f)
{
    tempo_client_stats st;
    tempo_client_get_stats(pc->client, &st);
    double mean = st.corrections ? st.correction_sum / (double)st.corrections : 0.0;
    fprintf(f,
            "stats player=%d rtt=%.1fms jitter=%.1fms lead=%.1f margin=%.1f dilation=%+.4f"
            " jumps=%" PRIu64 " corrections=%" PRIu64 " correction_mean=%.1fpx"
            " correction_max=%.1fpx resimulated=%" PRIu64 " late_inputs=%" PRIu64
            " stalls=%" PRIu64 " snapshots=%" PRIu64 " full=%" PRIu64 " dropped=%" PRIu64
            " bytes_sent=%" PRIu64 " bytes_received=%" PRIu64 "\n",
            pc->me, st.rtt_ms, st.jitter_ms, st.lead_ticks, st.margin_ticks, st.dilation, st.snaps,
            st.corrections, mean, st.correction_max, st.resim_frames, st.late_inputs,
            st.stall_ticks, st.snapshots, st.full_snapshots,
            st.snapshots_dropped + st.dropped_malformed + st.dropped_unknown +
                st.dropped_session + st.dropped_forged + st.dropped_replay,
            st.bytes_sent, st.bytes_received);
}

void pong_client_close(pong_client *pc, uint64_t now_us)
{
    if (pc->client && pc->state == TEMPO_CLIENT_CONNECTED) {
        tempo_client_disconnect(pc->client);
        tempo_client_poll(pc->client, now_us);
    }
    tempo_client_destroy(pc->client);
    tempo_udp_close(pc->udp);
    pc->client = NULL;
    pc->udp = NULL;
}
