/* SPDX-License-Identifier: MIT */
/*
 * pong_server.c — the authoritative Pong server: a tempo_server in arena
 * mode over one pong_state, one pong_step per tick, on a UDP socket (the
 * programs) or any transport (tests/examples/test_pong_net.c: simnet).
 *
 * Invariant: `game` holds the state of tick `tick`, the state after the
 * server's ADVANCE(tick - 1), until the final tick; only ADVANCE requests
 * change it, and tempo reads it at the next poll for the snapshot of that
 * tick. Once the match is over the ticks go on without stepping the game,
 * so every later snapshot carries the final state (pong_app.h says why).
 * A slot without a client plays DISCONNECTED, so its paddle stands still
 * (pong_step).
 */
#include "pong_app.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "keyfile.h"
#include "platform.h"
#include "tempo/secure.h"

static void log_line(void *ctx, tempo_log_level level, const char *message)
{
    (void)level;
    fprintf(stderr, "%s: %s\n", (const char *)ctx, message);
}

bool pong_server_start(pong_server *ps, const pong_options *o, const char *program,
                       const tempo_transport *transport)
{
    memset(ps, 0, sizeof *ps);
    ps->program = program;
    ps->quiet = o->quiet;
    ps->final_tick = o->frames;
    pong_init(&ps->game, o->players, o->seed);

    tempo_server_config cfg;
    tempo_server_config_default(&cfg);
    cfg.num_players = o->players;
    cfg.max_clients = o->players; /* one paddle each */
    cfg.input_size = PONG_INPUT_SIZE;
    cfg.frames_per_second = 60;
    cfg.arena = &ps->game;
    cfg.arena_size = sizeof ps->game;
    cfg.self = o->address;
    cfg.random_seed = o->seed ^ platform_now_us() ^ ((uint64_t)o->port << 32);
    cfg.log = log_line;
    cfg.log_ctx = (void *)(uintptr_t)program;
    cfg.log_level = o->quiet ? TEMPO_LOG_ERROR : TEMPO_LOG_WARN;
    cfg.protocol_id = PONG_PROTOCOL_ID;
    if (o->key_file) {
        char why[128];
        if (!key_read_file(o->key_file, cfg.private_key, why, sizeof why)) {
            fprintf(stderr, "%s: --key-file %s: %s\n", program, o->key_file, why);
            return false;
        }
        cfg.has_private_key = true;
    }
    tempo_result r = tempo_server_create(&cfg, transport, &ps->server);
    tempo_wipe(cfg.private_key, sizeof cfg.private_key);
    if (r != TEMPO_OK) {
        fprintf(stderr, "%s: cannot create the server: %s%s\n", program, tempo_strerror(r),
                r == TEMPO_E_UNSUPPORTED ? " (this build has no libsodium: no keys)" : "");
        return false;
    }
    ps->sealed = cfg.has_private_key;
    tempo_server_set_token_time(ps->server, (uint64_t)time(NULL));
    if (!o->quiet) {
        char addr[TEMPO_ADDRESS_STRLEN];
        tempo_address_format(&o->address, addr, sizeof addr);
        fprintf(stderr, "%s: serving %d players on port %d\n", program, o->players, o->port);
        if (ps->sealed)
            fprintf(stderr, "%s: sealed: clients need a token naming %s\n", program, addr);
    }
    return true;
}

bool pong_server_open(pong_server *ps, const pong_options *o, const char *program)
{
    tempo_udp *udp;
    tempo_transport tr;
    if (!pong_udp_open(o->address.family, o->port, program, &udp, &tr))
        return false;
    if (!pong_server_start(ps, o, program, &tr)) {
        tempo_udp_close(udp);
        return false;
    }
    ps->udp = udp;
    return true;
}

static void report_events(pong_server *ps)
{
    tempo_server_event ev;
    while (tempo_server_poll_event(ps->server, &ev)) {
        if (ev.kind == TEMPO_SERVER_CLIENT_CONNECTED && ps->refuse) {
            tempo_server_kick(ps->server, ev.client);
            fprintf(stderr, "%s: client %d (id %" PRIu64 ") refused: %s\n", ps->program, ev.client,
                    ev.client_id, ps->refuse);
            continue;
        }
        if (ps->quiet || ps->refuse) /* a refused client's leaving is no news */
            continue;
        int player = -1;
        for (int p = 0; p < PONG_MAX_PLAYERS; p++)
            if (ev.slots >> p & 1u) {
                player = p;
                break;
            }
        char id[40] = ""; /* a token's client id; an unsealed client has none */
        if (ps->sealed)
            snprintf(id, sizeof id, " (id %" PRIu64 ")", ev.client_id);
        if (ev.kind == TEMPO_SERVER_CLIENT_CONNECTED)
            fprintf(stderr, "%s: client %d connected%s: player %d, %s side\n", ps->program,
                    ev.client, id, player, player % 2 == PONG_LEFT ? "left" : "right");
        else
            fprintf(stderr, "%s: client %d %s: player %d stands still\n", ps->program, ev.client,
                    ev.timed_out ? "fell silent" : "left", player);
    }
}

static void poll_network(pong_server *ps, uint64_t now_us)
{
    tempo_server_poll(ps->server, now_us);
    report_events(ps);
}

void pong_server_tick(pong_server *ps, uint64_t now_us)
{
    if (ps->sealed)
        tempo_server_set_token_time(ps->server, (uint64_t)time(NULL));
    poll_network(ps, now_us);
    tempo_server_tick tick;
    if (tempo_server_advance(ps->server, &tick) != TEMPO_OK)
        return;
    bool over = ps->final_tick > 0 && ps->game.frame >= (uint32_t)ps->final_tick;
    for (int i = 0; i < tick.num_requests && !over; i++) {
        const tempo_request *r = &tick.requests[i];
        if (r->kind == TEMPO_REQUEST_ADVANCE)
            pong_step(&ps->game, r->inputs, r->status);
    }
    ps->tick = tick.frame + 1;
}

void pong_server_wait(pong_server *ps, uint64_t now_us)
{
    if (ps->sealed)
        tempo_server_set_token_time(ps->server, (uint64_t)time(NULL));
    poll_network(ps, now_us);
}

bool pong_server_all_acked(const pong_server *ps, int32_t tick)
{
    for (int i = 0; i < TEMPO_CS_MAX_CLIENTS; i++) {
        tempo_server_client_stats cs;
        if (tempo_server_get_client_stats(ps->server, i, &cs) != TEMPO_OK)
            break;
        if (cs.connected && cs.acked_snapshot < tick)
            return false;
    }
    return true;
}

void pong_server_print_stats(const pong_server *ps, FILE *f)
{
    tempo_server_stats st;
    tempo_server_get_stats(ps->server, &st);
    fprintf(f,
            "stats ticks=%" PRIu64 " clients=%d connects=%" PRIu64 " disconnects=%" PRIu64
            " timeouts=%" PRIu64 " late_inputs=%" PRIu64 " inputs_dropped=%" PRIu64
            " refused=%" PRIu64 " dropped=%" PRIu64 " bytes_sent=%" PRIu64
            " bytes_received=%" PRIu64 " score=%u:%u\n",
            st.ticks, st.clients, st.connects, st.disconnects, st.timeouts, st.late_inputs,
            st.inputs_dropped, st.handshake_refused + st.denied_full,
            st.dropped_malformed + st.dropped_unknown + st.dropped_session + st.dropped_forged +
                st.dropped_replay,
            st.bytes_sent, st.bytes_received, ps->game.score[PONG_LEFT],
            ps->game.score[PONG_RIGHT]);
    for (int i = 0; i < TEMPO_CS_MAX_CLIENTS; i++) {
        tempo_server_client_stats cs;
        if (tempo_server_get_client_stats(ps->server, i, &cs) != TEMPO_OK)
            break;
        if (!cs.connected)
            continue;
        fprintf(f,
                "stats client=%d rtt=%.1fms jitter=%.1fms earliness=%.2f late_inputs=%" PRIu64
                " inputs_dropped=%" PRIu64 " snapshots=%" PRIu64 " full=%" PRIu64
                " snapshot_bytes=%" PRIu64 "\n",
                i, cs.rtt_ms, cs.jitter_ms, cs.earliness_ticks, cs.late_inputs, cs.inputs_dropped,
                cs.snapshots_sent, cs.full_snapshots, cs.snapshot_bytes);
    }
}

void pong_server_close(pong_server *ps)
{
    /* say goodbye, so clients end well instead of waiting for silence */
    for (int i = 0; ps->server != NULL && i < TEMPO_CS_MAX_CLIENTS; i++)
        tempo_server_kick(ps->server, i);
    tempo_server_destroy(ps->server);
    tempo_udp_close(ps->udp);
    ps->server = NULL;
    ps->udp = NULL;
}
