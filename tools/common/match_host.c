/* SPDX-License-Identifier: MIT */
/*
 * match_host.c — one match per process under Agones or Edgegap
 * (match_host.h).
 *
 * Invariant: `allocated` only ever goes from false to true (a match, once
 * its players may come, is never closed to them by a later GameServer
 * update), and `cut` likewise.
 */
#include "match_host.h"

#include <stdio.h>
#include <string.h>

#include "platform.h"

#define END_WAIT_US 10000000u
#define EDGEGAP_TIMEOUT_MS 10000

bool match_host_start(match_host *h, const match_host_config *cfg)
{
    memset(h, 0, sizeof *h);
    h->cfg = *cfg;
    h->has_eg = edgegap_from_env(&h->eg, cfg->program);
    h->allocated = !cfg->agones;
    if (cfg->agones) {
        agones_config ac;
        agones_config_default(&ac, cfg->program);
        ac.port = cfg->agones_port;
        h->ag = agones_create(&ac);
        if (!h->ag)
            return false;
        agones_ready(h->ag);
        snprintf(h->refusal, sizeof h->refusal, "this game server is not allocated yet");
        fprintf(stderr,
                "%s: agones: SDK server at 127.0.0.1:%d; players are refused until the "
                "GameServer is Allocated\n",
                cfg->program, cfg->agones_port);
    }
    if (h->has_eg)
        fprintf(stderr, "%s: edgegap: the deployment stops itself at the match's end\n",
                cfg->program);
    return true;
}

void match_host_close(match_host *h)
{
    agones_destroy(h->ag);
    h->ag = NULL;
    memset(&h->eg, 0, sizeof h->eg);
}

void match_host_update(match_host *h, uint64_t now)
{
    if (!h->ag)
        return;
    agones_update(h->ag, now);
    const agones_gameserver *g = agones_view(h->ag);
    if (g->version == h->seen_version)
        return;
    h->seen_version = g->version;
    if (!h->allocated && g->state == AGONES_STATE_ALLOCATED) {
        h->allocated = true;
        h->refusal[0] = '\0';
        char meta[700];
        agones_describe_metadata(g, meta, sizeof meta);
        fprintf(stderr, "%s: agones: allocated; %s\n", h->cfg.program, meta);
    } else if (!h->allocated) {
        snprintf(h->refusal, sizeof h->refusal,
                 "this game server is not allocated yet (GameServer %s)",
                 g->state_name[0] ? g->state_name : "?");
    }
    if (g->state == AGONES_STATE_SHUTDOWN && !h->cut) {
        fprintf(stderr, "%s: agones: the GameServer is Shutdown: the match ends\n",
                h->cfg.program);
        h->cut = true;
    }
}

const char *match_host_refusal(const match_host *h)
{
    return h->allocated ? NULL : h->refusal;
}

bool match_host_quit(const match_host *h)
{
    return !h->allocated && (h->signalled || h->cut);
}

bool match_host_cut(const match_host *h, uint64_t now)
{
    return h->cut || (h->signalled && now >= h->drain_until_us);
}

void match_host_signal(match_host *h, uint64_t now)
{
    if (!h->signalled) {
        h->signalled = true;
        h->drain_until_us = now + (uint64_t)h->cfg.drain_seconds * 1000000u;
        if (h->allocated)
            fprintf(stderr, "%s: signal: the match may run on for %d s; a second signal ends it\n",
                    h->cfg.program, h->cfg.drain_seconds);
        else
            fprintf(stderr, "%s: signal before any match: shutting down\n", h->cfg.program);
        return;
    }
    h->cut = true;
}

void match_host_end(match_host *h, uint64_t now)
{
    if (h->ended)
        return;
    h->ended = true;
    if (h->ag)
        agones_shutdown(h->ag);
    if (h->has_eg)
        edgegap_call(&h->eg, h->cfg.program, EDGEGAP_TIMEOUT_MS);
    if (!h->ag)
        return;
    uint64_t until = now + END_WAIT_US;
    for (;;) {
        uint64_t t = platform_now_us();
        agones_update(h->ag, t);
        if (agones_settled(h->ag))
            return;
        if (t >= until) {
            fprintf(stderr, "%s: agones: POST /shutdown had no answer in 10 s: exiting anyway\n",
                    h->cfg.program);
            return;
        }
        platform_sleep_until_us(t + 5000u);
    }
}
