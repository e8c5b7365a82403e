/* SPDX-License-Identifier: MIT */
/*
 * arena_p2p.c — see arena_p2p.h. The local addresses come from the
 * operating system (getifaddrs): every IPv4 address of an interface that
 * is up and not loopback, with the socket's port.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* IFF_UP, IFF_LOOPBACK, getifaddrs */
#endif
#include "arena_p2p.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "platform.h"
#include "tempo/relay.h"

#ifndef _WIN32
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>

static int local_addresses(tempo_address *out, int max, uint16_t port)
{
    struct ifaddrs *list = NULL;
    if (getifaddrs(&list) != 0)
        return 0;
    int n = 0;
    for (struct ifaddrs *i = list; i && n < max; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
            (i->ifa_flags & IFF_LOOPBACK))
            continue;
        const struct sockaddr_in *sin = (const struct sockaddr_in *)(const void *)i->ifa_addr;
        const uint8_t *b = (const uint8_t *)&sin->sin_addr.s_addr;
        out[n++] = tempo_address_ipv4(b[0], b[1], b[2], b[3], port);
    }
    freeifaddrs(list);
    return n;
}
#else
static int local_addresses(tempo_address *out, int max, uint16_t port)
{
    (void)out, (void)max, (void)port;
    return 0; /* the relay's view of us is the only candidate */
}
#endif

bool arena_p2p_open(tempo_traversal **out, tempo_udp *udp, const arena_p2p_args *a,
                    uint64_t now_us, char *why, size_t why_size)
{
    tempo_traversal_config cfg;
    tempo_traversal_config_default(&cfg);
    cfg.transport = tempo_udp_transport(udp);
    cfg.relay = a->relay;
    cfg.direct = a->direct;
    int players = 0;
    for (int p = 0; p < a->players; p++)
        players += (int)(a->local >> p & 1u);
    cfg.players = players;
    if (a->token) {
        tempo_token_public pub;
        if (tempo_token_read_public(a->token, TEMPO_TOKEN_SIZE, &pub) != TEMPO_OK) {
            snprintf(why, why_size, "the token does not read");
            return false;
        }
        cfg.token = a->token;
        cfg.protocol_id = pub.protocol_id;
        tempo_wipe(&pub, sizeof pub);
    } else {
        tempo_relay_join j = {a->match, (uint8_t)a->local, a->players, a->input_size, a->fps, 0, 0,
                              true};
        if (tempo_relay_join_write(&j, cfg.join) != TEMPO_OK) {
            snprintf(why, why_size, "no join for match %" PRIu64, a->match);
            return false;
        }
        cfg.nonce = a->nonce ? a->nonce : 1;
        cfg.protocol_id = TEMPO_RELAY_PLAIN_PROTOCOL;
    }
    tempo_address self;
    /* A relay on loopback: every member is on this machine, which the
     * relay already sees; no other address of it is offered. */
    bool loopback = a->relay.family == TEMPO_ADDRESS_IPV4 && a->relay.bytes[0] == 127;
    if (!loopback && tempo_udp_local_address(udp, &self) == TEMPO_OK)
        cfg.nlocal = local_addresses(cfg.local, TEMPO_TRAVERSAL_MAX_LOCAL, self.port);
    tempo_result r = tempo_traversal_create(&cfg, now_us, out);
    if (r != TEMPO_OK) {
        snprintf(why, why_size, "cannot start the traversal: %s", tempo_strerror(r));
        return false;
    }
    return true;
}

/* The program the path lines name: the one that met its peers. */
static const char *program = "tempo-arena";

bool arena_p2p_meet(tempo_traversal **out, tempo_udp *udp, const arena_p2p_args *a,
                    uint64_t deadline_us, const char *prog)
{
    program = prog;
    char why[256], addr[TEMPO_ADDRESS_STRLEN];
    uint64_t now = platform_now_us();
    if (!arena_p2p_open(out, udp, a, now, why, sizeof why)) {
        fprintf(stderr, "%s: %s\n", prog, why);
        return false;
    }
    tempo_address_format(&a->relay, addr, sizeof addr);
    tempo_traversal_status st;
    for (;;) {
        now = platform_now_us();
        tempo_traversal_update(*out, now);
        tempo_traversal_get_status(*out, &st);
        if (st.state == TEMPO_TRAVERSAL_READY)
            return true;
        if (st.state == TEMPO_TRAVERSAL_FAILED || now >= deadline_us)
            break;
        platform_sleep_until_us(now + 5000u);
    }
    fprintf(stderr, "%s: the relay at %s %s\n", prog, addr,
            st.state == TEMPO_TRAVERSAL_FAILED
                ? "refused us, or never answered: another member has our players, the members "
                  "differ in --players, the token is not a --p2p one, or the relay is full"
            : st.state == TEMPO_TRAVERSAL_CONNECTING
                ? "never answered (is tempo-relay running there?)"
                : "admitted us, but not every player came in time");
    tempo_traversal_destroy(*out);
    *out = NULL;
    return false;
}

static void path_line(const tempo_traversal *t, int p, bool final)
{
    tempo_path_info pi;
    if (tempo_traversal_get_path(t, p, &pi) != TEMPO_OK)
        return;
    char direct[TEMPO_ADDRESS_STRLEN], pub[TEMPO_ADDRESS_STRLEN];
    tempo_address_format(&pi.direct, direct, sizeof direct);
    tempo_address_format(&pi.public_addr, pub, sizeof pub);
    fprintf(stderr, "%s: %s player %d: %s", program, final ? "path of" : "path to", p,
            tempo_path_name(pi.path));
    if (pi.path == TEMPO_PATH_DIRECT)
        fprintf(stderr, " to %s", direct);
    else
        fprintf(stderr, " (the relay sees it at %s)", pub);
    if (pi.direct_after_ms)
        fprintf(stderr, ", first direct after %" PRIu32 " ms", pi.direct_after_ms);
    fprintf(stderr, "; rtt direct %.1f ms, relay %.1f ms", (double)pi.rtt_direct_us / 1000.0,
            (double)pi.rtt_relay_us / 1000.0);
    if (final)
        fprintf(stderr, "; upgrades %" PRIu64 ", downgrades %" PRIu64, pi.upgrades,
                pi.downgrades);
    fputc('\n', stderr);
}

void arena_p2p_paths(const tempo_traversal *t, arena_paths *seen, int players, uint32_t local,
                     bool final)
{
    uint32_t done = local;
    for (int p = 0; p < players && p < 8; p++) {
        if (done >> p & 1u)
            continue;
        tempo_path_info pi;
        if (tempo_traversal_get_path(t, p, &pi) != TEMPO_OK)
            continue;
        /* one line per machine: its lowest player stands for it */
        tempo_address me, other;
        for (int q = p + 1; q < players && q < 8; q++)
            if (tempo_traversal_peer_address(t, p, &me) == TEMPO_OK &&
                tempo_traversal_peer_address(t, q, &other) == TEMPO_OK &&
                tempo_address_equal(&me, &other))
                done |= 1u << q;
        if (final || seen->last[p] != pi.path) {
            seen->last[p] = pi.path;
            path_line(t, p, final);
        }
    }
}
