/* SPDX-License-Identifier: MIT */
/*
 * handshake.c — a link's handshake (see handshake.h for the protocol).
 *
 * Several requests may be outstanding at once, and a reply to any of them
 * counts: on a path whose round trip is longer than the retry period every
 * reply would otherwise answer a request already replaced, and the handshake
 * would never complete. A nonce is forgotten once its reply counted, so a
 * copy or a replay of that reply counts for nothing; once LINK_NONCES are
 * outstanding the oldest gives way. Requests stop when the handshake
 * completes unless the caller keeps announcing (readiness and the mesh
 * travel on requests until everyone starts).
 */
#include "net/handshake.h"

#include "net/link.h"

bool link_handshake_due(const net_link *l, uint64_t now)
{
    const link_handshake *h = &l->hs;
    if (l->state == LINK_CLOSED || (h->complete && !h->announcing))
        return false;
    if (h->sent_any && !h->resend_now &&
        (now < h->last_request_us || now - h->last_request_us < l->cfg.handshake_retry_us))
        return false;
    return link_may_send(l, now);
}

uint32_t link_handshake_request(net_link *l, uint64_t now, tempo_rng *rng)
{
    link_handshake *h = &l->hs;
    int slot = link_slot_to_reuse(h->nonce, h->nonce_sent_us, LINK_NONCES);
    h->nonce[slot] = 0;
    uint32_t nonce;
    bool taken;
    do { /* never 0 (a free slot), never one still outstanding */
        nonce = tempo_rng_next(rng);
        taken = nonce == 0;
        for (int i = 0; i < LINK_NONCES && !taken; i++)
            taken = h->nonce[i] == nonce;
    } while (taken);
    h->nonce[slot] = nonce;
    h->nonce_sent_us[slot] = now;
    h->last_request_us = now;
    h->sent_any = true;
    h->resend_now = false;
    return nonce;
}

link_sync_result link_on_sync(net_link *l, uint64_t now, const link_sync *m)
{
    link_handshake *h = &l->hs;
    if (l->state == LINK_CLOSED)
        return LINK_SYNC_IGNORED;
    if (m->config_hash != l->cfg.config_hash) {
        h->hash_mismatches++;
        return LINK_SYNC_MISMATCH;
    }
    if (m->ready && !h->remote_ready) {
        h->remote_ready = true;
        h->ready_heard_us = now;
    }
    int count = m->mesh_ms ? m->mesh_count : 0;
    for (int i = 0; i < LINK_MESH_MAX; i++)
        h->mesh_ms[i] = i < count ? m->mesh_ms[i] : (uint16_t)LINK_MESH_UNKNOWN;
    if (!m->reply)
        return LINK_SYNC_ANSWER;

    int slot = -1;
    for (int i = 0; i < LINK_NONCES && m->nonce != 0; i++)
        if (h->nonce[i] == m->nonce)
            slot = i;
    if (slot < 0) {
        h->replies_ignored++;
        return LINK_SYNC_IGNORED;
    }
    h->nonce[slot] = 0;
    if (h->complete) /* an answer to an announcement: nothing left to count */
        return LINK_SYNC_IGNORED;
    uint64_t sent = h->nonce_sent_us[slot];
    if (sent >= l->epoch_us && now >= sent)
        link_rtt_sample(l, now - sent);
    if (++h->rounds_done < l->cfg.handshake_rounds) {
        h->resend_now = true;
        return LINK_SYNC_ROUND;
    }
    h->complete = true;
    h->resend_now = false;
    l->state = LINK_ESTABLISHED;
    l->next_ping_us = now + l->cfg.ping_us;
    return LINK_SYNC_COMPLETE;
}

void link_handshake_announce(net_link *l, bool on) { l->hs.announcing = on; }

void link_handshake_resend_now(net_link *l) { l->hs.resend_now = true; }

void link_set_remote_ready(net_link *l, uint64_t now)
{
    if (!l->hs.remote_ready) {
        l->hs.remote_ready = true;
        l->hs.ready_heard_us = now;
    }
}
