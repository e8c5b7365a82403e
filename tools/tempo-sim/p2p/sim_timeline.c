/* SPDX-License-Identifier: MIT */
/*
 * sim_timeline.c — allocation and markers of the match timeline.
 *
 * Invariant: after sim_timeline_init every per-peer series and every link
 * series between two different peers points to `capacity` floats set to NAN
 * (a link to oneself stays NULL) and checks_passed to `capacity` zeros;
 * sim_timeline_free releases exactly those and leaves the timeline zeroed, so
 * freeing twice is harmless.
 */
#include "sim_timeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every series pointer of one peer, so init and free walk them the same way. */
static float **sim_timeline_peer_slot(sim_peer_series *s, int i)
{
    float **slots[] = {&s->frame_skew, &s->input_delay, &s->rollbacks_per_s,
                       &s->stalls_per_s, &s->payload_bytes_per_s, &s->frame_advantage};
    return i < (int)(sizeof slots / sizeof slots[0]) ? slots[i] : NULL;
}

static float *sim_timeline_series(int capacity)
{
    float *v = malloc((size_t)capacity * sizeof *v);
    if (v != NULL) {
        for (int i = 0; i < capacity; i++)
            v[i] = NAN;
    }
    return v;
}

void sim_timeline_free(sim_timeline *t)
{
    if (t == NULL)
        return;
    for (int p = 0; p < SIM_MAX_PEERS; p++) {
        float **slot;
        for (int i = 0; (slot = sim_timeline_peer_slot(&t->peer[p], i)) != NULL; i++)
            free(*slot);
        for (int q = 0; q < SIM_MAX_PEERS; q++) {
            free(t->rtt_ms[p][q]);
            free(t->loss[p][q]);
        }
    }
    free(t->checks_passed);
    memset(t, 0, sizeof *t);
}

bool sim_timeline_init(sim_timeline *t, int peers, int capacity, double interval_s)
{
    if (t == NULL)
        return false;
    memset(t, 0, sizeof *t);
    if (peers < 1 || peers > SIM_MAX_PEERS || capacity < 1 || !(interval_s > 0.0))
        return false;
    t->interval_s = interval_s;
    t->capacity = capacity;
    t->peers = peers;
    t->checks_passed = calloc((size_t)capacity, sizeof *t->checks_passed);
    if (t->checks_passed == NULL)
        goto fail;
    for (int p = 0; p < peers; p++) {
        snprintf(t->peer_names[p], sizeof t->peer_names[p], "peer %d", p);
        float **slot;
        for (int i = 0; (slot = sim_timeline_peer_slot(&t->peer[p], i)) != NULL; i++) {
            if ((*slot = sim_timeline_series(capacity)) == NULL)
                goto fail;
        }
        for (int q = 0; q < peers; q++) {
            if (q == p)
                continue;
            t->rtt_ms[p][q] = sim_timeline_series(capacity);
            t->loss[p][q] = sim_timeline_series(capacity);
            if (t->rtt_ms[p][q] == NULL || t->loss[p][q] == NULL)
                goto fail;
        }
    }
    return true;
fail:
    sim_timeline_free(t);
    return false;
}

void sim_timeline_mark(sim_timeline *t, double t_s, int kind, int peer, const char *label)
{
    if (t == NULL)
        return;
    if (kind == SIM_MARK_DESYNC_CHECK) {
        double i = floor(t_s / t->interval_s + 0.5);
        if (t->checks_passed != NULL && i >= 0.0 && i < t->capacity)
            t->checks_passed[(int)i]++;
        return;
    }
    if (t->num_markers >= SIM_MAX_MARKERS)
        return;
    sim_marker *m = &t->markers[t->num_markers++];
    m->t_s = t_s;
    m->kind = kind;
    m->peer = peer;
    snprintf(m->label, sizeof m->label, "%s", label != NULL ? label : "");
}
