/* SPDX-License-Identifier: MIT */
/*
 * platform.c — clock, sleep, socket wait, Ctrl-C, name lookup, a quiet
 * stderr, TCP and running a program, for the programs (platform.h), once
 * for POSIX and once for Windows (which cannot run a program: platform_run
 * says so).
 *
 * Invariant: every #ifdef _WIN32 of tools/ and examples/ is in this file;
 * the two halves keep the same behaviour, stated in platform.h.
 */
#include "platform.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <fcntl.h>
#include <io.h>
#else
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
#endif

/* ---- clock and sleep ---------------------------------------------------- */

#ifdef _WIN32
uint64_t platform_now_us(void)
{
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    uint64_t hz = (uint64_t)f.QuadPart, n = (uint64_t)c.QuadPart;
    return n / hz * 1000000u + n % hz * 1000000u / hz; /* no overflow for centuries */
}

void platform_sleep_until_us(uint64_t t)
{
    uint64_t n = platform_now_us();
    if (t > n)
        Sleep((DWORD)((t - n + 999u) / 1000u));
}

uint64_t platform_cpu_us(void)
{
    FILETIME created, ended, kernel, user;
    if (!GetProcessTimes(GetCurrentProcess(), &created, &ended, &kernel, &user))
        return 0;
    uint64_t k = (uint64_t)kernel.dwHighDateTime << 32 | kernel.dwLowDateTime;
    uint64_t u = (uint64_t)user.dwHighDateTime << 32 | user.dwLowDateTime;
    return (k + u) / 10u; /* 100 ns units */
}
#else
uint64_t platform_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void platform_sleep_until_us(uint64_t t)
{
    uint64_t n = platform_now_us();
    if (t <= n)
        return;
    struct timespec d = {(time_t)((t - n) / 1000000u), (long)((t - n) % 1000000u) * 1000L};
    nanosleep(&d, NULL);
}

uint64_t platform_cpu_us(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec +
           (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
}
#endif

/* ---- sockets and signals ------------------------------------------------ */

#define WAIT_MAX 8

int platform_wait_readable(const int *fds, bool *ready, int n, int timeout_ms)
{
    if (n < 0 || n > WAIT_MAX)
        return -1;
#ifdef _WIN32
    WSAPOLLFD p[WAIT_MAX];
    for (int i = 0; i < n; i++)
        p[i] = (WSAPOLLFD){.fd = (SOCKET)fds[i], .events = POLLRDNORM};
    int r = WSAPoll(p, (ULONG)n, timeout_ms);
    if (r < 0)
        return -1;
    for (int i = 0; i < n; i++)
        ready[i] = r > 0 && (p[i].revents & (POLLRDNORM | POLLERR)) != 0;
#else
    struct pollfd p[WAIT_MAX];
    for (int i = 0; i < n; i++)
        p[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
    int r = poll(p, (nfds_t)n, timeout_ms);
    if (r < 0)
        return errno == EINTR ? 0 : -1;
    /* POLLERR too: an ICMP error queued on a socket is taken by its recv. */
    for (int i = 0; i < n; i++)
        ready[i] = r > 0 && (p[i].revents & (POLLIN | POLLERR)) != 0;
#endif
    return r;
}

void platform_on_interrupt(void (*handler)(int))
{
#ifdef _WIN32
    signal(SIGINT, handler);
    signal(SIGTERM, handler);
#else
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler; /* no SA_RESTART: a wait in poll returns EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
#endif
}

/* ---- name lookup -------------------------------------------------------- */

/* "host:port" split at the last colon; false if there is no port. */
static bool split_host_port(const char *text, char *host, size_t host_size, long *port)
{
    const char *colon = strrchr(text, ':');
    if (!colon || colon == text || (size_t)(colon - text) >= host_size)
        return false;
    /* More than one colon without brackets is an IPv6 address without a
     * port, or a typo: neither is host:port. */
    if (memchr(text, ':', (size_t)(colon - text)))
        return false;
    char *end;
    *port = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || *end || *port < 0 || *port > 65535)
        return false;
    memcpy(host, text, (size_t)(colon - text));
    host[colon - text] = '\0';
    return true;
}

bool platform_resolve(const char *text, int family, tempo_address *out, char *why,
                      size_t why_size)
{
    const char *only = family == TEMPO_ADDRESS_IPV4   ? "IPv4"
                       : family == TEMPO_ADDRESS_IPV6 ? "IPv6"
                                                      : NULL;
    tempo_address a;
    if (tempo_address_parse(&a, text) == TEMPO_OK) {
        if (family != TEMPO_ADDRESS_NONE && a.family != family) {
            snprintf(why, why_size, "want an %s address", only);
            return false;
        }
        if (a.family == TEMPO_ADDRESS_IPV6 && text[0] != '[') { /* "::1" carries no port */
            snprintf(why, why_size, "no port; want [v6]:port");
            return false;
        }
        *out = a;
        return true;
    }
    char host[256];
    long port;
    if (text[0] == '[' || !split_host_port(text, host, sizeof host, &port)) {
        snprintf(why, why_size, "want host:port, a.b.c.d:port or [v6]:port");
        return false;
    }
#ifdef _WIN32
    WSADATA wsa; /* the resolver needs Winsock started; it counts starts */
    WSAStartup(MAKEWORD(2, 2), &wsa);
#endif
    struct addrinfo hints, *list = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = family == TEMPO_ADDRESS_IPV4   ? AF_INET
                      : family == TEMPO_ADDRESS_IPV6 ? AF_INET6
                                                     : AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    int rc = getaddrinfo(host, NULL, &hints, &list);
    if (rc != 0) {
        snprintf(why, why_size, "cannot resolve '%s': %s", host, gai_strerror(rc));
        return false;
    }
    /* Prefer IPv4 when a name has both: tempo's examples and most LANs use
     * it, and a peer told "localhost" should land on the same family as one
     * told "127.0.0.1". */
    const struct addrinfo *pick = NULL;
    for (const struct addrinfo *ai = list; ai; ai = ai->ai_next) {
        if (ai->ai_family == AF_INET) {
            pick = ai;
            break;
        }
        if (ai->ai_family == AF_INET6 && !pick)
            pick = ai;
    }
    memset(out, 0, sizeof *out);
    if (pick && pick->ai_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)pick->ai_addr;
        out->family = TEMPO_ADDRESS_IPV4;
        memcpy(out->bytes, &in->sin_addr, 4);
    } else if (pick) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)pick->ai_addr;
        out->family = TEMPO_ADDRESS_IPV6;
        memcpy(out->bytes, &in6->sin6_addr, 16);
    }
    freeaddrinfo(list);
    if (!pick) {
        snprintf(why, why_size, "'%s' has no %s address", host, only ? only : "IPv4 or IPv6");
        return false;
    }
    out->port = (uint16_t)port;
    return true;
}

/* ---- TCP ------------------------------------------------------------------ */

/* The sockaddr of a tempo_address; its length, 0 for no address. */
static size_t to_sockaddr(const tempo_address *a, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof *ss);
    if (a->family == TEMPO_ADDRESS_IPV4) {
        struct sockaddr_in *in = (struct sockaddr_in *)(void *)ss;
        in->sin_family = AF_INET;
        in->sin_port = htons(a->port);
        memcpy(&in->sin_addr, a->bytes, 4);
        return sizeof *in;
    }
    if (a->family == TEMPO_ADDRESS_IPV6) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)(void *)ss;
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(a->port);
        memcpy(&in6->sin6_addr, a->bytes, 16);
        return sizeof *in6;
    }
    return 0;
}

#ifdef _WIN32
static void tcp_why(char *why, size_t why_size, const char *what)
{
    snprintf(why, why_size, "%s: Winsock error %d", what, WSAGetLastError());
}

int platform_tcp_connect(const tempo_address *to, char *why, size_t why_size)
{
    WSADATA wsa;
    WSAStartup(MAKEWORD(2, 2), &wsa);
    struct sockaddr_storage ss;
    size_t len = to_sockaddr(to, &ss);
    if (len == 0) {
        snprintf(why, why_size, "no address to connect to");
        return -1;
    }
    SOCKET s = socket(ss.ss_family, SOCK_STREAM, IPPROTO_TCP);
    if (s == INVALID_SOCKET) {
        tcp_why(why, why_size, "socket");
        return -1;
    }
    u_long on = 1;
    ioctlsocket(s, FIONBIO, &on);
    BOOL nodelay = TRUE;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, (const char *)&nodelay, sizeof nodelay);
    if (connect(s, (const struct sockaddr *)&ss, (int)len) != 0 &&
        WSAGetLastError() != WSAEWOULDBLOCK) {
        tcp_why(why, why_size, "connect");
        closesocket(s);
        return -1;
    }
    return (int)s;
}

int platform_tcp_connected(int fd, char *why, size_t why_size)
{
    WSAPOLLFD p = {.fd = (SOCKET)fd, .events = POLLWRNORM};
    if (WSAPoll(&p, 1, 0) <= 0)
        return 0;
    int err = 0, len = sizeof err;
    getsockopt((SOCKET)fd, SOL_SOCKET, SO_ERROR, (char *)&err, &len);
    if (err == 0 && (p.revents & POLLWRNORM))
        return 1;
    snprintf(why, why_size, "connect: Winsock error %d", err);
    return -1;
}

long platform_tcp_send(int fd, const void *data, size_t n, char *why, size_t why_size)
{
    int r = send((SOCKET)fd, (const char *)data, n > 65536 ? 65536 : (int)n, 0);
    if (r >= 0)
        return r;
    if (WSAGetLastError() == WSAEWOULDBLOCK)
        return 0;
    tcp_why(why, why_size, "send");
    return -1;
}

long platform_tcp_recv(int fd, void *buf, size_t n, char *why, size_t why_size)
{
    int r = recv((SOCKET)fd, (char *)buf, n > 65536 ? 65536 : (int)n, 0);
    if (r > 0)
        return r;
    if (r == 0)
        return -2;
    if (WSAGetLastError() == WSAEWOULDBLOCK)
        return 0;
    tcp_why(why, why_size, "recv");
    return -1;
}

void platform_tcp_close(int fd)
{
    if (fd >= 0)
        closesocket((SOCKET)fd);
}

int platform_run(char *const argv[], const char *input, size_t n, int timeout_ms, char *why,
                 size_t why_size)
{
    (void)input;
    (void)n;
    (void)timeout_ms;
    snprintf(why, why_size, "cannot run %s: not supported on Windows", argv[0]);
    return -1;
}
#else
static void tcp_why(char *why, size_t why_size, const char *what, int err)
{
    snprintf(why, why_size, "%s: %s", what, strerror(err));
}

int platform_tcp_connect(const tempo_address *to, char *why, size_t why_size)
{
    struct sockaddr_storage ss;
    size_t len = to_sockaddr(to, &ss);
    if (len == 0) {
        snprintf(why, why_size, "no address to connect to");
        return -1;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM, 0);
    if (fd < 0) {
        tcp_why(why, why_size, "socket", errno);
        return -1;
    }
    int one = 1;
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 ||
        fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        tcp_why(why, why_size, "fcntl", errno);
        close(fd);
        return -1;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
#ifdef SO_NOSIGPIPE
    setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
#endif
    if (connect(fd, (const struct sockaddr *)&ss, (socklen_t)len) != 0 && errno != EINPROGRESS) {
        tcp_why(why, why_size, "connect", errno);
        close(fd);
        return -1;
    }
    return fd;
}

int platform_tcp_connected(int fd, char *why, size_t why_size)
{
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    if (poll(&p, 1, 0) <= 0)
        return 0;
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
        err = errno;
    if (err == 0 && (p.revents & POLLOUT))
        return 1;
    tcp_why(why, why_size, "connect", err ? err : ECONNREFUSED);
    return -1;
}

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0 /* SO_NOSIGPIPE on the socket instead */
#endif

long platform_tcp_send(int fd, const void *data, size_t n, char *why, size_t why_size)
{
    ssize_t r = send(fd, data, n, MSG_NOSIGNAL);
    if (r >= 0)
        return (long)r;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return 0;
    tcp_why(why, why_size, "send", errno);
    return -1;
}

long platform_tcp_recv(int fd, void *buf, size_t n, char *why, size_t why_size)
{
    ssize_t r = recv(fd, buf, n, 0);
    if (r > 0)
        return (long)r;
    if (r == 0)
        return -2;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return 0;
    tcp_why(why, why_size, "recv", errno);
    return -1;
}

void platform_tcp_close(int fd)
{
    if (fd >= 0)
        close(fd);
}

int platform_run(char *const argv[], const char *input, size_t n, int timeout_ms, char *why,
                 size_t why_size)
{
    int fds[2];
    if (pipe(fds) != 0) {
        tcp_why(why, why_size, "pipe", errno);
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[0], 0);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[0]);
    if (rc != 0) {
        close(fds[1]);
        snprintf(why, why_size, "cannot run %s: %s", argv[0], strerror(rc));
        return -1;
    }
    /* A program that ends without reading its input must not end us. */
    struct sigaction ignore, old;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &old);
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fds[1], input + off, n - off);
        if (w <= 0 && errno != EINTR)
            break;
        if (w > 0)
            off += (size_t)w;
    }
    sigaction(SIGPIPE, &old, NULL);
    close(fds[1]);
    uint64_t until = platform_now_us() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000u;
    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            tcp_why(why, why_size, "waitpid", errno);
            return -1;
        }
        if (platform_now_us() >= until) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            snprintf(why, why_size, "%s did not end within %d ms: killed", argv[0], timeout_ms);
            return -1;
        }
        platform_sleep_until_us(platform_now_us() + 10000u);
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    snprintf(why, why_size, "%s ended by signal %d", argv[0],
             WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return -1;
}
#endif
bool platform_resolve_port(const char *text, const char *whose, tempo_address *out, char *why,
                           size_t why_size)
{
    if (!platform_resolve(text, TEMPO_ADDRESS_NONE, out, why, why_size))
        return false;
    if (out->port == 0) {
        snprintf(why, why_size, "port 0: want the %s's port, 1..65535", whose);
        return false;
    }
    return true;
}

/* ---- a quiet stderr ------------------------------------------------------- */

#ifdef _WIN32
#define NULL_DEVICE "NUL"
#define dup _dup
#define dup2 _dup2
#define close _close
#define open _open
#define fileno _fileno
#else
#define NULL_DEVICE "/dev/null"
#endif

int platform_stderr_mute(void)
{
    fflush(stderr);
    int saved = dup(fileno(stderr));
    int quiet = open(NULL_DEVICE, O_WRONLY);
    if (saved < 0 || quiet < 0 || dup2(quiet, fileno(stderr)) < 0) {
        if (quiet >= 0)
            close(quiet);
        if (saved >= 0)
            close(saved);
        return -1;
    }
    close(quiet);
    return saved;
}

void platform_stderr_unmute(int saved)
{
    if (saved < 0)
        return;
    fflush(stderr);
    dup2(saved, fileno(stderr));
    close(saved);
}
