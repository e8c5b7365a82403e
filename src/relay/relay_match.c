/* SPDX-License-Identifier: MIT */
/*
 * relay_match.c — one match on the relay: its members' players, the frame
 * clock, the deadlines, substitution, and the comparison of checksums.
 *
 * The rule (docs/RELAY.md): frame F is finalized, in order, as soon as
 * every player's input for F is in, or once the clock passes F's deadline,
 * start + F / fps + tolerance, whichever comes first (while the relay has
 * datagrams waiting unread, later by as long as that backlog has lasted,
 * up to another tolerance: an input that came in time may wait among them; relay.c
 * reads a bounded batch per update, so a backlog holds no frame back for
 * long). At the deadline a
 * missing input is replaced by the player's input of F - 1 (zero for frame
 * 0) and marked substituted; a player whose member left is substituted
 * without waiting. A finalized frame never changes: a real input that
 * comes later is dropped and counted. This is the packet server of the
 * "Consistency Despite Latency" lecture (the server resends a slow
 * client's previous turn) with Photon Quantum's server-timed deadline.
 *
 * A match starts once every player has a member, or start_wait after its
 * first member came; frame 0's time is start_delay after that decision, so
 * members hear of the start before it happens.
 */
#include <string.h>

#include "relay/relay.h"

int relay_match_find(const tempo_relay *r, uint64_t id)
{
    for (int i = 0; i < r->cfg.max_matches; i++)
        if (r->matches[i].used && r->matches[i].id == id)
            return i;
    return -1;
}

int relay_match_open(tempo_relay *r, const tempo_relay_join *j)
{
    int i = r->free_match;
    if (i < 0 || (j->turn_ms != 0 && r->nturn_free == 0))
        return -1;
    relay_match *m = &r->matches[i];
    r->free_match = m->next_free;
    uint8_t *inputs = m->inputs, *have = m->have, *subst = m->subst, *late = m->late;
    memset(m, 0, sizeof *m);
    m->inputs = inputs;
    m->have = have;
    m->subst = subst;
    m->late = late;
    memset(have, 0, RELAY_RING);
    memset(subst, 0, RELAY_RING);
    memset(late, 0, RELAY_RING);
    m->used = true;
    m->next_free = -1;
    m->id = j->match_id;
    m->num_players = j->num_players;
    m->input_size = j->input_size;
    m->fps = j->frames_per_second;
    m->turn_ms = j->turn_ms;
    m->delay = j->execution_delay;
    m->p2p = j->peer_to_peer;
    m->store = -1;
    if (m->turn_ms != 0) {
        m->store = r->turn_free[--r->nturn_free];
        m->tl = r->turn_store + (size_t)m->store * RELAY_TURN_RING * TEMPO_MAX_PLAYERS;
        m->finalized = m->delay; /* turns below the delay are empty by agreement */
    }
    m->frame_bytes = (size_t)j->num_players * (size_t)j->input_size;
    m->all = (uint8_t)((1u << j->num_players) - 1u);
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        m->member_of[p] = -1;
    for (int k = 0; k < RELAY_SUM_RING; k++)
        m->checks[k].frame = -1;
    m->first_join_us = r->now_us;
    m->desync_frame = -1;
    m->st.match_id = m->id;
    if (m->p2p)
        relay_peers_open(r, m);
    r->st.matches++;
    return i;
}

void relay_match_close(tempo_relay *r, int index)
{
    relay_match *m = &r->matches[index];
    if (m->store >= 0)
        r->turn_free[r->nturn_free++] = m->store;
    m->store = -1;
    m->tl = NULL;
    m->used = false;
    m->next_free = r->free_match;
    r->free_match = index;
    r->st.matches--;
}

static uint64_t frame_time_us(const relay_match *m, int32_t f)
{
    return m->start_us + (uint64_t)f * 1000000u / (uint64_t)m->fps;
}

/* A lockstep match's clock counts turns: its "frame rate" is 1000 per
 * turn_ms frames in 1000 seconds. */
int32_t relay_match_clock(const relay_match *m, uint64_t now_us)
{
    if (!m->start_decided)
        return INT32_MIN;
    uint64_t period = m->turn_ms != 0 ? 1000000u * (uint64_t)m->turn_ms : 1000000u;
    uint64_t rate = m->turn_ms != 0 ? 1000u : (uint64_t)m->fps;
    if (now_us < m->start_us) {
        uint64_t ahead = (m->start_us - now_us) * rate;
        return -(int32_t)((ahead + period - 1) / period);
    }
    uint64_t f = (now_us - m->start_us) * rate / period;
    return f > (uint64_t)INT32_MAX ? INT32_MAX : (int32_t)f;
}

static uint8_t *frame_at(relay_match *m, int32_t f)
{
    return m->inputs + (size_t)relay_slot(f) * m->frame_bytes;
}

/* Frame F is final: substitute what is missing, clear the slot the frame
 * RELAY_AHEAD later will take. */
static void finalize(tempo_relay *r, relay_match *m, uint8_t missing)
{
    int32_t f = m->finalized;
    int s = relay_slot(f);
    uint8_t *cur = frame_at(m, f);
    size_t isz = (size_t)m->input_size;
    for (int p = 0; p < m->num_players; p++) {
        if (!(missing & (1u << p)))
            continue;
        if (f == 0)
            memset(cur + (size_t)p * isz, 0, isz);
        else
            memcpy(cur + (size_t)p * isz, frame_at(m, f - 1) + (size_t)p * isz, isz);
        relay_match_substituted(r, m, p);
    }
    relay_match_finalized(r, m, s, missing, relay_slot(f + RELAY_AHEAD));
}

void relay_match_substituted(tempo_relay *r, relay_match *m, int p)
{
    m->st.substitutions[p]++;
    r->st.substitutions++;
    if (m->member_of[p] >= 0)
        r->members[m->member_of[p]].st.substitutions++;
}

void relay_match_finalized(tempo_relay *r, relay_match *m, int s, uint8_t missing, int next)
{
    m->subst[s] = missing;
    m->late[s] = 0;
    if (missing == 0)
        m->st.early_finalized++;
    m->finalized++;
    m->have[next] = 0;
    m->subst[next] = 0;
    m->late[next] = 0;
    m->st.finalized = m->finalized;
    r->st.frames_finalized++;
}

void relay_match_start(tempo_relay *r, relay_match *m)
{
    uint64_t now = r->now_us;
    if (!m->start_decided) {
        uint8_t owned = 0;
        for (int p = 0; p < m->num_players; p++)
            if (m->member_of[p] >= 0)
                owned |= (uint8_t)(1u << p);
        if (owned == m->all ||
            now - m->first_join_us >= (uint64_t)r->cfg.start_wait_ms * 1000u) {
            m->start_decided = true;
            m->start_us = now + (uint64_t)r->cfg.start_delay_ms * 1000u;
            m->st.started = true;
            /* players nobody came for are substituted from the start */
            m->gone |= (uint8_t)(m->all & ~owned);
        }
    }
}

void relay_match_advance(tempo_relay *r, relay_match *m)
{
    uint64_t now = r->now_us;
    relay_match_start(r, m);
    if (!m->start_decided)
        return;
    uint64_t tol = (uint64_t)r->cfg.tolerance_ms * 1000u;
    /* Bounded: at most the frames that can be complete or past due. */
    for (int n = 0; n < RELAY_AHEAD * 4; n++) {
        int32_t f = m->finalized;
        uint8_t have = m->have[relay_slot(f)];
        uint8_t need = (uint8_t)(m->all & ~m->gone);
        if (need != 0 && (have & need) == need)
            finalize(r, m, (uint8_t)(m->all & ~have));
        else if (relay_past(r, frame_time_us(m, f) + tol))
            finalize(r, m, (uint8_t)(m->all & ~have));
        else
            break;
    }
    m->st.clock_frame = relay_match_clock(m, now);
}

void relay_match_inputs(tempo_relay *r, relay_match *m, relay_member *e, int32_t first,
                        int count, const uint8_t *inputs)
{
    size_t isz = (size_t)m->input_size;
    for (int k = 0; k < count; k++) {
        int32_t f = first + k;
        const uint8_t *src = inputs + (size_t)k * (size_t)e->nslots * isz;
        if (f >= m->finalized + RELAY_AHEAD) {
            r->st.dropped_far++;
            return; /* later frames are further still */
        }
        int s = relay_slot(f);
        if (f < m->finalized) {
            /* Final already: a real input that missed its deadline is
             * counted once; a resend of one that made it is nothing. */
            if (m->finalized - f > RELAY_HISTORY)
                continue;
            uint8_t late = (uint8_t)(m->subst[s] & e->slots & ~m->late[s]);
            for (int p = 0; p < m->num_players; p++)
                if (late & (1u << p)) {
                    m->st.late_inputs[p]++;
                    r->st.late_inputs++;
                    e->st.late_inputs++;
                }
            m->late[s] |= late;
            continue;
        }
        uint8_t *dst = frame_at(m, f);
        int i = 0;
        for (int p = 0; p < m->num_players; p++) {
            if (!(e->slots & (1u << p)))
                continue;
            if (!(m->have[s] & (1u << p))) /* the first copy stands */
                memcpy(dst + (size_t)p * isz, src + (size_t)i * isz, isz);
            m->have[s] |= (uint8_t)(1u << p);
            i++;
        }
    }
}

int32_t relay_match_wanted(const relay_match *m, const relay_member *e)
{
    int32_t f = m->finalized;
    for (int k = 0; k < RELAY_AHEAD; k++, f++)
        if ((m->have[relay_slot(f)] & e->slots) != e->slots)
            return f;
    return f;
}

void relay_match_checksum(tempo_relay *r, relay_match *m, relay_member *e, int32_t frame,
                          uint64_t sum)
{
    (void)r;
    if (frame >= m->finalized || m->finalized - frame > RELAY_HISTORY)
        return; /* only final frames have checksums worth comparing */
    if (frame > e->sum_held)
        e->sum_held = frame;
    relay_check *c = &m->checks[(uint32_t)frame % RELAY_SUM_RING];
    if (c->frame != frame) {
        if (c->frame > frame)
            return; /* an older check frame than the ring holds */
        c->frame = frame;
        c->sum = sum;
        c->seen = e->slots;
        c->differs = false;
        return;
    }
    if (c->seen & e->slots)
        return; /* a resend */
    c->seen |= e->slots;
    m->st.checksums++;
    if (c->sum == sum || c->differs)
        return;
    c->differs = true;
    m->st.desyncs++;
    if (frame > m->desync_frame) {
        m->desync_frame = frame;
        m->desync_sums[0] = c->sum;
        m->desync_sums[1] = sum;
    }
}
