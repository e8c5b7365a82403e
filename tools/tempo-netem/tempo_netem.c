/* SPDX-License-Identifier: MIT */
/*
 * tempo_netem.c — a UDP link conditioner between real processes.
 *
 *   tempo-netem --listen HOST:P --forward HOST:Q [--profile NAME]
 *               [--delay MS] [--jitter MS] [--loss PCT] [--duplicate PCT]
 *               [--reorder PCT] [--reorder-delay MS] [--bandwidth KBIT]
 *               [--queue BYTES] [--up HOST:R] [--seed S] [--quiet]
 *
 * Datagrams arriving at the listen address go, delayed, lost, duplicated or
 * reordered as the link says, to the forward address (from a socket of
 * their own: --up, or a port the system picks; a peer-to-peer program that
 * only talks to addresses it was told needs --up, to know where its peer's
 * datagrams will come from); replies from the forward address
 * go back the same way to the client that sent last. One client at a time:
 * a new sender takes the replies over.
 *
 * The link is a named profile of the library's simnet (default "perfect")
 * with any of its fields replaced by the explicit options; both directions
 * behave alike. The decisions are simnet's: a network of two nodes (client
 * side and server side) whose virtual time is the real monotonic clock, so
 * the tool and tempo's tests share one link model. Sleeping happens in the
 * socket wait, until a socket is readable or the next delivery is due (its
 * millisecond resolution makes deliveries up to about 1 ms late).
 * Host names (localhost) are looked up once, at the start.
 * SIGINT or SIGTERM stops it, printing one line of statistics.
 *
 * Exit codes: 0 stopped by a signal, 1 runtime error, 2 usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "platform.h"
#include "tempo/simnet.h"
#include "tempo/udp.h"

static volatile sig_atomic_t stop_requested; /* set by the signal handler only */

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

#define DEFAULT_REORDER_MS 20.0 /* --reorder on a link without a reorder delay */

typedef struct options {
    tempo_address listen, forward, up;
    const char *profile;
    uint64_t seed;
    bool quiet;
    /* Explicit link fields, used when given (milliseconds, percent). */
    double delay_ms, jitter_ms, loss_pct, duplicate_pct, reorder_pct, reorder_ms;
    int bandwidth_kbit, queue_bytes;
    tempo_link_params link;  /* the profile with the explicit fields applied */
    char link_text[256];     /* how the link is named in output */
} options;

static bool parse_address(void *field, const char *value, char *why, size_t why_size)
{
    return platform_resolve(value, TEMPO_ADDRESS_NONE, field, why, why_size);
}

static bool parse_forward(void *field, const char *value, char *why, size_t why_size)
{
    if (!parse_address(field, value, why, why_size))
        return false;
    if (((tempo_address *)field)->port == 0) {
        snprintf(why, why_size, "port 0: want the server's port, 1..65535");
        return false;
    }
    return true;
}


#define FIELD(f) offsetof(options, f)
static const option_spec netem_specs[] = {
    {.name = "listen", .kind = OPTION_CUSTOM, .value = "HOST:PORT", .offset = FIELD(listen),
     .parse = parse_address, .range = "HOST a name, a.b.c.d or [v6]; port 0: any",
     .help = "where clients send", .flags = OPTION_REQUIRED},
    {.name = "forward", .kind = OPTION_CUSTOM, .value = "HOST:PORT", .offset = FIELD(forward),
     .parse = parse_forward, .range = "HOST a name, a.b.c.d or [v6]",
     .help = "the server datagrams go to", .flags = OPTION_REQUIRED},
    {.name = "up", .kind = OPTION_CUSTOM, .value = "HOST:PORT", .offset = FIELD(up),
     .parse = parse_address, .range = "HOST a name, a.b.c.d or [v6]",
     .help = "bind the socket facing the server here;\ndefault: any port"},
    {.name = "profile", .kind = OPTION_CUSTOM, .value = "NAME", .offset = FIELD(profile),
     .parse = options_parse_profile, .range = "a profile listed below",
     .help = "the link to start from, default perfect"},
    {.name = "delay", .kind = OPTION_REAL, .value = "MS", .offset = FIELD(delay_ms),
     .real_min = 0, .real_max = 10000, .help = "one-way latency, milliseconds"},
    {.name = "jitter", .kind = OPTION_REAL, .value = "MS", .offset = FIELD(jitter_ms),
     .real_min = 0, .real_max = 10000, .help = "standard deviation of the latency"},
    {.name = "loss", .kind = OPTION_REAL, .value = "PCT", .offset = FIELD(loss_pct),
     .real_min = 0, .real_max = 100, .help = "percent of datagrams lost"},
    {.name = "duplicate", .kind = OPTION_REAL, .value = "PCT", .offset = FIELD(duplicate_pct),
     .real_min = 0, .real_max = 100, .help = "percent of datagrams delivered twice"},
    {.name = "reorder", .kind = OPTION_REAL, .value = "PCT", .offset = FIELD(reorder_pct),
     .real_min = 0, .real_max = 100,
     .help = "percent of datagrams held back up to the reorder\ndelay, so others overtake them"},
    {.name = "reorder-delay", .kind = OPTION_REAL, .value = "MS", .offset = FIELD(reorder_ms),
     .real_min = 0, .real_max = 10000,
     .help = "most a reordered datagram is held back; default\nthe profile's, or 20"},
    {.name = "bandwidth", .kind = OPTION_INT, .value = "KBIT", .offset = FIELD(bandwidth_kbit),
     .min = 0, .max = 4000000, .help = "kilobits per second, 0 unlimited"},
    {.name = "queue", .kind = OPTION_INT, .value = "BYTES", .offset = FIELD(queue_bytes),
     .min = 0, .max = 64 << 20, .help = "bytes waiting for the bandwidth before drops;\n"
                                        "0: 64 KiB"},
    {.name = "seed", .kind = OPTION_U64, .value = "S", .offset = FIELD(seed), .range = "0..2^64-1",
     .help = "seed of the link model, default 1"},
    {.name = "quiet", .kind = OPTION_FLAG, .offset = FIELD(quiet),
     .help = "print nothing but errors"},
};

static const option_command netem_command = {
    .program = "tempo-netem",
    .synopsis = "  Relays UDP datagrams between clients of --listen and a server at --forward,\n"
                "  through a simulated link in each direction: a profile, with any of its\n"
                "  fields set by the explicit options. Replies go to the client that sent last.\n"
                "  HOST is a name (localhost), a.b.c.d or [v6].",
    .specs = netem_specs,
    .count = (int)(sizeof netem_specs / sizeof netem_specs[0]),
    .epilogue = "example: 80 ms each way, 10 ms jitter, 2% loss, in front of a server on 7001:\n"
                "  tempo-netem --listen localhost:7101 --forward localhost:7001 \\\n"
                "              --delay 80 --jitter 10 --loss 2\n"
                "exit: 0 stopped by Ctrl-C or SIGTERM, 1 error, 2 usage\n",
    .more_help = options_list_profiles,
};

/* Append one field to the link's name: " with " before the first, ", "
 * before the others; a full buffer keeps what fits. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void note(char *buf, size_t size, const char *fmt, ...)
{
    size_t len = strlen(buf);
    const char *sep = strstr(buf, " with ") ? ", " : " with ";
    int n = snprintf(buf + len, size - len, "%s", sep);
    if (n < 0 || (size_t)n >= size - len)
        return;
    len += (size_t)n;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
}

/* The profile with the explicit fields applied, and its name for output:
 * the profile's name, then the fields given ("lan with delay 50 ms, loss
 * 2%"). */
static void make_link(options *o, uint64_t given)
{
    const option_command *c = &netem_command;
    tempo_link_profile(o->profile, &o->link);
    snprintf(o->link_text, sizeof o->link_text, "%s", o->profile);
#define NOTE(...) note(o->link_text, sizeof o->link_text, __VA_ARGS__)
    if (options_given(c, given, "delay")) {
        o->link.latency_us = (uint32_t)(o->delay_ms * 1000.0 + 0.5);
        NOTE("delay %g ms", o->delay_ms);
    }
    if (options_given(c, given, "jitter")) {
        o->link.jitter_us = (uint32_t)(o->jitter_ms * 1000.0 + 0.5);
        NOTE("jitter %g ms", o->jitter_ms);
    }
    if (options_given(c, given, "loss")) {
        o->link.loss = o->loss_pct / 100.0;
        NOTE("loss %g%%", o->loss_pct);
    }
    if (options_given(c, given, "duplicate")) {
        o->link.duplicate = o->duplicate_pct / 100.0;
        NOTE("duplicate %g%%", o->duplicate_pct);
    }
    if (options_given(c, given, "reorder")) {
        o->link.reorder = o->reorder_pct / 100.0;
        NOTE("reorder %g%%", o->reorder_pct);
        if (o->link.reorder_us == 0 && !options_given(c, given, "reorder-delay"))
            o->link.reorder_us = (uint32_t)(DEFAULT_REORDER_MS * 1000.0);
    }
    if (options_given(c, given, "reorder-delay")) {
        o->link.reorder_us = (uint32_t)(o->reorder_ms * 1000.0 + 0.5);
        NOTE("reorder delay %g ms", o->reorder_ms);
    }
    if (options_given(c, given, "bandwidth")) {
        o->link.bandwidth_bps = (uint32_t)o->bandwidth_kbit * 1000u;
        NOTE("bandwidth %d kbit/s", o->bandwidth_kbit);
    }
    if (options_given(c, given, "queue")) {
        o->link.queue_bytes = (uint32_t)o->queue_bytes;
        NOTE("queue %d bytes", o->queue_bytes);
    }
#undef NOTE
}

/* Returns 0 to run, 2 for a usage error, or -1 after --help. */
static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->profile = "perfect";
    uint64_t given;
    option_status st = options_parse(&netem_command, argc, argv, o, &given);
    if (st == OPTIONS_HELP)
        return -1;
    if (st != OPTIONS_OK)
        return 2;
    if (tempo_address_equal(&o->listen, &o->forward))
        return options_error(&netem_command, "--listen and --forward must differ");
    if (!options_given(&netem_command, given, "up")) {
        /* The socket facing the server: its family, any address and port. */
        memset(&o->up, 0, sizeof o->up);
        o->up.family = o->forward.family;
    } else if (o->up.family != o->forward.family) {
        return options_error(&netem_command, "--up and --forward must be of one family "
                                             "(both IPv4 or both IPv6)");
    }
    make_link(o, given);
    return 0;
}

static uint64_t now_us(void) { return platform_now_us(); }

/* Everything the relay holds. */
typedef struct relay {
    tempo_udp *down, *up;      /* listen socket; socket facing the server */
    tempo_transport down_t, up_t;
    tempo_simnet *net;
    tempo_transport client_node, server_node;
    tempo_address client_side; /* simnet address of the client node */
    tempo_address forward;
    tempo_address client;      /* the real client that sent last */
    int have_client;
    uint64_t start_us, oversize, stray;
} relay;

static uint64_t clock_now(const relay *r) { return now_us() - r->start_us; }

/* Take every datagram waiting on `sock` into the simnet through `node`. */
static void take_in(relay *r, tempo_transport *sock, tempo_transport *node, int from_client)
{
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    tempo_address from;
    int n;
    while ((n = sock->recv(sock->ctx, &from, buf, sizeof buf)) > 0) {
        /* Each datagram enters the model when it was read: one that came
         * in while this loop ran must not be dated to the loop's start, or
         * it would leave that much earlier than its link's delay. */
        tempo_simnet_set_time(r->net, clock_now(r));
        if (n > TEMPO_MAX_DATAGRAM) {
            r->oversize++;
            continue;
        }
        if (from_client) {
            r->client = from;
            r->have_client = 1;
            node->send(node->ctx, &r->forward, buf, (size_t)n);
        } else if (tempo_address_equal(&from, &r->forward)) {
            node->send(node->ctx, &r->client_side, buf, (size_t)n);
        } else {
            r->stray++;
        }
    }
}

/* Hand every delivery that is due to the real sockets. */
static void deliver(relay *r)
{
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    tempo_address from;
    int n;
    tempo_simnet_set_time(r->net, clock_now(r));
    while ((n = r->server_node.recv(r->server_node.ctx, &from, buf, sizeof buf)) > 0)
        r->up_t.send(r->up_t.ctx, &r->forward, buf, (size_t)n);
    while ((n = r->client_node.recv(r->client_node.ctx, &from, buf, sizeof buf)) > 0)
        if (r->have_client)
            r->down_t.send(r->down_t.ctx, &r->client, buf, (size_t)n);
}

static int poll_timeout_ms(const relay *r)
{
    uint64_t at, now = clock_now(r);
    if (tempo_simnet_next_delivery(r->net, &at) != 1)
        return 1000;
    if (at <= now)
        return 0;
    uint64_t ms = (at - now + 999u) / 1000u; /* round up: never early */
    return ms > 1000 ? 1000 : (int)ms;
}

static void print_direction(const char *name, const tempo_link_stats *s)
{
    double mean_ms = s->delivered ? (double)s->latency_us_sum / (double)s->delivered / 1000.0 : 0;
    printf("%s sent %" PRIu64 " delivered %" PRIu64 " lost %" PRIu64 " duplicated %" PRIu64
           " reordered %" PRIu64 " dropped %" PRIu64 " mean %.1f ms",
           name, s->sent, s->delivered, s->lost, s->duplicated, s->reordered,
           s->queue_dropped + s->blackout_dropped + s->pool_dropped, mean_ms);
}

static void print_stats(const relay *r, const options *o)
{
    tempo_link_stats up, down;
    tempo_simnet_link_stats(r->net, &r->client_side, &r->forward, &up);
    tempo_simnet_link_stats(r->net, &r->forward, &r->client_side, &down);
    printf("tempo-netem: profile %s: ", o->link_text);
    print_direction("client->server", &up);
    printf(" | ");
    print_direction("server->client", &down);
    printf(" | oversize %" PRIu64 " stray %" PRIu64 "\n", r->oversize, r->stray);
    fflush(stdout);
}

static int open_socket(const tempo_address *a, tempo_udp **out)
{
    if (tempo_udp_open(a, NULL, out) == TEMPO_OK)
        return 0;
    char text[TEMPO_ADDRESS_STRLEN];
    tempo_address_format(a, text, sizeof text);
    fprintf(stderr, "tempo-netem: cannot bind %s: %s\n", text, strerror(errno));
    return 1;
}

static int setup(relay *r, const options *o)
{
    memset(r, 0, sizeof *r);
    r->forward = o->forward;
    if (open_socket(&o->listen, &r->down) || open_socket(&o->up, &r->up))
        return 1;
    r->down_t = tempo_udp_transport(r->down);
    r->up_t = tempo_udp_transport(r->up);

    tempo_simnet_config cfg;
    tempo_simnet_config_default(&cfg);
    cfg.seed = o->seed;
    cfg.max_nodes = 2;
    cfg.max_in_flight = 4096;
    cfg.default_link = o->link;
    /* The client node takes the listen address; the forward address is the
     * server node's, so simnet's "from" tells the directions apart. */
    tempo_udp_local_address(r->down, &r->client_side);
    if (tempo_simnet_create(&cfg, &r->net) != TEMPO_OK ||
        tempo_simnet_add_node(r->net, &r->client_side, &r->client_node) != TEMPO_OK ||
        tempo_simnet_add_node(r->net, &r->forward, &r->server_node) != TEMPO_OK) {
        fprintf(stderr, "tempo-netem: cannot create the simulated link\n");
        return 1;
    }
    r->start_us = now_us();
    return 0;
}

static void teardown(relay *r)
{
    tempo_simnet_destroy(r->net);
    tempo_udp_close(r->down);
    tempo_udp_close(r->up);
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    relay r;
    if (setup(&r, &o)) {
        teardown(&r);
        return 1;
    }
    platform_on_interrupt(on_signal);

    if (!o.quiet) {
        char l[TEMPO_ADDRESS_STRLEN], f[TEMPO_ADDRESS_STRLEN];
        tempo_address_format(&r.client_side, l, sizeof l);
        tempo_address_format(&r.forward, f, sizeof f);
        printf("tempo-netem: listening on %s, forwarding to %s, profile %s, seed %" PRIu64 "\n", l,
               f, o.link_text, o.seed);
        fflush(stdout);
    }
    const int fds[2] = {tempo_udp_fd(r.down), tempo_udp_fd(r.up)};
    rc = 0;
    while (!stop_requested) {
        bool ready[2];
        if (platform_wait_readable(fds, ready, 2, poll_timeout_ms(&r)) < 0) {
            fprintf(stderr, "tempo-netem: waiting for the sockets: %s\n", strerror(errno));
            rc = 1;
            break;
        }
        if (ready[0])
            take_in(&r, &r.down_t, &r.client_node, 1);
        if (ready[1])
            take_in(&r, &r.up_t, &r.server_node, 0);
        deliver(&r);
    }
    if (!o.quiet)
        print_stats(&r, &o);
    teardown(&r);
    return rc;
}
