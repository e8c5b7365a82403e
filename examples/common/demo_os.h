/*
 * demo_os.h — what the demos, tools and socket tests need from the operating
 * system that C11 does not give: a monotonic clock, a sleep, waiting until a
 * UDP transport's socket is readable, a stop request (Ctrl+C), and the text
 * of the last socket error. POSIX and Windows, header-only.
 *
 * These live beside the programs, never in the library: libtempo reads no
 * clock and never waits; a game passes the time in and decides how to sleep.
 *
 * POSIX: clock_gettime(CLOCK_MONOTONIC), nanosleep, poll, sigaction (SIGINT,
 * SIGTERM, without SA_RESTART so a wait ends early), strerror(errno).
 * Windows: QueryPerformanceCounter, Sleep (whole milliseconds, and the
 * system's timer granularity: a sleep may run up to a tick long unless the
 * program raised the timer resolution), WSAPoll on the SOCKET that
 * tempo_udp_fd hands out as an int, signal (SIGINT from Ctrl+C; it does not
 * cut a wait short, so callers bound their waits), WSAGetLastError.
 */
#ifndef TEMPO_DEMO_OS_H
#define TEMPO_DEMO_OS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tempo/udp.h"

#ifdef _WIN32
#include <winsock2.h>
#include <windows.h>
#include <signal.h>
#else
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#endif

/* Microseconds on a clock that never steps back; the origin is arbitrary. */
static inline uint64_t demo_os_now_us(void)
{
#ifdef _WIN32
    LARGE_INTEGER freq, count;
    QueryPerformanceFrequency(&freq); /* fixed at boot; never fails since XP */
    QueryPerformanceCounter(&count);
    uint64_t f = (uint64_t)freq.QuadPart, c = (uint64_t)count.QuadPart;
    return c / f * 1000000u + c % f * 1000000u / f; /* split: no overflow */
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
#endif
}

static inline void demo_os_sleep_us(uint64_t us)
{
#ifdef _WIN32
    Sleep((DWORD)(us / 1000u));
#else
    struct timespec d = {(time_t)(us / 1000000u), (long)(us % 1000000u) * 1000L};
    nanosleep(&d, NULL);
#endif
}

/* Wait up to timeout_ms (-1: no limit) until one of the n transports'
 * sockets has a datagram; readable[i] says which. Returns how many are
 * readable, 0 when none (the time ran out or a signal interrupted the wait),
 * -1 on an error (demo_os_socket_error says which). n is at most 8. */
static inline int demo_os_wait_readable(tempo_udp *const *socks, int n, int timeout_ms,
                                        bool *readable)
{
#ifdef _WIN32
    WSAPOLLFD fds[8];
#else
    struct pollfd fds[8];
#endif
    if (n < 0 || n > 8)
        return -1;
    for (int i = 0; i < n; i++) {
#ifdef _WIN32
        fds[i].fd = (SOCKET)(intptr_t)tempo_udp_fd(socks[i]); /* see tempo_udp_fd */
#else
        fds[i].fd = tempo_udp_fd(socks[i]);
#endif
        fds[i].events = POLLIN;
        fds[i].revents = 0;
    }
#ifdef _WIN32
    int ready = WSAPoll(fds, (ULONG)n, timeout_ms);
    if (ready == SOCKET_ERROR)
        return -1;
#else
    int ready = poll(fds, (nfds_t)n, timeout_ms);
    if (ready < 0)
        return errno == EINTR ? 0 : -1;
#endif
    for (int i = 0; i < n; i++)
        readable[i] = (fds[i].revents & POLLIN) != 0;
    return ready;
}

/* Call handler on Ctrl+C (and SIGTERM where there is one). The handler may
 * only set a volatile sig_atomic_t flag. */
static inline void demo_os_on_stop(void (*handler)(int))
{
#ifdef _WIN32
    signal(SIGINT, handler);
    signal(SIGTERM, handler);
#else
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler; /* no SA_RESTART: a wait returns early */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
#endif
}

/* The last socket error as text, e.g. after tempo_udp_open failed. The text
 * lives in buf. */
static inline const char *demo_os_socket_error(char *buf, size_t size)
{
#ifdef _WIN32
    snprintf(buf, size, "Winsock error %d", WSAGetLastError());
#else
    snprintf(buf, size, "%s", strerror(errno));
#endif
    return buf;
}

#endif /* TEMPO_DEMO_OS_H */
