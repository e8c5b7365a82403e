/* SPDX-License-Identifier: MIT */
/*
 * agones.h — a client of Agones' SDK server, for tempo's programs that run
 * as Agones game servers (tempo-relay, tempo-pong --server).
 *
 * In an Agones pod the game server talks to the SDK server beside it over
 * HTTP on localhost (port AGONES_SDK_HTTP_PORT, default 9358): POST /ready,
 * /allocate, /reserve, /shutdown and /health, PUT /metadata/label and
 * /metadata/annotation (the SDK server puts "agones.dev/sdk-" before each
 * key), GET /gameserver, and GET /watch/gameserver, a stream of the
 * GameServer object, one JSON object per line, each time it changes. This
 * client speaks exactly that, without gRPC and without a thread: the
 * program calls agones_update from its loop, and everything happens in
 * that call, without waiting (http_conn.h).
 *
 * Three connections: one for the requests (sent in the order asked, one at
 * a time), one for the health pings (so a slow answer to a request never
 * delays them), one for the watch. A request that fails for want of the
 * SDK server (not started yet, restarting, too slow, answering 5xx) is
 * tried again, backing off from 250 ms to 2 s, until it goes through; one
 * the SDK server refuses (4xx) is dropped (a label refused is not set
 * again until asked for anew). An update reads at most 4 GameServers from
 * the watch, so a flooding SDK server costs the loop a bounded amount. Health goes every health_ms
 * whatever happens to the rest, so a loop that stops calling
 * agones_update is seen as unhealthy, which is the point. Every failure is
 * logged with its cause: the first of a run at once, the rest counted and
 * summed up at most every 10 s with the latest cause, and the end of the
 * run.
 *
 * What the watch says is kept as an agones_gameserver (state, address,
 * ports, labels and annotations, each bounded). The labels and annotations
 * this client set are re-sent when the GameServer read back lacks them for
 * longer than resend_ms, or at once in the first read after the watch
 * broke (an SDK server that restarted without its record, as local mode
 * does); three times at most while it never reads back, then not until
 * the value changes. Nothing here ever ends the program or a match: the
 * worst an absent or broken SDK server does is keep requests waiting.
 *
 * Single-threaded. Allocates at create only.
 */
#ifndef TOOLS_AGONES_H
#define TOOLS_AGONES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AGONES_DEFAULT_PORT 9358
#define AGONES_META_MAX 32     /* labels, and annotations, kept from a GameServer */
#define AGONES_KEY_MAX 320     /* bytes of a kept key with its NUL (prefix/name) */
#define AGONES_VALUE_MAX 256   /* bytes of a kept value with its NUL */
#define AGONES_PORTS_MAX 8     /* ports kept from status.ports */

/* A GameServer's state (Agones' GameServerState). */
typedef enum agones_state {
    AGONES_STATE_UNKNOWN = 0,  /* nothing read yet */
    AGONES_STATE_SCHEDULED,
    AGONES_STATE_REQUEST_READY,
    AGONES_STATE_READY,
    AGONES_STATE_RESERVED,
    AGONES_STATE_ALLOCATED,
    AGONES_STATE_SHUTDOWN,
    AGONES_STATE_UNHEALTHY,
    AGONES_STATE_ERROR,
    AGONES_STATE_OTHER         /* PortAllocation, Creating, Starting, or a name unknown here */
} agones_state;

typedef struct agones_meta {
    char key[AGONES_KEY_MAX];
    char value[AGONES_VALUE_MAX]; /* "" and `long_value` when it did not fit */
    bool long_value;
} agones_meta;

/* The GameServer as last read (from the watch, or GET /gameserver). */
typedef struct agones_gameserver {
    uint64_t version;          /* 0: none read yet; +1 each time one is */
    agones_state state;
    char state_name[32];       /* as the SDK server wrote it */
    char name[128];            /* object_meta.name */
    char address[64];          /* status.address */
    int port_count;
    struct {
        char name[32];
        int port;
    } ports[AGONES_PORTS_MAX];
    int label_count, annotation_count;
    agones_meta labels[AGONES_META_MAX];
    agones_meta annotations[AGONES_META_MAX];
    int meta_dropped;          /* labels and annotations past AGONES_META_MAX or unreadable */
} agones_gameserver;

typedef struct agones_config {
    const char *program;       /* names the log lines */
    int port;                  /* the SDK server's HTTP port on 127.0.0.1, 1..65535 */
    uint32_t health_ms;        /* between health pings, 100..60000; default 2000 */
    uint32_t timeout_ms;       /* a connect or a whole answer, 100..60000; default 5000 */
    size_t max_object_bytes;   /* a GameServer object read, 4096..16 MiB; default 256 KiB */
    uint32_t resend_ms;        /* a label set but read back otherwise this long is set
                                  again, 100..600000; default 5000 */
    bool watch;                /* keep a watch open; default true */
    /* Where log lines go (NULL: stderr as "<program>: agones: <line>"). */
    void (*log)(void *ctx, const char *line);
    void *log_ctx;
} agones_config;

typedef struct agones_stats {
    uint64_t requests_ok;      /* requests the SDK server answered 2xx */
    uint64_t requests_failed;  /* attempts that failed (each retried) */
    uint64_t requests_refused; /* requests answered 4xx: dropped */
    uint64_t health_ok, health_failed;
    uint64_t health_skipped;   /* a ping due while the last one had no answer yet */
    uint64_t watch_updates;    /* GameServer objects read from the watch */
    uint64_t watch_failed;     /* watch connections that failed or ended */
    uint64_t watch_bad;        /* watch lines dropped: too long, not JSON, no object */
    uint64_t resent;           /* labels and annotations set again (missing when read back) */
} agones_stats;

typedef struct agones agones;

/* Fill cfg with the defaults above; port from AGONES_SDK_HTTP_PORT. */
void agones_config_default(agones_config *cfg, const char *program);

/* The port AGONES_SDK_HTTP_PORT names: AGONES_DEFAULT_PORT when it is not
 * set, -1 when it is set to something that is not a port 1..65535. */
int agones_port_from_env(void);

/* Whether AGONES_SDK_HTTP_PORT is set (to anything): a program's --agones
 * is on by default then. */
bool agones_env_present(void);

/* What a program's --agones / --no-agones and the environment decide:
 * *on (Agones on with --agones, or AGONES_SDK_HTTP_PORT set and no
 * --no-agones) and *port. False, with a message naming `program` on
 * stderr, when both flags are given or AGONES_SDK_HTTP_PORT is not a
 * port: a usage error. */
bool agones_choose(bool flag_on, bool flag_off, const char *program, bool *on, int *port);

/* The options that go with it in a program's table (options.h): --agones
 * and --no-agones into bool fields, --drain-seconds into an int field, at
 * these offsets; `who` starts each help text ("" or "server: "). */
#define AGONES_OPTION_SPECS(agones_offset, no_agones_offset, drain_offset, who)                 \
    {.name = "agones", .kind = OPTION_FLAG, .offset = (agones_offset),                          \
     .help = who "an Agones game server (docs/DEPLOY.md); the\n"                               \
                 "default when AGONES_SDK_HTTP_PORT is set"},                                    \
    {.name = "no-agones", .kind = OPTION_FLAG, .offset = (no_agones_offset),                    \
     .help = who "not an Agones game server, whatever the\nenvironment"},                       \
    {.name = "drain-seconds", .kind = OPTION_INT, .value = "S", .offset = (drain_offset),       \
     .min = 1, .max = 86400,                                                                     \
     .help = who "under Agones or Edgegap, how long a signal\n"                                  \
                 "lets running matches go on, default 600"}

/* Start a client (no connection is made before the first update). NULL on
 * a config out of range or no memory (a message on stderr). */
agones *agones_create(const agones_config *cfg);
void agones_destroy(agones *a);

/* Everything the client does happens here, without waiting: connect,
 * send what is due, read answers and the watch. Call it from the loop at
 * least every few tens of milliseconds; it returns at once when nothing is
 * due (it looks at its sockets every 5 ms at most). */
void agones_update(agones *a, uint64_t now_us);

/* Ask for a state change or metadata; each is queued and sent in order
 * (a request of the same kind, or for the same key, still waiting is
 * replaced rather than repeated). Each returns false only for a caller's
 * mistake: seconds out of 0..2^31-1, a key or a label value Kubernetes
 * would refuse (a label key 1..59 characters of [A-Za-z0-9._-] starting
 * and ending alphanumeric, since the SDK server puts "agones.dev/sdk-"
 * before it; a label value 0..63 such characters; an annotation value up
 * to 1024 bytes), or a queue of 32 distinct requests still waiting. */
bool agones_ready(agones *a);
bool agones_allocate(agones *a);
bool agones_reserve(agones *a, long seconds);
bool agones_shutdown(agones *a);
bool agones_set_label(agones *a, const char *key, const char *value);
bool agones_set_annotation(agones *a, const char *key, const char *value);
/* Read the GameServer once (GET /gameserver) into the view. */
bool agones_get(agones *a);

/* Whether every request asked for has been answered (or refused). */
bool agones_settled(const agones *a);

/* The GameServer as last read; version 0 before the first. */
const agones_gameserver *agones_view(const agones *a);

void agones_get_stats(const agones *a, agones_stats *out);

/* "Ready", "Allocated", ... ("Unknown" for AGONES_STATE_UNKNOWN). */
const char *agones_state_name(agones_state s);

/* What an allocator put on the GameServer, for a log line: "labels: k=v
 * ...; annotations: k=v ..." without Agones' own (agones.dev/ keys), into
 * buf[0..size) (cut to fit, control characters replaced by '?'). */
void agones_describe_metadata(const agones_gameserver *g, char *buf, size_t size);

/* The value of `key` among n metadata entries, or NULL. */
const char *agones_meta_get(const agones_meta *meta, int n, const char *key);

#ifdef __cplusplus
}
#endif

#endif /* TOOLS_AGONES_H */
