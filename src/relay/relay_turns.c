/* SPDX-License-Identifier: MIT */
/*
 * relay_turns.c — a lockstep match on the relay (docs/RELAY.md, "Lockstep
 * turns"): each member's own turn lists stored, turns finalized by the
 * match's turn clock, a late list substituted, the final lists sent to
 * every member.
 *
 * The rule: turn T is finalized, in order, once every present player's
 * list for T is in, or at T's deadline, start + T * turn - turn / 4,
 * whichever comes first. A member's clock starts when it hears the relay's
 * (a one-way trip after the relay's), so a substitute made at the deadline
 * reaches every member about a quarter turn before its turn T is due
 * there: one late member never freezes the others. At the deadline a
 * missing list is replaced by the same player's final list of T - 1, with
 * the substituted flag (the lecture's packet server resends the previous
 * turn: an order in progress goes on; a player whose member left gets an
 * empty list instead, since nobody is giving orders). Turns below the
 * execution delay are empty by agreement and never stored. A final list
 * never changes: a real one that comes later is dropped and counted.
 *
 * Storage: RELAY_TURN_RING turns per match, taken from the stores
 * allocated at create: turns finalized .. finalized + RELAY_TURN_AHEAD - 1
 * take lists, the RELAY_TURN_RING - RELAY_TURN_AHEAD turns below
 * `finalized` are kept for members that have not acknowledged them.
 * Finalizing T clears the slot turn T + RELAY_TURN_AHEAD will use.
 *
 * A member's turns message also carries its checksum of the newest turn it
 * executed; relay_match.c compares them as it does frames' (match stats).
 */
#include <string.h>

#include "relay/relay.h"

static int turn_slot(int32_t t) { return (int)((uint32_t)t % RELAY_TURN_RING); }

static relay_turn_list *list_at(relay_match *m, int32_t t, int p)
{
    return &m->tl[(size_t)turn_slot(t) * TEMPO_MAX_PLAYERS + (size_t)p];
}

/* The member's single player (lockstep members have one). */
static int player_of(const relay_member *e)
{
    int p = 0;
    while (p < TEMPO_MAX_PLAYERS - 1 && !(e->slots & (1u << p)))
        p++;
    return p;
}

void relay_turns_lists(tempo_relay *r, relay_match *m, relay_member *e, const turn_turns *t)
{
    int p = player_of(e);
    /* Every list is checked before any is stored: one no honest member
     * sends drops the datagram. */
    for (int i = 0; i < t->nlists; i++) {
        const turn_list *l = &t->list[i];
        if (l->player != p) {
            r->st.dropped_not_owned++;
            return;
        }
        if (l->flags != 0) { /* a length or a substitute: never from a member */
            r->st.dropped_malformed++;
            return;
        }
    }
    /* Its ack: how far it holds final lists, never beyond what is final. */
    int32_t ack = t->ack > (uint32_t)m->finalized ? m->finalized : (int32_t)t->ack;
    if (ack > e->acked)
        e->acked = ack;
    e->st.acked = e->acked;
    for (int i = 0; i < t->nlists; i++) {
        const turn_list *l = &t->list[i];
        if (l->turn < m->delay)
            continue; /* agreed empty */
        if (l->turn >= m->finalized + RELAY_TURN_AHEAD) {
            r->st.dropped_far++;
            continue;
        }
        int s = turn_slot(l->turn);
        uint8_t bit = (uint8_t)(1u << p);
        if (l->turn < m->finalized) {
            /* final already: a real list that missed its deadline counts once */
            if (m->finalized - l->turn <= RELAY_TURN_RING - RELAY_TURN_AHEAD &&
                (m->subst[s] & bit) && !(m->late[s] & bit)) {
                m->late[s] |= bit;
                m->st.late_inputs[p]++;
                r->st.late_inputs++;
                e->st.late_inputs++;
            }
            continue;
        }
        if (m->have[s] & bit)
            continue; /* the first copy stands */
        relay_turn_list *d = list_at(m, l->turn, p);
        d->flags = 0;
        d->count = l->count;
        d->size = l->cmds_size;
        if (l->cmds_size > 0)
            memcpy(d->cmds, l->cmds, l->cmds_size);
        m->have[s] |= bit;
    }
    relay_turns_advance(r, m);
    if (t->sum_turn != TURN_NONE)
        relay_match_checksum(r, m, e, (int32_t)t->sum_turn, t->sum);
}

/* Turn `finalized` is final: substitute what is missing. */
static void finalize(tempo_relay *r, relay_match *m, uint8_t missing)
{
    int32_t t = m->finalized;
    int s = turn_slot(t);
    for (int p = 0; p < m->num_players; p++) {
        if (!(missing & (1u << p)))
            continue;
        relay_turn_list *d = list_at(m, t, p);
        if (t > m->delay && !(m->gone & (1u << p))) {
            *d = *list_at(m, t - 1, p); /* the previous turn's final list */
        } else {
            d->count = 0;
            d->size = 0;
        }
        d->flags = TURN_LIST_SUBSTITUTED;
        relay_match_substituted(r, m, p);
    }
    relay_match_finalized(r, m, s, missing, turn_slot(t + RELAY_TURN_AHEAD));
}

static uint64_t deadline_us(const relay_match *m, int32_t t)
{
    uint64_t turn = (uint64_t)m->turn_ms * 1000u;
    return m->start_us + (uint64_t)t * turn - turn / 4u;
}

void relay_turns_advance(tempo_relay *r, relay_match *m)
{
    if (!m->start_decided)
        return;
    /* Bounded: at most the turns that can be complete or past due. */
    for (int n = 0; n < RELAY_TURN_AHEAD * 4; n++) {
        int32_t t = m->finalized;
        uint8_t have = m->have[turn_slot(t)];
        uint8_t need = (uint8_t)(m->all & ~m->gone);
        if ((need != 0 && (have & need) == need) || relay_past(r, deadline_us(m, t)))
            finalize(r, m, (uint8_t)(m->all & ~have));
        else
            break;
    }
}

/* The lists of turn t e needs: every other player's, and its own if it
 * was substituted. */
static bool needed(const relay_match *m, int32_t t, int p, int own)
{
    return p != own || (m->subst[turn_slot(t)] & (1u << p));
}

static void put_list(turn_relay *n, relay_match *m, int32_t t, int p)
{
    const relay_turn_list *l = list_at(m, t, p);
    turn_list *w = &n->list[n->nlists++];
    w->player = (uint8_t)p;
    w->flags = l->flags;
    w->turn = t;
    w->length_ms = 0;
    w->count = l->count;
    w->cmds_size = l->size;
    w->cmds = l->cmds;
}

/* Bytes list (t, p) takes on the wire. */
static size_t wire_size(relay_match *m, int32_t t, int p) { return 7u + list_at(m, t, p)->size; }

void relay_turns_send(tempo_relay *r, relay_member *e)
{
    relay_match *m = &r->matches[e->match];
    int own = player_of(e);
    const size_t room = PACKET_MAX_SEALED_BODY - 23u; /* the head and the list count */
    turn_relay *n = &r->tmsg.u.relay;
    r->tmsg.type = TURN_MSG_RELAY;
    memset(n, 0, offsetof(turn_relay, list));
    n->started = m->start_decided;
    if (m->start_decided) {
        int32_t c = relay_match_clock(m, r->now_us);
        int64_t since = (int64_t)r->now_us - (int64_t)m->start_us;
        n->clock = c;
        n->into_us = (uint32_t)(since - (int64_t)c * (int64_t)m->turn_ms * 1000);
    }
    /* its ack: the first turn of its own the relay lacks */
    int32_t ack = m->finalized;
    while (ack < m->finalized + RELAY_TURN_AHEAD && (m->have[turn_slot(ack)] & (1u << own)))
        ack++;
    n->ack = ack;
    int32_t first = e->acked;
    if (first < m->finalized - (RELAY_TURN_RING - RELAY_TURN_AHEAD))
        first = m->finalized - (RELAY_TURN_RING - RELAY_TURN_AHEAD);
    if (first < m->delay)
        first = m->delay;
    if (first > m->finalized)
        first = m->finalized;
    /* Its own substitutes first: `final` covers only turns whose own
     * verdict fits; then other players' lists in turn order, over at most
     * RELAY_TURN_SENDS datagrams. */
    int32_t cursor_t = first;
    int cursor_p = 0;
    for (int d = 0; d < RELAY_TURN_SENDS; d++) {
        n->nlists = 0;
        n->first = first;
        size_t used = 0;
        int32_t fin = first;
        while (fin < m->finalized) {
            if (m->subst[turn_slot(fin)] & (1u << own)) {
                size_t w = wire_size(m, fin, own);
                if (used + w > room || n->nlists == TURN_MSG_MAX_LISTS)
                    break;
                put_list(n, m, fin, own);
                used += w;
            }
            fin++;
        }
        n->final = fin;
        while (cursor_t < m->finalized && n->nlists < TURN_MSG_MAX_LISTS) {
            if (cursor_p >= m->num_players) {
                cursor_p = 0;
                cursor_t++;
                continue;
            }
            if (cursor_p == own || !needed(m, cursor_t, cursor_p, own)) {
                cursor_p++;
                continue;
            }
            size_t w = wire_size(m, cursor_t, cursor_p);
            if (used + w > room)
                break;
            put_list(n, m, cursor_t, cursor_p);
            used += w;
            cursor_p++;
        }
        int body = turn_msg_encode(&r->tmsg, r->out + PACKET_HEADER_SIZE, PACKET_MAX_SEALED_BODY);
        if (body < 0) {
            r->st.send_errors++;
            return;
        }
        relay_send_to(r, e, TURN_MSG_RELAY, (size_t)body);
        if (cursor_t >= m->finalized)
            break;
    }
    e->sent_final = m->finalized;
}
