/* SPDX-License-Identifier: MIT */
/*
 * tempo_flood.c — send hostile UDP datagrams at a tempo peer at a steady
 * rate, to see it keep playing (tests/arena_flood.sh, docs/SECURITY.md).
 *
 *   tempo-flood --to HOST:PORT --rate R --seconds S [--seed N]
 *               [--min-size A] [--max-size B]
 *               [--session-id ID [--headers PCT]] [--datagram HEX [--copies PCT]]
 *               [--from A.B.C.D:PORT]
 *
 * Each datagram is one of three kinds, drawn at random:
 *   - a copy of the --datagram given in hex (--copies percent of them);
 *   - a well-formed plain tempo header (protocol byte of this version, the
 *     --session-id, a random sequence and message type 1..127) followed by
 *     random bytes (--headers percent);
 *   - random bytes of a random size in [--min-size, --max-size] (the rest).
 * The rate is kept against the clock: after t seconds, rate * t datagrams
 * have gone (sent in bursts about a millisecond apart), R * S in all. At
 * the end one line on stdout says what went:
 *
 *   flood sent=N bytes=B seconds=T rate=N/T asked=R random=.. headers=.. copies=.. errors=E
 *
 * errors counts sends the system refused (a full send buffer); they are
 * not in sent.
 *
 * --from forges the source address: datagrams then go out through a raw
 * IPv4 socket whose IP header names A.B.C.D:PORT as the sender, as an
 * off-path attacker who knows a peer's address would send them. Linux only,
 * and it needs the right to open raw sockets (root or CAP_NET_RAW). Without
 * --from an ordinary UDP socket on a free port sends (tempo/udp.h), on
 * every system tempo builds for.
 *
 * The random choices come from PCG32 seeded with --seed, so two runs send
 * the same datagrams in the same order (not at the same instants).
 * Exit codes: 0 done, 1 runtime error, 2 usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "platform.h"
#include "tempo/rng.h"
#include "tempo/transport.h"
#include "tempo/udp.h"

#if defined(__linux__)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#define FLOOD_CAN_SPOOF 1
#else
#define FLOOD_CAN_SPOOF 0
#endif

#define BURST_US 1000u      /* time between bursts */
#define HEADER_SIZE 8       /* docs/PROTOCOL.md, section 2 */
#define PROTOCOL_BYTE 0xB4u /* magic 1011, plain, version 4 */

typedef struct flood_cli {
    tempo_address to, from;
    bool spoof;
    int rate;
    int seconds;
    uint64_t seed;
    int min_size, max_size;
    uint64_t session_id;
    bool has_session_id;
    int headers_pct;
    uint8_t datagram[TEMPO_MAX_DATAGRAM];
    size_t datagram_size;
    int copies_pct;
} flood_cli;

static bool parse_to(void *field, const char *value, char *why, size_t why_size)
{
    flood_cli *o = field;
    if (!platform_resolve(value, TEMPO_ADDRESS_NONE, &o->to, why, why_size))
        return false;
    if (o->to.port == 0) {
        snprintf(why, why_size, "port 0: want the target's port, 1..65535");
        return false;
    }
    return true;
}

static bool parse_from(void *field, const char *value, char *why, size_t why_size)
{
    flood_cli *o = field;
    if (!platform_resolve(value, TEMPO_ADDRESS_IPV4, &o->from, why, why_size))
        return false;
    if (o->from.port == 0) {
        snprintf(why, why_size, "port 0: want the forged sender's port, 1..65535");
        return false;
    }
    o->spoof = true;
    return true;
}

static bool parse_session_id(void *field, const char *value, char *why, size_t why_size)
{
    flood_cli *o = field;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(value, &end, 0);
    if (end == value || *end || errno || v > UINT32_MAX || value[0] == '-') {
        snprintf(why, why_size, "want a session id 0..4294967295 (decimal or 0x hex)");
        return false;
    }
    o->session_id = v;
    o->has_session_id = true;
    return true;
}

static bool parse_datagram(void *field, const char *value, char *why, size_t why_size)
{
    flood_cli *o = field;
    size_t len = strlen(value);
    if (len == 0 || len % 2 || len / 2 > TEMPO_MAX_DATAGRAM) {
        snprintf(why, why_size, "want an even number of hex digits, 2..%d", 2 * TEMPO_MAX_DATAGRAM);
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        char c = value[i];
        int v = c >= '0' && c <= '9' ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (v < 0) {
            snprintf(why, why_size, "'%c' is not a hex digit", c);
            return false;
        }
        if (i % 2 == 0)
            o->datagram[i / 2] = (uint8_t)(v << 4);
        else
            o->datagram[i / 2] |= (uint8_t)v;
    }
    o->datagram_size = len / 2;
    return true;
}

#define FIELD(f) offsetof(flood_cli, f)
static const option_spec flood_specs[] = {
    {.name = "to", .kind = OPTION_CUSTOM, .value = "HOST:PORT", .parse = parse_to,
     .range = "HOST a name, a.b.c.d or [v6]", .flags = OPTION_REQUIRED,
     .help = "the target"},
    {.name = "rate", .kind = OPTION_INT, .value = "R", .offset = FIELD(rate), .min = 1,
     .max = 1000000, .help = "datagrams per second", .flags = OPTION_REQUIRED},
    {.name = "seconds", .kind = OPTION_INT, .value = "S", .offset = FIELD(seconds), .min = 1,
     .max = 3600, .help = "how long to send", .flags = OPTION_REQUIRED},
    {.name = "seed", .kind = OPTION_U64, .value = "S", .offset = FIELD(seed), .min = 0, .max = 0,
     .range = "0..2^64-1", .help = "sizes, bytes and kinds; default 1"},
    {.name = "min-size", .kind = OPTION_INT, .value = "A", .offset = FIELD(min_size), .min = 1,
     .max = TEMPO_MAX_DATAGRAM, .help = "smallest random datagram, default 1"},
    {.name = "max-size", .kind = OPTION_INT, .value = "B", .offset = FIELD(max_size), .min = 1,
     .max = TEMPO_MAX_DATAGRAM, .help = "largest random datagram, default 1200"},
    {.name = "session-id", .kind = OPTION_CUSTOM, .value = "ID", .parse = parse_session_id,
     .range = "0..2^32-1",
     .help = "the match's session id, for --headers\n(tempo_config.session_id; 1 by default)"},
    {.name = "headers", .kind = OPTION_INT, .value = "PCT", .offset = FIELD(headers_pct),
     .min = 0, .max = 100,
     .help = "percent of datagrams that start with a well-formed\n"
             "plain tempo header; needs --session-id; default 0"},
    {.name = "datagram", .kind = OPTION_CUSTOM, .value = "HEX", .parse = parse_datagram,
     .range = "1..1200 bytes in hex", .help = "a datagram to send copies of (--copies)"},
    {.name = "copies", .kind = OPTION_INT, .value = "PCT", .offset = FIELD(copies_pct), .min = 0,
     .max = 100, .help = "percent of datagrams that are copies of\n--datagram; default 0"},
    {.name = "from", .kind = OPTION_CUSTOM, .value = "A.B.C.D:PORT", .parse = parse_from,
     .range = "an IPv4 address and port",
     .help = "forge the sender's address (raw socket: Linux,\nroot or CAP_NET_RAW)"},
};

static const option_command flood_command = {
    .program = "tempo-flood",
    .synopsis = "  Send random and crafted UDP datagrams at a target at a steady rate, then\n"
                "  print what went: 'flood sent=N bytes=B seconds=T rate=... asked=R ...'.",
    .specs = flood_specs,
    .count = (int)(sizeof flood_specs / sizeof flood_specs[0]),
    .epilogue = "example, 20,000 garbage datagrams a second for 10 s at a tempo-arena peer:\n"
                "  tempo-flood --to 127.0.0.1:7000 --rate 20000 --seconds 10 \\\n"
                "              --session-id 1 --headers 25\n"
                "exit: 0 done, 1 error, 2 usage\n",
};

static option_status check(const flood_cli *o)
{
    const option_command *c = &flood_command;
    if (o->min_size > o->max_size)
        return options_error(c, "--min-size %d is above --max-size %d", o->min_size, o->max_size);
    if (o->headers_pct > 0 && !o->has_session_id)
        return options_error(c, "--headers needs --session-id (the match's, 1 by default)");
    if (o->copies_pct > 0 && o->datagram_size == 0)
        return options_error(c, "--copies needs --datagram");
    if (o->headers_pct + o->copies_pct > 100)
        return options_error(c, "--headers %d and --copies %d: together at most 100",
                             o->headers_pct, o->copies_pct);
    if (o->spoof && !FLOOD_CAN_SPOOF)
        return options_error(c, "--from: forging addresses needs Linux raw sockets");
    if (o->spoof && o->to.family != TEMPO_ADDRESS_IPV4)
        return options_error(c, "--from: forged datagrams go to IPv4 targets only");
    return OPTIONS_OK;
}

/* Where the datagrams leave: a UDP socket, or a raw socket that writes its
 * own IPv4 and UDP headers. */
typedef struct flood_out {
    tempo_udp *udp;
    tempo_transport tr;
    int raw;
    uint8_t packet[28 + TEMPO_MAX_DATAGRAM];
} flood_out;

static bool out_open(flood_out *f, const flood_cli *o)
{
    f->raw = -1;
    if (o->spoof) {
#if FLOOD_CAN_SPOOF
        f->raw = socket(AF_INET, SOCK_RAW, IPPROTO_RAW); /* IP_HDRINCL implied */
        if (f->raw < 0) {
            fprintf(stderr, "tempo-flood: --from: no raw socket: %s (root or CAP_NET_RAW)\n",
                    strerror(errno));
            return false;
        }
        return true;
#endif
    }
    tempo_address any = {.family = o->to.family};
    if (tempo_udp_open(&any, NULL, &f->udp) != TEMPO_OK) {
        fprintf(stderr, "tempo-flood: no UDP socket: %s\n", strerror(errno));
        return false;
    }
    f->tr = tempo_udp_transport(f->udp);
    return true;
}

#if FLOOD_CAN_SPOOF
static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
#endif

/* One datagram out; false when the system refused it. */
static bool out_send(flood_out *f, const flood_cli *o, const uint8_t *data, size_t size)
{
    if (f->raw < 0)
        return f->tr.send(f->tr.ctx, &o->to, data, size) == 0;
#if FLOOD_CAN_SPOOF
    /* IPv4 header (RFC 791) and UDP header (RFC 768), big endian. The
     * kernel fills the IP checksum and the total length; a UDP checksum of
     * 0 means none, which IPv4 allows. */
    uint8_t *p = f->packet;
    memset(p, 0, 28);
    p[0] = 0x45;                       /* version 4, 5 words of header */
    put16(p + 2, (uint32_t)(28 + size));
    p[8] = 64;                         /* time to live */
    p[9] = 17;                         /* UDP */
    memcpy(p + 12, o->from.bytes, 4);
    memcpy(p + 16, o->to.bytes, 4);
    put16(p + 20, o->from.port);
    put16(p + 22, o->to.port);
    put16(p + 24, (uint32_t)(8 + size));
    memcpy(p + 28, data, size);
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    memcpy(&sin.sin_addr, o->to.bytes, 4);
    return sendto(f->raw, p, 28 + size, 0, (const struct sockaddr *)&sin, sizeof sin) ==
           (ssize_t)(28 + size);
#else
    (void)o;
    (void)data;
    (void)size;
    return false;
#endif
}

static void out_close(flood_out *f)
{
#if FLOOD_CAN_SPOOF
    if (f->raw >= 0)
        close(f->raw);
#endif
    tempo_udp_close(f->udp);
}

enum { KIND_RANDOM, KIND_HEADER, KIND_COPY, KIND_COUNT };

/* The next datagram into buf; returns its size and sets *kind. */
static size_t next_datagram(tempo_rng *r, const flood_cli *o, uint8_t *buf, int *kind)
{
    uint32_t roll = tempo_rng_below(r, 100);
    if (roll < (uint32_t)o->copies_pct) {
        *kind = KIND_COPY;
        memcpy(buf, o->datagram, o->datagram_size);
        return o->datagram_size;
    }
    int lo = o->min_size, hi = o->max_size;
    bool header = roll < (uint32_t)(o->copies_pct + o->headers_pct);
    if (header && lo < HEADER_SIZE)
        lo = HEADER_SIZE;
    if (hi < lo)
        hi = lo;
    size_t size = (size_t)tempo_rng_range(r, lo, hi);
    for (size_t i = 0; i < size; i += 4) {
        uint32_t w = tempo_rng_next(r);
        for (size_t k = 0; k < 4 && i + k < size; k++)
            buf[i + k] = (uint8_t)(w >> (8 * k));
    }
    *kind = KIND_RANDOM;
    if (header) {
        uint32_t sid = (uint32_t)o->session_id;
        buf[0] = PROTOCOL_BYTE;
        for (int k = 0; k < 4; k++)
            buf[1 + k] = (uint8_t)(sid >> (8 * k)); /* little endian on the wire */
        /* bytes 5-6: the random sequence already there */
        buf[7] = (uint8_t)(1 + tempo_rng_below(r, 127)); /* not a fragment, type 1..127 */
        *kind = KIND_HEADER;
    }
    return size;
}

int main(int argc, char **argv)
{
    static flood_cli o;
    o.seed = 1;
    o.min_size = 1;
    o.max_size = TEMPO_MAX_DATAGRAM;
    option_status st = options_parse(&flood_command, argc, argv, &o, NULL);
    if (st == OPTIONS_OK)
        st = check(&o);
    if (st != OPTIONS_OK)
        return st == OPTIONS_HELP ? 0 : 2;
    static flood_out out;
    if (!out_open(&out, &o))
        return 1;
    tempo_rng rng;
    tempo_rng_seed(&rng, o.seed, 0x666c6f6fu);
    static uint8_t buf[TEMPO_MAX_DATAGRAM];
    const uint64_t total = (uint64_t)o.rate * (uint64_t)o.seconds;
    uint64_t sent = 0, tried = 0, errors = 0, bytes = 0, kinds[KIND_COUNT] = {0};
    const uint64_t start = platform_now_us();
    uint64_t now = start;
    while (tried < total) {
        uint64_t due = (now - start) * (uint64_t)o.rate / 1000000u + 1;
        if (due > total)
            due = total;
        for (; tried < due; tried++) {
            int kind;
            size_t size = next_datagram(&rng, &o, buf, &kind);
            if (out_send(&out, &o, buf, size)) {
                sent++;
                bytes += size;
                kinds[kind]++;
            } else {
                errors++;
            }
        }
        if (tried < total)
            platform_sleep_until_us(platform_now_us() + BURST_US);
        now = platform_now_us();
    }
    out_close(&out);
    double seconds = (double)(now - start) / 1e6;
    if (seconds < 1e-6)
        seconds = 1e-6;
    printf("flood sent=%" PRIu64 " bytes=%" PRIu64 " seconds=%.2f rate=%.0f asked=%d random=%" PRIu64
           " headers=%" PRIu64 " copies=%" PRIu64 " errors=%" PRIu64 "\n",
           sent, bytes, seconds, (double)sent / seconds, o.rate, kinds[KIND_RANDOM],
           kinds[KIND_HEADER], kinds[KIND_COPY], errors);
    return 0;
}
