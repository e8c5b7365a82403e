/* SPDX-License-Identifier: MIT */
/*
 * platform.h — the few operating-system calls tempo's programs make, in one
 * place: a monotonic clock, sleeping, waiting for sockets, stopping on
 * Ctrl-C, looking up host names, TCP connections for HTTP to local
 * services, and running another program. platform.c holds a POSIX and a Windows
 * version of each; nothing else in tools/ or examples/ needs either.
 *
 * Name lookup lives here, in the programs, and not in the library: tempo
 * itself only takes numeric addresses (tempo_address_parse) and never
 * blocks on a resolver.
 */
#ifndef TOOLS_PLATFORM_H
#define TOOLS_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Microseconds of a monotonic clock (never steps back; its zero is
 * arbitrary). */
uint64_t platform_now_us(void);

/* Processor time this process used so far, user and system, in
 * microseconds (getrusage; GetProcessTimes on Windows). */
uint64_t platform_cpu_us(void);

/* Sleep until platform_now_us() reaches t (at once if it has). */
void platform_sleep_until_us(uint64_t t);

/* Wait until one of the n sockets (tempo_udp_fd) has a datagram or
 * timeout_ms passes; set ready[i] for each readable one. Returns how many
 * are ready, 0 on timeout or when a signal interrupted the wait, -1 on an
 * error. */
int platform_wait_readable(const int *fds, bool *ready, int n, int timeout_ms);

/* Call handler (which may only set a volatile sig_atomic_t) on Ctrl-C and
 * on a request to terminate; a wait in platform_wait_readable then returns
 * early. */
void platform_on_interrupt(void (*handler)(int));

/* Parse "host:port" or "[v6]:port" into *out. host is a numeric address or
 * a name the system resolves (localhost, a host in /etc/hosts or the DNS).
 * family TEMPO_ADDRESS_NONE takes any family, preferring IPv4 when a name
 * has both; TEMPO_ADDRESS_IPV4 or _IPV6 only that family. The port must be
 * given (0..65535). On failure returns false and writes the reason into
 * why[0..why_size). Blocks while the resolver works. */
bool platform_resolve(const char *text, int family, tempo_address *out, char *why,
                      size_t why_size);

/* platform_resolve of "host:port" in any family, refusing port 0 ("port 0:
 * want the <whose>'s port, 1..65535"): the address of another machine. */
bool platform_resolve_port(const char *text, const char *whose, tempo_address *out, char *why,
                           size_t why_size);

/* Send this process's stderr nowhere until platform_stderr_unmute(the
 * value returned): for a library that prints, on a path we report better
 * ourselves, lines we cannot stop (ALSA without a sound card). Returns -1
 * (and changes nothing) if it cannot. */
int platform_stderr_mute(void);
void platform_stderr_unmute(int saved);

/* ---- TCP, for HTTP to the local services a game server talks to ---------
 * (tools/common/http_conn.c). Every call returns at once; none raises
 * SIGPIPE. On failure the reason goes into why[0..why_size). */

/* Open a non-blocking TCP socket and start connecting it to `to` (IPv4 or
 * IPv6). Returns the socket, or -1. */
int platform_tcp_connect(const tempo_address *to, char *why, size_t why_size);

/* Whether the connection platform_tcp_connect started is made: 1 yes, 0
 * not yet, -1 it failed. */
int platform_tcp_connected(int fd, char *why, size_t why_size);

/* Send up to n bytes: how many went (0: the socket's buffer is full), or
 * -1 on an error. */
long platform_tcp_send(int fd, const void *data, size_t n, char *why, size_t why_size);

/* Receive up to n bytes: how many came (0: nothing waiting), -1 on an
 * error, -2 when the other side closed the connection. */
long platform_tcp_recv(int fd, void *buf, size_t n, char *why, size_t why_size);

void platform_tcp_close(int fd);

/* ---- another program ----------------------------------------------------- */

/* Run argv[0] (looked up in PATH) with arguments argv (NULL-terminated),
 * its standard input the n bytes of input, its standard output discarded
 * and its standard error ours; wait at most timeout_ms for it to end, and
 * kill it then. Returns its exit status (0..255), or -1 (it could not
 * start, was killed, or this system cannot run programs) with the reason
 * in why. Blocks. */
int platform_run(char *const argv[], const char *input, size_t n, int timeout_ms, char *why,
                 size_t why_size);

#ifdef __cplusplus
}
#endif

#endif /* TOOLS_PLATFORM_H */
