/*
 * tempo_netem.c — a UDP link conditioner between real processes.
 *
 *   tempo-netem --listen 127.0.0.1:P --forward 127.0.0.1:Q --profile NAME
 *               [--up 127.0.0.1:R] [--seed S] [--quiet]
 *
 * Datagrams arriving at the listen address go, delayed, lost, duplicated or
 * reordered as the profile says, to the forward address (from a socket of
 * their own: --up, or a port the system picks; a peer-to-peer program that
 * only talks to addresses it was told needs --up, to know where its peer's
 * datagrams will come from); replies from the forward address
 * go back the same way to the client that sent last. One client at a time:
 * a new sender takes the replies over.
 *
 * The decisions are the library's simnet: a network of two nodes (client
 * side and server side) whose virtual time is the real monotonic clock, so
 * the tool and tempo's tests share one link model. Sleeping happens in
 * poll() (WSAPoll on Windows, examples/common/demo_os.h), until a socket is
 * readable or the next delivery is due (millisecond resolution makes
 * deliveries up to about 1 ms late), and never longer than a second.
 * SIGINT or SIGTERM stops it, printing one line of statistics (on Windows
 * Ctrl+C, seen within that second).
 *
 * Exit codes: 0 stopped by a signal, 1 runtime error, 2 usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo_os.h"
#include "tempo/simnet.h"
#include "tempo/udp.h"

static volatile sig_atomic_t stop_requested; /* set by the signal handler only */

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

typedef struct options {
    tempo_address listen, forward, up;
    int have_up;
    const char *profile;
    uint64_t seed;
    int quiet;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tempo-netem --listen ADDR --forward ADDR --profile NAME [--up ADDR]\n"
            "                   [--seed S] [--quiet]\n"
            "  Relays UDP datagrams between clients of ADDR (--listen) and a server at\n"
            "  ADDR (--forward), through a simulated link in each direction.\n"
            "  ADDR is a.b.c.d:port or [v6]:port. Replies go to the client that sent last.\n"
            "  --up ADDR  bind the socket facing the server here (default: any port)\n"
            "  --seed S   seed of the link model (default 1)\n"
            "  --quiet    print nothing but errors\n"
            "  profiles:");
    for (const char *const *n = tempo_link_profile_names(); *n; n++)
        fprintf(f, " %s", *n);
    fprintf(f, "\n");
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "tempo-netem: %s%s%s\n", what, arg ? ": " : "", arg ? arg : "");
    usage(stderr);
    return 2;
}

/* Returns 0, 2 for a usage error, or -1 after --help. */
static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    int have_listen = 0, have_forward = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return -1;
        }
        if (strcmp(a, "--quiet") == 0) {
            o->quiet = 1;
            continue;
        }
        if (i + 1 >= argc)
            return usage_error("missing value or unknown option", a);
        const char *v = argv[++i];
        if (strcmp(a, "--listen") == 0) {
            if (tempo_address_parse(&o->listen, v) != TEMPO_OK)
                return usage_error("bad address", v);
            have_listen = 1;
        } else if (strcmp(a, "--up") == 0) {
            if (tempo_address_parse(&o->up, v) != TEMPO_OK)
                return usage_error("bad address", v);
            o->have_up = 1;
        } else if (strcmp(a, "--forward") == 0) {
            if (tempo_address_parse(&o->forward, v) != TEMPO_OK)
                return usage_error("bad address", v);
            have_forward = 1;
        } else if (strcmp(a, "--profile") == 0) {
            tempo_link_params p;
            if (tempo_link_profile(v, &p) != TEMPO_OK)
                return usage_error("unknown profile", v);
            o->profile = v;
        } else if (strcmp(a, "--seed") == 0) {
            char *end;
            errno = 0;
            o->seed = strtoull(v, &end, 10);
            if (errno || end == v || *end || v[0] == '-')
                return usage_error("bad seed", v);
        } else {
            return usage_error("unknown option", a);
        }
    }
    if (!have_listen || !have_forward || !o->profile)
        return usage_error("--listen, --forward and --profile are required", NULL);
    if (o->forward.port == 0)
        return usage_error("--forward needs a port", NULL);
    if (tempo_address_equal(&o->listen, &o->forward))
        return usage_error("--listen and --forward must differ", NULL);
    return 0;
}

static uint64_t now_us(void) { return demo_os_now_us(); }

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
    tempo_simnet_set_time(r->net, clock_now(r));
    while ((n = sock->recv(sock->ctx, &from, buf, sizeof buf)) > 0) {
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
    printf("tempo-netem: profile %s: ", o->profile);
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
    char text[TEMPO_ADDRESS_STRLEN], why[128];
    tempo_address_format(a, text, sizeof text);
    fprintf(stderr, "tempo-netem: cannot bind %s: %s\n", text,
            demo_os_socket_error(why, sizeof why));
    return 1;
}

static int setup(relay *r, const options *o)
{
    memset(r, 0, sizeof *r);
    r->forward = o->forward;
    /* The socket facing the server: same family, any local address and port. */
    tempo_address any_up;
    memset(&any_up, 0, sizeof any_up);
    any_up.family = o->forward.family;
    if (o->have_up)
        any_up = o->up;
    if (open_socket(&o->listen, &r->down) || open_socket(&any_up, &r->up))
        return 1;
    r->down_t = tempo_udp_transport(r->down);
    r->up_t = tempo_udp_transport(r->up);

    tempo_simnet_config cfg;
    tempo_simnet_config_default(&cfg);
    cfg.seed = o->seed;
    cfg.max_nodes = 2;
    cfg.max_in_flight = 4096;
    tempo_link_profile(o->profile, &cfg.default_link);
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
    demo_os_on_stop(on_signal);

    if (!o.quiet) {
        char l[TEMPO_ADDRESS_STRLEN], f[TEMPO_ADDRESS_STRLEN];
        tempo_address_format(&r.client_side, l, sizeof l);
        tempo_address_format(&r.forward, f, sizeof f);
        printf("tempo-netem: listening on %s, forwarding to %s, profile %s, seed %" PRIu64 "\n", l,
               f, o.profile, o.seed);
        fflush(stdout);
    }
    tempo_udp *const socks[2] = {r.down, r.up};
    rc = 0;
    while (!stop_requested) {
        bool readable[2];
        int ready = demo_os_wait_readable(socks, 2, poll_timeout_ms(&r), readable);
        if (ready < 0) {
            char why[128];
            fprintf(stderr, "tempo-netem: poll: %s\n", demo_os_socket_error(why, sizeof why));
            rc = 1;
            break;
        }
        if (ready > 0 && readable[0])
            take_in(&r, &r.down_t, &r.client_node, 1);
        if (ready > 0 && readable[1])
            take_in(&r, &r.up_t, &r.server_node, 0);
        deliver(&r);
    }
    if (!o.quiet)
        print_stats(&r, &o);
    teardown(&r);
    return rc;
}
