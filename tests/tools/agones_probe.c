/* SPDX-License-Identifier: MIT */
/*
 * agones_probe.c — what tests/agones.sh asks an Agones SDK server from the
 * outside, and a listener standing in for a hosting platform's self-stop
 * URL. Plain blocking sockets on loopback, separate from the client under
 * test (tools/common/agones.c), so the tests read back what the programs
 * did through a second implementation.
 *
 *   agones-probe get PORT          the GameServer as lines: "state=<state>",
 *                                  "label <key>=<value>", "annotation <key>=<value>"
 *   agones-probe post PORT PATH    POST PATH with body {} and print the status
 *   agones-probe listen PORT FILE SECONDS
 *                                  take one HTTP request on 127.0.0.1:PORT,
 *                                  write its request line and headers to FILE,
 *                                  answer 200; exit 1 if none came in SECONDS
 *
 * Exit codes: 0 done (get/post: a 2xx answer), 1 failure, 2 usage.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "json_scan.h"

#define BODY_MAX (1 << 20)

static int connect_to(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        perror("agones-probe: connect");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* One request with Connection: close; the whole answer into buf. Returns
 * the status, or -1; *body points at the body. */
static int exchange(int port, const char *method, const char *path, const char *body, char *buf,
                    size_t cap, char **out_body)
{
    int fd = connect_to(port);
    if (fd < 0)
        return -1;
    char req[512];
    int n = snprintf(req, sizeof req,
                     "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                     "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
                     method, path, strlen(body), body);
    if (write(fd, req, (size_t)n) != n) {
        close(fd);
        return -1;
    }
    size_t len = 0;
    ssize_t r;
    while (len + 1 < cap && (r = read(fd, buf + len, cap - 1 - len)) > 0)
        len += (size_t)r;
    close(fd);
    buf[len] = '\0';
    int status;
    if (sscanf(buf, "HTTP/1.%*c %d", &status) != 1)
        return -1;
    char *b = strstr(buf, "\r\n\r\n");
    *out_body = b ? b + 4 : buf + len;
    /* a chunked body (the SDK server sends GET answers whole): join the chunks */
    if (b && strstr(buf, "Transfer-Encoding: chunked") && strstr(buf, "Transfer-Encoding: chunked") < b) {
        char *src = *out_body, *dst = *out_body, *end = buf + len;
        for (;;) {
            unsigned long size = strtoul(src, &src, 16);
            src = strstr(src, "\r\n");
            if (!src || size == 0 || size > (size_t)(end - src - 2))
                break;
            src += 2;
            memmove(dst, src, size);
            dst += size;
            src += size + 2;
        }
        *dst = '\0';
    }
    return status;
}

static void print_meta(const char *kind, const json_value *obj)
{
    size_t pos = 0;
    json_value k, v;
    char key[512], value[2048];
    while (json_scan_next(obj, &pos, &k, &v))
        if (json_scan_string(&k, key, sizeof key) && json_scan_string(&v, value, sizeof value))
            printf("%s %s=%s\n", kind, key, value);
}

static int get(int port)
{
    char *buf = malloc(BODY_MAX), *body;
    if (!buf)
        return 1;
    int status = exchange(port, "GET", "/gameserver", "", buf, BODY_MAX, &body);
    json_value root, v;
    if (status != 200 || !json_scan_parse(body, strlen(body), &root)) {
        fprintf(stderr, "agones-probe: GET /gameserver: status %d\n", status);
        free(buf);
        return 1;
    }
    char state[64] = "";
    if (json_scan_path(&root, "status.state", &v))
        json_scan_string(&v, state, sizeof state);
    printf("state=%s\n", state);
    if (json_scan_path(&root, "object_meta.labels", &v))
        print_meta("label", &v);
    if (json_scan_path(&root, "object_meta.annotations", &v))
        print_meta("annotation", &v);
    free(buf);
    return 0;
}

static int post(int port, const char *path)
{
    char buf[4096], *body;
    int status = exchange(port, "POST", path, "{}", buf, sizeof buf, &body);
    printf("%d\n", status);
    return status >= 200 && status < 300 ? 0 : 1;
}

static int listen_once(int port, const char *file, int seconds)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 4) != 0) {
        perror("agones-probe: listen");
        return 1;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, seconds * 1000) != 1) {
        fprintf(stderr, "agones-probe: no request within %d s\n", seconds);
        return 1;
    }
    int c = accept(fd, NULL, NULL);
    char req[8192];
    size_t len = 0;
    while (len + 1 < sizeof req) {
        struct pollfd q = {.fd = c, .events = POLLIN};
        if (poll(&q, 1, 5000) != 1)
            break;
        ssize_t r = read(c, req + len, sizeof req - 1 - len);
        if (r <= 0)
            break;
        len += (size_t)r;
        req[len] = '\0';
        if (strstr(req, "\r\n\r\n"))
            break;
    }
    req[len] = '\0';
    const char *answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
    if (write(c, answer, strlen(answer)) < 0)
        perror("agones-probe: write");
    close(c);
    close(fd);
    FILE *f = fopen(file, "w");
    if (!f)
        return 1;
    fputs(req, f);
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "get") == 0)
        return get(atoi(argv[2]));
    if (argc == 4 && strcmp(argv[1], "post") == 0)
        return post(atoi(argv[2]), argv[3]);
    if (argc == 5 && strcmp(argv[1], "listen") == 0)
        return listen_once(atoi(argv[2]), argv[3], atoi(argv[4]));
    fprintf(stderr, "usage: agones-probe get PORT | post PORT PATH | listen PORT FILE SECONDS\n");
    return 2;
}
