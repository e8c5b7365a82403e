/* SPDX-License-Identifier: MIT */
/*
 * punch.c — one pair's hole punching (punch.h). Pure: time is an argument,
 * nothing is sent from here.
 */
#include "net/punch.h"

#include <string.h>

#define NONCE_MS_BITS 29u
#define NONCE_MS_MASK ((1u << NONCE_MS_BITS) - 1u)
#define ACK_MAX_MS 10000u /* an acknowledgement older than this is not ours */

void punch_config_default(punch_config *c)
{
    c->probe_us = 50000u;
    c->timeout_us = 2500000u;
    c->keepalive_us = 1000000u;
    c->dead_us = 3500000u;
    c->retry_us = 2000000u;
}

void punch_init(punch_pair *p, const punch_config *cfg)
{
    memset(p, 0, sizeof *p);
    p->cfg = *cfg;
    p->path = PUNCH_WAITING;
    p->chosen = -1;
}

static bool usable(const tempo_address *a)
{
    return (a->family == TEMPO_ADDRESS_IPV4 || a->family == TEMPO_ADDRESS_IPV6) && a->port != 0;
}

static int find(const punch_pair *p, const tempo_address *a)
{
    for (int i = 0; i < p->ncand; i++)
        if (tempo_address_equal(&p->cand[i].addr, a))
            return i;
    return -1;
}

static void add(punch_pair *p, const tempo_address *a, uint8_t kind)
{
    if (!usable(a) || find(p, a) >= 0 || p->ncand >= PUNCH_MAX_CANDS)
        return;
    punch_cand *c = &p->cand[p->ncand++];
    memset(c, 0, sizeof *c);
    c->addr = *a;
    c->kind = kind;
}

void punch_start(punch_pair *p, uint64_t now_us, const tempo_address *public_addr,
                 const tempo_address *local, int nlocal)
{
    uint64_t ups = p->upgrades, downs = p->downgrades;
    punch_config cfg = p->cfg;
    punch_init(p, &cfg);
    p->upgrades = ups;
    p->downgrades = downs;
    for (int i = 0; i < nlocal && i < 4; i++)
        add(p, &local[i], PUNCH_CAND_LOCAL);
    add(p, public_addr, PUNCH_CAND_PUBLIC);
    p->start_us = now_us;
    p->path = PUNCH_PROBING;
}

static uint32_t nonce_of(int index, uint64_t now_us)
{
    return ((uint32_t)index << NONCE_MS_BITS) | ((uint32_t)(now_us / 1000u) & NONCE_MS_MASK);
}

/* The peer sent datagrams on the direct path, but none (nor an answer to
 * a probe) for PUNCH_QUIET_US. A pair that never sent any is not quiet:
 * its keepalive is probe enough. */
static bool quiet(const punch_pair *p, uint64_t now_us)
{
    if (p->in_us == 0)
        return false;
    uint64_t last = p->in_us > p->cand[p->chosen].acked_us ? p->in_us : p->cand[p->chosen].acked_us;
    return now_us >= last && now_us - last >= PUNCH_QUIET_US;
}

void punch_on_direct_in(punch_pair *p, uint64_t now_us)
{
    p->in_us = now_us ? now_us : 1;
}

/* Whether candidate i is due for a probe at now_us: never sooner than
 * probe_us after the last one, whatever the state. */
static bool due(const punch_pair *p, int i, uint64_t now_us)
{
    const punch_cand *c = &p->cand[i];
    if (c->sent_us != 0 && now_us - c->sent_us < p->cfg.probe_us)
        return false;
    if (p->path == PUNCH_PROBING)
        return true;
    if (p->path == PUNCH_DIRECT) {
        uint64_t every = quiet(p, now_us) ? PUNCH_SUSPECT_PROBE_US : p->cfg.keepalive_us;
        return i == p->chosen && (c->sent_us == 0 || now_us - c->sent_us >= every);
    }
    if (p->path == PUNCH_RELAYED)
        return p->round_us != 0 && c->sent_us < p->round_us;
    return false;
}

int punch_next_probe(punch_pair *p, uint64_t now_us, uint32_t *nonce)
{
    if (p->path == PUNCH_WAITING)
        return -1;
    if (p->path == PUNCH_RELAYED && now_us >= p->next_round_us) {
        p->round_us = now_us ? now_us : 1;
        p->next_round_us = now_us + p->cfg.retry_us;
    }
    for (int i = 0; i < p->ncand; i++)
        if (due(p, i, now_us)) {
            p->cand[i].sent_us = now_us ? now_us : 1;
            *nonce = nonce_of(i, now_us);
            return i;
        }
    if (p->relay_sent_us == 0 || now_us - p->relay_sent_us >= p->cfg.keepalive_us) {
        p->relay_sent_us = now_us ? now_us : 1;
        *nonce = nonce_of(PUNCH_RELAY, now_us);
        return PUNCH_RELAY;
    }
    return -1;
}

void punch_on_probe(punch_pair *p, uint64_t now_us, const tempo_address *addr)
{
    if (p->path == PUNCH_WAITING || !usable(addr))
        return;
    int i = find(p, addr);
    if (i < 0) {
        /* Replace the SEEN candidate, if any, else add one. The peer proved
         * the match's secret, so this is where its NAT maps it toward us. */
        for (int k = 0; k < p->ncand; k++)
            if (p->cand[k].kind == PUNCH_CAND_SEEN && k != p->chosen) {
                memset(&p->cand[k], 0, sizeof p->cand[k]);
                p->cand[k].addr = *addr;
                p->cand[k].kind = PUNCH_CAND_SEEN;
                i = k;
                break;
            }
        if (i < 0) {
            add(p, addr, PUNCH_CAND_SEEN);
            i = find(p, addr);
        }
        if (i < 0)
            return;
    }
    p->cand[i].heard_us = now_us ? now_us : 1;
}

bool punch_nonce_newer(uint32_t nonce, uint32_t last)
{
    uint32_t d = ((nonce & NONCE_MS_MASK) - (last & NONCE_MS_MASK)) & NONCE_MS_MASK;
    return last == 0 || (d != 0 && d < (1u << (NONCE_MS_BITS - 1)));
}

/* An acknowledgement not newer than `last`: a copy of the newest, or older. */
static tempo_drop_reason not_newer(uint32_t nonce, uint32_t last)
{
    return (nonce & NONCE_MS_MASK) == last ? TEMPO_DROP_DUPLICATE : TEMPO_DROP_STALE;
}

tempo_drop_reason punch_ack_refusal(const punch_pair *p, uint64_t now_us, uint32_t nonce)
{
    if (p->path == PUNCH_WAITING)
        return TEMPO_DROP_UNKNOWN;
    int i = (int)(nonce >> NONCE_MS_BITS);
    uint32_t rtt_ms = ((uint32_t)(now_us / 1000u) - (nonce & NONCE_MS_MASK)) & NONCE_MS_MASK;
    if (rtt_ms > ACK_MAX_MS)
        return TEMPO_DROP_STALE;
    if (i == PUNCH_RELAY)
        return punch_nonce_newer(nonce, p->relay_acked_ms) ? TEMPO_DROP_NONE
                                                           : not_newer(nonce, p->relay_acked_ms);
    if (i >= p->ncand || p->cand[i].sent_us == 0)
        return TEMPO_DROP_BAD_VALUE;
    return punch_nonce_newer(nonce, p->cand[i].acked_ms) ? TEMPO_DROP_NONE
                                                         : not_newer(nonce, p->cand[i].acked_ms);
}

unsigned punch_on_ack(punch_pair *p, uint64_t now_us, uint32_t nonce)
{
    if (punch_ack_refusal(p, now_us, nonce) != TEMPO_DROP_NONE)
        return 0;
    int i = (int)(nonce >> NONCE_MS_BITS);
    uint32_t rtt_ms = ((uint32_t)(now_us / 1000u) - (nonce & NONCE_MS_MASK)) & NONCE_MS_MASK;
    uint64_t at = now_us ? now_us : 1;
    if (i == PUNCH_RELAY) {
        p->relay_acked_ms = nonce & NONCE_MS_MASK;
        p->relay_acked_us = at;
        p->relay_rtt_us = rtt_ms * 1000u;
        return 0;
    }
    punch_cand *c = &p->cand[i];
    c->acked_ms = nonce & NONCE_MS_MASK;
    c->acked_us = at;
    c->rtt_us = rtt_ms * 1000u;
    if (p->path == PUNCH_DIRECT)
        return 0;
    p->chosen = i;
    if (p->path == PUNCH_RELAYED || p->direct_after_us != 0)
        p->upgrades++;
    if (p->direct_after_us == 0)
        p->direct_after_us = at - p->start_us;
    p->path = PUNCH_DIRECT;
    return PUNCH_EV_DIRECT;
}

unsigned punch_update(punch_pair *p, uint64_t now_us)
{
    if (p->path == PUNCH_PROBING && now_us - p->start_us >= p->cfg.timeout_us) {
        p->path = PUNCH_RELAYED;
        p->round_us = 0;
        p->next_round_us = now_us + p->cfg.retry_us;
        return PUNCH_EV_FALLBACK;
    }
    if (p->path == PUNCH_DIRECT) {
        const punch_cand *c = &p->cand[p->chosen];
        uint64_t dead = quiet(p, now_us) ? PUNCH_SUSPECT_DEAD_US : p->cfg.dead_us;
        if (dead > p->cfg.dead_us)
            dead = p->cfg.dead_us;
        if (now_us >= c->acked_us && now_us - c->acked_us >= dead) {
            p->path = PUNCH_RELAYED;
            p->chosen = -1;
            p->downgrades++;
            p->round_us = 0;
            p->next_round_us = now_us; /* the first retry round starts now */
            return PUNCH_EV_DIED;
        }
    }
    return 0;
}

const tempo_address *punch_direct(const punch_pair *p)
{
    return p->path == PUNCH_DIRECT ? &p->cand[p->chosen].addr : NULL;
}

bool punch_owns(const punch_pair *p, const tempo_address *addr)
{
    for (int i = 0; i < p->ncand; i++)
        if ((p->cand[i].heard_us != 0 || p->cand[i].acked_us != 0) &&
            tempo_address_equal(&p->cand[i].addr, addr))
            return true;
    return false;
}
