/* SPDX-License-Identifier: MIT */
/*
 * test_netem.c — tempo-netem between two real UDP sockets on loopback.
 *
 * The tool is spawned (posix_spawn) with --listen 127.0.0.1:0 and reports the
 * port it got on its first line. A client socket sends through it to a server
 * socket that echoes back. Checks: datagrams cross both ways, the lan profile
 * delivers nearly all, a delayed profile's delay is really added (lower
 * bounds only: the model's delays are a floor, the machine only adds to them;
 * upper bounds are loose), usage errors exit 2, bind failures exit 1, a
 * signal stops it with a statistics line. The tool's path comes from CMake
 * (tests/scripts.cmake); without it the tests skip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tempo/udp.h"

extern char **environ;

#ifdef TEMPO_NETEM_PATH
static const char *const netem_path = TEMPO_NETEM_PATH;
#else
static const char *const netem_path = NULL;
#endif

#define SKIP_WITHOUT_TOOL()  \
    do {                     \
        if (!netem_path) {   \
            skip();          \
            return;          \
        }                    \
    } while (0)

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Run the tool with args (NULL-terminated, without argv[0]) and its stdout on
 * a pipe (*out_fd) or /dev/null (out_fd NULL); stderr goes to /dev/null. */
static pid_t spawn_tool(const char *const *args, int *out_fd)
{
    char *argv[16];
    int n = 0;
    argv[n++] = (char *)netem_path;
    for (; args[n - 1] && n < 15; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    int fds[2] = {-1, -1};
    if (out_fd && pipe(fds) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (out_fd) {
        posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
        posix_spawn_file_actions_addclose(&fa, fds[0]);
        posix_spawn_file_actions_addclose(&fa, fds[1]);
    } else {
        posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    }
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, netem_path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (out_fd) {
        close(fds[1]);
        *out_fd = fds[0];
    }
    return rc == 0 ? pid : -1;
}

/* Exit code of pid, or -1 if it did not exit normally. */
static int wait_exit(pid_t pid)
{
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

static int run_to_exit(const char *const *args)
{
    pid_t pid = spawn_tool(args, NULL);
    return pid > 0 ? wait_exit(pid) : -1;
}

/* Read from fd into buf until a newline, EOF or timeout; returns the length. */
static size_t read_line(int fd, char *buf, size_t cap, int timeout_ms)
{
    size_t len = 0;
    while (len + 1 < cap) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, timeout_ms) <= 0)
            break;
        ssize_t n = read(fd, buf + len, 1);
        if (n <= 0 || buf[len] == '\n')
            break;
        len++;
    }
    buf[len] = '\0';
    return len;
}

typedef struct relay_run {
    int started;              /* the tool said where it listens */
    int sent, at_server, at_client;
    double one_way_sum_us, rtt_sum_us;
    uint64_t one_way_min_us, rtt_min_us;
    int exit_code;
    char stats_line[512];
} relay_run;

static void put64(uint8_t *b, uint64_t v) { memcpy(b, &v, 8); }
static uint64_t get64(const uint8_t *b)
{
    uint64_t v;
    memcpy(&v, b, 8);
    return v;
}

/* Service both sockets for up to `ms`: the server echoes, times are noted. */
static void pump(tempo_udp *client, tempo_udp *server, relay_run *r, int ms)
{
    uint64_t end = now_us() + (uint64_t)ms * 1000u;
    tempo_transport c = tempo_udp_transport(client), s = tempo_udp_transport(server);
    for (;;) {
        uint64_t now = now_us();
        if (now >= end)
            return;
        struct pollfd p[2] = {{.fd = tempo_udp_fd(client), .events = POLLIN},
                              {.fd = tempo_udp_fd(server), .events = POLLIN}};
        poll(p, 2, (int)((end - now + 999) / 1000));
        uint8_t buf[64];
        tempo_address from;
        while (s.recv(s.ctx, &from, buf, sizeof buf) == 16) {
            uint64_t d = now_us() - get64(buf + 8);
            r->at_server++;
            r->one_way_sum_us += (double)d;
            if (d < r->one_way_min_us)
                r->one_way_min_us = d;
            s.send(s.ctx, &from, buf, 16); /* back through the tool */
        }
        while (c.recv(c.ctx, &from, buf, sizeof buf) == 16) {
            uint64_t d = now_us() - get64(buf + 8);
            r->at_client++;
            r->rtt_sum_us += (double)d;
            if (d < r->rtt_min_us)
                r->rtt_min_us = d;
        }
    }
}

/* Send `count` datagrams `gap_ms` apart through tempo-netem with `profile`,
 * wait `tail_ms` for stragglers, stop the tool with SIGTERM. Asserts nothing
 * while the tool runs, so a failure never leaves it behind. */
static relay_run run_relay(const char *profile, int count, int gap_ms, int tail_ms)
{
    relay_run r;
    memset(&r, 0, sizeof r);
    r.one_way_min_us = r.rtt_min_us = UINT64_MAX;
    r.exit_code = -1;
    tempo_address lo = tempo_address_ipv4(127, 0, 0, 1, 0), server_addr, listen_addr;
    tempo_udp *client = NULL, *server = NULL;
    assert_int_equal(tempo_udp_open(&lo, NULL, &client), TEMPO_OK);
    assert_int_equal(tempo_udp_open(&lo, NULL, &server), TEMPO_OK);
    assert_int_equal(tempo_udp_local_address(server, &server_addr), TEMPO_OK);
    char fwd[TEMPO_ADDRESS_STRLEN];
    assert_true(tempo_address_format(&server_addr, fwd, sizeof fwd) > 0);
    const char *args[] = {"--listen", "127.0.0.1:0", "--forward", fwd, "--profile", profile,
                          "--seed", "7", NULL};
    int out = -1;
    pid_t pid = spawn_tool(args, &out);
    assert_true(pid > 0);

    char line[512];
    read_line(out, line, sizeof line, 10000);
    const char *at = strstr(line, "listening on ");
    char *comma = at ? strchr(at, ',') : NULL;
    if (comma) {
        *comma = '\0';
        r.started = tempo_address_parse(&listen_addr, at + strlen("listening on ")) == TEMPO_OK;
    }
    if (r.started) {
        tempo_transport c = tempo_udp_transport(client);
        for (int i = 0; i < count; i++) {
            uint8_t msg[16];
            put64(msg, (uint64_t)i);
            put64(msg + 8, now_us());
            if (c.send(c.ctx, &listen_addr, msg, sizeof msg) == 0)
                r.sent++;
            pump(client, server, &r, gap_ms);
        }
        pump(client, server, &r, tail_ms);
    }
    kill(pid, SIGTERM);
    read_line(out, r.stats_line, sizeof r.stats_line, 10000);
    close(out);
    r.exit_code = wait_exit(pid);
    tempo_udp_close(client);
    tempo_udp_close(server);
    return r;
}

static void test_lan_delivers_nearly_all_both_ways(void **state)
{
    (void)state;
    SKIP_WITHOUT_TOOL();
    relay_run r = run_relay("lan", 200, 2, 500);
    assert_true(r.started);
    assert_int_equal(r.sent, 200);
    /* lan loses nothing; allow a few to a loaded machine's socket buffers. */
    assert_true(r.at_server >= 196);
    assert_true(r.at_client >= 192);
    /* 1 ms +- 0.1 ms one way: the model never goes below 0.4 ms. */
    assert_true(r.one_way_min_us >= 400);
    assert_true(r.rtt_min_us >= 800);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.stats_line, "tempo-netem: profile lan: client->server sent 200"));
}

static void test_continental_adds_its_delay(void **state)
{
    (void)state;
    SKIP_WITHOUT_TOOL();
    relay_run r = run_relay("continental", 60, 10, 1000);
    assert_true(r.started);
    /* 1% loss each way. */
    assert_true(r.at_server >= 54);
    assert_true(r.at_client >= 48);
    /* 40 ms +- 6 ms one way: never below 4 ms, mean well above 35 ms (the
     * mean of 60 draws is within 1 ms of 40 ms); a busy machine only adds. */
    assert_true(r.one_way_min_us >= 4000);
    double one_way = r.one_way_sum_us / r.at_server, rtt = r.rtt_sum_us / r.at_client;
    assert_true(one_way >= 35000.0);
    assert_true(rtt >= 70000.0);
    assert_true(one_way < 540000.0); /* loose: the delay is not wildly off */
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.stats_line, "server->client"));
}

static void test_usage_errors_exit_2(void **state)
{
    (void)state;
    SKIP_WITHOUT_TOOL();
    const char *none[] = {NULL};
    const char *bad_profile[] = {"--listen", "127.0.0.1:0", "--forward", "127.0.0.1:9",
                                 "--profile", "dialup", NULL};
    const char *bad_addr[] = {"--listen", "127.0.0.1", "--forward", "127.0.0.1:9",
                              "--profile", "lan", NULL};
    const char *unknown[] = {"--listen", "127.0.0.1:0", "--forward", "127.0.0.1:9",
                             "--profile", "lan", "--fast", "yes", NULL};
    const char *missing_value[] = {"--listen", "127.0.0.1:0", "--forward", "127.0.0.1:9",
                                   "--profile", NULL};
    const char *bad_seed[] = {"--listen", "127.0.0.1:0", "--forward", "127.0.0.1:9",
                              "--profile", "lan", "--seed", "12x", NULL};
    const char *same[] = {"--listen", "127.0.0.1:9", "--forward", "127.0.0.1:9",
                          "--profile", "lan", NULL};
    assert_int_equal(run_to_exit(none), 2);
    assert_int_equal(run_to_exit(bad_profile), 2);
    assert_int_equal(run_to_exit(bad_addr), 2);
    assert_int_equal(run_to_exit(unknown), 2);
    assert_int_equal(run_to_exit(missing_value), 2);
    assert_int_equal(run_to_exit(bad_seed), 2);
    assert_int_equal(run_to_exit(same), 2);
    const char *help[] = {"--help", NULL};
    assert_int_equal(run_to_exit(help), 0);
}

static void test_bind_failure_exits_1(void **state)
{
    (void)state;
    SKIP_WITHOUT_TOOL();
    tempo_address lo = tempo_address_ipv4(127, 0, 0, 1, 0), taken;
    tempo_udp *u = NULL;
    assert_int_equal(tempo_udp_open(&lo, NULL, &u), TEMPO_OK);
    assert_int_equal(tempo_udp_local_address(u, &taken), TEMPO_OK);
    char text[TEMPO_ADDRESS_STRLEN];
    assert_true(tempo_address_format(&taken, text, sizeof text) > 0);
    const char *args[] = {"--listen", text, "--forward", "127.0.0.1:9", "--profile", "lan",
                          "--quiet", NULL};
    int code = run_to_exit(args);
    tempo_udp_close(u);
    assert_int_equal(code, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lan_delivers_nearly_all_both_ways),
        cmocka_unit_test(test_continental_adds_its_delay),
        cmocka_unit_test(test_usage_errors_exit_2),
        cmocka_unit_test(test_bind_failure_exits_1),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
