/* SPDX-License-Identifier: MIT */
/*
 * simnet_profiles.c — the named link profiles of tempo_link_profile.
 *
 * One constant table; docs/SIMNET.md lists the same numbers with what they
 * give when measured. Latencies are one way. Jitter is zero-mean, so a
 * profile's mean latency is its nominal latency plus what spikes and
 * reordering add on purpose (mobile: +3.6 ms, terrible: +1.25 ms).
 */
#include "base/common.h"

#include "tempo/simnet.h"

#include <string.h>

/* The names, in the order of the parameter table below. */
static const char *const profile_names[] = {
    "perfect", "lan", "broadband", "continental", "transatlantic", "mobile", "terrible", NULL};

static const tempo_link_params profile_params[] = {
    {.latency_us = 0},
    {.latency_us = 1000, .jitter_us = 100},
    {.latency_us = 15000, .jitter_us = 3000, .loss = 0.001},
    {.latency_us = 40000, .jitter_us = 6000, .loss = 0.01},
    {.latency_us = 75000, .jitter_us = 10000, .loss = 0.02},
    /* mobile. Spikes: 1/21 of packets, in bursts of 5 on average, up to
     * +150 ms. Loss: the bad state holds 1/11 of the time and loses half;
     * 0.5% otherwise: 5.0% in all, in bursts. */
    {.latency_us = 60000, .jitter_us = 8000, .spike_enter = 0.01, .spike_exit = 0.2,
     .spike_us = 150000, .loss = 0.005, .burst_enter = 0.01, .burst_exit = 0.1,
     .burst_loss = 0.5},
    {.latency_us = 150000, .jitter_us = 50000, .loss = 0.15, .duplicate = 0.02, .reorder = 0.05,
     .reorder_us = 50000},
};

#define NUM_PROFILES (sizeof profile_params / sizeof profile_params[0])
_Static_assert(NUM_PROFILES + 1 == sizeof profile_names / sizeof profile_names[0],
               "one name per profile");

tempo_result tempo_link_profile(const char *name, tempo_link_params *out)
{
    if (!name || !out)
        return TEMPO_E_INVALID_ARG;
    for (size_t i = 0; i < NUM_PROFILES; i++) {
        if (strcmp(profile_names[i], name) == 0) {
            *out = profile_params[i];
            return TEMPO_OK;
        }
    }
    return TEMPO_E_INVALID_ARG;
}

const char *const *tempo_link_profile_names(void) { return profile_names; }
