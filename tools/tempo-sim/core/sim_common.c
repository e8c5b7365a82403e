/* SPDX-License-Identifier: MIT */
/*
 * sim_common.c — the small things every mode of tempo-sim uses (sim.h):
 * who hosts a player, the time sync methods' names, seeded mixing, text
 * appended to a buffer, and the wall clock for saying how long a run took
 * (tools may read the clock; the library never does).
 */
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "sim.h"

int sim_player_peer(const sim_options *o, int player)
{
    return o->hosts_set ? o->player_peer[player] : player / o->local_per_peer;
}

const char *sim_timesync_name(int method)
{
    static const char *const names[] = {"inversus", "ggpo", "lead", "none", "inversus-article"};
    return method >= 0 && method < 5 ? names[method] : "?";
}

uint64_t sim_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

uint64_t sim_next64(uint64_t *state)
{
    uint64_t x = sim_mix64(*state);
    *state += 0x9E3779B97F4A7C15ULL;
    return x;
}

void sim_append(char *buf, size_t size, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
}

int sim_usage_error(const char *what)
{
    fprintf(stderr, "tempo-sim: %s (see --help)\n", what);
    return SIM_EXIT_USAGE;
}

double sim_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
