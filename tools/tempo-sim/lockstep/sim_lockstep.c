/* SPDX-License-Identifier: MIT */
/*
 * sim_lockstep.c — one RTS-style match (sim_lockstep.h): every machine a
 * simnet node with one player, its bot and its copy of the sim_rts game,
 * run in virtual time; the relay, when there is one, a node of its own.
 *
 * Machines tick at 60 Hz (a seeded phase each); the event loop runs the
 * earliest tick due, ties to the lower index, so runs repeat bit for bit.
 * Every machine reads virtual time as its clock. Measured from outside,
 * alike in every way of playing:
 *   - a freeze (wait) is a stretch of ticks in which the game could not go
 *     on for want of someone's input: a WAITING tick of a rollback session,
 *     a WAITING event of the lockstep object; it is the slow machine's
 *     doing when the inputs awaited are its alone (every other player's
 *     were in);
 *   - a command's latency runs from the tick its bot gave it to the tick
 *     its own machine first executed it (shown, predicted or not) and to
 *     the tick the frame or turn holding it became final there (final:
 *     confirmed; commands carry a sequence number); a command whose frame
 *     or turn became final without it (the relay substituted the late
 *     input or turn list) is lost;
 *   - bandwidth is the payload each machine sent and received over the
 *     match, as UDP would carry it;
 *   - the checksum after every turn (frame) is kept; at the end every
 *     machine must agree on every turn all of them made final.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_lockstep.h"
#include "sim_net.h"
#include "sim_rts.h"
#include "tempo/lockstep.h"

#define LS_TICK_US (1e6 / 60.0)
/* A rollback input is 4 bytes, as small as the arena's: bit 0 says a
 * command is in it, bits 1..3 its unit, bits 4..7 the low 4 bits of its
 * sequence number; then 12 bits each of target x and y. */
#define LS_INPUT_SIZE 4
#define LS_INPUT_SEQ_BITS 4
#define LS_QUEUE 64
#define LS_SEQ_RING 1024
#define LS_DRAIN_US 10000000u /* after the match: at most this for the last frames to be confirmed */

typedef struct ls_machine {
    int index;
    tempo_address addr;
    tempo_transport net, counted;
    tempo_session *s;
    tempo_lockstep *ls;
    rts_state game;
    rts_bot bot;
    uint64_t phase_us, tick_k, next_vt;
    bool running, waiting;
    uint8_t queue[LS_QUEUE][RTS_CMD_SIZE];
    int q_head, q_count;
    uint64_t created[LS_SEQ_RING]; /* by sequence number: the tick it was given */
    uint32_t executed_seq;         /* own commands executed: sequence numbers below it */
    uint32_t created_n;            /* own commands given so far: sequence numbers below it */
    int32_t exec_hi;               /* rollback: newest frame executed */
    uint64_t *sums;                /* checksum after turn (frame) t */
    int32_t sums_len, done;        /* done: turns (frames) executed */
    uint64_t bytes_up, bytes_down;
    uint64_t waits, waits_slow;
    sim_stat shown;                /* own commands' latency to their first execution, ms */
    /* per frame (rollback ways): the own command first executed in it and
     * the one in its latest execution (full sequence numbers, -1: none) */
    int32_t *frame_first, *frame_now;
    int32_t final_hi;              /* frames below it are final and counted */
    sim_stat final;                /* own commands' latency to their final turn (frame), ms */
    uint64_t lost;
    /* lockstep object: own commands handed to it (sequence numbers below
     * added_n), for each the last turn its list can be (by sequence number),
     * and those below judged counted as executed or lost */
    uint32_t added_n, judged;
    int32_t list_by[LS_SEQ_RING];
    uint64_t misjudged;            /* commands counted lost that executed later: the bound failed */
    int delay;                     /* the execution delay, turns */
    double turn_sum_ms, turn_min_ms, turn_max_ms;
    uint64_t turns;
} ls_machine;

typedef struct ls_match {
    const sim_options *o;
    const sim_ls_way *w;
    tempo_simnet *net;
    sim_relay_node relay;
    bool has_relay;
    ls_machine *m[SIM_MAX_MACHINES];
    int n, slow;
    uint64_t vt, goal_us;
    int32_t goal_frames;
} ls_match;

static int counted_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    ls_machine *m = ctx;
    m->bytes_up += size;
    return m->net.send(m->net.ctx, to, data, size);
}

static int counted_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    ls_machine *m = ctx;
    int r = m->net.recv(m->net.ctx, from, buf, capacity);
    if (r > 0)
        m->bytes_down += (uint64_t)r;
    return r;
}

/* The slow machine: the first with a link line of its own (A-*). */
static int slow_machine(const sim_options *o)
{
    for (int k = 0; k < o->num_links; k++)
        if (o->links[k].b < 0 && o->links[k].a < o->players)
            return o->links[k].a;
    return -1;
}

/* ---- building ---------------------------------------------------------------- */

/* The slowest link one way, microseconds: its latency plus two standard
 * deviations of jitter. */
static double cover_us(const sim_options *o)
{
    tempo_link_params p;
    double worst = 0;
    if (tempo_link_profile(o->profile, &p) == TEMPO_OK)
        worst = p.latency_us + 2.0 * p.jitter_us;
    for (int k = 0; k < o->num_links; k++) {
        const tempo_link_params *l = &o->links[k].params;
        if (l->latency_us + 2.0 * l->jitter_us > worst)
            worst = l->latency_us + 2.0 * l->jitter_us;
    }
    return worst;
}

int sim_ls_frame_delay(const sim_options *o)
{
    if (o->input_delay > 0)
        return o->input_delay;
    int d = (int)ceil(cover_us(o) / LS_TICK_US) + 1; /* + the receiver's tick */
    return d > TEMPO_MAX_PREDICTION ? TEMPO_MAX_PREDICTION : d;
}

uint32_t sim_ls_turn_ms(const sim_options *o)
{
    /* a command waits up to two turns for its list (execution delay 2) */
    uint32_t ms = (uint32_t)ceil((cover_us(o) + LS_TICK_US) / 2.0 / 10000.0) * 10u;
    return ms < 35u ? 35u : ms;
}

static tempo_result create_rollback(ls_match *mt, ls_machine *m)
{
    const sim_options *o = mt->o;
    tempo_config c;
    tempo_config_default(&c);
    c.num_players = o->players;
    c.input_size = LS_INPUT_SIZE;
    c.arena = &m->game;
    c.arena_size = sizeof m->game;
    c.random_seed = sim_mix64(o->seed * 131 + (uint64_t)m->index);
    c.desync_interval = o->desync_interval;
    c.session_id = SIM_RELAY_MATCH_ID;
    tempo_result r;
    int delay = o->input_delay;
    bool rollback = mt->w->kind != SIM_LS_FRAME_MESH;
    if (mt->w->kind == SIM_LS_RELAY) {
        c.max_prediction = o->max_prediction;
        tempo_address ra = sim_relay_addr();
        r = tempo_session_create_relay_member(&c, &m->counted, &ra, NULL, &m->s);
    } else {
        c.max_prediction = rollback ? o->max_prediction : 0;
        if (delay == 0 && !rollback)
            delay = sim_ls_frame_delay(o);
        r = tempo_session_create_p2p(&c, &m->counted, &m->s);
        for (int p = 0; p < o->players && r == TEMPO_OK; p++)
            if (p != m->index) {
                tempo_address a = sim_machine_addr(p);
                r = tempo_session_add_remote_player(m->s, p, &a);
            }
    }
    if (r == TEMPO_OK)
        r = tempo_session_add_local_player(m->s, m->index);
    if (r == TEMPO_OK && delay > 0 && (!rollback || delay <= o->max_prediction))
        r = tempo_session_set_input_delay(m->s, m->index, delay);
    return r;
}

static tempo_result create_turns(ls_match *mt, ls_machine *m)
{
    const sim_options *o = mt->o;
    tempo_lockstep_config c;
    tempo_lockstep_config_default(&c);
    c.num_players = o->players;
    c.local_player = m->index;
    c.session_id = SIM_RELAY_MATCH_ID;
    c.adaptive = mt->w->adaptive;
    if (!c.adaptive) {
        c.turn_ms = mt->w->turn_ms;
        c.min_turn_ms = mt->w->turn_ms < c.min_turn_ms ? mt->w->turn_ms : c.min_turn_ms;
        c.max_turn_ms = mt->w->turn_ms > c.max_turn_ms ? mt->w->turn_ms : c.max_turn_ms;
    }
    c.random_seed = sim_mix64(o->seed * 137 + (uint64_t)m->index);
    if (!o->input_delay_auto && o->input_delay >= 2 && o->input_delay <= TEMPO_LOCKSTEP_MAX_DELAY)
        c.execution_delay = o->input_delay; /* turns: more buys slow machines time */
    m->delay = c.execution_delay;
    if (mt->w->via_relay) {
        tempo_address ra = sim_relay_addr();
        return tempo_lockstep_create_relay_member(&c, &m->counted, &ra, NULL, &m->ls);
    }
    tempo_result r = tempo_lockstep_create(&c, &m->counted, &m->ls);
    for (int p = 0; p < o->players && r == TEMPO_OK; p++)
        if (p != m->index) {
            tempo_address a = sim_machine_addr(p);
            r = tempo_lockstep_add_peer(m->ls, p, &a);
        }
    return r;
}

static bool setup(ls_match *mt)
{
    const sim_options *o = mt->o;
    mt->n = o->players;
    mt->slow = slow_machine(o);
    mt->goal_frames = o->frames;
    mt->goal_us = (uint64_t)o->frames * 1000000u / 60u;
    if (!sim_net_create(o, 0, &mt->net))
        return false;
    /* turns are 10 ms at the shortest */
    int32_t slots = (int32_t)(mt->goal_us / 10000u) + o->frames + 1024;
    for (int i = 0; i < mt->n; i++) {
        ls_machine *m = calloc(1, sizeof *m);
        if (!m)
            return false;
        mt->m[i] = m;
        m->index = i;
        m->addr = sim_machine_addr(i);
        m->exec_hi = -1;
        m->turn_min_ms = INFINITY;
        m->sums_len = slots;
        m->sums = calloc((size_t)slots, sizeof *m->sums);
        m->frame_first = malloc((size_t)slots * sizeof *m->frame_first);
        m->frame_now = malloc((size_t)slots * sizeof *m->frame_now);
        if (!m->sums || !m->frame_first || !m->frame_now ||
            tempo_simnet_add_node(mt->net, &m->addr, &m->net) != TEMPO_OK)
            return false;
        for (int32_t f = 0; f < slots; f++)
            m->frame_first[f] = m->frame_now[f] = -1;
        m->counted.send = counted_send;
        m->counted.recv = counted_recv;
        m->counted.ctx = m;
        rts_init(&m->game, o->players, o->seed);
        m->phase_us = sim_mix64(o->seed ^ ((uint64_t)i << 32)) % (uint64_t)LS_TICK_US;
        m->next_vt = m->phase_us;
        rts_bot_init(&m->bot, o->seed, i, 0);
        tempo_result r = mt->w->kind == SIM_LS_TURNS ? create_turns(mt, m) : create_rollback(mt, m);
        if (r != TEMPO_OK) {
            fprintf(stderr, "tempo-sim: cannot set up machine %d: %s\n", i, tempo_strerror(r));
            return false;
        }
    }
    if (mt->w->kind == SIM_LS_RELAY || mt->w->via_relay) {
        if (!sim_relay_node_create(&mt->relay, mt->net, o, sim_machine_addr, mt->n))
            return false;
        mt->has_relay = true;
    }
    return sim_net_links(mt->net, o, mt->n, sim_machine_addr);
}

static void teardown(ls_match *mt)
{
    for (int i = 0; i < mt->n; i++)
        if (mt->m[i]) {
            tempo_session_destroy(mt->m[i]->s);
            tempo_lockstep_destroy(mt->m[i]->ls);
            free(mt->m[i]->sums);
            free(mt->m[i]->frame_first);
            free(mt->m[i]->frame_now);
            free(mt->m[i]);
        }
    if (mt->has_relay)
        sim_relay_node_destroy(&mt->relay);
    tempo_simnet_destroy(mt->net);
}

/* ---- one tick -------------------------------------------------------------------- */

/* A freeze begins: count it, and whether only the slow machine's inputs
 * were awaited (every other remote player's were in). */
static void freeze_begins(ls_match *mt, ls_machine *m, uint32_t awaited)
{
    m->waits++;
    if (mt->slow >= 0 && mt->slow != m->index && awaited == 1u << mt->slow)
        m->waits_slow++;
}

/* An own command executed for the first time: seq holds the low `bits`
 * bits of its sequence number. Own commands execute in order, and a repeat
 * (the relay substituting the previous input) names no new command: its
 * low bits point past the commands given so far. Returns the full sequence
 * number, -1 for a repeat. */
static int32_t own_command_executed(ls_match *mt, ls_machine *m, uint32_t seq, int bits)
{
    uint32_t mask = (1u << bits) - 1u;
    uint32_t full = m->executed_seq + ((seq - m->executed_seq) & mask);
    if (full - m->executed_seq >= LS_SEQ_RING || full >= m->created_n)
        return -1;
    double ms = (double)(mt->vt - m->created[full % LS_SEQ_RING]) / 1000.0;
    sim_stat_add(&m->shown, ms);
    m->executed_seq = full + 1;
    return (int32_t)full;
}

/* An own command became final now (its frame or turn is confirmed). */
static void own_command_final(ls_match *mt, ls_machine *m, int32_t full)
{
    double ms = (double)(mt->vt - m->created[(uint32_t)full % LS_SEQ_RING]) / 1000.0;
    sim_stat_add(&m->final, ms);
}

/* Rollback ways: frames newly confirmed are final with the commands their
 * latest execution held; a command first executed in one and no longer in
 * it was substituted away. */
static void frames_final(ls_match *mt, ls_machine *m)
{
    int32_t c = tempo_session_confirmed_frame(m->s);
    if (c > m->sums_len)
        c = m->sums_len;
    for (; m->final_hi < c; m->final_hi++) {
        int32_t f = m->final_hi, first = m->frame_first[f];
        if (first < 0)
            continue;
        if (m->frame_now[f] == first)
            own_command_final(mt, m, first);
        else
            m->lost++;
    }
}

static void pack_input(const uint8_t cmd[RTS_CMD_SIZE], uint8_t in[LS_INPUT_SIZE])
{
    uint32_t tx = (uint32_t)(cmd[1] | cmd[2] << 8) & 0xFFFu, ty = (uint32_t)(cmd[3] | cmd[4] << 8) & 0xFFFu;
    in[0] = (uint8_t)(1u | (cmd[0] & 7u) << 1 | (rts_command_seq(cmd) & 15u) << 4);
    in[1] = (uint8_t)tx;
    in[2] = (uint8_t)(tx >> 8 | (ty & 15u) << 4);
    in[3] = (uint8_t)(ty >> 4);
}

static void unpack_input(const uint8_t in[LS_INPUT_SIZE], uint8_t cmd[RTS_CMD_SIZE])
{
    uint32_t tx = (uint32_t)(in[1] | (in[2] & 15) << 8), ty = (uint32_t)(in[2] >> 4 | in[3] << 4);
    cmd[0] = (uint8_t)(in[0] >> 1 & 7u);
    cmd[1] = (uint8_t)tx;
    cmd[2] = (uint8_t)(tx >> 8);
    cmd[3] = (uint8_t)ty;
    cmd[4] = (uint8_t)(ty >> 8);
    cmd[5] = (uint8_t)(in[0] >> 4);
    cmd[6] = 0;
}

static void note_turn(ls_machine *m, int32_t t, uint64_t sum, double ms)
{
    if (t >= 0 && t < m->sums_len)
        m->sums[t] = sum;
    if (t + 1 > m->done)
        m->done = t + 1;
    if (ms < 0) /* a frame played again after a rollback */
        return;
    m->turns++;
    m->turn_sum_ms += ms;
    if (ms < m->turn_min_ms)
        m->turn_min_ms = ms;
    if (ms > m->turn_max_ms)
        m->turn_max_ms = ms;
}

/* The bot's orders of this tick join the machine's queue (created now). */
static void gather_orders(ls_match *mt, ls_machine *m)
{
    uint8_t cmd[RTS_CMD_SIZE];
    while (m->q_count < LS_QUEUE && rts_bot_next(&m->bot, mt->vt, cmd)) {
        memcpy(m->queue[(m->q_head + m->q_count) % LS_QUEUE], cmd, RTS_CMD_SIZE);
        m->q_count++;
        m->created[rts_command_seq(cmd) % LS_SEQ_RING] = mt->vt;
        m->created_n++;
    }
}

/* --desync-at: machine 1's game goes wrong after that turn (frame), in
 * every execution of it. */
static void plant_desync(const sim_options *o, ls_machine *m, int32_t turn)
{
    if (m->index == 1 && o->desync_at >= 0 && turn == o->desync_at)
        m->game.unit[0][0].x ^= 1;
}

static void rollback_tick(ls_match *mt, ls_machine *m)
{
    const sim_options *o = mt->o;
    tempo_session_poll(m->s, mt->vt);
    if (m->running)
        gather_orders(mt, m);
    bool gave = false;
    if (!tempo_session_will_stall(m->s)) {
        uint8_t in[LS_INPUT_SIZE] = {0};
        if (m->running && m->q_count > 0)
            pack_input(m->queue[m->q_head], in);
        gave = tempo_session_add_local_input(m->s, m->index, in, sizeof in) == TEMPO_OK && in[0];
    }
    tempo_tick tick;
    if (tempo_session_advance(m->s, &tick) != TEMPO_OK)
        memset(&tick, 0, sizeof tick), tick.status = TEMPO_TICK_SYNCHRONIZING;
    /* an input the session did not take was dropped: its command waits */
    if (gave && (tick.inputs_taken & 1u << m->index)) {
        m->q_head = (m->q_head + 1) % LS_QUEUE;
        m->q_count--;
    }
    if (tick.status != TEMPO_TICK_SYNCHRONIZING)
        m->running = true;
    bool waiting = m->running && tick.status == TEMPO_TICK_WAITING;
    if (waiting && !m->waiting)
        freeze_begins(mt, m, tick.waiting_for);
    m->waiting = waiting;
    const tempo_request *req;
    while (tempo_session_next(m->s, &req) > 0) {
        if (req->kind != TEMPO_REQUEST_ADVANCE)
            continue;
        bool first = req->frame > m->exec_hi;
        bool tracked = req->frame >= 0 && req->frame < m->sums_len;
        if (tracked && !first)
            m->frame_now[req->frame] = -1;
        for (int p = 0; p < o->players; p++) {
            const uint8_t *in = req->inputs + (size_t)p * LS_INPUT_SIZE;
            uint8_t cmd[RTS_CMD_SIZE];
            if (!(in[0] & 1))
                continue;
            unpack_input(in, cmd);
            rts_command(&m->game, p, cmd);
            if (p != m->index || !tracked)
                continue;
            int32_t *first_seq = &m->frame_first[req->frame];
            if (first) {
                *first_seq = own_command_executed(mt, m, rts_command_seq(cmd), LS_INPUT_SEQ_BITS);
                m->frame_now[req->frame] = *first_seq;
            } else if (*first_seq >= 0 && ((uint32_t)*first_seq & 15u) == rts_command_seq(cmd)) {
                m->frame_now[req->frame] = *first_seq;
            }
        }
        rts_step(&m->game, (uint64_t)LS_TICK_US);
        plant_desync(o, m, req->frame);
        if (first)
            m->exec_hi = req->frame;
        note_turn(m, req->frame, rts_checksum(&m->game), first ? LS_TICK_US / 1000.0 : -1.0);
    }
    frames_final(mt, m);
    tempo_event ev;
    while (tempo_session_poll_event(m->s, &ev) > 0) {
    }
}

/* The last turn whose list a command handed to the lockstep object now
 * can join. The object seals its own list for turn E + D once turn E + 1
 * is due (E: the newest turn executed, D: the delay), so a command joins
 * turn E + D + 1 at the latest (one more is allowed for); a relay member
 * also skips the turns the relay has finalized, joining the first turn
 * the relay still holds open, which the relay's finalized count bounds. */
static int32_t list_bound(const ls_match *mt, const ls_machine *m)
{
    tempo_lockstep_stats st;
    int32_t bound = (tempo_lockstep_get_stats(m->ls, &st) == TEMPO_OK ? st.turn : 0) + m->delay + 2;
    tempo_relay_match_stats rs;
    if (mt->has_relay && tempo_relay_get_match_stats(mt->relay.relay, SIM_RELAY_MATCH_ID, &rs) == TEMPO_OK &&
        rs.finalized > bound)
        bound = rs.finalized;
    return bound;
}

/* Own command `full` executed: the own commands before it that never
 * executed were in earlier lists, executed without them (the relay's
 * substitutes): lost. */
static void own_turn_command_executed(ls_machine *m, int32_t full)
{
    if ((uint32_t)full < m->judged) {
        m->misjudged++;
        return;
    }
    m->lost += (uint32_t)full - m->judged;
    m->judged = (uint32_t)full + 1;
}

/* Turn `turn` executed: an own command not yet executed whose list was
 * due by this turn was substituted away (through a relay a late list is
 * replaced by the previous one): lost. */
static void own_lists_executed(ls_machine *m, int32_t turn)
{
    while (m->judged < m->added_n && m->list_by[m->judged % LS_SEQ_RING] <= turn) {
        m->lost++;
        m->judged++;
    }
}

static void turns_tick(ls_match *mt, ls_machine *m)
{
    const sim_options *o = mt->o;
    tempo_lockstep_poll(m->ls, mt->vt);
    tempo_lockstep_event ev;
    while (tempo_lockstep_next_event(m->ls, &ev) == 1) {
        if (ev.kind == TEMPO_LOCKSTEP_RUNNING) {
            m->running = true;
            m->waiting = false;
        } else if (ev.kind == TEMPO_LOCKSTEP_WAITING && !m->waiting) {
            m->waiting = true;
            freeze_begins(mt, m, ev.u.waiting.missing_mask);
        }
    }
    if (m->running) {
        gather_orders(mt, m);
        while (m->q_count > 0 &&
               tempo_lockstep_add_command(m->ls, m->queue[m->q_head], RTS_CMD_SIZE, mt->vt) == TEMPO_OK) {
            m->list_by[m->added_n % LS_SEQ_RING] = list_bound(mt, m);
            m->added_n++;
            m->q_head = (m->q_head + 1) % LS_QUEUE;
            m->q_count--;
        }
    }
    tempo_lockstep_turn t;
    while (tempo_lockstep_next_turn(m->ls, mt->vt, &t) == 1) {
        m->waiting = false;
        for (int p = 0; p < o->players; p++) {
            size_t cursor = 0, size;
            const uint8_t *data;
            while (tempo_lockstep_turn_command(&t, p, &cursor, &data, &size) == 1) {
                if (size != RTS_CMD_SIZE)
                    continue;
                rts_command(&m->game, p, data);
                int32_t full = p == m->index ? own_command_executed(mt, m, rts_command_seq(data), 16) : -1;
                if (full >= 0) { /* an executed turn is final */
                    own_command_final(mt, m, full);
                    own_turn_command_executed(m, full);
                }
            }
        }
        own_lists_executed(m, t.turn);
        rts_step(&m->game, (uint64_t)t.length_ms * 1000u);
        plant_desync(o, m, t.turn);
        uint64_t sum = rts_checksum(&m->game);
        note_turn(m, t.turn, sum, t.length_ms);
        tempo_lockstep_turn_done(m->ls, t.turn, sum, 200);
    }
}

/* ---- the run ------------------------------------------------------------------------ */

static bool reached_goal(const ls_match *mt, const ls_machine *m)
{
    return mt->w->kind == SIM_LS_TURNS ? m->game.elapsed_us >= mt->goal_us : m->exec_hi + 1 >= mt->goal_frames;
}

/* Rollback sessions: every machine confirmed the match's frames (the
 * lockstep object's executed turns are final as they run). */
static bool final_everywhere(const ls_match *mt)
{
    for (int i = 0; i < mt->n; i++)
        if (mt->w->kind != SIM_LS_TURNS && tempo_session_confirmed_frame(mt->m[i]->s) < mt->goal_frames)
            return false;
    return true;
}

static void sample_series(ls_match *mt, sim_ls_result *r, int cap)
{
    if (r->series_n >= cap || !r->series)
        return;
    double ms = LS_TICK_US / 1000.0;
    if (mt->w->kind == SIM_LS_TURNS) {
        tempo_lockstep_stats st;
        if (tempo_lockstep_get_stats(mt->m[0]->ls, &st) == TEMPO_OK)
            ms = st.turn_ms;
    }
    r->series[r->series_n++] = (float)ms;
}

static void run(ls_match *mt, sim_ls_result *r)
{
    uint64_t limit = mt->goal_us * 4u + 60000000u;
    uint64_t sample_us = (uint64_t)(SIM_LS_SERIES_S * 1e6), next_sample = 0;
    int cap = (int)((limit + LS_DRAIN_US) / sample_us) + 2;
    uint64_t drain_end = UINT64_MAX;
    r->series = calloc((size_t)cap, sizeof *r->series);
    for (;;) {
        ls_machine *next = NULL;
        for (int i = 0; i < mt->n; i++)
            if (!next || mt->m[i]->next_vt < next->next_vt)
                next = mt->m[i];
        if (next_sample <= next->next_vt) {
            mt->vt = next_sample;
            sample_series(mt, r, cap);
            next_sample += sample_us;
            continue;
        }
        mt->vt = next->next_vt;
        if (mt->has_relay)
            sim_relay_node_step(&mt->relay, mt->net, mt->vt);
        else
            tempo_simnet_set_time(mt->net, mt->vt);
        if (mt->w->kind == SIM_LS_TURNS)
            turns_tick(mt, next);
        else
            rollback_tick(mt, next);
        next->tick_k++;
        next->next_vt = next->phase_us + (uint64_t)ceil((double)next->tick_k * LS_TICK_US);
        bool all = true;
        for (int i = 0; i < mt->n && all; i++)
            all = reached_goal(mt, mt->m[i]);
        if (all && !r->finished) {
            r->finished = true;
            r->match_s = (double)mt->vt / 1e6;
            drain_end = mt->vt + LS_DRAIN_US;
        }
        if (r->finished && (final_everywhere(mt) || mt->vt >= drain_end))
            break;
        if (mt->vt > limit) {
            snprintf(r->problem, sizeof r->problem, "stuck: not every machine played the match in %.0f s",
                     (double)limit / 1e6);
            break;
        }
    }
    if (!r->finished)
        r->match_s = (double)mt->vt / 1e6;
}

/* Whether the relay dropped machine m (it fell too far behind, or went
 * silent): it then plays on alone and is no longer one of the match. */
static bool dropped_by_relay(const ls_match *mt, const ls_machine *m)
{
    tempo_relay_member_info mi;
    return mt->w->kind == SIM_LS_RELAY && tempo_session_relay_info(m->s, &mi) == TEMPO_OK && !mi.connected;
}

/* Every machine still in the match must hold the same checksum for every
 * turn (frame) all of them made final: executed turns for the lockstep
 * object, confirmed frames for rollback sessions. */
static void check(ls_match *mt, sim_ls_result *r)
{
    int32_t upto = INT32_MAX;
    const ls_machine *ref = NULL;
    for (int i = 0; i < mt->n; i++) {
        const ls_machine *m = mt->m[i];
        if (dropped_by_relay(mt, m)) {
            r->dropped |= 1u << i;
            continue;
        }
        if (!ref)
            ref = m;
        int32_t f = mt->w->kind == SIM_LS_TURNS ? m->done : tempo_session_confirmed_frame(m->s);
        if (f > m->sums_len)
            f = m->sums_len;
        if (f < upto)
            upto = f;
    }
    if (!ref) {
        snprintf(r->problem, sizeof r->problem, "every machine was dropped");
        return;
    }
    for (int i = 0; i < mt->n && r->problem[0] == '\0'; i++)
        if (mt->m[i]->misjudged)
            snprintf(r->problem, sizeof r->problem,
                     "machine %d executed %" PRIu64 " commands it had counted lost", i, mt->m[i]->misjudged);
    r->compared = upto < 0 ? 0 : upto;
    for (int32_t t = 0; t < r->compared && r->problem[0] == '\0'; t++)
        for (int i = 0; i < mt->n; i++)
            if (!(r->dropped & 1u << i) && mt->m[i]->sums[t] != ref->sums[t]) {
                snprintf(r->problem, sizeof r->problem,
                         "machine %d differs from machine %d after turn %" PRId32, i, ref->index, t);
                r->compared = t;
                break;
            }
    r->converged = r->finished && r->problem[0] == '\0' && r->compared > 0;
    if (r->finished && r->compared == 0 && r->problem[0] == '\0')
        snprintf(r->problem, sizeof r->problem, "no turn was final on every machine");
}

/* Whether every machine switched turn length at the same turns, to the
 * same lengths (the lockstep object's history). */
static bool switches_agree(ls_match *mt, int *switches)
{
    int32_t t0[TEMPO_LOCKSTEP_HISTORY], t1[TEMPO_LOCKSTEP_HISTORY];
    uint32_t ms0[TEMPO_LOCKSTEP_HISTORY], ms1[TEMPO_LOCKSTEP_HISTORY];
    int n0 = tempo_lockstep_length_history(mt->m[0]->ls, t0, ms0, TEMPO_LOCKSTEP_HISTORY);
    *switches = n0 > 0 ? n0 - 1 : 0;
    /* a machine that has executed fewer turns may not have applied the last switch yet */
    int32_t upto = INT32_MAX;
    for (int i = 0; i < mt->n; i++)
        if (mt->m[i]->done < upto)
            upto = mt->m[i]->done;
    for (int i = 1; i < mt->n; i++) {
        int n1 = tempo_lockstep_length_history(mt->m[i]->ls, t1, ms1, TEMPO_LOCKSTEP_HISTORY);
        int a = 0, b = 0;
        while (a < n0 && t0[a] >= upto)
            a++;
        for (; a < n0 || b < n1; a++, b++) {
            while (a < n0 && t0[a] >= upto)
                a++;
            while (b < n1 && t1[b] >= upto)
                b++;
            if ((a < n0) != (b < n1))
                return false;
            if (a < n0 && (t0[a] != t1[b] || ms0[a] != ms1[b]))
                return false;
        }
    }
    return true;
}

/* The group's figures: machines in it (the slow one or every other). */
static void measure_group(const ls_match *mt, const sim_ls_result *r, bool slow, sim_ls_group *g)
{
    sim_stat shown = {0}, final = {0};
    for (int i = 0; i < mt->n; i++) {
        const ls_machine *m = mt->m[i];
        if ((i == mt->slow) != slow)
            continue;
        g->machines++;
        g->waits += m->waits;
        g->waits_slow += m->waits_slow;
        sim_stat_merge(&shown, &m->shown);
        sim_stat_merge(&final, &m->final);
        g->lost += m->lost;
    }
    double minutes = r->match_s / 60.0; /* freezes a minute per machine of the group */
    g->waits_per_min = minutes > 0 && g->machines ? (double)g->waits / g->machines / minutes : 0;
    g->shown = shown.n;
    g->finals = final.n;
    g->shown_mean_ms = sim_stat_mean(&shown, 0);
    g->shown_max_ms = shown.max;
    g->final_mean_ms = sim_stat_mean(&final, 0);
    g->final_max_ms = final.max;
}

static void measure(ls_match *mt, sim_ls_result *r)
{
    for (int i = 0; i < mt->n; i++) {
        const ls_machine *m = mt->m[i];
        r->up_kbps[i] = sim_kbps(m->bytes_up, r->match_s);
        r->down_kbps[i] = sim_kbps(m->bytes_down, r->match_s);
    }
    measure_group(mt, r, false, &r->others);
    if (mt->slow >= 0)
        measure_group(mt, r, true, &r->slow_group);
    const ls_machine *m0 = mt->m[0];
    r->turn_min_ms = m0->turns ? m0->turn_min_ms : 0;
    r->turn_max_ms = m0->turn_max_ms;
    r->turn_mean_ms = sim_mean(m0->turn_sum_ms, m0->turns, 0);
    r->switches_agree = true;
    if (mt->w->kind == SIM_LS_TURNS)
        r->switches_agree = switches_agree(mt, &r->switches);
    tempo_lockstep_stats ls;
    if (mt->w->via_relay && tempo_lockstep_get_stats(m0->ls, &ls) == TEMPO_OK) {
        r->lists = (uint64_t)m0->done * (uint64_t)mt->n;
        r->lists_substituted = ls.lists_substituted;
    }
    if (mt->has_relay) {
        tempo_relay_stats rs;
        if (tempo_relay_get_stats(mt->relay.relay, &rs) == TEMPO_OK && r->match_s > 0) {
            r->relay_up_kbps = sim_kbps(rs.bytes_out, r->match_s);
            r->relay_down_kbps = sim_kbps(rs.bytes_in, r->match_s);
        }
    }
}

int sim_ls_run(const sim_options *o, const sim_ls_way *w, sim_ls_result *r)
{
    memset(r, 0, sizeof *r);
    r->way = *w;
    r->machines = o->players;
    ls_match *mt = calloc(1, sizeof *mt);
    if (!mt) {
        fprintf(stderr, "tempo-sim: out of memory\n");
        return SIM_EXIT_USAGE;
    }
    mt->o = o;
    mt->w = w;
    if (!setup(mt)) {
        fprintf(stderr, "tempo-sim: cannot set up the %s match\n", w->label);
        teardown(mt);
        free(mt);
        return SIM_EXIT_USAGE;
    }
    r->slow = mt->slow;
    run(mt, r);
    check(mt, r);
    measure(mt, r);
    teardown(mt);
    free(mt);
    return SIM_EXIT_OK;
}
