/* SPDX-License-Identifier: MIT */
/*
 * agones.c — the client of Agones' SDK server (agones.h).
 *
 * Three http_conn: `req` carries the queued requests, one at a time, the
 * head of the queue staying there until answered; `health` a ping every
 * health_ms; `watch` the GameServer stream. Invariants: the head of the
 * queue is the request on `req` whenever req.busy; a queued label or
 * annotation names a key at most once after the head; every label and
 * annotation set is in `owned` with the value last asked for.
 *
 * The SDK server's JSON is the protobuf mapping of its GameServer message
 * (object_meta, status.state, ...), each watch line wrapped as
 * {"result": ...} by its HTTP gateway, or {"error": ...} when the stream
 * breaks. Facts from Agones' SDK documentation and its sdk-server source.
 */
#include "agones.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_conn.h"
#include "json_scan.h"
#include "tempo/transport.h"

#define IO_PERIOD_US 5000u        /* sockets are looked at this often at most */
#define BACKOFF_MIN_US 250000u
#define BACKOFF_MAX_US 2000000u  /* the SDK server is local: a retry costs nothing */
#define QUEUE_MAX 32
#define OWNED_MAX 32
#define CHECK_EVERY_US 1000000u   /* how often the view is compared with `owned`, at most */
#define RESENDS_MAX 3             /* a label never read back is set again this often */
#define SUMMARY_US 10000000u      /* repeats of one failure are summed up this often */
#define EVENTS_PER_UPDATE 16      /* per connection per update */
#define WATCH_LINES_PER_UPDATE 4  /* a flooding watch waits in its socket */
#define KEY_NAME_MAX 59           /* "sdk-" + key within Kubernetes' 63 */
#define LABEL_VALUE_MAX 63
#define ANNOTATION_VALUE_MAX 1024
#define PREFIX "agones.dev/sdk-"

typedef enum op_kind {
    OP_READY,
    OP_ALLOCATE,
    OP_RESERVE,
    OP_SHUTDOWN,
    OP_LABEL,
    OP_ANNOTATION,
    OP_GET
} op_kind;

typedef struct op {
    op_kind kind;
    long seconds;                            /* OP_RESERVE */
    char key[KEY_NAME_MAX + 1];              /* OP_LABEL, OP_ANNOTATION */
    char value[ANNOTATION_VALUE_MAX + 1];
} op;

typedef struct owned {
    bool used, annotation;
    char key[KEY_NAME_MAX + 1];
    char value[ANNOTATION_VALUE_MAX + 1];
    uint64_t mismatch_since;                 /* 0: read back as set (or not checked yet) */
    uint64_t set_us;                         /* when the SDK server last took it (2xx) */
    bool refused;                            /* the SDK server refused it (4xx): not again */
    int resends;                             /* set again for want of reading it back */
} owned;

/* A run of failures of one kind of exchange, for the log. */
typedef struct trouble {
    bool active;
    char cause[200];
    uint64_t count, repeats, last_line_us;
} trouble;

struct agones {
    agones_config cfg;
    char program[64];
    http_conn req, health, watch;
    op queue[QUEUE_MAX];
    int q_head, q_len;
    uint64_t req_next_us;                    /* backoff: the head waits until then */
    int req_attempts;
    uint64_t next_io_us, next_health_us, watch_next_us, next_check_us;
    int watch_attempts;
    bool watch_broke;                        /* since the last GameServer read */
    bool fresh;                              /* the first read after the watch broke */
    trouble t_req, t_health, t_watch, t_slow;
    uint64_t health_sent_us;                 /* when the ping out was sent */
    owned owned[OWNED_MAX];
    agones_gameserver view, scratch;
    uint64_t view_us;                        /* when the view was read */
    agones_stats st;
};

/* ---- logging ---------------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void logf_(agones *a, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    for (char *p = line; *p; p++) /* what the server sent is printed, not obeyed */
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    if (a->cfg.log)
        a->cfg.log(a->cfg.log_ctx, line);
    else
        fprintf(stderr, "%s: agones: %s\n", a->program, line);
}

/* The first failure of a run is logged at once, whole; the rest are
 * counted and summed up at most every SUMMARY_US with the latest cause. */
static void trouble_fail(agones *a, trouble *t, const char *what, const char *cause,
                         const char *then, uint64_t now)
{
    t->count++;
    snprintf(t->cause, sizeof t->cause, "%s", cause);
    if (!t->active) {
        logf_(a, "%s failed: %s%s", what, cause, then);
        t->active = true;
        t->repeats = 0;
        t->last_line_us = now;
        return;
    }
    t->repeats++;
    if (now - t->last_line_us >= SUMMARY_US) {
        logf_(a, "%s still failing: %llu more times in %.0f s, the last: %s", what,
              (unsigned long long)t->repeats, (double)(now - t->last_line_us) / 1e6, cause);
        t->repeats = 0;
        t->last_line_us = now;
    }
}

static void trouble_ok(agones *a, trouble *t, const char *what)
{
    if (!t->active)
        return;
    logf_(a, "%s working again after %llu failures", what, (unsigned long long)t->count);
    t->active = false;
    t->count = t->repeats = 0;
}

/* ---- config ------------------------------------------------------------------ */

bool agones_env_present(void)
{
    return getenv("AGONES_SDK_HTTP_PORT") != NULL;
}

int agones_port_from_env(void)
{
    const char *s = getenv("AGONES_SDK_HTTP_PORT");
    if (!s)
        return AGONES_DEFAULT_PORT;
    long v = 0;
    if (!*s || strlen(s) > 5)
        return -1;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10 + (*p - '0');
    }
    return v >= 1 && v <= 65535 ? (int)v : -1;
}

bool agones_choose(bool flag_on, bool flag_off, const char *program, bool *on, int *port)
{
    *on = false;
    *port = agones_port_from_env();
    if (flag_on && flag_off) {
        fprintf(stderr, "%s: --agones and --no-agones contradict each other\n", program);
        return false;
    }
    *on = flag_on || (agones_env_present() && !flag_off);
    if (*on && *port < 0) {
        fprintf(stderr, "%s: AGONES_SDK_HTTP_PORT=%s is not a port 1..65535\n", program,
                getenv("AGONES_SDK_HTTP_PORT"));
        return false;
    }
    return true;
}

void agones_config_default(agones_config *cfg, const char *program)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->program = program;
    cfg->port = agones_port_from_env();
    cfg->health_ms = 2000;
    cfg->timeout_ms = 5000;
    cfg->max_object_bytes = 256u * 1024u;
    cfg->resend_ms = 5000;
    cfg->watch = true;
}

agones *agones_create(const agones_config *cfg)
{
    const char *program = cfg && cfg->program ? cfg->program : "tempo";
    if (!cfg || cfg->port < 1 || cfg->port > 65535 || cfg->health_ms < 100 ||
        cfg->health_ms > 60000 || cfg->timeout_ms < 100 || cfg->timeout_ms > 60000 ||
        cfg->max_object_bytes < 4096 || cfg->max_object_bytes > 16u * 1024u * 1024u ||
        cfg->resend_ms < 100 || cfg->resend_ms > 600000) {
        fprintf(stderr, "%s: agones: a setting is out of range (port %d)\n", program,
                cfg ? cfg->port : 0);
        return NULL;
    }
    agones *a = calloc(1, sizeof *a);
    if (!a) {
        fprintf(stderr, "%s: agones: out of memory\n", program);
        return NULL;
    }
    a->cfg = *cfg;
    snprintf(a->program, sizeof a->program, "%s", program);
    a->cfg.program = a->program;
    tempo_address sdk = tempo_address_ipv4(127, 0, 0, 1, (uint16_t)cfg->port);
    /* a ping due while the last has no answer is skipped: a slow SDK server
     * still gets one every other period */
    if (!http_conn_init(&a->req, &sdk, NULL, cfg->max_object_bytes, cfg->timeout_ms) ||
        !http_conn_init(&a->health, &sdk, NULL, 4096, cfg->timeout_ms) ||
        !http_conn_init(&a->watch, &sdk, NULL, cfg->max_object_bytes, cfg->timeout_ms)) {
        fprintf(stderr, "%s: agones: out of memory\n", program);
        agones_destroy(a);
        return NULL;
    }
    return a;
}

void agones_destroy(agones *a)
{
    if (!a)
        return;
    http_conn_free(&a->req);
    http_conn_free(&a->health);
    http_conn_free(&a->watch);
    free(a);
}

/* ---- requests ------------------------------------------------------------------ */

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_' || c == '.';
}

static bool alnum(char c)
{
    return name_char(c) && c != '-' && c != '_' && c != '.';
}

/* Kubernetes' rule for a label value or a key's name part: at most max of
 * [A-Za-z0-9._-], beginning and ending alphanumeric (empty if allowed). */
static bool k8s_name(const char *s, size_t max, bool empty_ok)
{
    size_t n = strlen(s);
    if (n == 0)
        return empty_ok;
    if (n > max || !alnum(s[0]) || !alnum(s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!name_char(s[i]))
            return false;
    return true;
}

static bool is_state_op(op_kind k)
{
    return k == OP_READY || k == OP_ALLOCATE || k == OP_RESERVE || k == OP_SHUTDOWN;
}

static op *queue_at(agones *a, int i)
{
    return &a->queue[(a->q_head + i) % QUEUE_MAX];
}

static bool enqueue(agones *a, op_kind kind, const char *key, const char *value, long seconds)
{
    int first = a->req.busy ? 1 : 0; /* the head on the wire stays as it is */
    if (kind == OP_LABEL || kind == OP_ANNOTATION) {
        for (int i = first; i < a->q_len; i++) {
            op *o = queue_at(a, i);
            if (o->kind == kind && strcmp(o->key, key) == 0) {
                snprintf(o->value, sizeof o->value, "%s", value);
                return true;
            }
        }
    } else {
        /* the same state change as the last one waiting: already asked */
        for (int i = a->q_len - 1; i >= first; i--) {
            op *o = queue_at(a, i);
            if (kind == OP_GET && o->kind == OP_GET)
                return true;
            if (is_state_op(kind) && is_state_op(o->kind)) {
                if (o->kind != kind)
                    break;
                o->seconds = seconds;
                return true;
            }
        }
    }
    if (a->q_len == QUEUE_MAX) {
        logf_(a, "32 requests are waiting for the SDK server: one more refused");
        return false;
    }
    op *o = queue_at(a, a->q_len++);
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->seconds = seconds;
    if (key)
        snprintf(o->key, sizeof o->key, "%s", key);
    if (value)
        snprintf(o->value, sizeof o->value, "%s", value);
    return true;
}

bool agones_ready(agones *a)
{
    return a && enqueue(a, OP_READY, NULL, NULL, 0);
}

bool agones_allocate(agones *a)
{
    return a && enqueue(a, OP_ALLOCATE, NULL, NULL, 0);
}

bool agones_reserve(agones *a, long seconds)
{
    return a && seconds >= 0 && seconds <= 2147483647L &&
           enqueue(a, OP_RESERVE, NULL, NULL, seconds);
}

bool agones_shutdown(agones *a)
{
    return a && enqueue(a, OP_SHUTDOWN, NULL, NULL, 0);
}

bool agones_get(agones *a)
{
    return a && enqueue(a, OP_GET, NULL, NULL, 0);
}

static bool set_meta(agones *a, bool annotation, const char *key, const char *value)
{
    if (!a || !key || !value || !k8s_name(key, KEY_NAME_MAX, false))
        return false;
    if (annotation ? strlen(value) > ANNOTATION_VALUE_MAX
                   : !k8s_name(value, LABEL_VALUE_MAX, true))
        return false;
    owned *slot = NULL;
    for (int i = 0; i < OWNED_MAX && !slot; i++)
        if (a->owned[i].used && a->owned[i].annotation == annotation &&
            strcmp(a->owned[i].key, key) == 0)
            slot = &a->owned[i];
    for (int i = 0; i < OWNED_MAX && !slot; i++)
        if (!a->owned[i].used)
            slot = &a->owned[i];
    if (!slot) {
        logf_(a, "more than 32 labels and annotations set: %s not kept", key);
        return false;
    }
    if (!enqueue(a, annotation ? OP_ANNOTATION : OP_LABEL, key, value, 0))
        return false;
    slot->used = true;
    slot->annotation = annotation;
    snprintf(slot->key, sizeof slot->key, "%s", key);
    snprintf(slot->value, sizeof slot->value, "%s", value);
    slot->mismatch_since = 0;
    slot->refused = false;
    slot->resends = 0;
    return true;
}

bool agones_set_label(agones *a, const char *key, const char *value)
{
    return set_meta(a, false, key, value);
}

bool agones_set_annotation(agones *a, const char *key, const char *value)
{
    return set_meta(a, true, key, value);
}

bool agones_settled(const agones *a)
{
    return !a || a->q_len == 0;
}

/* s as a JSON string at out[at..cap): the new end, or 0 if it does not fit. */
static size_t put_json_string(char *out, size_t cap, size_t at, const char *s)
{
    if (at + 2 > cap)
        return 0;
    out[at++] = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        size_t k;
        if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            k = 2;
        } else if (*p < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", *p);
            k = 6;
        } else {
            esc[0] = (char)*p;
            k = 1;
        }
        if (at + k + 1 > cap)
            return 0;
        memcpy(out + at, esc, k);
        at += k;
    }
    out[at++] = '"';
    return at;
}

static const char *op_path(const op *o, const char **method)
{
    *method = "POST";
    switch (o->kind) {
    case OP_READY:
        return "/ready";
    case OP_ALLOCATE:
        return "/allocate";
    case OP_RESERVE:
        return "/reserve";
    case OP_SHUTDOWN:
        return "/shutdown";
    case OP_LABEL:
        *method = "PUT";
        return "/metadata/label";
    case OP_ANNOTATION:
        *method = "PUT";
        return "/metadata/annotation";
    case OP_GET:
        *method = "GET";
        return "/gameserver";
    }
    return "/";
}

static void send_head(agones *a, uint64_t now)
{
    const op *o = queue_at(a, 0);
    char body[2 * ANNOTATION_VALUE_MAX + 256];
    size_t n = 0;
    if (o->kind == OP_LABEL || o->kind == OP_ANNOTATION) {
        n = (size_t)snprintf(body, sizeof body, "{\"key\":");
        n = put_json_string(body, sizeof body, n, o->key);
        if (n)
            n += (size_t)snprintf(body + n, sizeof body - n, ",\"value\":");
        if (n)
            n = put_json_string(body, sizeof body, n, o->value);
        if (n && n + 2 < sizeof body) {
            body[n++] = '}';
            body[n] = '\0';
        }
    } else if (o->kind == OP_RESERVE) {
        n = (size_t)snprintf(body, sizeof body, "{\"seconds\":\"%ld\"}", o->seconds);
    } else if (o->kind != OP_GET) {
        n = (size_t)snprintf(body, sizeof body, "{}");
    }
    const char *method, *path = op_path(o, &method);
    if (!http_conn_request(&a->req, method, path, NULL, o->kind == OP_GET ? NULL : body, n, false,
                           now)) {
        logf_(a, "%s %s does not fit in a request: dropped", method, path);
        a->q_head = (a->q_head + 1) % QUEUE_MAX;
        a->q_len--;
    }
}

static bool read_gameserver(agones *a, const json_value *gs, uint64_t now);

static void pop_head(agones *a)
{
    a->q_head = (a->q_head + 1) % QUEUE_MAX;
    a->q_len--;
    a->req_attempts = 0;
    a->req_next_us = 0;
}

static uint64_t backoff_us(int attempts)
{
    uint64_t d = BACKOFF_MIN_US;
    for (int i = 1; i < attempts && d < BACKOFF_MAX_US; i++)
        d *= 2;
    return d < BACKOFF_MAX_US ? d : BACKOFF_MAX_US;
}

static void on_request_done(agones *a, http_event ev, uint64_t now)
{
    const op *o = queue_at(a, 0);
    const char *method, *path = op_path(o, &method);
    char what[96];
    snprintf(what, sizeof what, "%s %s", method, path);
    char cause[200];
    if (ev == HTTP_RESPONSE && a->req.status >= 200 && a->req.status < 300) {
        a->st.requests_ok++;
        trouble_ok(a, &a->t_req, "requests to the SDK server");
        for (int i = 0; i < OWNED_MAX; i++)
            if ((o->kind == OP_LABEL || o->kind == OP_ANNOTATION) && a->owned[i].used &&
                a->owned[i].annotation == (o->kind == OP_ANNOTATION) &&
                strcmp(a->owned[i].key, o->key) == 0)
                a->owned[i].set_us = now;
        if (o->kind == OP_GET) {
            json_value root;
            if (!a->req.body_over && json_scan_parse(a->req.body, a->req.body_len, &root))
                read_gameserver(a, &root, now);
            else
                logf_(a, "GET /gameserver: the answer is not a GameServer object (%lu bytes%s)",
                      (unsigned long)a->req.body_len, a->req.body_over ? ", cut" : "");
        }
        pop_head(a);
        return;
    }
    if (ev == HTTP_RESPONSE && a->req.status >= 400 && a->req.status < 500) {
        a->st.requests_refused++;
        for (int i = 0; i < OWNED_MAX; i++)
            if ((o->kind == OP_LABEL || o->kind == OP_ANNOTATION) && a->owned[i].used &&
                a->owned[i].annotation == (o->kind == OP_ANNOTATION) &&
                strcmp(a->owned[i].key, o->key) == 0)
                a->owned[i].refused = true;
        logf_(a, "%s%s%s refused: HTTP %d %.120s", what, o->key[0] ? " " : "", o->key,
              a->req.status, a->req.body);
        pop_head(a);
        return;
    }
    a->st.requests_failed++;
    if (ev == HTTP_RESPONSE)
        snprintf(cause, sizeof cause, "HTTP %d", a->req.status);
    else
        snprintf(cause, sizeof cause, "%s", a->req.why);
    a->req_attempts++;
    uint64_t wait = backoff_us(a->req_attempts);
    a->req_next_us = now + wait;
    char then[64];
    snprintf(then, sizeof then, "; trying again, backing off up to %u s",
             (unsigned)(BACKOFF_MAX_US / 1000000u));
    trouble_fail(a, &a->t_req, what, cause, then, now);
}

/* ---- the GameServer ------------------------------------------------------------ */

const char *agones_state_name(agones_state s)
{
    static const char *const names[] = {"Unknown",  "Scheduled", "RequestReady",
                                        "Ready",    "Reserved",  "Allocated",
                                        "Shutdown", "Unhealthy", "Error",
                                        "Other"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "Other";
}

static agones_state state_of(const char *name)
{
    for (int s = AGONES_STATE_SCHEDULED; s < AGONES_STATE_OTHER; s++)
        if (strcmp(name, agones_state_name((agones_state)s)) == 0)
            return (agones_state)s;
    return AGONES_STATE_OTHER;
}

const char *agones_meta_get(const agones_meta *meta, int n, const char *key)
{
    for (int i = 0; meta && key && i < n; i++)
        if (strcmp(meta[i].key, key) == 0)
            return meta[i].value;
    return NULL;
}

void agones_describe_metadata(const agones_gameserver *g, char *buf, size_t size)
{
    if (!buf || size == 0)
        return;
    buf[0] = '\0';
    size_t n = 0;
    const agones_meta *lists[2] = {g->labels, g->annotations};
    int counts[2] = {g->label_count, g->annotation_count};
    for (int l = 0; l < 2 && n < size; l++) {
        n += (size_t)snprintf(buf + n, size - n, "%s", l == 0 ? "labels:" : "; annotations:");
        for (int i = 0; i < counts[l] && n < size; i++) {
            const agones_meta *m = &lists[l][i];
            if (strncmp(m->key, "agones.dev/", 11) != 0)
                n += (size_t)snprintf(buf + n, size - n, " %s=%s", m->key,
                                      m->long_value ? "(long)" : m->value);
        }
    }
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

static int read_meta(agones_gameserver *g, const json_value *obj, agones_meta *out)
{
    int n = 0;
    size_t pos = 0;
    json_value k, v;
    while (obj->type == JSON_OBJECT && json_scan_next(obj, &pos, &k, &v)) {
        if (n == AGONES_META_MAX || !json_scan_string(&k, out[n].key, sizeof out[n].key) ||
            v.type != JSON_STRING) {
            g->meta_dropped++;
            continue;
        }
        out[n].long_value = !json_scan_string(&v, out[n].value, sizeof out[n].value);
        n++;
    }
    return n;
}

/* Read a GameServer object into the view: false (logged) if it is not one. */
static bool read_gameserver(agones *a, const json_value *gs, uint64_t now)
{
    agones_gameserver *g = &a->scratch;
    memset(g, 0, sizeof *g);
    json_value meta, status, v;
    json_scan_member(gs, "object_meta", &meta);
    json_scan_member(gs, "status", &status);
    if (meta.type != JSON_OBJECT && status.type != JSON_OBJECT) {
        logf_(a, "a GameServer without object_meta or status: ignored");
        return false;
    }
    if (json_scan_member(&meta, "name", &v))
        json_scan_string(&v, g->name, sizeof g->name);
    if (json_scan_member(&meta, "labels", &v))
        g->label_count = read_meta(g, &v, g->labels);
    if (json_scan_member(&meta, "annotations", &v))
        g->annotation_count = read_meta(g, &v, g->annotations);
    if (json_scan_member(&status, "state", &v) &&
        json_scan_string(&v, g->state_name, sizeof g->state_name))
        g->state = state_of(g->state_name);
    if (json_scan_member(&status, "address", &v))
        json_scan_string(&v, g->address, sizeof g->address);
    json_value ports;
    if (json_scan_member(&status, "ports", &ports) && ports.type == JSON_ARRAY) {
        size_t pos = 0;
        json_value p;
        while (g->port_count < AGONES_PORTS_MAX && json_scan_next(&ports, &pos, NULL, &p)) {
            long long port;
            if (json_scan_member(&p, "port", &v) && json_scan_int(&v, &port) && port >= 0 &&
                port <= 65535) {
                g->ports[g->port_count].port = (int)port;
                if (json_scan_member(&p, "name", &v))
                    json_scan_string(&v, g->ports[g->port_count].name,
                                     sizeof g->ports[g->port_count].name);
                g->port_count++;
            }
        }
    }
    if (a->view.version > 0 && g->state != a->view.state)
        logf_(a, "GameServer %s: %s -> %s", g->name, a->view.state_name[0] ? a->view.state_name : "?",
              g->state_name[0] ? g->state_name : "?");
    else if (a->view.version == 0)
        logf_(a, "GameServer %s: %s", g->name, g->state_name[0] ? g->state_name : "?");
    g->version = a->view.version + 1;
    a->view = *g;
    a->view_us = now;
    return true;
}

static void on_watch_line(agones *a, uint64_t now)
{
    http_conn *w = &a->watch;
    if (w->body_over) {
        a->st.watch_bad++;
        trouble_fail(a, &a->t_watch, "the watch",
                     "a GameServer longer than max_object_bytes: dropped", "", now);
        return;
    }
    if (w->body_len == 0)
        return;
    json_value root, result, err;
    if (!json_scan_parse(w->body, w->body_len, &root) || root.type != JSON_OBJECT) {
        a->st.watch_bad++;
        trouble_fail(a, &a->t_watch, "the watch", "a line that is not a JSON object: dropped", "",
                     now);
        return;
    }
    if (json_scan_member(&root, "result", &result) && result.type == JSON_OBJECT) {
        a->st.watch_updates++;
        a->watch_attempts = 0;
        a->fresh = a->fresh || a->watch_broke;
        a->watch_broke = false;
        trouble_ok(a, &a->t_watch, "the watch");
        if (!read_gameserver(a, &result, now))
            a->st.watch_bad++;
        return;
    }
    a->st.watch_bad++;
    char msg[160] = "no result";
    json_value m;
    if (json_scan_member(&root, "error", &err) && json_scan_member(&err, "message", &m))
        json_scan_string(&m, msg, sizeof msg);
    char cause[200];
    snprintf(cause, sizeof cause, "the SDK server says: %s", msg);
    trouble_fail(a, &a->t_watch, "the watch", cause, "", now);
}

/* Labels and annotations this client set that the GameServer read back
 * lacks (or holds another value for) for resend_ms are set again;
 * at once when the read is the first after the watch broke (the SDK
 * server may have restarted without its record: nothing is on its way). */
static void check_owned(agones *a, uint64_t now)
{
    if (a->view.version == 0)
        return;
    bool fresh = a->fresh;
    a->fresh = false;
    for (int i = 0; i < OWNED_MAX; i++) {
        owned *o = &a->owned[i];
        if (!o->used || o->refused)
            continue;
        char full[AGONES_KEY_MAX];
        snprintf(full, sizeof full, PREFIX "%s", o->key);
        const agones_meta *m = o->annotation ? a->view.annotations : a->view.labels;
        int n = o->annotation ? a->view.annotation_count : a->view.label_count;
        const char *have = NULL;
        bool long_value = false;
        for (int k = 0; k < n; k++)
            if (strcmp(m[k].key, full) == 0) {
                have = m[k].value;
                long_value = m[k].long_value;
            }
        bool waiting = false;
        for (int q = 0; q < a->q_len && !waiting; q++) {
            const op *p = queue_at(a, q);
            waiting = p->kind == (o->annotation ? OP_ANNOTATION : OP_LABEL) &&
                      strcmp(p->key, o->key) == 0;
        }
        /* a read older than the SDK server's taking it says nothing yet */
        if (have && strcmp(have, o->value) == 0)
            o->resends = 0;
        if (waiting || long_value || o->set_us >= a->view_us ||
            (have && strcmp(have, o->value) == 0)) {
            o->mismatch_since = 0;
            continue;
        }
        if (o->resends > RESENDS_MAX)
            continue;
        if (o->mismatch_since == 0 && !fresh) {
            o->mismatch_since = now;
            continue;
        }
        if (!fresh && now - o->mismatch_since < (uint64_t)a->cfg.resend_ms * 1000u)
            continue;
        bool again = o->resends++ < RESENDS_MAX;
        logf_(a, "%s %s reads %s%s%s on the SDK server, not \"%s\": %s",
              o->annotation ? "annotation" : "label", full, have ? "\"" : "",
              have ? have : "nothing", have ? "\"" : "", o->value,
              again ? "set again" : "not set again until it changes");
        o->mismatch_since = 0;
        if (!again)
            continue;
        if (enqueue(a, o->annotation ? OP_ANNOTATION : OP_LABEL, o->key, o->value, 0))
            a->st.resent++;
    }
}

/* ---- the loop -------------------------------------------------------------------- */

void agones_update(agones *a, uint64_t now)
{
    if (!a || now < a->next_io_us)
        return;
    a->next_io_us = now + IO_PERIOD_US;

    if (now >= a->next_health_us) {
        uint64_t period = (uint64_t)a->cfg.health_ms * 1000u;
        a->next_health_us = a->next_health_us + period > now ? a->next_health_us + period
                                                             : now + period;
        if (a->health.busy) {
            a->st.health_skipped++;
            trouble_fail(a, &a->t_slow, "health",
                         "the last ping has no answer yet: this one skipped", "", now);
        } else if (http_conn_request(&a->health, "POST", "/health", NULL, "{}", 2, false, now)) {
            a->health_sent_us = now;
        }
    }
    if (!a->req.busy && a->q_len > 0 && now >= a->req_next_us)
        send_head(a, now);
    if (a->cfg.watch && !a->watch.busy && now >= a->watch_next_us)
        http_conn_request(&a->watch, "GET", "/watch/gameserver", NULL, NULL, 0, true, now);

    for (int i = 0; i < EVENTS_PER_UPDATE; i++) {
        bool was_busy = a->req.busy;
        http_event ev = http_conn_step(&a->req, now);
        if (ev == HTTP_NOTHING)
            break;
        if (ev == HTTP_LINE)
            continue;
        if (was_busy && a->q_len > 0)
            on_request_done(a, ev, now);
        else if (ev == HTTP_FAILED)
            logf_(a, "requests' connection: %s", a->req.why);
    }
    for (int i = 0; i < EVENTS_PER_UPDATE; i++) {
        http_event ev = http_conn_step(&a->health, now);
        if (ev == HTTP_NOTHING)
            break;
        if (ev == HTTP_RESPONSE && a->health.status >= 200 && a->health.status < 300) {
            a->st.health_ok++;
            trouble_ok(a, &a->t_health, "health");
            if (now - a->health_sent_us < (uint64_t)a->cfg.health_ms * 1000u)
                trouble_ok(a, &a->t_slow, "health pings answered in time");
        } else if (ev == HTTP_RESPONSE || ev == HTTP_FAILED) {
            a->st.health_failed++;
            char cause[200];
            if (ev == HTTP_RESPONSE)
                snprintf(cause, sizeof cause, "HTTP %d", a->health.status);
            else
                snprintf(cause, sizeof cause, "%s", a->health.why);
            trouble_fail(a, &a->t_health, "health", cause, "; pinging on", now);
        }
    }
    for (int i = 0; i < WATCH_LINES_PER_UPDATE; i++) {
        http_event ev = http_conn_step(&a->watch, now);
        if (ev == HTTP_NOTHING)
            break;
        if (ev == HTTP_LINE) {
            on_watch_line(a, now);
            continue;
        }
        /* the stream ended, was refused, or broke: open it again later */
        a->st.watch_failed++;
        a->watch_attempts++;
        a->watch_next_us = now + backoff_us(a->watch_attempts);
        char cause[200];
        if (ev == HTTP_RESPONSE && a->watch.status >= 200 && a->watch.status < 300)
            snprintf(cause, sizeof cause, "the stream ended");
        else if (ev == HTTP_RESPONSE)
            snprintf(cause, sizeof cause, "HTTP %d", a->watch.status);
        else
            snprintf(cause, sizeof cause, "%s", a->watch.why);
        trouble_fail(a, &a->t_watch, "the watch", cause, "; opening it again", now);
        http_conn_close(&a->watch);
        a->watch_broke = true;
        break;
    }
    if (now >= a->next_check_us || a->fresh) {
        uint64_t every = (uint64_t)a->cfg.resend_ms * 250u; /* a quarter of resend_ms */
        a->next_check_us = now + (every < CHECK_EVERY_US ? every : CHECK_EVERY_US);
        check_owned(a, now);
    }
}

const agones_gameserver *agones_view(const agones *a)
{
    return &a->view;
}

void agones_get_stats(const agones *a, agones_stats *out)
{
    *out = a->st;
}
