/* SPDX-License-Identifier: MIT */
/*
 * bench_floor.h — the kernel's floor under a loopback bench: plain system
 * calls moving the datagrams a tempo run moved, and nothing else.
 *
 * While tempo runs, the bench records, for every turn of a socket in every
 * frame of the measured window (a step: a peer's tick, the server's poll
 * and advance, a client's tick, a relay's update), what that socket's UDP
 * transport counted in it (tempo_udp_stats): datagrams and bytes sent,
 * send calls, receive calls. The floor then opens as many fresh sockets on
 * 127.0.0.1, as the transport opens them (non-blocking, its default
 * buffers, SO_RXQ_OVFL), and replays the window step by step in the same
 * order: the step's receive calls (recvmmsg of 64 with MSG_TRUNC and a
 * control buffer, as the transport drains), then its datagrams, their
 * bytes spread evenly (sizes differ by at most one byte), round-robin to
 * the step's range of the other sockets, in the step's number of calls
 * (sendmmsg of an even share of them each when batched, else one sendto
 * each). Nothing is coded, sealed or looked at: what is left is what the
 * kernel charges for the same calls and datagrams. The first
 * BENCH_FLOOR_SETTLE frames are replayed once unmeasured first.
 *
 * The includer defines _GNU_SOURCE before any system header (sendmmsg,
 * recvmmsg). Recording works everywhere; the replay is Linux only
 * (BENCH_FLOOR 1): elsewhere bench_floor_run returns negative times. Every
 * failure (no memory, a socket that cannot open, a send that fails, a
 * datagram sent and never received) ends the program with exit(1).
 */
#ifndef TEMPO_BENCH_FLOOR_H
#define TEMPO_BENCH_FLOOR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "tempo/udp.h"

#define BENCH_FLOOR_MAX_STEPS 1100
#define BENCH_FLOOR_SETTLE 30

/* What one socket's transport counted in one turn. */
typedef struct bench_floor_turn {
    uint32_t sent, bytes, send_calls, recv_calls;
} bench_floor_turn;

/* One socket's turn in a frame, and where its datagrams go. */
typedef struct bench_floor_step {
    int sock;
    int to_first, to_count; /* sockets [to_first, to_first + to_count), never sock itself */
    bool batch;             /* sendmmsg, else sendto */
    bool timed;             /* this thread's CPU around the turn counts (bench_floor_result) */
    int next_to;
} bench_floor_step;

typedef struct bench_floor {
    int sockets, steps;
    int frames, cap;        /* frames recorded, and room for */
    bench_floor_step step[BENCH_FLOOR_MAX_STEPS];
    tempo_udp_stats last[BENCH_FLOOR_MAX_STEPS]; /* each socket's counts at its last record */
    bench_floor_turn *turn; /* turn[frame * steps + step] */
} bench_floor;

typedef struct bench_floor_result {
    double process_s; /* the process's CPU over the replayed window */
    double timed_s;   /* this thread's CPU inside timed steps over it */
} bench_floor_result;

static inline void bench_floor_die(const char *what)
{
    fprintf(stderr, "bench floor: %s\n", what);
    exit(1);
}

static inline void bench_floor_reserve(bench_floor *fl, int frames)
{
    if (frames <= fl->cap)
        return;
    int cap = fl->cap ? fl->cap : 64;
    while (cap < frames)
        cap *= 2;
    bench_floor_turn *t =
        (bench_floor_turn *)realloc(fl->turn, (size_t)cap * (size_t)fl->steps * sizeof *t);
    if (!t)
        bench_floor_die("out of memory");
    memset(t + (size_t)fl->cap * (size_t)fl->steps, 0,
           (size_t)(cap - fl->cap) * (size_t)fl->steps * sizeof *t);
    fl->turn = t, fl->cap = cap;
}

/* A floor of `sockets` sockets and `steps` turns a frame, with room for
 * `frames` frames (more are made room for as they come); the caller sets
 * each step's sock, to_first, to_count, batch and timed. */
static inline bench_floor *bench_floor_create(int sockets, int steps, int frames)
{
    if (sockets < 2 || sockets > BENCH_FLOOR_MAX_STEPS || steps < 1 ||
        steps > BENCH_FLOOR_MAX_STEPS)
        bench_floor_die("too many sockets or steps");
    bench_floor *fl = (bench_floor *)calloc(1, sizeof *fl);
    if (!fl)
        bench_floor_die("out of memory");
    fl->sockets = sockets, fl->steps = steps;
    bench_floor_reserve(fl, frames);
    return fl;
}

static inline void bench_floor_destroy(bench_floor *fl)
{
    if (fl)
        free(fl->turn);
    free(fl);
}

/* The start of the window: what socket `sock` (tempo's u) counted so far. */
static inline void bench_floor_begin(bench_floor *fl, int sock, const tempo_udp *u)
{
    tempo_udp_get_stats(u, &fl->last[sock]);
}

/* After step k's turn in frame f of the window (0, 1, ...): what its
 * socket (tempo's u) counted since that socket's previous record. */
static inline void bench_floor_record(bench_floor *fl, int f, int k, const tempo_udp *u)
{
    bench_floor_reserve(fl, f + 1);
    if (f >= fl->frames)
        fl->frames = f + 1;
    tempo_udp_stats now;
    tempo_udp_get_stats(u, &now);
    tempo_udp_stats *last = &fl->last[fl->step[k].sock];
    bench_floor_turn *t = &fl->turn[(size_t)f * (size_t)fl->steps + (size_t)k];
    t->sent += (uint32_t)(now.sent - last->sent);
    t->bytes += (uint32_t)(now.bytes_sent - last->bytes_sent);
    t->send_calls += (uint32_t)(now.send_calls - last->send_calls);
    t->recv_calls += (uint32_t)(now.recv_calls - last->recv_calls);
    *last = now;
}

#ifdef __linux__
#define BENCH_FLOOR 1

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#define BENCH_FLOOR_BATCH 64 /* the UDP transport's recvmmsg batch */
#define BENCH_FLOOR_SLOT 2048

static inline void bench_floor_fail(const char *what)
{
    fprintf(stderr, "bench floor: %s: %s\n", what, strerror(errno));
    exit(1);
}

static inline int bench_floor_open(struct sockaddr_in *addr)
{
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s < 0)
        bench_floor_fail("cannot open a UDP socket");
    int rcv = (int)TEMPO_UDP_DEFAULT_RECV_BUFFER, snd = (int)TEMPO_UDP_DEFAULT_SEND_BUFFER, one = 1;
    (void)setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
    (void)setsockopt(s, SOL_SOCKET, SO_SNDBUF, &snd, sizeof snd);
    (void)setsockopt(s, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one);
    memset(addr, 0, sizeof *addr);
    addr->sin_family = AF_INET;
    addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof *addr;
    if (bind(s, (struct sockaddr *)addr, sizeof *addr) != 0 ||
        getsockname(s, (struct sockaddr *)addr, &len) != 0)
        bench_floor_fail("cannot bind a UDP socket on loopback");
    return s;
}

/* The receive side, shared by every socket (nothing reads what arrives). */
typedef struct bench_floor_rx {
    struct mmsghdr msgs[BENCH_FLOOR_BATCH];
    struct iovec iov[BENCH_FLOOR_BATCH];
    struct sockaddr_storage addr[BENCH_FLOOR_BATCH];
    union { /* an SO_RXQ_OVFL control message, aligned for cmsghdr */
        size_t align;
        unsigned char bytes[CMSG_SPACE(sizeof(uint32_t))];
    } control[BENCH_FLOOR_BATCH];
    uint8_t data[BENCH_FLOOR_BATCH][BENCH_FLOOR_SLOT];
} bench_floor_rx;

/* One recvmmsg; returns the datagrams it took. */
static inline int bench_floor_recv(int s, bench_floor_rx *rx)
{
    memset(rx->msgs, 0, sizeof rx->msgs);
    for (int i = 0; i < BENCH_FLOOR_BATCH; i++) {
        rx->iov[i].iov_base = rx->data[i];
        rx->iov[i].iov_len = BENCH_FLOOR_SLOT;
        rx->msgs[i].msg_hdr.msg_name = &rx->addr[i];
        rx->msgs[i].msg_hdr.msg_namelen = sizeof rx->addr[i];
        rx->msgs[i].msg_hdr.msg_iov = &rx->iov[i];
        rx->msgs[i].msg_hdr.msg_iovlen = 1;
        rx->msgs[i].msg_hdr.msg_control = rx->control[i].bytes;
        rx->msgs[i].msg_hdr.msg_controllen = sizeof rx->control[i].bytes;
    }
    int n = recvmmsg(s, rx->msgs, BENCH_FLOOR_BATCH, MSG_TRUNC, NULL);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
        bench_floor_fail("recvmmsg failed");
    return n < 0 ? 0 : n;
}

/* Step st's sends of one turn, t's datagrams in t's calls. */
static inline void bench_floor_send(bench_floor_step *st, int s, const struct sockaddr_in *addr,
                                    const bench_floor_turn *t, const uint8_t *payload)
{
    enum { MAX = 4096 };
    static struct mmsghdr msgs[MAX];
    static struct iovec iov[MAX];
    uint32_t k = t->sent, calls = st->batch ? t->send_calls : k;
    if (k > MAX || (k > 0 && calls == 0) || calls > k)
        bench_floor_die("a turn's datagrams do not fit its calls");
    memset(msgs, 0, sizeof msgs[0] * k);
    for (uint32_t i = 0; i < k; i++) {
        int to = st->to_first + st->next_to;
        st->next_to = (st->next_to + 1) % st->to_count;
        if (to == st->sock) {
            to = st->to_first + st->next_to;
            st->next_to = (st->next_to + 1) % st->to_count;
        }
        iov[i].iov_base = (void *)payload;
        iov[i].iov_len = (uint64_t)t->bytes * (i + 1) / k - (uint64_t)t->bytes * i / k;
        msgs[i].msg_hdr.msg_name = (void *)&addr[to];
        msgs[i].msg_hdr.msg_namelen = sizeof addr[to];
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    for (uint32_t c = 0, at = 0; c < calls; c++) {
        uint32_t m = (k - at) / (calls - c); /* an even share of what is left */
        if (!st->batch) {
            const struct msghdr *h = &msgs[at].msg_hdr;
            if (sendto(s, payload, iov[at].iov_len, 0, (const struct sockaddr *)h->msg_name,
                       h->msg_namelen) != (ssize_t)iov[at].iov_len)
                bench_floor_fail("sendto failed");
        } else if (sendmmsg(s, msgs + at, m, 0) != (int)m) {
            bench_floor_fail("sendmmsg did not send its batch");
        }
        at += m;
    }
}

/* Replay fl's frames [from, to) once; returns the datagrams sent. */
static inline uint64_t bench_floor_replay(bench_floor *fl, const int *fd,
                                          const struct sockaddr_in *addr, int from, int to,
                                          bench_floor_rx *rx, const uint8_t *payload,
                                          uint64_t *received, double *timed_s)
{
    uint64_t sent = 0;
    for (int f = from; f < to; f++)
        for (int k = 0; k < fl->steps; k++) {
            bench_floor_step *st = &fl->step[k];
            const bench_floor_turn *t = &fl->turn[(size_t)f * (size_t)fl->steps + (size_t)k];
            int s = fd[st->sock];
            double t0 = st->timed ? bench_thread_cpu_now() : 0;
            for (uint32_t c = 0; c < t->recv_calls; c++)
                *received += (uint64_t)bench_floor_recv(s, rx);
            bench_floor_send(st, s, addr, t, payload);
            if (st->timed)
                *timed_s += bench_thread_cpu_now() - t0;
            sent += t->sent;
        }
    return sent;
}

/* Replay the recorded window on fresh sockets (its first frames once
 * unmeasured first), then drain them and check that every datagram sent
 * arrived. */
static inline bench_floor_result bench_floor_run(bench_floor *fl)
{
    static bench_floor_rx rx;
    static uint8_t payload[TEMPO_MAX_DATAGRAM];
    static int fd[BENCH_FLOOR_MAX_STEPS];
    static struct sockaddr_in addr[BENCH_FLOOR_MAX_STEPS];
    memset(payload, 0x5a, sizeof payload);
    for (int i = 0; i < fl->sockets; i++)
        fd[i] = bench_floor_open(&addr[i]);
    for (int k = 0; k < fl->steps; k++) {
        bench_floor_step *st = &fl->step[k];
        bool self = st->sock >= st->to_first && st->sock < st->to_first + st->to_count;
        if (st->sock < 0 || st->sock >= fl->sockets || st->to_first < 0 ||
            st->to_first + st->to_count > fl->sockets || st->to_count < (self ? 2 : 1))
            bench_floor_die("a step names sockets the floor does not have");
        st->next_to = 0;
    }
    for (int f = 0; f < fl->frames; f++)
        for (int k = 0; k < fl->steps; k++)
            if (fl->turn[(size_t)f * (size_t)fl->steps + (size_t)k].bytes >
                fl->turn[(size_t)f * (size_t)fl->steps + (size_t)k].sent * TEMPO_MAX_DATAGRAM)
                bench_floor_die("a turn's datagrams are larger than a datagram can be");
    uint64_t received = 0, sent = 0;
    double settle_timed = 0;
    bench_floor_result r = {0, 0};
    int settle = fl->frames < BENCH_FLOOR_SETTLE ? fl->frames : BENCH_FLOOR_SETTLE;
    sent += bench_floor_replay(fl, fd, addr, 0, settle, &rx, payload, &received, &settle_timed);
    double cpu0 = bench_cpu_now();
    sent += bench_floor_replay(fl, fd, addr, 0, fl->frames, &rx, payload, &received, &r.timed_s);
    r.process_s = bench_cpu_now() - cpu0;
    for (int i = 0; i < fl->sockets; i++) {
        for (int n = 1; n > 0;) {
            n = bench_floor_recv(fd[i], &rx);
            received += (uint64_t)n;
        }
        close(fd[i]);
    }
    if (received != sent) {
        fprintf(stderr, "bench floor: %llu datagrams sent, %llu received\n",
                (unsigned long long)sent, (unsigned long long)received);
        exit(1);
    }
    return r;
}

#else
#define BENCH_FLOOR 0

/* No replay here: negative times. */
static inline bench_floor_result bench_floor_run(bench_floor *fl)
{
    (void)fl;
    bench_floor_result r = {-1, -1};
    return r;
}
#endif /* __linux__ */

#endif /* TEMPO_BENCH_FLOOR_H */
