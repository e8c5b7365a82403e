/* SPDX-License-Identifier: MIT */
/*
 * test_agones.c — the client of Agones' SDK server (tools/common/agones.h)
 * against a scripted SDK server in the same thread (fake_http.h): requests
 * in order, replaced rather than repeated while waiting, retried on 5xx
 * and silence, dropped on 4xx; health pinging on whatever the requests
 * do; the watch read, its hostile lines dropped and counted, reopened
 * when it breaks, and the labels a restarted SDK server lost set again.
 * (tests/agones.sh runs the programs against Agones' real SDK server.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "agones.h"
#include "fake_http.h"
#include "platform.h"

/* ---- the scripted SDK server ------------------------------------------------- */

typedef struct sdk {
    fake_http f;
    int fail_ready;        /* answer this many POST /ready with 503 */
    bool refuse_allocate;  /* answer POST /allocate with 400 */
    bool refuse_labels;    /* answer PUT /metadata/label with 400 */
    bool alternate_garbage; /* answer /health with two kinds of garbage in turn */
    int garbage_turn;
    int health_delay_ms;   /* answer /health this late (sdk_tick sends it) */
    int late_conn[FAKE_CONNS];
    uint64_t late_due[FAKE_CONNS];
    bool hang_ready;       /* never answer POST /ready */
    const char *garbage;   /* answer every request but /health and the watch with this */
    int watch_conn;        /* the connection of the open watch, -1 none */
    char first_line[4096]; /* the first watch line */
} sdk;

static long sdk_answer(fake_http *f, const fake_request *r, char *out, size_t cap)
{
    sdk *s = f->ctx;
    if (strcmp(r->path, "/watch/gameserver") == 0) {
        s->watch_conn = r->conn;
        size_t n = strlen(s->first_line);
        return snprintf(out, cap, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%zx\r\n%s\n\r\n",
                        n + 1, s->first_line);
    }
    if (strcmp(r->path, "/health") == 0 && s->alternate_garbage)
        return snprintf(out, cap, "%s", s->garbage_turn++ % 2 ? "nonsense\r\n\r\n"
                                                               : "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n");
    if (strcmp(r->path, "/health") == 0 && s->health_delay_ms > 0) {
        s->late_conn[r->conn] = 1;
        s->late_due[r->conn] = platform_now_us() + (uint64_t)s->health_delay_ms * 1000u;
        return 0;
    }
    if (strcmp(r->path, "/health") == 0)
        return fake_ok(out, cap, "{}");
    if (strcmp(r->path, "/gameserver") == 0 && !s->garbage) {
        char body[4096];
        snprintf(body, sizeof body, "%s", s->first_line + strlen("{\"result\":"));
        body[strlen(body) - 1] = '\0'; /* the GameServer, without the wrapper */
        return fake_ok(out, cap, body);
    }
    if (s->garbage)
        return snprintf(out, cap, "%s", s->garbage);
    if (strcmp(r->path, "/ready") == 0 && s->hang_ready)
        return 0;
    if (strcmp(r->path, "/ready") == 0 && s->fail_ready > 0) {
        s->fail_ready--;
        return snprintf(out, cap, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n");
    }
    if (strcmp(r->path, "/metadata/label") == 0 && s->refuse_labels)
        return snprintf(out, cap, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
    if (strcmp(r->path, "/allocate") == 0 && s->refuse_allocate)
        return snprintf(out, cap, "HTTP/1.1 400 Bad Request\r\nContent-Length: 13\r\n\r\n{\"code\":3,\"\"}");
    return fake_ok(out, cap, "{}");
}

/* A watch line: {"result": GameServer} with this state and extra meta JSON. */
static void gs_line(char *out, size_t cap, const char *state, const char *labels,
                    const char *annotations)
{
    snprintf(out, cap,
             "{\"result\":{\"object_meta\":{\"name\":\"gs-1\",\"labels\":{%s},\"annotations\":{%s}},"
             "\"status\":{\"state\":\"%s\",\"address\":\"10.0.0.7\",\"ports\":[{\"name\":\"default\","
             "\"port\":7654}]}}}",
             labels, annotations, state);
}

/* Send one more watch line (chunked) on the open watch. */
static void push_line(sdk *s, const char *line)
{
    char buf[8192];
    int n = snprintf(buf, sizeof buf, "%zx\r\n%s\n\r\n", strlen(line) + 1, line);
    assert_true(s->watch_conn >= 0);
    fake_send(&s->f, s->watch_conn, buf, (size_t)n);
}

static char logged[64][512];
static int nlogged;

static void keep_log(void *ctx, const char *line)
{
    (void)ctx;
    if (nlogged < 64)
        snprintf(logged[nlogged++], sizeof logged[0], "%s", line);
}

static bool was_logged(const char *part)
{
    for (int i = 0; i < nlogged; i++)
        if (strstr(logged[i], part))
            return true;
    return false;
}

static agones *client_for(int port, size_t max_object)
{
    agones_config c;
    agones_config_default(&c, "test");
    c.port = port;
    c.health_ms = 100;
    c.timeout_ms = 400;
    c.max_object_bytes = max_object;
    c.log = keep_log;
    nlogged = 0;
    agones *a = agones_create(&c);
    assert_non_null(a);
    return a;
}

static sdk *sdk_open(int port)
{
    sdk *s = calloc(1, sizeof *s);
    assert_non_null(s);
    s->watch_conn = -1;
    gs_line(s->first_line, sizeof s->first_line, "Scheduled", "", "");
    assert_true(fake_open(&s->f, port, sdk_answer, s));
    return s;
}

static void sdk_close(sdk *s)
{
    fake_close(&s->f);
    free(s);
}

/* The server's late answers that are due. */
static void sdk_tick(sdk *s)
{
    for (int c = 0; c < FAKE_CONNS; c++)
        if (s->late_conn[c] && platform_now_us() >= s->late_due[c]) {
            char out[256];
            long n = fake_ok(out, sizeof out, "{}");
            s->late_conn[c] = 0;
            fake_send(&s->f, c, out, (size_t)n);
        }
}

/* Run the client (and the server, if any) for ms milliseconds. */
static void run(agones *a, sdk *s, int ms)
{
    uint64_t until = platform_now_us() + (uint64_t)ms * 1000u;
    while (platform_now_us() < until) {
        if (s) {
            fake_step(&s->f);
            sdk_tick(s);
        }
        agones_update(a, platform_now_us());
        platform_sleep_until_us(platform_now_us() + 1000u);
    }
}

/* Run until the client has nothing waiting (at most ms). */
static bool run_settled(agones *a, sdk *s, int ms)
{
    uint64_t until = platform_now_us() + (uint64_t)ms * 1000u;
    while (platform_now_us() < until) {
        run(a, s, 5);
        if (agones_settled(a))
            return true;
    }
    return false;
}

/* The requests other than health and the watch, in order. */
static int requests(const sdk *s, const fake_request **out, int max)
{
    int n = 0;
    for (int i = 0; i < s->f.nlog && n < max; i++)
        if (strcmp(s->f.log[i].path, "/health") != 0 &&
            strcmp(s->f.log[i].path, "/watch/gameserver") != 0)
            out[n++] = &s->f.log[i];
    return n;
}

/* ---- tests ------------------------------------------------------------------------ */

static void test_requests_go_in_order_and_the_watch_is_read(void **state)
{
    (void)state;
    sdk *s = sdk_open(0);
    agones *a = client_for(s->f.port, 65536);
    assert_true(agones_set_label(a, "gs-session-ready", "true"));
    assert_true(agones_ready(a));
    assert_true(agones_set_annotation(a, "note", "a \"quoted\"\nvalue"));
    assert_true(agones_reserve(a, 30));
    assert_true(agones_allocate(a));
    assert_true(agones_get(a));
    assert_true(run_settled(a, s, 3000));
    const fake_request *r[16];
    assert_int_equal(requests(s, r, 16), 6);
    assert_string_equal(r[0]->method, "PUT");
    assert_string_equal(r[0]->path, "/metadata/label");
    assert_string_equal(r[0]->body, "{\"key\":\"gs-session-ready\",\"value\":\"true\"}");
    assert_string_equal(r[1]->path, "/ready");
    assert_string_equal(r[1]->body, "{}");
    assert_string_equal(r[2]->path, "/metadata/annotation");
    assert_string_equal(r[2]->body, "{\"key\":\"note\",\"value\":\"a \\\"quoted\\\"\\u000avalue\"}");
    assert_string_equal(r[3]->path, "/reserve");
    assert_string_equal(r[3]->body, "{\"seconds\":\"30\"}");
    assert_string_equal(r[4]->path, "/allocate");
    assert_string_equal(r[5]->method, "GET");
    assert_string_equal(r[5]->path, "/gameserver");
    /* the watch's first line, then an allocation with its metadata */
    const agones_gameserver *g = agones_view(a);
    assert_true(g->version >= 1);
    assert_int_equal(g->state, AGONES_STATE_SCHEDULED);
    char line[4096];
    gs_line(line, sizeof line, "Allocated", "\"agones.dev/sdk-gs-session-ready\":\"true\",\"team\":\"b\"",
            "\"agones.dev/last-allocated\":\"2030-01-01T00:00:00Z\",\"match\":\"m7\"");
    uint64_t v = g->version;
    push_line(s, line);
    run(a, s, 100);
    assert_int_equal(g->version, v + 1);
    assert_int_equal(g->state, AGONES_STATE_ALLOCATED);
    assert_string_equal(g->state_name, "Allocated");
    assert_string_equal(g->name, "gs-1");
    assert_string_equal(g->address, "10.0.0.7");
    assert_int_equal(g->port_count, 1);
    assert_int_equal(g->ports[0].port, 7654);
    assert_string_equal(agones_meta_get(g->labels, g->label_count, "team"), "b");
    assert_string_equal(agones_meta_get(g->annotations, g->annotation_count, "match"), "m7");
    assert_null(agones_meta_get(g->labels, g->label_count, "nothing"));
    assert_true(was_logged("GameServer gs-1: Scheduled -> Allocated"));
    agones_stats st;
    agones_get_stats(a, &st);
    assert_int_equal(st.requests_ok, 6);
    assert_int_equal(st.requests_failed + st.requests_refused, 0);
    assert_true(st.health_ok >= 1);
    assert_int_equal(st.watch_bad, 0);
    agones_destroy(a);
    sdk_close(s);
}

/* While the SDK server is away, a label asked for again is replaced, and
 * the same state change asked twice goes once; different ones all go, in
 * order. The failures are logged with their cause, and the recovery. */
static void test_waiting_requests_are_replaced_not_repeated(void **state)
{
    (void)state;
    sdk *s = sdk_open(0);
    int port = s->f.port;
    fake_close(&s->f); /* nobody listens there for now */
    agones *a = client_for(port, 65536);
    assert_true(agones_set_label(a, "matches-free", "1"));
    run(a, NULL, 50);
    assert_true(agones_set_label(a, "matches-free", "2"));
    assert_true(agones_set_label(a, "matches-free", "3"));
    assert_true(agones_ready(a));
    assert_true(agones_ready(a));
    assert_true(agones_allocate(a));
    assert_true(agones_ready(a));
    run(a, NULL, 300);
    assert_false(agones_settled(a));
    assert_true(was_logged("connect: Connection refused"));
    assert_true(fake_open(&s->f, port, sdk_answer, s));
    assert_true(run_settled(a, s, 8000));
    const fake_request *r[16];
    assert_int_equal(requests(s, r, 16), 4);
    assert_string_equal(r[0]->body, "{\"key\":\"matches-free\",\"value\":\"3\"}");
    assert_string_equal(r[1]->path, "/ready");
    assert_string_equal(r[2]->path, "/allocate");
    assert_string_equal(r[3]->path, "/ready");
    assert_true(was_logged("working again"));
    agones_stats st;
    agones_get_stats(a, &st);
    assert_true(st.requests_failed >= 1);
    assert_true(st.health_failed >= 1);
    agones_destroy(a);
    sdk_close(s);
}

static void test_5xx_is_tried_again_and_4xx_dropped(void **state)
{
    (void)state;
    sdk *s = sdk_open(0);
    s->fail_ready = 2;
    s->refuse_allocate = true;
    agones *a = client_for(s->f.port, 65536);
    assert_true(agones_ready(a));
    assert_true(agones_allocate(a));
    assert_true(agones_shutdown(a));
    assert_true(run_settled(a, s, 5000));
    assert_int_equal(fake_count(&s->f, "POST", "/ready"), 3);
    assert_int_equal(fake_count(&s->f, "POST", "/allocate"), 1);
    assert_int_equal(fake_count(&s->f, "POST", "/shutdown"), 1);
    agones_stats st;
    agones_get_stats(a, &st);
    assert_int_equal(st.requests_failed, 2);
    assert_int_equal(st.requests_refused, 1);
    assert_int_equal(st.requests_ok, 2);
    assert_true(was_logged("POST /ready failed: HTTP 503"));
    assert_true(was_logged("POST /allocate refused: HTTP 400"));
    agones_destroy(a);
    sdk_close(s);
}

/* A request with no answer holds the queue (until its timeout, then it is
 * tried again), never the health pings: they go on their own connection. */
static void test_health_goes_on_while_a_request_hangs(void **state)
{
    (void)state;
    sdk *s = sdk_open(0);
    s->hang_ready = true;
    agones *a = client_for(s->f.port, 65536);
    assert_true(agones_ready(a));
    run(a, s, 1200);
    agones_stats st;
    agones_get_stats(a, &st);
    assert_true(st.health_ok >= 6); /* every 100 ms */
    assert_int_equal(st.health_failed, 0);
    assert_true(st.requests_failed >= 1); /* the timeouts */
    assert_false(agones_settled(a));
    assert_true(was_logged("no whole response within the timeout"));
    s->hang_ready = false;
    assert_true(run_settled(a, s, 8000));
    agones_destroy(a);
    sdk_close(s);
}

/* Lines that are not JSON, an error from the gateway, an object with
 * neither object_meta nor status, a line past max_object_bytes: each
 * dropped and counted, the view left as it was; the next good line reads. */
static void test_hostile_watch_lines_are_dropped_and_counted(void **state)
{
    (void)state;
    sdk *s = sdk_open(0);
    agones *a = client_for(s->f.port, 4096);
    run(a, s, 200);
    const agones_gameserver *g = agones_view(a);
    assert_int_equal(g->version, 1);
    push_line(s, "not json {");
    push_line(s, "{\"error\":{\"grpc_code\":14,\"message\":\"the stream broke\"}}");
    push_line(s, "{\"result\":{\"spec\":{}}}");
    push_line(s, "[1,2,3]");
    static char big[6000];
    memset(big, ' ', sizeof big - 1);
    big[0] = '{';
    big[sizeof big - 2] = '}';
    big[sizeof big - 1] = '\0';
    push_line(s, big);
    /* 40 labels: 32 kept, the rest counted */
    static char labels[4096], line[8192];
    size_t n = 0;
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(labels + n, sizeof labels - n, "%s\"l%d\":\"v\"", i ? "," : "", i);
    gs_line(line, sizeof line, "Ready", labels, "\"long\":\"" /* value too long to keep */
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"");
    push_line(s, line);
    run(a, s, 300);
    agones_stats st;
    agones_get_stats(a, &st);
    assert_int_equal(st.watch_bad, 5);
    assert_int_equal(g->version, 2);
    assert_int_equal(g->state, AGONES_STATE_READY);
    assert_int_equal(g->label_count, AGONES_META_MAX);
    assert_int_equal(g->meta_dropped, 40 - AGONES_META_MAX);
    assert_true(g->annotations[0].long_value);
    assert_string_equal(g->annotations[0].value, "");
    assert_true(was_logged("the watch failed: a line that is not a JSON object"));
    assert_false(was_logged("the stream broke")); /* counted in the run, summed up later */
    agones_destroy(a);
    sdk_close(s);
}

/* The watch breaks (the SDK server restarted without its record): the
 * client opens it again, sees the labels it set are gone, and sets them
 * again at once; a state it asked for is never asked again. */
static void test_a_restarted_sdk_server_gets_the_labels_again(void **state)
{
    (void)state;
    sdk *s = sdk_open(0);
    agones *a = client_for(s->f.port, 65536);
    assert_true(agones_set_label(a, "matches-free", "5"));
    assert_true(agones_ready(a));
    assert_true(run_settled(a, s, 3000));
    char line[4096];
    gs_line(line, sizeof line, "Ready", "\"agones.dev/sdk-matches-free\":\"5\"", "");
    snprintf(s->first_line, sizeof s->first_line, "%s", line);
    push_line(s, line);
    run(a, s, 1200); /* read back as set: nothing to do */
    assert_int_equal(fake_count(&s->f, "PUT", "/metadata/label"), 1);
    /* the restart: every connection dropped, the record empty */
    for (int c = 0; c < FAKE_CONNS; c++)
        fake_drop(&s->f, c);
    s->watch_conn = -1;
    gs_line(s->first_line, sizeof s->first_line, "Ready", "", "");
    run(a, s, 1500);
    assert_int_equal(fake_count(&s->f, "PUT", "/metadata/label"), 2);
    assert_int_equal(fake_count(&s->f, "POST", "/ready"), 1);
    assert_true(was_logged("label agones.dev/sdk-matches-free reads nothing on the SDK server"));
    agones_stats st;
    agones_get_stats(a, &st);
    assert_int_equal(st.resent, 1);
    assert_true(st.watch_failed >= 1);
    agones_destroy(a);
    sdk_close(s);
}

/* A watch flooding the client with GameServers costs each update a
 * bounded amount: at most 4 are read per agones_update, the rest wait in
 * the socket for the next ones, and all of them arrive in the end. */
static void test_a_flooding_watch_is_read_a_few_lines_per_update(void **state)
{
    (void)state;
    sdk *s = sdk_open(0);
    agones *a = client_for(s->f.port, 65536);
    run(a, s, 200);
    const agones_gameserver *g = agones_view(a);
    assert_int_equal(g->version, 1);
    char line[4096];
    gs_line(line, sizeof line, "Ready", "\"x\":\"1\"", "");
    for (int i = 0; i < 100; i++)
        push_line(s, line);
    platform_sleep_until_us(platform_now_us() + 50000u); /* all of it in the socket */
    int most = 0, updates = 0;
    for (int i = 0; i < 200 && g->version < 101; i++) {
        uint64_t before = g->version;
        agones_update(a, platform_now_us());
        if ((int)(g->version - before) > most)
            most = (int)(g->version - before);
        updates++;
        platform_sleep_until_us(platform_now_us() + 6000u); /* past the 5 ms between looks */
    }
    assert_int_equal(g->version, 101);
    assert_true(most <= 4);
    assert_true(updates >= 25);
    agones_destroy(a);
    sdk_close(s);
}

/* A label the SDK server refuses (4xx) is not set again and again when the
 * GameServer read back lacks it: the refusal is final until the program
 * asks for another value. */
static void test_a_refused_label_is_not_set_again(void **state)
{
    (void)state;
    sdk *s = sdk_open(0);
    s->refuse_labels = true;
    agones *a = client_for(s->f.port, 65536);
    assert_true(agones_set_label(a, "matches-free", "5"));
    assert_true(run_settled(a, s, 3000));
    assert_int_equal(fake_count(&s->f, "PUT", "/metadata/label"), 1);
    /* the watch breaks and comes back without the label: checked at once */
    for (int c = 0; c < FAKE_CONNS; c++)
        fake_drop(&s->f, c);
    s->watch_conn = -1;
    run(a, s, 1500);
    assert_int_equal(fake_count(&s->f, "PUT", "/metadata/label"), 1);
    agones_stats st;
    agones_get_stats(a, &st);
    assert_int_equal(st.requests_refused, 1);
    assert_int_equal(st.resent, 0);
    /* a new value is asked for: it goes */
    s->refuse_labels = false;
    assert_true(agones_set_label(a, "matches-free", "4"));
    assert_true(run_settled(a, s, 3000));
    assert_int_equal(fake_count(&s->f, "PUT", "/metadata/label"), 2);
    agones_destroy(a);
    sdk_close(s);
}

/* An SDK server whose failures change cause every time (garbage of two
 * kinds, alternating) fills no log: a run of failures is one line, then a
 * summary at most every 10 s naming the latest cause and the count. */
static void test_a_run_of_changing_failures_is_summed_up_in_the_log(void **state)
{
    (void)state;
    sdk *s = sdk_open(0);
    s->alternate_garbage = true;
    agones *a = client_for(s->f.port, 65536);
    run(a, s, 2500); /* some 25 health pings, every one a failure */
    agones_stats st;
    agones_get_stats(a, &st);
    assert_true(st.health_failed >= 15);
    int health_lines = 0; /* of this run; a ping skipped on a busy machine is another */
    for (int i = 0; i < nlogged; i++)
        health_lines += strncmp(logged[i], "health", 6) == 0 && !strstr(logged[i], "skipped") &&
                        !strstr(logged[i], "in time");
    assert_int_equal(health_lines, 1);
    agones_destroy(a);
    sdk_close(s);
}

/* An SDK server that takes a label but never shows it (a broken record)
 * gets it again a few times, then no more until its value changes. */
static void test_a_label_that_never_reads_back_is_set_again_three_times(void **state)
{
    (void)state;
    sdk *s = sdk_open(0);
    agones_config c;
    agones_config_default(&c, "test");
    c.port = s->f.port;
    c.health_ms = 100;
    c.timeout_ms = 400;
    c.resend_ms = 200;
    c.log = keep_log;
    nlogged = 0;
    agones *a = agones_create(&c);
    assert_non_null(a);
    assert_true(agones_set_label(a, "matches-free", "5"));
    char line[4096];
    gs_line(line, sizeof line, "Ready", "", "");
    for (int i = 0; i < 40; i++) { /* a fresh read without the label every 50 ms */
        run(a, s, 50);
        if (s->watch_conn >= 0)
            push_line(s, line);
    }
    assert_int_equal(fake_count(&s->f, "PUT", "/metadata/label"), 4); /* once, then 3 again */
    agones_stats st;
    agones_get_stats(a, &st);
    assert_int_equal(st.resent, 3);
    assert_true(was_logged("not set again until it changes"));
    assert_true(agones_set_label(a, "matches-free", "6"));
    run(a, s, 300);
    assert_int_equal(fake_count(&s->f, "PUT", "/metadata/label"), 5);
    agones_destroy(a);
    sdk_close(s);
}

/* An SDK server slower to answer a ping than the pings come (150 ms for
 * one every 100 ms) still gets pings answered: each is waited for up to
 * the timeout, the one due meanwhile skipped, so Agones hears one every
 * other period rather than none. */
static void test_a_slow_sdk_server_still_gets_pings_answered(void **state)
{
    (void)state;
    sdk *s = sdk_open(0);
    s->health_delay_ms = 150;
    agones *a = client_for(s->f.port, 65536);
    run(a, s, 1500);
    agones_stats st;
    agones_get_stats(a, &st);
    assert_true(st.health_ok >= 4);
    assert_true(st.health_skipped >= 4);
    assert_int_equal(st.health_failed, 0);
    agones_destroy(a);
    sdk_close(s);
}

/* Broken answers to requests: each attempt fails with its reason and is
 * tried again; once the server answers sanely the request goes through. */
static void test_broken_answers_are_tried_again(void **state)
{
    (void)state;
    const char *broken[] = {"garbage\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n",
                            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"};
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        sdk *s = sdk_open(0);
        s->garbage = broken[i];
        agones *a = client_for(s->f.port, 65536);
        assert_true(agones_shutdown(a));
        run(a, s, 600);
        assert_false(agones_settled(a));
        agones_stats st;
        agones_get_stats(a, &st);
        assert_true(st.requests_failed >= 1);
        s->garbage = NULL;
        assert_true(run_settled(a, s, 8000));
        agones_get_stats(a, &st);
        assert_int_equal(st.requests_ok, 1);
        agones_destroy(a);
        sdk_close(s);
    }
}

static void test_a_callers_mistakes_are_refused(void **state)
{
    (void)state;
    sdk *s = sdk_open(0);
    agones *a = client_for(s->f.port, 65536);
    static char long_value[1100];
    memset(long_value, 'v', sizeof long_value - 1);
    const char *bad_keys[] = {"", "-start", "end-", "sp ace", "slash/no", "a23456789012345678901234567890123456789012345678901234567890"};
    for (size_t i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++) {
        assert_false(agones_set_label(a, bad_keys[i], "v"));
        assert_false(agones_set_annotation(a, bad_keys[i], "v"));
    }
    assert_false(agones_set_label(a, "k", "has space"));
    assert_false(agones_set_label(a, "k", "-x"));
    assert_false(agones_set_label(a, "k", long_value));
    assert_false(agones_set_annotation(a, "k", long_value));
    assert_false(agones_reserve(a, -1));
    assert_true(agones_set_label(a, "k", ""));
    assert_true(agones_set_label(a, "k.x_y-z", "A.b_c-9"));
    assert_true(agones_set_annotation(a, "k", "any thing: \"at all\""));
    assert_false(agones_ready(NULL));
    assert_true(agones_settled(NULL));
    agones_config c;
    agones_config_default(&c, "test");
    c.port = 0;
    assert_null(agones_create(&c));
    c.port = 9358;
    c.health_ms = 50;
    assert_null(agones_create(&c));
    assert_null(agones_create(NULL));
    agones_destroy(NULL);
    agones_destroy(a);
    sdk_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_requests_go_in_order_and_the_watch_is_read),
        cmocka_unit_test(test_waiting_requests_are_replaced_not_repeated),
        cmocka_unit_test(test_5xx_is_tried_again_and_4xx_dropped),
        cmocka_unit_test(test_health_goes_on_while_a_request_hangs),
        cmocka_unit_test(test_hostile_watch_lines_are_dropped_and_counted),
        cmocka_unit_test(test_a_restarted_sdk_server_gets_the_labels_again),
        cmocka_unit_test(test_a_flooding_watch_is_read_a_few_lines_per_update),
        cmocka_unit_test(test_a_refused_label_is_not_set_again),
        cmocka_unit_test(test_a_run_of_changing_failures_is_summed_up_in_the_log),
        cmocka_unit_test(test_a_label_that_never_reads_back_is_set_again_three_times),
        cmocka_unit_test(test_a_slow_sdk_server_still_gets_pings_answered),
        cmocka_unit_test(test_broken_answers_are_tried_again),
        cmocka_unit_test(test_a_callers_mistakes_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
