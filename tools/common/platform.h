/* SPDX-License-Identifier: MIT */
/*
 * platform.h — the few operating-system calls tempo's programs make, in one
 * place: a monotonic clock, sleeping, waiting for sockets, stopping on
 * Ctrl-C, and looking up host names. platform.c holds a POSIX and a Windows
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

#ifdef __cplusplus
}
#endif

#endif /* TOOLS_PLATFORM_H */
