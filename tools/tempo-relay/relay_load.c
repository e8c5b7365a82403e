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
 *
 * Measured over the S seconds after a warm-up of W: the relay's processor
 * time (utime + stime from /proc/PID/stat, Linux), its share of one core,
 * microseconds per datagram it sent and per datagram it handled (in + out),
 * and the UDP payload bytes per member per second both ways. The members
 * run in this process; on a machine with few cores they compete with the
 * relay, so the numbers are an upper bound of its cost.
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

extern char **environ;

typedef struct options {
    const char *relay;
    int port, matches, players, input_size, seconds, warmup;
    bool no_batch;
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
    {.name = "seconds", .kind = OPTION_INT, .value = "S", .offset = FIELD(seconds), .min = 1,
     .max = 3600, .help = "measured time, default 10"},
    {.name = "warmup-seconds", .kind = OPTION_INT, .value = "W", .offset = FIELD(warmup),
     .min = 1, .max = 600, .help = "before measuring (handshakes, start), default 4"},
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

typedef enum phase { CONNECTING, JOINING, IN } phase;

typedef struct member {
    tempo_udp *u;
    tempo_transport tr;
    gate_client gate;
    net_link link;
    phase ph;
    uint64_t match_id;
    int player;
    bool started;
    int32_t clock;          /* the relay's clock in its newest FRAMES */
    uint64_t clock_us;
    int32_t finalized, wanted;
    double next_tick_us;
    uint64_t bytes_up, bytes_down, dgrams_up, dgrams_down, frames_seen;
    uint32_t rng;
} member;

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
}

static void on_frames(member *m, const options *o, const uint8_t *body, size_t size,
                      uint64_t now)
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
    }
    if (f.wanted > m->wanted)
        m->wanted = f.wanted;
    if (f.first <= m->finalized && f.first + f.count > m->finalized) {
        m->frames_seen += (uint64_t)(f.first + f.count - m->finalized);
        m->finalized = f.first + f.count;
    }
}

static void receive(member *m, const options *o, const tempo_address *relay, uint8_t *buf,
                    uint64_t now)
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
            on_frames(m, o, buf + PACKET_HEADER_SIZE, v.body_size, now);
    }
}

static void tick(member *m, const options *o, const tempo_address *relay, uint8_t *buf,
                 uint64_t now)
{
    receive(m, o, relay, buf, now);
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
    /* our frame: the relay's clock now, two frames ahead (loopback) */
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

    char port[16], mm[16], mb[16];
    snprintf(port, sizeof port, "%d", o.port);
    snprintf(mm, sizeof mm, "%d", o.matches);
    snprintf(mb, sizeof mb, "%d", n);
    char *rargv[] = {(char *)o.relay, "--port", port, "--bind", "127.0.0.1", "--max-matches", mm,
                     "--max-members", mb, "--stats-seconds", "3600", NULL, NULL};
    if (o.no_batch)
        rargv[11] = "--no-batch";
    pid_t pid;
    if (posix_spawn(&pid, o.relay, NULL, NULL, rargv, environ) != 0) {
        fprintf(stderr, "relay-load: cannot start %s: %s\n", o.relay, strerror(errno));
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
    for (int i = 0; i < n; i++) {
        member *m = &ms[i];
        if (tempo_udp_open_ex(&any, &uo, NULL, &m->u) != TEMPO_OK) {
            fprintf(stderr, "relay-load: cannot open socket %d (raise ulimit -n)\n", i);
            kill(pid, SIGINT);
            return 1;
        }
        m->tr = tempo_udp_transport(m->u);
        m->match_id = (uint64_t)(i / o.players) + 1;
        m->player = i % o.players;
        m->rng = (uint32_t)i * 2654435761u + 1;
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

    uint64_t measure_from = t0 + (uint64_t)o.warmup * 1000000u;
    uint64_t measure_to = measure_from + (uint64_t)o.seconds * 1000000u;
    uint64_t user_from = 0, user_to = 0;
    uint64_t cpu_from = 0, up_from = 0, down_from = 0, dg_from = 0, frames_from = 0, dgu_from = 0;
    bool measuring = false;
    for (;;) {
        uint64_t now = platform_now_us();
        if (!measuring && now >= measure_from) {
            measuring = true;
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
        for (int i = 0; i < n; i++)
            if ((double)now >= ms[i].next_tick_us) {
                ms[i].next_tick_us += PERIOD_US;
                if (ms[i].next_tick_us < (double)now) /* fell behind: no burst */
                    ms[i].next_tick_us = (double)now + PERIOD_US;
                tick(&ms[i], &o, &relay, buf, now);
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
    kill(pid, SIGINT);
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
    for (int i = 0; i < n; i++)
        tempo_udp_close(ms[i].u);
    free(ms);
    free(buf);
    return 0;
}
