/* SPDX-License-Identifier: MIT */
/*
 * relay_load.c — a load test of tempo-relay over real UDP on loopback:
 * it starts the relay as a child process, then plays many members without
 * a game (each a socket that connects through the handshake, joins its
 * match, sends its input at 60 Hz with every frame the relay lacks, and
 * reads the relay's frames), and reports what the relay cost.
 *
 *   relay-load [--relay PATH] [--port P] [--matches M] [--players N]
 *              [--input-size B] [--seconds S] [--warmup-seconds W]
 *              [--flood R] [--hostile] [--agones] [--ws-members K]
 *
 * Measured over the S seconds after a warm-up of W: the relay's processor
 * time (utime + stime from /proc/PID/stat, Linux), its share of one core,
 * microseconds per datagram it sent and per datagram it handled (in + out),
 * and the UDP payload bytes per member per second both ways. The members
 * run in this process; on a machine with few cores they compete with the
 * relay, so the numbers are an upper bound of its cost.
 *
 * Who is late. Both sides report their lateness against their schedule:
 * this program each member's tick against its 60 Hz schedule (how late it
 * sent), the relay its updates against its 1 ms one (the relay's final
 * line, relayed here). Each substitution of a member's input that the
 * member sees in the relay's frames is put on one side: the member sent
 * that frame's input at least a frame before the relay's deadline for it
 * (start + F / 60 + the relay's tolerance, 100 ms; the start estimated from
 * the relay's clock in its frames), so the relay was late to use it; or
 * later, or never: late. A member aims at the relay's clock as its newest
 * frames tell it, as a member session does, so it sends late when its own
 * ticks are late or when the relay's frames come late; the second shows as
 * the frames' delay: each FRAMES's arrival against the time the relay's
 * clock named in it began (the relay's start estimated from the frames
 * that came soonest, as NTP keeps the sample with the least delay).
 *
 * --flood R sends R datagrams a second of garbage (random bytes, and a
 * quarter with a well-formed header) at the relay from one more socket,
 * during the measured window (R * S in all);
 * --hostile makes match 1's player 0 send, besides its input, an input
 * naming another player, one far ahead, a truncated one, a copy of its
 * last datagram and a JOIN naming another match, every tick.
 *
 * --ws-members K: the last K players of every match connect over a
 * WebSocket (the relay started with --ws-port P+1; ws_client.h), the
 * others over UDP: the same members, datagrams and matches, so runs with
 * K = 0 and K = --players give the relay's cost per datagram of each kind.
 *
 * Exit codes: 0 done, 1 runtime error, 2 usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/gate.h"
#include "net/link.h"
#include "options.h"
#include "platform.h"
#include "relay/relay_msg.h"
#include "tempo/udp.h"
#include "wire/connect.h"
#include "ws_client.h"

extern char **environ;

typedef struct options {
    const char *relay;
    int port, matches, players, input_size, seconds, warmup, flood, ws_members;
    bool no_batch, hostile, agones;
} options;

#define FIELD(f) offsetof(options, f)
static const option_spec load_specs[] = {
    {.name = "relay-program", .kind = OPTION_TEXT, .value = "PATH", .offset = FIELD(relay),
     .help = "the tempo-relay program, default ./tempo-relay"},
    {.name = "port", .kind = OPTION_INT, .value = "P", .offset = FIELD(port), .min = 1,
     .max = 65535, .help = "the relay's port, default 40123"},
    {.name = "matches", .kind = OPTION_INT, .value = "M", .offset = FIELD(matches), .min = 1,
     .max = 4096, .help = "matches, default 125"},
    {.name = "players", .kind = OPTION_INT, .value = "N", .offset = FIELD(players), .min = 1,
     .max = TEMPO_MAX_PLAYERS, .help = "players (members) per match, default 8"},
    {.name = "input-size", .kind = OPTION_INT, .value = "B", .offset = FIELD(input_size),
     .min = 1, .max = TEMPO_MAX_INPUT_SIZE, .help = "input bytes per player, default 4"},
    {.name = "no-batch", .kind = OPTION_FLAG, .offset = FIELD(no_batch),
     .help = "run the relay with --no-batch"},
    {.name = "agones", .kind = OPTION_FLAG, .offset = FIELD(agones),
     .help = "run the relay with --agones (an SDK server must\nanswer at AGONES_SDK_HTTP_PORT); without it,\n--no-agones"},
    {.name = "seconds", .kind = OPTION_INT, .value = "S", .offset = FIELD(seconds), .min = 1,
     .max = 3600, .help = "measured time, default 10"},
    {.name = "warmup-seconds", .kind = OPTION_INT, .value = "W", .offset = FIELD(warmup),
     .min = 1, .max = 600, .help = "before measuring (handshakes, start), default 4"},
    {.name = "flood", .kind = OPTION_INT, .value = "R", .offset = FIELD(flood), .min = 0,
     .max = 1000000, .help = "garbage datagrams a second at the relay, default 0"},
    {.name = "hostile", .kind = OPTION_FLAG, .offset = FIELD(hostile),
     .help = "match 1's player 0 also sends hostile datagrams"},
    {.name = "ws-members", .kind = OPTION_INT, .value = "K", .offset = FIELD(ws_members),
     .min = 0, .max = TEMPO_MAX_PLAYERS,
     .help = "the last K players of each match connect over a\nWebSocket (relay --ws-port P+1), default 0"},
};

/* --relay names a relay's address elsewhere (docs/TOOLS.md) */
static const option_alias load_aliases[] = {{"relay", "relay-program"}};

static const option_command load_command = {
    .program = "relay-load",
    .synopsis = "  Members without a game against tempo-relay on loopback; reports\n"
                "  the relay's processor time and the bytes per member.",
    .specs = load_specs,
    .count = (int)(sizeof load_specs / sizeof load_specs[0]),
    .epilogue = "example:\n  relay-load --matches 125 --players 8 --seconds 20\n"
                "exit: 0 done, 1 error, 2 usage\n",
    .aliases = load_aliases,
    .alias_count = (int)(sizeof load_aliases / sizeof load_aliases[0]),
};

#define FPS 60
#define PERIOD_US (1000000.0 / FPS)
#define TOLERANCE_US 100000.0   /* the relay's default tolerance_ms */
#define SENT_RING 256           /* frames whose first send time a member remembers */
#define LATE_BINS 1001          /* lateness histogram: 1 ms bins, the last is 1 s or more */

/* Lateness of events against their schedule, in the measured window. */
typedef struct late_hist {
    uint64_t n, over_5ms, over_16ms, max_us;
    uint64_t bins[LATE_BINS];
} late_hist;

static void late_add(late_hist *h, uint64_t us)
{
    h->n++;
    h->over_5ms += us > 5000;
    h->over_16ms += us > 16667;
    if (us > h->max_us)
        h->max_us = us;
    h->bins[us / 1000 < LATE_BINS - 1 ? us / 1000 : LATE_BINS - 1]++;
}

/* The lateness (ms, bin floor) at or under which a share q of events fell. */
static double late_quantile(const late_hist *h, double q)
{
    uint64_t want = (uint64_t)(q * (double)h->n + 0.5), seen = 0;
    for (int b = 0; b < LATE_BINS; b++) {
        seen += h->bins[b];
        if (seen >= want && want > 0)
            return (double)b;
    }
    return 0.0;
}

typedef enum phase { CONNECTING, JOINING, IN } phase;

typedef struct member {
    tempo_udp *u;
    ws_client *ws;          /* over a WebSocket instead (--ws-members) */
    tempo_transport tr;
    gate_client gate;
    net_link link;
    phase ph;
    uint64_t match_id;
    int player;
    bool started;
    int32_t clock;          /* the relay's clock in its newest FRAMES ... */
    uint64_t clock_us;      /* ... which came then */
    int32_t finalized, wanted;
    double next_tick_us;
    uint64_t bytes_up, bytes_down, dgrams_up, dgrams_down, frames_seen;
    uint32_t rng;
    bool hostile;
    double start_est_us;    /* the relay's frame 0 time, estimated from its clock (0: none) */
    int32_t sent_frame[SENT_RING];
    uint64_t sent_us[SENT_RING]; /* when each frame's input first went */
    uint8_t last[TEMPO_MAX_DATAGRAM]; /* its last datagram (the hostile one copies it) */
    size_t last_size;
} member;

/* Substitutions of members' own inputs, as they see them, by when the
 * input went, and the delay of the relay's frames, in the measured window. */
typedef struct blame {
    bool on;
    uint64_t relay, load, never;
    late_hist frames_delay;
} blame;

static const tempo_relay_join *join_of(const member *m, const options *o, tempo_relay_join *j)
{
    memset(j, 0, sizeof *j);
    j->match_id = m->match_id;
    j->slots = (uint8_t)(1u << m->player);
    j->num_players = o->players;
    j->input_size = o->input_size;
    j->frames_per_second = FPS;
    return j;
}

static void send_msg(member *m, const tempo_address *relay, uint8_t *buf, uint8_t type,
                     size_t body, uint64_t now)
{
    uint64_t seq = link_next_seq(&m->link);
    int n = relay_msg_finish(buf, TEMPO_MAX_DATAGRAM, TEMPO_RELAY_PLAIN_PROTOCOL, type, seq, body,
                             NULL);
    if (n <= 0)
        return;
    link_on_sent(&m->link, now, (size_t)n);
    m->bytes_up += (uint64_t)n;
    m->dgrams_up++;
    m->tr.send(m->tr.ctx, relay, buf, (size_t)n);
    memcpy(m->last, buf, (size_t)n);
    m->last_size = (size_t)n;
}

/* A frame of ours the relay substituted: whose lateness was it? */
static void judge(member *m, int32_t frame, blame *b)
{
    if (!b->on)
        return;
    int s = (int)((uint32_t)frame % SENT_RING);
    if (m->sent_frame[s] != frame) {
        b->never++;
        return;
    }
    double deadline = m->start_est_us + (double)frame * PERIOD_US + TOLERANCE_US;
    if ((double)m->sent_us[s] + PERIOD_US <= deadline)
        b->relay++;
    else
        b->load++;
}

static void on_frames(member *m, const options *o, const uint8_t *body, size_t size,
                      uint64_t now, blame *b)
{
    relay_frames_msg f;
    size_t fsz = relay_frames_frame_size(o->players, o->input_size);
    if (!relay_frames_read(body, size, fsz, &f))
        return;
    m->ph = IN;
    if (f.flags & RELAY_FLAG_STARTED) {
        m->started = true;
        m->clock = f.clock;
        m->clock_us = now;
        /* the relay's clock is floor((t - start) / period) when it sent at
         * t <= now: the smallest now - clock * period bounds the start */
        double start = (double)now - (double)f.clock * PERIOD_US;
        if (m->start_est_us == 0 || start < m->start_est_us)
            m->start_est_us = start;
        if (b->on)
            late_add(&b->frames_delay, (uint64_t)(start - m->start_est_us));
    }
    if (f.wanted > m->wanted)
        m->wanted = f.wanted;
    if (f.first <= m->finalized && f.first + f.count > m->finalized) {
        for (int32_t fr = m->finalized; fr < f.first + f.count; fr++)
            if (f.frames[(size_t)(fr - f.first) * fsz] & (1u << m->player))
                judge(m, fr, b);
        m->frames_seen += (uint64_t)(f.first + f.count - m->finalized);
        m->finalized = f.first + f.count;
    }
}

static void receive(member *m, const options *o, const tempo_address *relay, uint8_t *buf,
                    uint64_t now, blame *b)
{
    for (;;) {
        tempo_address from;
        int got = m->tr.recv(m->tr.ctx, &from, buf, TEMPO_MAX_DATAGRAM + 1);
        if (got <= 0)
            return;
        m->bytes_down += (uint64_t)got;
        m->dgrams_down++;
        tempo_packet_view v;
        if (packet_read(buf, (size_t)got, &v, NULL) != TEMPO_OK)
            continue;
        uint8_t t = v.h.type;
        if (t >= CONNECT_TYPE_REQUEST && t <= CONNECT_TYPE_DENIED) {
            gate_client_on_datagram(&m->gate, now, relay, buf, (size_t)got);
            continue;
        }
        if (m->ph == CONNECTING) {
            gate_client_connected(&m->gate);
            m->ph = JOINING;
        }
        uint64_t seq = packet_sequence_recover(v.h.sequence, link_recv_newest(&m->link));
        link_on_datagram(&m->link, now, seq, (size_t)got);
        if (t == RELAY_TYPE_WELCOME && v.body_size == 2 && buf[PACKET_HEADER_SIZE] != 0)
            m->ph = IN;
        else if (t == RELAY_TYPE_FRAMES)
            on_frames(m, o, buf + PACKET_HEADER_SIZE, v.body_size, now, b);
    }
}

/* The hostile member's extra datagrams of a tick: each is refused and
 * counted by the relay (docs/RELAY.md). */
static void hostile(member *m, const options *o, const tempo_address *relay, uint8_t *buf,
                    uint64_t now, const uint8_t *inputs)
{
    relay_acks a = {0, 0};
    uint8_t other = (uint8_t)(1u << ((m->player + 1) % o->players));
    size_t isz = (size_t)o->input_size;
    uint8_t copy[TEMPO_MAX_DATAGRAM];
    size_t copy_size = m->last_size;
    memcpy(copy, m->last, copy_size);
    send_msg(m, relay, buf, RELAY_TYPE_INPUT,
             relay_input_write(buf + PACKET_HEADER_SIZE, &a, m->finalized, m->finalized, other, 1,
                               inputs, isz, NULL, 0),
             now);
    send_msg(m, relay, buf, RELAY_TYPE_INPUT,
             relay_input_write(buf + PACKET_HEADER_SIZE, &a, m->finalized, m->finalized + 100000,
                               (uint8_t)(1u << m->player), 1, inputs, isz, NULL, 0),
             now);
    send_msg(m, relay, buf, RELAY_TYPE_INPUT,
             relay_input_write(buf + PACKET_HEADER_SIZE, &a, m->finalized, m->finalized,
                               (uint8_t)(1u << m->player), 1, inputs, isz, NULL, 0) - 1,
             now);
    tempo_relay_join j;
    join_of(m, o, &j);
    j.match_id = (uint64_t)o->matches + 1000u;
    send_msg(m, relay, buf, RELAY_TYPE_JOIN, relay_join_write(buf + PACKET_HEADER_SIZE, &j), now);
    if (copy_size > 0) {
        m->tr.send(m->tr.ctx, relay, copy, copy_size);
        m->bytes_up += (uint64_t)copy_size;
        m->dgrams_up++;
    }
}

static void tick(member *m, const options *o, const tempo_address *relay, uint8_t *buf,
                 uint64_t now, blame *b)
{
    receive(m, o, relay, buf, now, b);
    if (m->ph == CONNECTING) {
        gate_client_update(&m->gate, now);
        if (gate_client_due(&m->gate, now)) {
            int n = gate_client_write(&m->gate, now, buf, TEMPO_MAX_DATAGRAM);
            if (n > 0) {
                m->bytes_up += (uint64_t)n;
                m->tr.send(m->tr.ctx, relay, buf, (size_t)n);
            }
        }
        return;
    }
    if (m->ph == JOINING) {
        tempo_relay_join j;
        send_msg(m, relay, buf, RELAY_TYPE_JOIN,
                 relay_join_write(buf + PACKET_HEADER_SIZE, join_of(m, o, &j)), now);
        return;
    }
    if (!m->started)
        return;
    /* our frame: the relay's clock now, as its newest frames said, two
     * frames ahead (loopback), as a member session aims */
    int32_t target = m->clock + (int32_t)((double)(now - m->clock_us) / PERIOD_US) + 2;
    int32_t first = m->wanted > m->finalized ? m->wanted : m->finalized;
    int count = target - first;
    int cap = relay_input_capacity(1, o->input_size, 0);
    if (count > cap)
        count = cap;
    if (count < 0)
        count = 0;
    uint8_t inputs[RELAY_MAX_FRAMES * TEMPO_MAX_INPUT_SIZE];
    for (int i = 0; i < count * o->input_size; i++) {
        m->rng = m->rng * 1664525u + 1013904223u;
        inputs[i] = (uint8_t)(m->rng >> 24);
    }
    relay_acks a = {0, 0};
    uint64_t ack;
    uint32_t bits;
    if (link_ack_out(&m->link, &ack, &bits)) {
        a.ack = (uint16_t)ack;
        a.bits = bits;
    }
    size_t body = relay_input_write(buf + PACKET_HEADER_SIZE, &a, m->finalized, first,
                                    (uint8_t)(1u << m->player), count, inputs,
                                    (size_t)o->input_size, NULL, 0);
    send_msg(m, relay, buf, RELAY_TYPE_INPUT, body, now);
    for (int32_t f = first; f < first + count; f++) {
        int s = (int)((uint32_t)f % SENT_RING);
        if (m->sent_frame[s] != f) {
            m->sent_frame[s] = f;
            m->sent_us[s] = now;
        }
    }
    if (m->hostile)
        hostile(m, o, relay, buf, now, inputs);
}

/* Garbage at the relay: random bytes of random sizes, a quarter of them
 * behind a well-formed plain header of the relay's session. */
static void flood(tempo_transport *t, const tempo_address *relay, uint8_t *buf, uint32_t *rng,
                  uint64_t count)
{
    for (uint64_t i = 0; i < count; i++) {
        *rng = *rng * 1664525u + 1013904223u;
        size_t n = 1 + (*rng >> 8) % 1200;
        for (size_t k = 0; k < n; k++) {
            *rng = *rng * 1664525u + 1013904223u;
            buf[k] = (uint8_t)(*rng >> 24);
        }
        if ((*rng & 3u) == 0 && n >= PACKET_HEADER_SIZE) {
            tempo_packet_header h = {connect_session_id(TEMPO_RELAY_PLAIN_PROTOCOL),
                                     (uint16_t)(*rng >> 5), (uint8_t)(36 + (*rng >> 13) % 5),
                                     false, false};
            (void)packet_write(&h, buf, n);
        }
        t->send(t->ctx, relay, buf, n);
    }
}

/* The value of `key=` in the relay's line, 0 if absent. */
static uint64_t field(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = strstr(line, pat);
    return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}

/* utime + stime of process pid in microseconds (Linux /proc), 0 if
 * unknown; *user_us gets utime alone. */
static uint64_t proc_cpu_us(pid_t pid, uint64_t *user_us)
{
    *user_us = 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[1024];
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = 0;
    const char *p = strrchr(line, ')');
    if (!p)
        return 0;
    unsigned long long ut = 0, st = 0;
    /* after ") ": state, then fields 4..; utime and stime are fields 14, 15 */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return 0;
    long hz = sysconf(_SC_CLK_TCK);
    unsigned long long tick = (unsigned long long)(hz > 0 ? hz : 100);
    *user_us = ut * 1000000ull / tick;
    return (ut + st) * 1000000ull / tick;
}

int main(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    o.relay = "./tempo-relay";
    o.port = 40123;
    o.matches = 125;
    o.players = 8;
    o.input_size = 4;
    o.seconds = 10;
    o.warmup = 4;
    uint64_t given = 0;
    option_status st = options_parse(&load_command, argc, argv, &o, &given);
    if (st != OPTIONS_OK)
        return st == OPTIONS_HELP ? 0 : 2;
    int n = o.matches * o.players;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)n + 64) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }

    if (o.ws_members > o.players) {
        options_error(&load_command, "--ws-members %d: at most --players (%d)", o.ws_members,
                      o.players);
        return 2;
    }
    char port[16], mm[16], mb[16], wsport[16];
    snprintf(port, sizeof port, "%d", o.port);
    snprintf(wsport, sizeof wsport, "%d", o.port + 1);
    snprintf(mm, sizeof mm, "%d", o.matches);
    snprintf(mb, sizeof mb, "%d", n);
    char *rargv[] = {(char *)o.relay, "--port", port, "--bind", "127.0.0.1", "--max-matches", mm,
                     "--max-members", mb, "--stats-seconds", "3600", NULL, NULL, NULL, NULL, NULL};
    int extra = 11;
    if (o.ws_members > 0) {
        rargv[extra++] = "--ws-port";
        rargv[extra++] = wsport;
    }
    if (o.no_batch)
        rargv[extra++] = "--no-batch";
    rargv[extra] = o.agones ? "--agones" : "--no-agones";
    /* the relay's lines come through a pipe: relayed, and its last one read */
    int out_pipe[2];
    if (pipe(out_pipe) != 0) {
        fprintf(stderr, "relay-load: pipe: %s\n", strerror(errno));
        return 1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out_pipe[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, out_pipe[0]);
    pid_t pid;
    int spawned = posix_spawn(&pid, o.relay, &fa, NULL, rargv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(out_pipe[1]);
    if (spawned != 0) {
        fprintf(stderr, "relay-load: cannot start %s: %s\n", o.relay, strerror(spawned));
        return 1;
    }
    platform_sleep_until_us(platform_now_us() + 300000); /* let it bind */

    tempo_address relay = tempo_address_ipv4(127, 0, 0, 1, (uint16_t)o.port);
    member *ms = calloc((size_t)n, sizeof *ms);
    uint8_t *buf = malloc(TEMPO_MAX_DATAGRAM + 1);
    if (!ms || !buf) {
        kill(pid, SIGINT);
        return 1;
    }
    tempo_udp_options uo = {65536, 65536, false};
    tempo_address any = tempo_address_ipv4(127, 0, 0, 1, 0);
    uint64_t t0 = platform_now_us();
    link_config lc;
    link_config_default(&lc);
    lc.timeout_us = 60000000u;
    lc.notify_us = 60000000u;
    tempo_address relay_ws = tempo_address_ipv4(127, 0, 0, 1, (uint16_t)(o.port + 1));
    for (int i = 0; i < n; i++) {
        member *m = &ms[i];
        m->match_id = (uint64_t)(i / o.players) + 1;
        m->player = i % o.players;
        char why[160];
        if (m->player >= o.players - o.ws_members) {
            m->ws = ws_client_connect(&relay_ws, "127.0.0.1", "/", NULL, 5000, why, sizeof why);
            if (!m->ws) {
                fprintf(stderr, "relay-load: WebSocket member %d: %s\n", i, why);
                kill(pid, SIGINT);
                return 1;
            }
            m->tr = ws_client_transport(m->ws, &relay);
        } else if (tempo_udp_open_ex(&any, &uo, NULL, &m->u) != TEMPO_OK) {
            fprintf(stderr, "relay-load: cannot open socket %d (raise ulimit -n)\n", i);
            kill(pid, SIGINT);
            return 1;
        } else {
            m->tr = tempo_udp_transport(m->u);
        }
        m->rng = (uint32_t)i * 2654435761u + 1;
        m->hostile = o.hostile && i == 0;
        for (int k = 0; k < SENT_RING; k++)
            m->sent_frame[k] = -1;
        gate_client_config gc;
        memset(&gc, 0, sizeof gc);
        gc.protocol_id = TEMPO_RELAY_PLAIN_PROTOCOL;
        gc.nonce = (uint64_t)i + 1;
        gc.server = relay;
        gc.slots = 1;
        gc.timeout_us = 30000000u;
        gate_client_init(&m->gate, &gc, t0);
        link_init(&m->link, &lc, t0);
        m->link.state = LINK_ESTABLISHED; /* the gate's handshake stands in */
        m->next_tick_us = (double)t0 + PERIOD_US * (double)i / (double)n;
    }

    tempo_udp *fu = NULL;
    tempo_transport ft;
    if (o.flood > 0) {
        if (tempo_udp_open_ex(&any, &uo, NULL, &fu) != TEMPO_OK) {
            fprintf(stderr, "relay-load: cannot open the flood socket\n");
            kill(pid, SIGINT);
            return 1;
        }
        ft = tempo_udp_transport(fu);
    }
    uint32_t flood_rng = 12345;
    uint64_t flood_sent = 0;
    static late_hist own;
    static blame b;

    uint64_t measure_from = t0 + (uint64_t)o.warmup * 1000000u;
    uint64_t measure_to = measure_from + (uint64_t)o.seconds * 1000000u;
    uint64_t user_from = 0, user_to = 0;
    uint64_t cpu_from = 0, up_from = 0, down_from = 0, dg_from = 0, frames_from = 0, dgu_from = 0;
    bool measuring = false;
    for (;;) {
        uint64_t now = platform_now_us();
        if (fu != NULL && now >= measure_from && now < measure_to) { /* kept against the clock */
            uint64_t due = (now - measure_from) * (uint64_t)o.flood / 1000000u;
            flood(&ft, &relay, buf, &flood_rng, due - flood_sent);
            flood_sent = due;
        }
        if (!measuring && now >= measure_from) {
            measuring = true;
            b.on = true;
            cpu_from = proc_cpu_us(pid, &user_from);
            for (int i = 0; i < n; i++) {
                up_from += ms[i].bytes_up;
                down_from += ms[i].bytes_down;
                dg_from += ms[i].dgrams_down;
                dgu_from += ms[i].dgrams_up;
                frames_from += ms[i].frames_seen;
            }
        }
        if (now >= measure_to)
            break;
        for (int i = 0; i < n; i++) {
            uint64_t t = platform_now_us(); /* this member's tick, however late the others made it */
            if ((double)t >= ms[i].next_tick_us) {
                if (measuring)
                    late_add(&own, (uint64_t)((double)t - ms[i].next_tick_us));
                ms[i].next_tick_us += PERIOD_US;
                if (ms[i].next_tick_us < (double)t) /* fell behind: no burst */
                    ms[i].next_tick_us = (double)t + PERIOD_US;
                tick(&ms[i], &o, &relay, buf, t, &b);
            }
        }
        platform_sleep_until_us(now + 500);
    }
    uint64_t cpu_to = proc_cpu_us(pid, &user_to);
    uint64_t up = 0, down = 0, dg = 0, frames = 0, dgu = 0;
    int in = 0;
    for (int i = 0; i < n; i++) {
        up += ms[i].bytes_up;
        down += ms[i].bytes_down;
        dg += ms[i].dgrams_down;
        dgu += ms[i].dgrams_up;
        frames += ms[i].frames_seen;
        in += ms[i].ph == IN && ms[i].started;
    }
    b.on = false;
    kill(pid, SIGINT);
    /* relay its lines; keep the last (the final stats), and the WebSocket one */
    char line[2048], final[2048] = "", final_ws[2048] = "";
    FILE *rf = fdopen(out_pipe[0], "r");
    while (rf != NULL && fgets(line, sizeof line, rf) != NULL) {
        fputs(line, stdout);
        if (strncmp(line, "final ws_", 9) == 0)
            snprintf(final_ws, sizeof final_ws, "%s", line);
        else if (strncmp(line, "final ", 6) == 0)
            snprintf(final, sizeof final, "%s", line);
    }
    if (rf != NULL)
        fclose(rf);
    int status;
    waitpid(pid, &status, 0);
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);

    double secs = (double)o.seconds;
    double cpu = (double)(cpu_to - cpu_from);
    uint64_t out = dg - dg_from;                  /* datagrams the relay sent that arrived */
    uint64_t upd = dgu - dgu_from;                /* datagrams the members sent */
    printf("members %d (in play %d), %d matches of %d, input %d B, %d s measured\n", n, in,
           o.matches, o.players, o.input_size, o.seconds);
    if (o.ws_members > 0)
        printf("over WebSocket: %d members (the last %d of each match); relay: accepted %" PRIu64
               ", queued-datagram drops %" PRIu64 ", refused %" PRIu64 "\n",
               o.ws_members * o.matches, o.ws_members, field(final_ws, "ws_accepted"),
               field(final_ws, "ws_dropped"), field(final_ws, "ws_refused"));
    printf("relay cpu %.3f s = %.1f%% of one core (user %.3f s, system %.3f s)\n", cpu / 1e6,
           cpu / 1e6 / secs * 100.0, (double)(user_to - user_from) / 1e6,
           (cpu - (double)(user_to - user_from)) / 1e6);
    printf("relay datagrams out %" PRIu64 " (%.0f/s), in %" PRIu64 " (%.0f/s)\n", out,
           (double)out / secs, upd, (double)upd / secs);
    printf("relay cpu per datagram sent %.2f us, per datagram handled (in + out) %.2f us\n",
           out ? cpu / (double)out : 0.0, out + upd ? cpu / (double)(out + upd) : 0.0);
    printf("per member: up %.0f B/s (%.1f B per datagram), down %.0f B/s (%.1f B per "
           "datagram), frames %.1f/s\n",
           (double)(up - up_from) / secs / n, upd ? (double)(up - up_from) / (double)upd : 0.0,
           (double)(down - down_from) / secs / n, out ? (double)(down - down_from) / (double)out : 0.0,
           (double)(frames - frames_from) / secs / n);
    printf("relay lifetime cpu (rusage) %.3f s\n",
           (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
    if (fu != NULL)
        printf("flood: %" PRIu64 " garbage datagrams sent (%d/s asked)\n", flood_sent, o.flood);
    printf("lateness: load ticks %" PRIu64 " (vs 60 Hz): p50 %.0f ms, p99 %.0f ms, max %.1f ms, "
           "over 5 ms %.2f%%, over a frame %.2f%%\n",
           own.n, late_quantile(&own, 0.5), late_quantile(&own, 0.99), (double)own.max_us / 1e3,
           own.n ? 100.0 * (double)own.over_5ms / (double)own.n : 0.0,
           own.n ? 100.0 * (double)own.over_16ms / (double)own.n : 0.0);
    printf("lateness: relay frames %" PRIu64 " (arrival vs the clock they name): p50 %.0f ms, "
           "p99 %.0f ms, max %.1f ms, over a frame %.2f%%\n",
           b.frames_delay.n, late_quantile(&b.frames_delay, 0.5),
           late_quantile(&b.frames_delay, 0.99), (double)b.frames_delay.max_us / 1e3,
           b.frames_delay.n ? 100.0 * (double)b.frames_delay.over_16ms / (double)b.frames_delay.n
                            : 0.0);
    printf("lateness: relay updates %" PRIu64 " (vs 1 ms, its whole run): longest gap %.1f ms, "
           "gaps over 5 ms %" PRIu64 ", over a frame %" PRIu64 ", longest update %.1f ms\n",
           field(final, "updates"), (double)field(final, "update_gap_max_us") / 1e3,
           field(final, "gaps_over_5ms"), field(final, "gaps_over_16ms"),
           (double)field(final, "update_max_us") / 1e3);
    printf("substitutions of members' inputs they saw in the window: %" PRIu64
           " (sent a frame before the deadline: %" PRIu64 ", relay late; sent later: %" PRIu64
           ", never sent: %" PRIu64 ", load late); the relay's whole run: substituted %" PRIu64
           ", late %" PRIu64 ", kernel drops %" PRIu64 "\n",
           b.relay + b.load + b.never, b.relay, b.load, b.never, field(final, "substituted"),
           field(final, "late"), field(final, "kernel_drops"));
    if (fu != NULL)
        tempo_udp_close(fu);
    for (int i = 0; i < n; i++) {
        tempo_udp_close(ms[i].u);
        ws_client_close(ms[i].ws);
    }
    free(ms);
    free(buf);
    return 0;
}
