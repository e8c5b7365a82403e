/* SPDX-License-Identifier: MIT */
/*
 * tempo_relay.c — the relay as a program: one UDP socket, a tempo_relay,
 * the clock read here (the library reads none), stats on stdout.
 *
 *   tempo-relay --port P [--key-file F] [--protocol-id ID]
 *               [--max-matches N] [--max-members N] [--tolerance-ms T]
 *               [--stats-seconds S] [--seconds D] [--bind ADDR] [--no-batch]
 *               [--agones | --no-agones] [--drain-seconds S] [--idle-seconds S]
 *               [--ws-port P [--ws-origins LIST] [--ws-queue N] [--serve-page DIR]]
 *
 * Without a key file it is an unsealed relay (LAN play and tests); with
 * one, members need tokens made with that key (tempo-token, or the game's
 * backend with tempo_relay_join_write for the user data) naming this
 * relay's address.
 *
 * It updates the relay whenever a datagram comes and at least every
 * millisecond, prints a stats line every S seconds (default 5) and a last
 * one at exit (Ctrl-C, or after D seconds), with the process's processor
 * time and its share of one core, and how late its own loop ran: the
 * longest time between the starts of two updates (update_gap_max_us; the
 * schedule is 1 ms), how many such gaps passed 5 ms and one 60 Hz frame
 * (gaps_over_5ms, gaps_over_16ms), and the longest single update
 * (update_max_us). A relay that falls behind its members shows here.
 *
 * What the relay tells its operator goes to stderr, at most one line per
 * kind every 10 s: why it refused a member (a connect token expired,
 * minted for another relay or with another key, missing; the relay full,
 * the member's player taken...), a socket refusing datagrams, and at start
 * that it is unsealed (no key file).
 *
 * With --agones (on by default when AGONES_SDK_HTTP_PORT is set) it is an
 * Agones game server, and with ARBITRIUM_DELETE_URL set an Edgegap one
 * (relay_host.h, docs/DEPLOY.md): a signal then drains it rather than
 * stopping it.
 *
 * With --ws-port it also listens on that TCP port for WebSocket members
 * (browsers; docs/BROWSER.md): each connection is one more member address
 * behind the same transport (ws_mux.h), admitted with a token like a UDP
 * member; the stats lines then add the WebSocket counters (ws_open,
 * ws_in, ws_out, ws_dropped: datagrams dropped from a full queue,
 * ws_refused: connections and frames refused). --serve-page DIR answers
 * plain GETs on that port with the files in DIR (the browser page).
 *
 * Exit codes: 0 done, 1 runtime error, 2 usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agones.h"
#include "keyfile.h"
#include "options.h"
#include "platform.h"
#include "relay_host.h"
#include "tempo/relay.h"
#include "tempo/udp.h"
#include "ws_mux.h"
#include "ws_server.h"

typedef struct options {
    int port;
    const char *key_file, *bind;
    uint64_t protocol_id;
    int max_matches, max_members, tolerance_ms, stats_seconds, seconds;
    bool no_batch;
    bool agones, no_agones;
    int drain_seconds, idle_seconds;
    int ws_port, ws_queue;
    const char *ws_origins, *serve_page;
} options;

#define FIELD(f) offsetof(options, f)
static const option_spec relay_specs[] = {
    {.name = "port", .kind = OPTION_INT, .value = "P", .offset = FIELD(port), .min = 1,
     .max = 65535, .flags = OPTION_REQUIRED, .help = "the UDP port members connect to"},
    {.name = "bind", .kind = OPTION_TEXT, .value = "ADDR", .offset = FIELD(bind),
     .help = "the address to bind, default 0.0.0.0; with a key,\ntokens must name ADDR:P "
             "(tempo-token --connect)"},
    {.name = "key-file", .kind = OPTION_TEXT, .value = "F", .offset = FIELD(key_file),
     .help = "the backend's private key (tempo-token --new-key):\nmembers need tokens made "
             "with it; without one\nnothing is sealed"},
    {.name = "protocol-id", .kind = OPTION_U64, .value = "ID", .offset = FIELD(protocol_id),
     .range = "1..2^64-1", .help = "the game's protocol id, default 1 (with a key only)"},
    {.name = "max-matches", .kind = OPTION_INT, .value = "N", .offset = FIELD(max_matches),
     .min = 1, .max = 65536, .help = "matches at once, default 256"},
    {.name = "max-members", .kind = OPTION_INT, .value = "N", .offset = FIELD(max_members),
     .min = 1, .max = 262144, .help = "members at once, default 2048"},
    {.name = "tolerance-ms", .kind = OPTION_INT, .value = "T", .offset = FIELD(tolerance_ms),
     .min = 0, .max = 2000, .help = "how long a late input is waited for, default 100"},
    {.name = "no-batch", .kind = OPTION_FLAG, .offset = FIELD(no_batch),
     .help = "one system call per datagram sent (Linux batches\nthem with sendmmsg by default)"},
    {.name = "stats-seconds", .kind = OPTION_INT, .value = "S", .offset = FIELD(stats_seconds),
     .min = 1, .max = 3600, .help = "between stats lines, default 5"},
    {.name = "seconds", .kind = OPTION_INT, .value = "S", .offset = FIELD(seconds), .min = 1,
     .max = 86400 * 365, .help = "stop after S seconds (default: at Ctrl-C)"},
    {.name = "ws-port", .kind = OPTION_INT, .value = "P", .offset = FIELD(ws_port), .min = 1,
     .max = 65535, .help = "also take WebSocket members (browsers) on TCP\nport P "
                           "(docs/BROWSER.md)"},
    {.name = "ws-origins", .kind = OPTION_TEXT, .value = "LIST", .offset = FIELD(ws_origins),
     .help = "with --ws-port: the page origins browsers may\nconnect from, comma-separated "
             "(\"null\": a page\nopened from a file); default any"},
    {.name = "ws-queue", .kind = OPTION_INT, .value = "N", .offset = FIELD(ws_queue), .min = 2,
     .max = 4096, .help = "with --ws-port: datagrams queued per WebSocket\nmember before "
                          "its oldest are dropped, default 64"},
    {.name = "serve-page", .kind = OPTION_TEXT, .value = "DIR", .offset = FIELD(serve_page),
     .help = "with --ws-port: answer plain GETs on that port\nwith the files in DIR (the "
             "browser page)"},
    AGONES_OPTION_SPECS(FIELD(agones), FIELD(no_agones), FIELD(drain_seconds), ""),
    {.name = "idle-seconds", .kind = OPTION_INT, .value = "S", .offset = FIELD(idle_seconds),
     .min = 1, .max = 86400,
     .help = "under Agones: an Allocated relay with no match for S\n"
             "seconds goes back to Ready, default 60"},
};

static const option_alias relay_aliases[] = {{"private-key-file", "key-file"},
                                             {"duration-seconds", "seconds"}};

static const option_command relay_command = {
    .program = "tempo-relay",
    .synopsis = "  Relay rollback matches: members send their inputs here, the relay\n"
                "  times the frames and sends every member every frame (docs/RELAY.md).",
    .specs = relay_specs,
    .count = (int)(sizeof relay_specs / sizeof relay_specs[0]),
    .epilogue = "examples:\n  tempo-relay --port 40000 --max-matches 125\n"
                "  tempo-relay --port 40000 --key-file backend.key --bind 127.0.0.1\n"
                "members: tempo-arena --relay HOST:40000 (docs/RELAY.md)\n"
                "exit: 0 done, 1 error, 2 usage\n",
    .aliases = relay_aliases,
    .alias_count = (int)(sizeof relay_aliases / sizeof relay_aliases[0]),
};

static volatile sig_atomic_t signals;

static void on_signal(int sig)
{
    (void)sig;
    signals = signals + 1;
}

/* The relay's log lines (tempo_relay_config.log: why it refused a member,
 * the transport refusing datagrams), on stderr like the program's own. */
static void log_line(void *ctx, tempo_log_level level, const char *message)
{
    (void)ctx;
    const char *own = "tempo relay: ";
    if (strncmp(message, own, strlen(own)) == 0)
        message += strlen(own);
    fprintf(stderr, "tempo-relay: %s%s\n", level == TEMPO_LOG_ERROR ? "error: " : "", message);
    fflush(stderr);
}

static bool read_key(const char *path, uint8_t key[TEMPO_KEY_SIZE])
{
    char why[128];
    if (key_read_file(path, key, why, sizeof why))
        return true;
    fprintf(stderr, "tempo-relay: --key-file %s: %s\n", path, why);
    return false;
}

/* How late the loop ran (see the top comment). */
typedef struct lateness {
    uint64_t last_start_us;
    uint64_t gap_max_us, update_max_us;
    uint64_t gaps_over_5ms, gaps_over_16ms, updates;
} lateness;

static void lateness_on_update(lateness *l, uint64_t start_us, uint64_t end_us)
{
    if (l->updates++ > 0) {
        uint64_t gap = start_us - l->last_start_us;
        if (gap > l->gap_max_us)
            l->gap_max_us = gap;
        l->gaps_over_5ms += gap > 5000;
        l->gaps_over_16ms += gap > 16667;
    }
    l->last_start_us = start_us;
    if (end_us - start_us > l->update_max_us)
        l->update_max_us = end_us - start_us;
}

static void print_stats(const tempo_relay *r, const tempo_udp *u, const ws_server *ws,
                        double secs, uint64_t cpu_us, const lateness *l, bool last)
{
    tempo_relay_stats s;
    tempo_udp_stats us;
    tempo_relay_get_stats(r, &s);
    tempo_udp_get_stats(u, &us);
    double core = secs > 0 ? (double)cpu_us / 1e6 / secs : 0.0;
    uint64_t dgrams = s.datagrams_in + s.datagrams_out;
    printf("%s t=%.1fs matches=%d members=%d in=%" PRIu64 " out=%" PRIu64 " bytes_in=%" PRIu64
           " bytes_out=%" PRIu64 " frames=%" PRIu64 " substituted=%" PRIu64 " late=%" PRIu64
           " dropped=%" PRIu64 " timed_out=%" PRIu64 " kernel_drops=%" PRIu64
           " cpu_s=%.3f core=%.3f cpu_us_per_datagram=%.3f cpu_us_per_out=%.3f"
           " updates=%" PRIu64 " update_gap_max_us=%" PRIu64 " gaps_over_5ms=%" PRIu64
           " gaps_over_16ms=%" PRIu64 " update_max_us=%" PRIu64 "\n",
           last ? "final" : "stats", secs, s.matches, s.members, s.datagrams_in, s.datagrams_out,
           s.bytes_in, s.bytes_out, s.frames_finalized, s.substitutions, s.late_inputs,
           s.dropped_unknown + s.dropped_session + s.dropped_malformed + s.dropped_forged +
               s.dropped_replay + s.dropped_not_owned + s.dropped_far + s.dropped_unbound +
               s.handshake_refused,
           s.members_timed_out, us.kernel_drops, (double)cpu_us / 1e6, core,
           dgrams ? (double)cpu_us / (double)dgrams : 0.0,
           s.datagrams_out ? (double)cpu_us / (double)s.datagrams_out : 0.0, l->updates,
           l->gap_max_us, l->gaps_over_5ms, l->gaps_over_16ms, l->update_max_us);
    if (ws) {
        ws_server_stats w;
        ws_server_get_stats(ws, &w);
        printf("%s ws_open=%d ws_accepted=%" PRIu64 " ws_in=%" PRIu64 " ws_out=%" PRIu64
               " ws_dropped=%" PRIu64 " ws_refused=%" PRIu64 " ws_pages=%" PRIu64 "\n",
               last ? "final" : "stats", w.open, w.accepted, w.datagrams_in, w.datagrams_out,
               w.out_dropped, ws_server_refused(&w), w.pages_served);
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    o.max_matches = 256;
    o.max_members = 2048;
    o.tolerance_ms = 100;
    o.stats_seconds = 5;
    o.drain_seconds = 600;
    o.idle_seconds = 60;
    uint64_t given = 0;
    option_status st = options_parse(&relay_command, argc, argv, &o, &given);
    if (st != OPTIONS_OK)
        return st == OPTIONS_HELP ? 0 : 2;

    tempo_relay_config cfg;
    tempo_relay_config_default(&cfg);
    cfg.max_matches = o.max_matches;
    cfg.max_members = o.max_members;
    cfg.tolerance_ms = (uint32_t)o.tolerance_ms;
    cfg.log = log_line;
    if (o.key_file) {
        if (!read_key(o.key_file, cfg.private_key))
            return 1;
        cfg.has_private_key = true;
        cfg.protocol_id = options_given(&relay_command, given, "protocol-id") ? o.protocol_id : 1;
    } else if (options_given(&relay_command, given, "protocol-id")) {
        options_error(&relay_command, "--protocol-id needs --key-file");
        return 2;
    }
    if ((o.ws_origins || o.ws_queue || o.serve_page) && !o.ws_port) {
        options_error(&relay_command, "--ws-origins, --ws-queue and --serve-page need --ws-port");
        return 2;
    }
    relay_host_config hc = {"tempo-relay", false, 0, o.drain_seconds, o.idle_seconds,
                            o.max_matches, o.max_members};
    if (!agones_choose(o.agones, o.no_agones, "tempo-relay", &hc.agones, &hc.agones_port))
        return 2;
    if (tempo_key_generate(cfg.cookie_key) != TEMPO_OK) {
        /* no secure random source: unsealed LAN play only, cookies still
         * differ from run to run */
        uint64_t seed = platform_now_us() ^ (uint64_t)time(NULL) << 20;
        for (int i = 0; i < TEMPO_KEY_SIZE; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            cfg.cookie_key[i] = (uint8_t)(seed >> 56);
        }
        cfg.cookie_key[0] |= 1u;
    }

    tempo_address bind;
    char why[128];
    char spec[96];
    snprintf(spec, sizeof spec, "%s:%d", o.bind ? o.bind : "0.0.0.0", o.port);
    if (!platform_resolve(spec, TEMPO_ADDRESS_NONE, &bind, why, sizeof why)) {
        fprintf(stderr, "tempo-relay: --bind %s: %s\n", spec, why);
        return 2;
    }
    cfg.self = bind;
    if (!o.bind)
        cfg.self.family = TEMPO_ADDRESS_NONE; /* any address: not checked */
    tempo_udp_options uo = {16u * 1024u * 1024u, 4u * 1024u * 1024u, !o.no_batch};
    tempo_udp *u = NULL;
    int rc = tempo_udp_open_ex(&bind, &uo, NULL, &u);
    if (rc != TEMPO_OK) {
        int e = errno;
        fprintf(stderr, "tempo-relay: cannot bind UDP %s: %s%s\n", spec,
                rc == TEMPO_E_TRANSPORT ? strerror(e) : tempo_strerror(rc),
                rc == TEMPO_E_TRANSPORT && e == EADDRINUSE
                    ? " (another program holds the port: pick another --port)"
                : rc == TEMPO_E_TRANSPORT && e == EADDRNOTAVAIL
                    ? " (no interface of this machine has that address: see --bind)"
                    : "");
        return 1;
    }
    tempo_transport udp_tr = tempo_udp_transport(u);
    ws_server *ws = NULL;
    if (o.ws_port) {
        ws_server_config wc;
        ws_server_config_default(&wc);
        wc.bind = bind;
        wc.bind.port = (uint16_t)o.ws_port;
        wc.max_connections = o.max_members;
        if (o.ws_queue)
            wc.queue_datagrams = o.ws_queue;
        wc.origins = o.ws_origins;
        wc.page_dir = o.serve_page;
        ws = ws_server_open(&wc, why, sizeof why);
        if (!ws) {
            fprintf(stderr, "tempo-relay: --ws-port %d: %s\n", o.ws_port, why);
            tempo_udp_close(u);
            return 1;
        }
    }
    ws_mux mux;
    tempo_transport tr = ws_mux_transport(&mux, &udp_tr, ws);
    tempo_relay *r = NULL;
    rc = tempo_relay_create(&cfg, &tr, &r);
    tempo_wipe(cfg.private_key, sizeof cfg.private_key);
    tempo_wipe(cfg.cookie_key, sizeof cfg.cookie_key);
    if (rc != TEMPO_OK) {
        fprintf(stderr, "tempo-relay: %s\n", tempo_strerror(rc));
        ws_server_close(ws);
        tempo_udp_close(u);
        return 1;
    }
    printf("tempo-relay: %s on %s, %d matches, %d members, tolerance %d ms\n",
           o.key_file ? "sealed" : "unsealed", spec, o.max_matches, o.max_members,
           o.tolerance_ms);
    if (ws)
        printf("tempo-relay: WebSocket members on TCP port %d%s%s\n", o.ws_port,
               o.ws_origins ? ", origins " : "", o.ws_origins ? o.ws_origins : "");
    fflush(stdout);
    bool host_failed;
    relay_host *host = relay_host_create(&hc, &host_failed);
    if (host_failed) {
        tempo_relay_destroy(r);
        ws_server_close(ws);
        tempo_udp_close(u);
        return 1;
    }
    platform_on_interrupt(on_signal);

    uint64_t start = platform_now_us(), cpu0 = platform_cpu_us();
    uint64_t next_stats = start + (uint64_t)o.stats_seconds * 1000000u;
    uint64_t end = o.seconds ? start + (uint64_t)o.seconds * 1000000u : 0;
    /* the UDP socket, the WebSocket listener and every connection */
    int nfds_max = 1 + (ws ? o.max_members + 1 : 0);
    int *fds = malloc((size_t)nfds_max * sizeof *fds);
    bool *ready = malloc((size_t)nfds_max * sizeof *ready);
    if (!fds || !ready) {
        fprintf(stderr, "tempo-relay: no memory\n");
        return 1;
    }
    lateness late;
    memset(&late, 0, sizeof late);
    sig_atomic_t handled = 0;
    for (;;) {
        fds[0] = tempo_udp_fd(u);
        int nfds = 1 + (ws ? ws_server_fds(ws, fds + 1, nfds_max - 1) : 0);
        platform_wait_readable(fds, ready, nfds, 1);
        uint64_t now = platform_now_us();
        if (ws)
            ws_server_poll(ws, now);
        tempo_relay_update(r, now, (uint64_t)time(NULL)); /* flushes the batch it sent */
        if (ws)
            ws_server_flush(ws, now);
        lateness_on_update(&late, now, platform_now_us());
        if (signals != handled) {
            handled = signals;
            if (!host)
                break;
            relay_host_signal(host, r, now);
        }
        if (host && !relay_host_update(host, r, now))
            break;
        if (now >= next_stats) {
            print_stats(r, u, ws, (double)(now - start) / 1e6, platform_cpu_us() - cpu0, &late,
                        false);
            next_stats += (uint64_t)o.stats_seconds * 1000000u;
        }
        if (end && now >= end)
            break;
    }
    print_stats(r, u, ws, (double)(platform_now_us() - start) / 1e6, platform_cpu_us() - cpu0,
                &late, true);
    relay_host_destroy(host);
    tempo_relay_destroy(r);
    ws_server_close(ws);
    free(fds);
    free(ready);
    tempo_udp_close(u);
    return 0;
}
