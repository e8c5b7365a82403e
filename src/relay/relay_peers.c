/* SPDX-License-Identifier: MIT */
/*
 * relay_peers.c — peer-to-peer matches at the relay (docs/NAT.md): each
 * member is told, sealed with its own keys, where the relay sees every
 * other member of its match, their local addresses, and the match's
 * secret that authenticates probes; and a member's datagram for another
 * member of its match is forwarded, for the pairs with no direct path.
 * An INTRO only ever answers a member's CANDIDATES, names only members of
 * the match its token (or JOIN) bound it to, and nothing is forwarded
 * outside a match.
 */
#include <string.h>

#include "relay/relay.h"
#include "wire/siphash.h"

void relay_peers_open(tempo_relay *r, relay_match *m)
{
    /* Unpredictable without the cookie key; a new value for every match
     * this process opens, a reused match id included. */
    static const uint8_t label[4] = {'p', '2', 'p', 's'};
    uint64_t opened = ++r->p2p_opened;
    for (int i = 0; i < NAT_SECRET_SIZE / 8; i++) {
        uint8_t in[24];
        memcpy(in, label, 4);
        in[4] = (uint8_t)i;
        memset(in + 5, 0, 3);
        for (int b = 0; b < 8; b++) {
            in[8 + b] = (uint8_t)(m->id >> (8 * b));
            in[16 + b] = (uint8_t)(opened >> (8 * b));
        }
        uint64_t h = siphash24(r->cfg.cookie_key + 16, in, sizeof in);
        for (int b = 0; b < 8; b++)
            m->secret[i * 8 + b] = (uint8_t)(h >> (8 * b));
    }
}

static int lowest(uint8_t slots)
{
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        if (slots & (1u << p))
            return p;
    return -1;
}

static void send_intro(tempo_relay *r, relay_member *e, const relay_match *m)
{
    nat_intro in;
    memset(&in, 0, sizeof in);
    in.slots = e->slots;
    memcpy(in.secret, m->secret, NAT_SECRET_SIZE);
    bool all = true;
    for (int p = 0; p < m->num_players; p++) {
        int k = m->member_of[p];
        if (k < 0) {
            all = false;
            continue;
        }
        const relay_member *o = &r->members[k];
        if (o == e || p != lowest(o->slots) || !nat_address_ok(&o->addr) ||
            in.count >= NAT_MAX_MEMBERS - 1)
            continue;
        nat_member *n = &in.members[in.count++];
        n->slots = o->slots;
        n->public_addr = o->addr;
        n->ncand = o->ncand;
        memcpy(n->cand, o->cand, sizeof n->cand);
    }
    in.flags = all ? NAT_FLAG_ALL_IN : 0;
    size_t n = nat_intro_write(r->out + PACKET_HEADER_SIZE, &in);
    r->st.introductions++;
    relay_send_to(r, e, NAT_TYPE_INTRO, n);
}

void relay_peers_candidates(tempo_relay *r, relay_member *e, const uint8_t *body, size_t size)
{
    if (e->match < 0) {
        r->st.dropped_unbound++;
        return;
    }
    const relay_match *m = &r->matches[e->match];
    tempo_address cand[NAT_MAX_LOCAL];
    int count = 0;
    if (!m->p2p || !nat_candidates_read(body, size, cand, &count)) {
        r->st.dropped_malformed++;
        return;
    }
    bool news = !e->introduced || e->ncand != count;
    for (int i = 0; i < count && !news; i++)
        news = !tempo_address_equal(&e->cand[i], &cand[i]);
    e->introduced = true;
    e->ncand = count;
    memcpy(e->cand, cand, (size_t)count * sizeof cand[0]);
    send_intro(r, e, m);
    /* A member changing its addresses at every CANDIDATES would make the
     * relay answer each with an INTRO to every other member: at most one
     * such round each RELAY_NEWS_US (the others learn the rest from
     * their own CANDIDATES, every half second). */
    if (!news || (e->news_us != 0 && r->now_us - e->news_us < RELAY_NEWS_US))
        return;
    e->news_us = r->now_us ? r->now_us : 1;
    /* The others hear of it now, not at their next CANDIDATES: both ends
     * of each new pair start probing within one trip of each other. */
    for (int p = 0; p < m->num_players; p++) {
        int k = m->member_of[p];
        if (k >= 0 && &r->members[k] != e && p == lowest(r->members[k].slots) &&
            r->members[k].introduced)
            send_intro(r, &r->members[k], m);
    }
}

bool relay_peers_moved(tempo_relay *r, int mi, int index, uint8_t slots)
{
    const relay_match *m = &r->matches[mi];
    const relay_member *e = &r->members[index];
    for (int p = 0; p < m->num_players; p++) {
        int k = m->member_of[p];
        if (k < 0 || k == index || !(slots & (1u << p)))
            continue;
        const relay_member *old = &r->members[k];
        if (!old->sealed || old->client_id != e->client_id || old->slots != slots)
            return false; /* somebody else has that player */
        relay_member_free(r, k);
        r->st.moved++;
        return true;
    }
    return false;
}

void relay_peers_forward(tempo_relay *r, relay_member *e, const uint8_t *body, size_t size)
{
    if (e->match < 0) {
        r->st.dropped_unbound++;
        return;
    }
    const relay_match *m = &r->matches[e->match];
    if (!m->p2p || size < 2 || size - 1 > NAT_MAX_FORWARD || body[0] >= m->num_players) {
        r->st.dropped_malformed++;
        return;
    }
    int k = m->member_of[body[0]];
    if (k < 0 || &r->members[k] == e || lowest(r->members[k].slots) != body[0]) {
        r->st.dropped_not_owned++; /* nobody of its match there */
        return;
    }
    relay_member *to = &r->members[k];
    uint8_t *out = r->out + PACKET_HEADER_SIZE;
    out[0] = (uint8_t)lowest(e->slots);
    memcpy(out + 1, body + 1, size - 1);
    r->st.forwarded++;
    relay_send_to(r, to, NAT_TYPE_FORWARD, size);
}
