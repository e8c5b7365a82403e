/* SPDX-License-Identifier: MIT */
/*
 * sim_match.c — one network match: build it, run it in virtual time, end it
 * and check that the peers agree.
 *
 * Every machine is one tempo session on its own simnet node with its own
 * arena and clock. The event loop always runs the earliest thing due: a
 * machine's next tick or the next timeline sample; there is no fixed time
 * step, so a minute of play costs only the ticks themselves. Ties go to the
 * lower machine index, which keeps runs reproducible bit for bit.
 *
 * The match part ends when every live peer has simulated `frames` frames;
 * the drain then keeps ticking (no new faults) until every live peer has
 * confirmed them. Invariant checked at the end: for every state 1..frames,
 * all live peers computed the same arena checksum (sums[], where a rollback
 * overwrites the earlier guess), and spectators agree on the states they
 * played.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_net.h"
#include "sim_relay.h"
#include "sim_match.h"

_Static_assert(SIM_MAX_MACHINES == SIM_MAX_PEERS && SIM_MAX_PEERS <= SIM_SVG_COLOURS,
               "the timeline holds every machine, each with a colour of its own");

int sim_match_peers(const sim_options *o)
{
    int peers = 0;
    for (int p = 0; p < o->players; p++)
        if (sim_player_peer(o, p) >= peers)
            peers = sim_player_peer(o, p) + 1;
    return peers;
}

/* The session's transport: simnet's, counting what the machine sends while
 * the match part lasts (payload bytes as UDP would carry them). */
static int counted_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    sim_machine *m = ctx;
    if (!m->dead && m->m.end_vt == 0) {
        m->m.bytes_sent += size;
        m->m.packets_sent++;
        m->m.sealed_sent += sim_security_sealed_datagram(data, size);
    }
    return m->net.send(m->net.ctx, to, data, size);
}

static int counted_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    sim_machine *m = ctx;
    int r = m->deaf ? 0 : m->net.recv(m->net.ctx, from, buf, capacity);
    if (r > 0 && !m->dead && m->m.end_vt == 0)
        m->m.bytes_received += (uint64_t)r;
    return r;
}

/* ---- building the match ------------------------------------------------------- */

static tempo_config match_config(const sim_options *o)
{
    tempo_config c;
    tempo_config_default(&c);
    c.num_players = o->players;
    c.input_size = ARENA_INPUT_SIZE;
    c.max_prediction = o->max_prediction;
    c.save_policy = o->save_policy;
    c.desync_interval = o->desync_interval;
    c.describe_state = arena_describe; /* desync diffs name arena_state's fields */
    c.max_spectators = o->spectators > 0 ? o->spectators : 1;
    c.timesync.method = o->timesync;
    c.timesync.window_frames = o->timesync_window;
    if (o->stall_threshold > 0)
        c.timesync.stall_threshold = o->stall_threshold;
    c.auto_delay.enabled = o->input_delay_auto;
    c.auto_delay.signal = o->delay_signal;
    /* The automatic delay may not exceed the prediction window; lockstep
     * covers the whole latency, so it gets the library's largest. */
    if (o->max_prediction > 0 && c.auto_delay.max_frames > o->max_prediction)
        c.auto_delay.max_frames = o->max_prediction;
    if (o->max_prediction == 0)
        c.auto_delay.max_frames = TEMPO_MAX_AUTO_DELAY;
    c.datagram_acks = !o->ping_only;
    c.has_match_key = sim_security_sealed(o);
    if (c.has_match_key)
        sim_security_key(o, c.match_key);
    return c;
}

static tempo_result setup_session(sim_match *mt, sim_machine *m, const tempo_config *base)
{
    const sim_options *o = mt->o;
    tempo_config c = *base;
    c.arena = &m->game;
    c.arena_size = sizeof m->game;
    c.random_seed = sim_mix64(o->seed * 131 + (uint64_t)m->index);
    tempo_result r;
    if (m->spectator) {
        tempo_address host = sim_machine_addr(m->host);
        c.spectator_number = m->host_slot; /* a sealed spectator names its keys by these */
        c.spectator_host_player = mt->mach[m->host]->first_player;
        return tempo_session_create_spectator(&c, &m->counted, &host, &m->s);
    }
    if (mt->relay) { /* sealing needs tokens: a relay match is played unsealed */
        tempo_address ra = sim_relay_addr();
        c.session_id = SIM_RELAY_MATCH_ID;
        c.has_match_key = false;
        r = tempo_session_create_relay_member(&c, &m->counted, &ra, NULL, &m->s);
    } else {
        r = tempo_session_create_p2p(&c, &m->counted, &m->s);
    }
    for (int p = 0; p < o->players && r == TEMPO_OK; p++) {
        int host = sim_player_peer(o, p);
        if (mt->relay && host != m->index)
            continue;
        if (host == m->index) {
            r = tempo_session_add_local_player(m->s, p);
            m->local_mask |= 1u << p;
            m->num_local++;
            arena_bot_init(&m->bot[p], o->seed, p);
            if (r == TEMPO_OK && !o->input_delay_auto)
                r = tempo_session_set_input_delay(m->s, p, o->input_delay);
        } else {
            tempo_address a = sim_machine_addr(host);
            r = tempo_session_add_remote_player(m->s, p, &a);
        }
    }
    for (int k = 0; k < o->spectators && r == TEMPO_OK; k++)
        if (o->spectator_host[k] == m->index) {
            tempo_address a = sim_machine_addr(mt->npeers + k);
            r = tempo_session_add_spectator(m->s, &a);
        }
    return r;
}

/* --record: peer m writes PREFIX-peerN.rep, every frame it confirms. */
static bool open_record(sim_machine *m, const sim_options *o)
{
    char path[512], why[256];
    snprintf(path, sizeof path, "%s-peer%d.rep", o->record_prefix, m->index);
    m->rec = calloc(1, sizeof *m->rec);
    if (m->rec && arena_record_open(m->rec, path, o->players, o->seed, why, sizeof why))
        return true;
    fprintf(stderr, "tempo-sim: %s\n", m->rec ? why : "out of memory");
    free(m->rec);
    m->rec = NULL;
    return false;
}

static bool setup_machine(sim_match *mt, int i, const tempo_config *base)
{
    const sim_options *o = mt->o;
    sim_machine *m = calloc(1, sizeof *m);
    if (!m)
        return false;
    mt->mach[i] = m;
    m->index = i;
    m->spectator = i >= mt->npeers;
    m->first_player = -1;
    for (int p = o->players - 1; p >= 0; p--)
        if (sim_player_peer(o, p) == i)
            m->first_player = p;
    m->host = m->host_slot = -1;
    if (m->spectator) {
        int k = i - mt->npeers;
        m->host = o->spectator_host[k];
        m->host_slot = 0;
        for (int j = 0; j < k; j++)
            m->host_slot += o->spectator_host[j] == m->host;
    }
    m->addr = sim_machine_addr(i);
    m->delay = -1;
    if (tempo_simnet_add_node(mt->net, &m->addr, &m->net) != TEMPO_OK)
        return false;
    if (mt->hostile)
        sim_hostile_wrap(mt->hostile, m);
    m->counted.send = counted_send;
    m->counted.recv = counted_recv;
    m->counted.ctx = m;
    if (arena_init(&m->game, o->players, o->seed) != TEMPO_OK)
        return false;
    /* Machines are switched on at unrelated moments: a seeded phase within
     * the first tick, plus the start skew asked for. */
    uint64_t phase = sim_mix64(o->seed ^ ((uint64_t)i << 32)) % (uint64_t)SIM_TICK_PERIOD_US;
    sim_clock_init(&m->clock, (uint64_t)o->start_skew_ms[i] * 1000u + phase, o->clock_drift_pct[i]);
    m->next_vt = sim_clock_tick_vt(&m->clock, 0);
    m->sums_len = o->frames;
    m->sums = calloc((size_t)o->frames, sizeof *m->sums);
    if (!m->sums)
        return false;
    sim_measure_init(m);
    tempo_result r = setup_session(mt, m, base);
    if (r != TEMPO_OK) {
        fprintf(stderr, "tempo-sim: cannot set up machine %d: %s\n", i, tempo_strerror(r));
        return false;
    }
    return m->spectator || !o->record_prefix || open_record(m, o);
}

static void name_machines(sim_match *mt)
{
    const sim_options *o = mt->o;
    for (int i = 0; i < mt->nmach; i++) {
        char *name = mt->tl->peer_names[i];
        size_t size = sizeof mt->tl->peer_names[i];
        mt->tl->is_spectator[i] = i >= mt->npeers;
        if (i >= mt->npeers) {
            int host = o->spectator_host[i - mt->npeers] % SIM_MAX_MACHINES;
            if (host)
                snprintf(name, size, "spectator %d of peer %d", (i - mt->npeers) % SIM_MAX_MACHINES, host);
            else
                snprintf(name, size, "spectator %d", i - mt->npeers);
            continue;
        }
        snprintf(name, size, "peer %d", i);
        for (int k = 0; k < o->num_links; k++)
            if (o->links[k].a == i && o->links[k].b < 0)
                snprintf(name, size, "peer %d (%.13s%s)", i, o->links[k].profile[0] ? o->links[k].profile : "custom",
                         o->links[k].custom && o->links[k].profile[0] ? ", changed" : "");
    }
}

static bool setup(sim_match *mt)
{
    const sim_options *o = mt->o;
    mt->npeers = sim_match_peers(o);
    mt->nmach = mt->npeers + o->spectators;
    mt->in_match = true;
    mt->warm_vt = UINT64_MAX;
    if (!sim_net_create(o, 0, &mt->net))
        return false;
    tempo_config base = match_config(o);
    mt->disconnect_timeout_ms = base.disconnect_timeout_ms;
    bool failed;
    mt->hostile = sim_hostile_create(o, mt->net, mt->nmach, &failed);
    if (failed)
        return false;
    if (o->topology == 1 && !(mt->relay = calloc(1, sizeof *mt->relay)))
        return false;
    for (int i = 0; i < mt->nmach; i++)
        if (!setup_machine(mt, i, &base))
            return false;
    if (mt->relay && !sim_relay_node_create(mt->relay, mt->net, o, sim_machine_addr, mt->nmach))
        return false;
    /* blackouts are simnet's windows; the run loop only marks them as they pass */
    mt->has_step = sim_net_last_step(o, &mt->step);
    if (mt->has_step) {
        tempo_link_params before;
        sim_net_link_before(o, mt->step.a, mt->step.b < 0 ? (mt->step.a == 0 ? 1 : 0) : mt->step.b, &before);
        mt->step_old_ms = 2.0 * (double)before.latency_us / 1000.0;
    }
    if (!sim_net_links(mt->net, o, mt->nmach, sim_machine_addr) || !sim_net_blackouts(mt->net, o, sim_machine_addr))
        return false;
    /* Room for a match four times slower than real time plus the drain;
     * samples past the end are not taken. A very long match is sampled
     * less often rather than allocating without bound. */
    double seconds = (double)o->frames / 60.0 * 4.0 + SIM_DRAIN_US / 1e6 + 60.0;
    double interval = SIM_SAMPLE_S;
    while (seconds / interval > SIM_MAX_SAMPLES)
        interval *= 2.0;
    mt->sample_us = (uint64_t)(interval * 1e6);
    if (mt->tl) {
        if (!sim_timeline_init(mt->tl, mt->nmach, (int)(seconds / interval) + 1, interval))
            return false;
        name_machines(mt);
    }
    mt->next_sample_vt = 0;
    return true;
}

static void teardown(sim_match *mt)
{
    for (int i = 0; i < mt->nmach; i++) {
        if (!mt->mach[i])
            continue;
        if (mt->mach[i]->rec) {
            arena_record_close(mt->mach[i]->rec, true);
            free(mt->mach[i]->rec);
        }
        tempo_session_destroy(mt->mach[i]->s);
        free(mt->mach[i]->sums);
        free(mt->mach[i]);
    }
    sim_hostile_destroy(mt->hostile);
    if (mt->relay)
        sim_relay_node_destroy(mt->relay);
    free(mt->relay);
    tempo_simnet_destroy(mt->net);
}

/* ---- one tick of one machine ----------------------------------------------------- */

static int max_local_delay(const sim_machine *m)
{
    int d = 0;
    for (int p = 0; p < ARENA_MAX_PLAYERS; p++)
        if (m->local_mask & (1u << p)) {
            int k = tempo_session_input_delay(m->s, p);
            if (k > d)
                d = k;
        }
    return d;
}

/* A peer's frame moved on: the wait since its last new frame, counted from
 * the end of the latest fault (the network healed then), may be the longest. */
static void note_new_frame(sim_match *mt, sim_machine *m)
{
    uint64_t from = m->new_frame_vt > mt->fault_end_vt ? m->new_frame_vt : mt->fault_end_vt;
    if (m->new_frame_vt && mt->in_match && !m->spectator && mt->vt > from && mt->vt - from > m->longest_wait_us)
        m->longest_wait_us = mt->vt - from;
    m->new_frame_vt = mt->vt;
}

static void machine_tick(sim_match *mt, sim_machine *m)
{
    const sim_options *o = mt->o;
    tempo_session_poll(m->s, sim_clock_local_us(&m->clock, mt->vt));
    m->deaf = false;
    /* A person's input is read only for ticks that will make a frame. */
    if (m->num_local > 0 && !tempo_session_will_stall(m->s))
        for (int p = 0; p < o->players; p++)
            if (m->local_mask & (1u << p)) {
                uint8_t in[ARENA_INPUT_SIZE];
                arena_bot_next(&m->bot[p], in);
                tempo_session_add_local_input(m->s, p, in, sizeof in);
            }
    tempo_tick tick;
    if (tempo_session_advance(m->s, &tick) != TEMPO_OK)
        memset(&tick, 0, sizeof tick), tick.status = TEMPO_TICK_WAITING;
    const tempo_request *req;
    while (tempo_session_next(m->s, &req) > 0) {
        if (req->kind != TEMPO_REQUEST_ADVANCE)
            continue;
        sim_measure_advance_request(m, req, o->players);
        arena_step(&m->game, req->inputs, req->status);
        /* --desync-at: a deterministic bug on peer 1 only, in every
         * execution of that frame (resimulations too); the byte is one the
         * game never touches, so the difference stays. */
        if (m->index == 1 && o->desync_at >= 0 && req->frame == o->desync_at)
            m->game.ships[0].reserved[0] = 0xA5;
        if (req->frame < m->sums_len)
            m->sums[req->frame] = arena_checksum(&m->game);
    }
    if (m->rec)
        arena_record_tick(m->rec, m->s, o->frames);
    int32_t before = m->frame;
    m->frame = tempo_session_frame(m->s);
    if (m->frame > before)
        note_new_frame(mt, m);
    if (m->num_local > 0)
        m->delay = max_local_delay(m);
    tempo_event ev;
    while (tempo_session_poll_event(m->s, &ev) > 0)
        sim_measure_event(mt, m, &ev);
    sim_measure_tick(mt, m, &tick);
}

/* ---- faults ----------------------------------------------------------------------- */

/* A fault that began during the match part and lasts until end_vt: the
 * network has not healed before then (see sim_result.heal_s). */
static void fault_begins(sim_match *mt, uint64_t end_vt)
{
    if (!mt->in_match)
        return;
    if (end_vt > mt->fault_end_vt)
        mt->fault_end_vt = end_vt;
    mt->healed = false;
}

/* Blackouts begin and end at fixed virtual times: note them as vt passes. */
static void pass_blackouts(sim_match *mt, uint64_t vt)
{
    const sim_options *o = mt->o;
    for (int k = 0; k < o->num_blackouts; k++) {
        const sim_blackout *b = &o->blackouts[k];
        uint8_t *state = &mt->blackout_state[k];
        char label[48];
        if (b->b < 0)
            snprintf(label, sizeof label, "all its links");
        else
            snprintf(label, sizeof label, "link %d-%d", b->a, b->b);
        if (*state == 0 && vt >= b->from_us) {
            *state = 1;
            fault_begins(mt, b->to_us);
            if (mt->tl)
                sim_timeline_mark(mt->tl, (double)b->from_us / 1e6, SIM_MARK_BLACKOUT_START, b->a, label);
        }
        if (*state == 1 && vt >= b->to_us) {
            *state = 2;
            if (mt->tl)
                sim_timeline_mark(mt->tl, (double)b->to_us / 1e6, SIM_MARK_BLACKOUT_END, b->a, label);
        }
    }
}

static void kill_machine(sim_match *mt, sim_machine *m)
{
    m->dead = true;
    m->m.end_vt = mt->vt;
    tempo_simnet_add_blackout(mt->net, &m->addr, NULL, mt->vt, UINT64_MAX);
    tempo_simnet_add_blackout(mt->net, NULL, &m->addr, mt->vt, UINT64_MAX);
}

/* Faults fire when their machine reaches their frame, during the match only. */
static void check_faults(sim_match *mt, sim_machine *m)
{
    const sim_options *o = mt->o;
    if (!mt->in_match)
        return;
    char label[48];
    for (int k = 0; k < o->num_hiccups; k++) {
        const sim_fault *h = &o->hiccups[k];
        if (mt->hiccup_fired[k] || h->peer != m->index || m->frame < h->frame)
            continue;
        mt->hiccup_fired[k] = true;
        fault_begins(mt, mt->vt + (uint64_t)h->ms * 1000u);
        /* Frozen: no ticks and no polls; its clock runs on meanwhile. */
        m->tick_k = sim_clock_first_tick_from(&m->clock, mt->vt + (uint64_t)h->ms * 1000u);
        m->next_vt = sim_clock_tick_vt(&m->clock, m->tick_k);
        snprintf(label, sizeof label, "froze %" PRIu32 " ms", h->ms);
        if (mt->tl)
            sim_timeline_mark(mt->tl, (double)mt->vt / 1e6, SIM_MARK_HICCUP, m->index, label);
    }
    for (int k = 0; k < o->num_clock_jumps; k++) {
        const sim_clock_jump *j = &o->clock_jumps[k];
        if (mt->jump_fired[k] || j->peer != m->index || m->frame < j->frame)
            continue;
        mt->jump_fired[k] = true;
        /* Only its clock moves, unseen by the network. The poll that feels it
         * finds nothing waiting (what arrived stays for the poll after): the
         * harder case, where only its own clock speaks of the time. */
        m->clock.jump_us += j->us;
        m->deaf = true;
        snprintf(label, sizeof label, "clock jumped %+.3f s", (double)j->us / 1e6);
        if (mt->tl)
            sim_timeline_mark(mt->tl, (double)mt->vt / 1e6, SIM_MARK_HICCUP, m->index, label);
    }
    for (int k = 0; k < o->num_drops; k++) {
        const sim_fault *d = &o->drops[k];
        if (mt->drop_fired[k] || d->peer != m->index || m->frame < d->frame)
            continue;
        mt->drop_fired[k] = true;
        /* The others notice when the silence reaches their timeout. */
        fault_begins(mt, mt->vt + (uint64_t)mt->disconnect_timeout_ms * 1000u);
        kill_machine(mt, m);
        snprintf(label, sizeof label, "dropped at frame %" PRId32, m->frame);
        if (mt->tl) {
            sim_timeline_mark(mt->tl, (double)mt->vt / 1e6, SIM_MARK_DISCONNECT, m->index, label);
            sim_timeline_mark(mt->tl, (double)mt->vt / 1e6, SIM_MARK_BLACKOUT_START, m->index,
                              "its links go dark for good");
        }
    }
}

/* ---- the run ------------------------------------------------------------------------ */

/* The slowest live peer's frame (or confirmed frame), INT32_MAX if none. */
static int32_t slowest(const sim_match *mt, bool confirmed)
{
    int32_t low = INT32_MAX;
    for (int i = 0; i < mt->npeers; i++) {
        const sim_machine *m = mt->mach[i];
        if (m->dead)
            continue;
        int32_t f = confirmed ? tempo_session_confirmed_frame(m->s) : m->frame;
        if (f < low)
            low = f;
    }
    return low;
}

/* The first tick at or after the end of the latest fault: note the slowest
 * live peer's frame, for the bound on recovery (sim_soak.c). */
static void note_heal(sim_match *mt)
{
    if (!mt->in_match || mt->healed || mt->vt < mt->fault_end_vt)
        return;
    int32_t low = slowest(mt, false);
    mt->healed = true;
    mt->heal_vt = mt->fault_end_vt;
    mt->heal_frame = low == INT32_MAX ? 0 : low;
}

static void end_match_part(sim_match *mt, sim_result *out)
{
    mt->in_match = false;
    out->match_s = (double)mt->vt / 1e6;
    /* A fault still under way at the end: the match never ran healed. */
    out->heal_s = mt->healed ? (double)mt->heal_vt / 1e6 : out->match_s;
    out->heal_frame = mt->healed ? mt->heal_frame : mt->o->frames;
    for (int i = 0; i < mt->npeers; i++) /* a peer that never got to the end is waiting still */
        if (!mt->mach[i]->dead && mt->mach[i]->frame < mt->o->frames)
            note_new_frame(mt, mt->mach[i]);
    for (int i = 0; i < mt->nmach; i++)
        if (!mt->mach[i]->dead)
            mt->mach[i]->m.end_vt = mt->vt;
    tempo_relay_stats rs; /* the relay's traffic over the match part, as the members' */
    if (mt->relay && tempo_relay_get_stats(mt->relay->relay, &rs) == TEMPO_OK) {
        out->relay_bytes_in = rs.bytes_in;
        out->relay_bytes_out = rs.bytes_out;
    }
}

static void run(sim_match *mt, sim_result *out, sim_progress_fn progress, void *pctx)
{
    const sim_options *o = mt->o;
    /* A match slower than four times real time is stuck, not slow, unless
     * the caller knows it is that slow by itself (stuck_after_s). */
    uint64_t match_limit = o->stuck_after_s > 0 ? (uint64_t)(o->stuck_after_s * 1e6)
                                                 : (uint64_t)((double)o->frames / 60.0 * 4e6) + 60000000u;
    uint64_t drain_end = UINT64_MAX;
    int32_t shown = -1;
    for (;;) {
        sim_machine *next = NULL;
        for (int i = 0; i < mt->nmach; i++) {
            sim_machine *m = mt->mach[i];
            if (!m->dead && (!next || m->next_vt < next->next_vt))
                next = m;
        }
        if (!next)
            break;
        if (mt->in_match && mt->next_sample_vt <= next->next_vt) {
            sim_measure_advance(mt, mt->next_sample_vt);
            sim_measure_sample(mt);
            mt->next_sample_vt += mt->sample_us;
            continue;
        }
        pass_blackouts(mt, next->next_vt);
        sim_measure_advance(mt, next->next_vt);
        if (mt->relay)
            sim_relay_node_step(mt->relay, mt->net, mt->vt);
        if (!sim_net_link_steps(mt->net, o, mt->nmach, sim_machine_addr, mt->steps_vt, mt->vt))
            break; /* not expected: the same lines were set at the start */
        mt->steps_vt = mt->vt;
        tempo_simnet_set_time(mt->net, mt->vt);
        if (mt->hostile)
            sim_hostile_step(mt->hostile, mt->vt);
        machine_tick(mt, next);
        sim_measure_step(mt, next);
        next->tick_k++;
        next->next_vt = sim_clock_tick_vt(&next->clock, next->tick_k);
        check_faults(mt, next);
        note_heal(mt);

        if (mt->in_match) {
            int32_t low = slowest(mt, false);
            if (progress && low != INT32_MAX && low * 100LL / o->frames != shown) {
                shown = (int32_t)(low * 100LL / o->frames);
                progress(pctx, low < o->frames ? low : o->frames, o->frames);
            }
            if (low >= o->frames) {
                out->finished = low != INT32_MAX;
                end_match_part(mt, out);
                drain_end = mt->vt + SIM_DRAIN_US;
            } else if (mt->vt > match_limit) {
                end_match_part(mt, out);
                snprintf(out->problem, sizeof out->problem,
                         "stuck: the slowest peer is at frame %" PRId32 " after %.0f s", low,
                         (double)mt->vt / 1e6);
                break;
            }
        } else if (slowest(mt, true) >= o->frames && sim_measure_checks_settled(mt)) {
            break;
        } else if (mt->vt > drain_end) {
            snprintf(out->problem, sizeof out->problem, "%s within %u s",
                     slowest(mt, true) >= o->frames ? "desync checks still owed"
                                                    : "the last frame was not confirmed everywhere",
                     SIM_DRAIN_US / 1000000u);
            break;
        }
    }
    out->virtual_s = (double)mt->vt / 1e6;
}

/* ---- convergence ---------------------------------------------------------------------- */

/* Whether live peer x and every other live peer dropped each other: a
 * blackout longer than the timeout cut it off. It plays on alone and the
 * others without it, so it is no longer one of the match's peers. (In a
 * match of two, both are cut off: the match split.) */
static bool is_cut_off(const sim_match *mt, const sim_machine *x)
{
    int others = 0;
    for (int i = 0; i < mt->npeers; i++) {
        const sim_machine *y = mt->mach[i];
        tempo_endpoint_stats a, b;
        if (y == x || y->dead)
            continue;
        if (tempo_session_get_endpoint_stats(y->s, x->first_player, &a) != TEMPO_OK || !a.disconnected ||
            tempo_session_get_endpoint_stats(x->s, y->first_player, &b) != TEMPO_OK || !b.disconnected)
            return false;
        others++;
    }
    return others > 0;
}

/* First state (1-based) where m disagrees with ref over states 1..n, or -1. */
static int32_t first_difference(const sim_machine *ref, const sim_machine *m, int32_t n)
{
    for (int32_t f = 0; f < n; f++)
        if (ref->sums[f] != m->sums[f])
            return f + 1;
    return -1;
}

static void check_convergence(const sim_match *mt, sim_result *out)
{
    const sim_options *o = mt->o;
    const sim_machine *ref = NULL, *who = NULL;
    out->first_divergent_state = -1;
    for (int i = 0; i < mt->npeers; i++) {
        const sim_machine *m = mt->mach[i];
        if (m->dead || m->cut_off)
            continue;
        int32_t c = tempo_session_confirmed_frame(m->s);
        if (c < o->frames && out->problem[0] == '\0')
            snprintf(out->problem, sizeof out->problem,
                     "peer %d confirmed only %" PRId32 " of %d frames", i, c, o->frames);
        if (!ref)
            ref = m;
    }
    if (!ref) {
        snprintf(out->problem, sizeof out->problem, "no peer left%s",
                 mt->npeers == 2 ? " (the two peers dropped each other)" : "");
        out->converged = false;
        return;
    }
    for (int i = 0; i < mt->nmach; i++) {
        const sim_machine *m = mt->mach[i];
        if (m->dead || m->cut_off || m == ref)
            continue;
        /* Spectators never roll back: every state they played is final.
         * One watching a peer that was cut off follows that peer. */
        int32_t n = o->frames;
        if (m->spectator && m->frame < n)
            n = m->frame;
        const sim_machine *against = m->spectator && mt->mach[m->host]->cut_off ? mt->mach[m->host] : ref;
        int32_t d = first_difference(against, m, n);
        if (d >= 0 && (out->first_divergent_state < 0 || d < out->first_divergent_state)) {
            out->first_divergent_state = d;
            who = m;
        }
    }
    if (who && out->problem[0] == '\0')
        snprintf(out->problem, sizeof out->problem,
                 "%s %d differs from peer %d from state %" PRId32 " on", who->spectator ? "spectator" : "peer",
                 who->spectator ? who->index - mt->npeers : who->index, ref->index, out->first_divergent_state);
    out->compared_states = out->first_divergent_state >= 0 ? out->first_divergent_state - 1 : o->frames;
    out->converged = out->problem[0] == '\0';
}

int sim_match_run(const sim_options *o, sim_result *out, sim_timeline *tl,
                  sim_progress_fn progress, void *progress_ctx)
{
    memset(out, 0, sizeof *out);
    sim_match *mt = calloc(1, sizeof *mt);
    if (!mt) {
        fprintf(stderr, "tempo-sim: out of memory\n");
        return SIM_EXIT_USAGE;
    }
    mt->o = o;
    mt->tl = tl;
    if (!setup(mt)) {
        fprintf(stderr, "tempo-sim: cannot set up the match (out of memory or bad settings)\n");
        teardown(mt);
        if (tl)
            sim_timeline_free(tl);
        free(mt);
        return SIM_EXIT_USAGE;
    }
    double t0 = sim_wall_seconds();
    run(mt, out, progress, progress_ctx);
    out->wall_s = sim_wall_seconds() - t0;
    out->nmach = mt->nmach;
    out->npeers = mt->npeers;
    for (int i = 0; i < mt->npeers; i++)
        mt->mach[i]->cut_off = !mt->mach[i]->dead && is_cut_off(mt, mt->mach[i]);
    check_convergence(mt, out);
    sim_measure_finish(mt, out);
    if (mt->hostile)
        sim_hostile_finish(mt->hostile, mt, out);
    sim_security_finish(mt, out);
    teardown(mt);
    free(mt);
    return SIM_EXIT_OK;
}
