/* SPDX-License-Identifier: MIT */
/*
 * fake_http.h — a scripted HTTP server on 127.0.0.1 in the test's own
 * thread, for the tests of tempo's HTTP client and Agones client
 * (tests/tools/test_http_conn.c, test_agones.c). fake_step accepts
 * connections and reads requests without waiting; each whole request
 * (headers and a Content-Length body) is recorded and handed to the
 * test's answer function, whose bytes go back as they are, however
 * broken. POSIX sockets: these tests are not built for Windows.
 */
#ifndef TEMPO_TESTS_FAKE_HTTP_H
#define TEMPO_TESTS_FAKE_HTTP_H

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define FAKE_CONNS 8
#define FAKE_LOG 256
#define FAKE_ANSWER_MAX (1 << 20)

typedef struct fake_request {
    int conn;
    char method[16];
    char path[128];
    char body[1200];
} fake_request;

struct fake_http;
/* Write the answer to request r into out[0..cap) and return its size; 0:
 * answer nothing (hang); -1: close the connection at once. */
typedef long (*fake_answer_fn)(struct fake_http *f, const fake_request *r, char *out, size_t cap);

typedef struct fake_http {
    int lfd, port;
    int fd[FAKE_CONNS];
    char *in[FAKE_CONNS];
    size_t in_len[FAKE_CONNS];
    fake_request log[FAKE_LOG];
    int nlog;
    int accepted;
    fake_answer_fn answer;
    void *ctx;
    bool close_after;     /* close each connection after answering (set by answer) */
    char *out;
} fake_http;

static inline void fake_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* Listen on port (0: any free one; f->port says which). */
static inline bool fake_open(fake_http *f, int port, fake_answer_fn answer, void *ctx)
{
    memset(f, 0, sizeof *f);
    for (int i = 0; i < FAKE_CONNS; i++)
        f->fd[i] = -1;
    f->answer = answer;
    f->ctx = ctx;
    f->lfd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(f->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (f->lfd < 0 || bind(f->lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(f->lfd, 8) != 0 ||
        getsockname(f->lfd, (struct sockaddr *)&a, &len) != 0)
        return false;
    fake_nonblock(f->lfd);
    f->port = ntohs(a.sin_port);
    f->out = malloc(FAKE_ANSWER_MAX);
    for (int i = 0; i < FAKE_CONNS; i++)
        f->in[i] = malloc(65536);
    return f->out != NULL;
}

static inline void fake_drop(fake_http *f, int c)
{
    if (f->fd[c] >= 0)
        close(f->fd[c]);
    f->fd[c] = -1;
    f->in_len[c] = 0;
}

static inline void fake_close(fake_http *f)
{
    for (int i = 0; i < FAKE_CONNS; i++) {
        fake_drop(f, i);
        free(f->in[i]);
    }
    if (f->lfd >= 0)
        close(f->lfd);
    f->lfd = -1;
    free(f->out);
    f->out = NULL;
}

/* Write all of data to connection c (waiting for room, up to a second). */
static inline bool fake_send(fake_http *f, int c, const void *data, size_t n)
{
    const char *p = data;
    for (int spins = 0; n > 0 && f->fd[c] >= 0 && spins < 1000; spins++) {
        ssize_t w = send(f->fd[c], p, n, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        struct pollfd q = {.fd = f->fd[c], .events = POLLOUT};
        poll(&q, 1, 1);
    }
    return n == 0;
}

static inline void fake_send_text(fake_http *f, int c, const char *text)
{
    fake_send(f, c, text, strlen(text));
}

/* Accept, read, and answer every whole request waiting. */
static inline void fake_step(fake_http *f)
{
    for (;;) {
        int fd = accept(f->lfd, NULL, NULL);
        if (fd < 0)
            break;
        fake_nonblock(fd);
        int c = 0;
        while (c < FAKE_CONNS && f->fd[c] >= 0)
            c++;
        if (c == FAKE_CONNS) {
            close(fd);
            continue;
        }
        f->fd[c] = fd;
        f->in_len[c] = 0;
        f->accepted++;
    }
    for (int c = 0; c < FAKE_CONNS; c++) {
        if (f->fd[c] < 0)
            continue;
        ssize_t r = recv(f->fd[c], f->in[c] + f->in_len[c], 65535 - f->in_len[c], 0);
        if (r == 0) {
            fake_drop(f, c);
            continue;
        }
        if (r > 0)
            f->in_len[c] += (size_t)r;
        for (;;) {
            f->in[c][f->in_len[c]] = '\0';
            char *end = strstr(f->in[c], "\r\n\r\n");
            if (!end)
                break;
            size_t body_len = 0;
            const char *cl = strstr(f->in[c], "Content-Length: ");
            if (cl && cl < end)
                body_len = (size_t)strtoul(cl + 16, NULL, 10);
            size_t whole = (size_t)(end + 4 - f->in[c]) + body_len;
            if (f->in_len[c] < whole)
                break;
            fake_request q;
            memset(&q, 0, sizeof q);
            q.conn = c;
            sscanf(f->in[c], "%15s %127s", q.method, q.path);
            size_t bl = body_len < sizeof q.body - 1 ? body_len : sizeof q.body - 1;
            memcpy(q.body, end + 4, bl);
            if (f->nlog < FAKE_LOG)
                f->log[f->nlog++] = q;
            memmove(f->in[c], f->in[c] + whole, f->in_len[c] - whole);
            f->in_len[c] -= whole;
            long n = f->answer ? f->answer(f, &q, f->out, FAKE_ANSWER_MAX) : -1;
            if (n < 0) {
                fake_drop(f, c);
                break;
            }
            if (n > 0)
                fake_send(f, c, f->out, (size_t)n);
            if (f->close_after) {
                fake_drop(f, c);
                break;
            }
        }
    }
}

/* How many recorded requests have this method and path. */
static inline int fake_count(const fake_http *f, const char *method, const char *path)
{
    int n = 0;
    for (int i = 0; i < f->nlog; i++)
        n += strcmp(f->log[i].method, method) == 0 && strcmp(f->log[i].path, path) == 0;
    return n;
}

/* A 200 answer with a JSON body. */
static inline long fake_ok(char *out, size_t cap, const char *body)
{
    return snprintf(out, cap, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                              "Content-Length: %zu\r\n\r\n%s",
                    strlen(body), body);
}

#endif /* TEMPO_TESTS_FAKE_HTTP_H */
