/* SPDX-License-Identifier: MIT */
/*
 * relay_host.c — tempo-relay under Agones and Edgegap (relay_host.h).
 *
 * Invariant: the labels asked for always describe the relay as of the
 * last update: session-ready is "true" exactly while the relay is not
 * draining and has room (free > 0), where free counts the matches it can
 * still open less the allocations not yet turned into a match, and is 0
 * when fewer members than one full match can still join.
 */
#include "relay_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agones.h"
#include "edgegap.h"

#define PENDING_MAX 256
#define STOP_WAIT_US 10000000u     /* POST /shutdown is waited for this long */
#define STOP_NOW_WAIT_US 2000000u  /* after a second signal */
#define EDGEGAP_IDLE_US 10000000u  /* no match this long after the last: the session is over */
#define EDGEGAP_TIMEOUT_MS 10000

struct relay_host {
    relay_host_config cfg;
    agones *ag;
    edgegap_stop eg;
    bool has_eg;
    uint64_t seen_version;
    bool allocated;                /* the last GameServer read was Allocated */
    char last_allocated[80];       /* its agones.dev/last-allocated */
    uint64_t pending_until[PENDING_MAX]; /* allocations waiting for their match, oldest first */
    int pending;
    int matches_before;
    int label_free;                /* the values last asked for; -1 none */
    int label_ready;
    bool draining, stopping;
    uint64_t drain_until_us, stop_until_us;
    bool had_match;
    uint64_t empty_since_us;
    bool readied;                  /* POST /ready asked for */
    agones_state state;            /* the GameServer's, as last read */
    uint64_t idle_since_us;        /* Allocated with nothing to hold since; 0: not idle */
    bool self_allocated;           /* POST /allocate asked for in this non-Allocated spell */
    bool readying;                 /* POST /ready asked for from Allocated, not seen yet */
};

relay_host *relay_host_create(const relay_host_config *cfg, bool *failed)
{
    *failed = false;
    edgegap_stop eg;
    bool has_eg = edgegap_from_env(&eg, cfg->program);
    if (!cfg->agones && !has_eg)
        return NULL;
    relay_host *h = calloc(1, sizeof *h);
    if (!h) {
        fprintf(stderr, "%s: out of memory\n", cfg->program);
        *failed = true;
        return NULL;
    }
    h->cfg = *cfg;
    h->eg = eg;
    h->has_eg = has_eg;
    h->label_free = h->label_ready = -1;
    if (cfg->agones) {
        agones_config ac;
        agones_config_default(&ac, cfg->program);
        ac.port = cfg->agones_port;
        h->ag = agones_create(&ac);
        if (!h->ag) {
            free(h);
            *failed = true;
            return NULL;
        }
        fprintf(stderr, "%s: agones: SDK server at 127.0.0.1:%d, health every 2 s, drain %d s\n",
                cfg->program, cfg->agones_port, cfg->drain_seconds);
    }
    if (has_eg)
        fprintf(stderr, "%s: edgegap: the deployment stops itself once its matches end\n",
                cfg->program);
    return h;
}

void relay_host_destroy(relay_host *h)
{
    if (!h)
        return;
    agones_destroy(h->ag);
    memset(&h->eg, 0, sizeof h->eg);
    free(h);
}

static void start_drain(relay_host *h, tempo_relay *r, uint64_t now, const char *why)
{
    if (h->draining)
        return;
    h->draining = true;
    h->drain_until_us = now + (uint64_t)h->cfg.drain_seconds * 1000000u;
    tempo_relay_refuse_matches(r, true);
    tempo_relay_stats s;
    tempo_relay_get_stats(r, &s);
    fprintf(stderr, "%s: draining (%s): no new match; %d running, waited for up to %d s\n",
            h->cfg.program, why, s.matches, h->cfg.drain_seconds);
}

static void start_stop(relay_host *h, uint64_t now, uint64_t wait_us)
{
    if (h->stopping)
        return;
    h->stopping = true;
    h->stop_until_us = now + wait_us;
    if (h->ag)
        agones_shutdown(h->ag);
    if (h->has_eg) /* blocks a few seconds at most: every match is over */
        edgegap_call(&h->eg, h->cfg.program, EDGEGAP_TIMEOUT_MS);
}

void relay_host_signal(relay_host *h, tempo_relay *r, uint64_t now)
{
    if (!h->draining) {
        start_drain(h, r, now, "signal");
        return;
    }
    fprintf(stderr, "%s: a second signal: stopping now\n", h->cfg.program);
    start_stop(h, now, STOP_NOW_WAIT_US);
}

static void follow_gameserver(relay_host *h, tempo_relay *r, uint64_t now)
{
    const agones_gameserver *g = agones_view(h->ag);
    if (g->version == h->seen_version)
        return;
    h->seen_version = g->version;
    if (g->state == AGONES_STATE_ALLOCATED) {
        const char *at = agones_meta_get(g->annotations, g->annotation_count,
                                         "agones.dev/last-allocated");
        bool fresh = !h->allocated || (at && strcmp(at, h->last_allocated) != 0);
        if (fresh) {
            snprintf(h->last_allocated, sizeof h->last_allocated, "%s", at ? at : "");
            for (char *p = h->last_allocated; *p; p++) /* it is printed */
                if ((unsigned char)*p < 0x20 || *p == 0x7f)
                    *p = '?';
        }
        if (fresh && h->self_allocated && !h->allocated) {
            fprintf(stderr, "%s: agones: Allocated, as asked for the matches it holds\n",
                    h->cfg.program);
        } else if (fresh) {
            if (h->pending == PENDING_MAX) {
                memmove(h->pending_until, h->pending_until + 1,
                        (PENDING_MAX - 1) * sizeof h->pending_until[0]);
                h->pending--;
            }
            h->pending_until[h->pending++] = now + RESERVE_SECONDS * 1000000u;
            char meta[700];
            agones_describe_metadata(g, meta, sizeof meta);
            fprintf(stderr, "%s: agones: allocated (%.60s); %s\n", h->cfg.program,
                    h->last_allocated[0] ? h->last_allocated : "no time", meta);
        }
    }
    h->allocated = g->state == AGONES_STATE_ALLOCATED;
    h->state = g->state;
    if (h->allocated)
        h->self_allocated = false;
    else
        h->readying = false;
    if (g->state == AGONES_STATE_SHUTDOWN)
        start_drain(h, r, now, "the GameServer is Shutdown");
}

static void take_pending(relay_host *h, int k, uint64_t now)
{
    int drop = 0;
    while (drop < h->pending && h->pending_until[drop] <= now)
        drop++; /* expired: their players never came */
    drop += k;
    if (drop > h->pending)
        drop = h->pending;
    memmove(h->pending_until, h->pending_until + drop,
            (size_t)(h->pending - drop) * sizeof h->pending_until[0]);
    h->pending -= drop;
}

static void update_labels(relay_host *h, const tempo_relay_stats *s)
{
    int free_matches = h->cfg.max_matches - s->matches - h->pending;
    if (h->cfg.max_members - s->members < TEMPO_MAX_PLAYERS)
        free_matches = 0; /* one more match could not seat all its members */
    if (free_matches < 0)
        free_matches = 0;
    int ready = !h->draining && free_matches > 0;
    if (free_matches != h->label_free) {
        char v[16];
        snprintf(v, sizeof v, "%d", free_matches);
        if (agones_set_label(h->ag, "matches-free", v))
            h->label_free = free_matches;
    }
    if (ready != h->label_ready && agones_set_label(h->ag, "gs-session-ready", ready ? "true" : "false"))
        h->label_ready = ready;
}

/* The GameServer's state follows what the relay holds: matches (or
 * allocations on their way) while not Allocated, and it marks itself
 * Allocated so Agones never deletes it under players; Allocated and empty
 * for idle_seconds, and it goes back to Ready so the fleet can scale it
 * down. An allocation that lands during that Ready is caught by the
 * first rule once its match opens. */
static void keep_allocation_honest(relay_host *h, const tempo_relay_stats *s, uint64_t now)
{
    if (h->draining || h->state == AGONES_STATE_UNKNOWN || h->state == AGONES_STATE_SHUTDOWN)
        return;
    bool busy = s->matches > 0 || h->pending > 0;
    if (busy && !h->allocated && !h->self_allocated) {
        fprintf(stderr, "%s: agones: %d matches while the GameServer is %s: marking it Allocated\n",
                h->cfg.program, s->matches, agones_state_name(h->state));
        h->self_allocated = agones_allocate(h->ag);
    }
    if (!h->allocated || busy || h->readying) {
        h->idle_since_us = 0;
        return;
    }
    if (h->idle_since_us == 0) {
        h->idle_since_us = now;
    } else if (now - h->idle_since_us >= (uint64_t)h->cfg.idle_seconds * 1000000u) {
        fprintf(stderr, "%s: agones: no match for %d s: back to Ready\n", h->cfg.program,
                h->cfg.idle_seconds);
        h->readying = agones_ready(h->ag);
        h->idle_since_us = 0;
    }
}

bool relay_host_update(relay_host *h, tempo_relay *r, uint64_t now)
{
    tempo_relay_stats s;
    tempo_relay_get_stats(r, &s);
    if (h->ag) {
        agones_update(h->ag, now);
        follow_gameserver(h, r, now);
        if (s.matches > h->matches_before)
            take_pending(h, s.matches - h->matches_before, now);
        else
            take_pending(h, 0, now);
        update_labels(h, &s);
        if (!h->readied) /* after the labels: an allocator sees room at once */
            h->readied = agones_ready(h->ag);
        keep_allocation_honest(h, &s, now);
    }
    h->matches_before = s.matches;
    if (h->has_eg && !h->draining) {
        if (s.matches > 0) {
            h->had_match = true;
            h->empty_since_us = 0;
        } else if (h->had_match) {
            if (h->empty_since_us == 0)
                h->empty_since_us = now;
            else if (now - h->empty_since_us >= EDGEGAP_IDLE_US)
                start_drain(h, r, now, "every match has ended");
        }
    }
    if (h->draining && !h->stopping && (s.matches == 0 || now >= h->drain_until_us)) {
        if (s.matches == 0)
            fprintf(stderr, "%s: drained: every match has ended\n", h->cfg.program);
        else
            fprintf(stderr, "%s: drain bound of %d s reached: %d matches, %d members cut off\n",
                    h->cfg.program, h->cfg.drain_seconds, s.matches, s.members);
        start_stop(h, now, STOP_WAIT_US);
    }
    if (h->stopping) {
        if (!h->ag || agones_settled(h->ag))
            return false;
        if (now >= h->stop_until_us) {
            fprintf(stderr, "%s: agones: POST /shutdown had no answer: exiting anyway\n",
                    h->cfg.program);
            return false;
        }
    }
    return true;
}
