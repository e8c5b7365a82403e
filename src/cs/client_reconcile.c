/* SPDX-License-Identifier: MIT */
/*
 * client_reconcile.c — the client's plan of each tick (tempo_client_advance):
 * put a new snapshot in place, replay what the server has not seen, step
 * the new tick with the local input at once.
 *
 * The start: the first snapshot (tick T) places the client at T + RTT +
 * margin ticks: T is already half a round trip old when it arrives, and
 * an input must travel the other half and arrive `margin` ticks before
 * the server runs its tick. The ticks from T to there are stepped at once
 * (zeros for the local players, kept and sent like any input).
 *
 * Each later snapshot (tick T, the state after ADVANCE(T - 1)), by mode:
 *   REPLAY  put the state in place as the state of T (a LOAD, or a copy
 *           into the arena), then ADVANCE T .. frame - 1 again with the
 *           local inputs kept for them, flagged resimulating: the server
 *           has not run those ticks yet, so the prediction carries on from
 *           the truth (the move replay of Gambetta's client-side
 *           prediction and of the Source engine's user commands);
 *   NONE    put the state in place and step on from it: the local player
 *           jumps back by the inputs the server has not seen;
 *   DUMB    put the state in place and never step: the game shows what
 *           the server sent.
 * Other players' inputs, in prediction and replay, are the newest the
 * server reported, PREDICTED (DISCONNECTED for an empty slot); the local
 * players' are their own, CONFIRMED.
 *
 * Corrections (arena mode): before each tick the arena holds the state
 * of `frame`, which is copied aside by tick; when the snapshot of T comes,
 * the copy of T — what this client predicted T to be — is measured
 * against the server's T (the game's correction function, or the count of
 * bytes that differ). Only a difference counts.
 *
 * A forward jump of tick sync steps the ticks it skips with zeros for the
 * local players, like the first ticks: no input was given for them. A
 * tick that stalls steps nothing and keeps the local input given for it
 * for the next tick stepped (unless the game replaces it).
 *
 * The lead never reaches input_history ticks past the newest snapshot:
 * there the client stalls (a tick with no step), as it does for a tick
 * sync snap back.
 */
#include <string.h>

#include "cs/client_impl.h"

static bool own(const tempo_client *c, int p)
{
    return p >= c->first_slot && p < c->first_slot + c->num_slots;
}

/* Keep the local players' input of tick t (from c->local). */
static void keep(tempo_client *c, int32_t t)
{
    const int is = c->cfg.input_size;
    const size_t per = (size_t)c->num_slots * (size_t)is;
    int i = (int)(t % c->cfg.input_history);
    c->kept_tick[i] = t;
    for (int p = 0, j = 0; p < c->cfg.num_players; p++)
        if (own(c, p)) {
            memcpy(c->kept + (size_t)i * per + (size_t)j * (size_t)is,
                   c->local + (size_t)p * (size_t)is, (size_t)is);
            j++;
        }
}

/* The plan's next request, cleared: `kind` of tick t, no save slot. */
static tempo_request *next_request(tempo_client *c, int *n, tempo_request_kind kind, int32_t t)
{
    tempo_request *r = &c->req[(*n)++];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->frame = t;
    r->slot = -1;
    return r;
}

/* Append ADVANCE(t): kept local inputs, the others as reported. */
static void plan_advance(tempo_client *c, int *n, int32_t t, bool resim)
{
    if (*n >= c->req_cap)
        return;
    const int np = c->cfg.num_players, is = c->cfg.input_size;
    const size_t per = (size_t)c->num_slots * (size_t)is;
    uint8_t *in = c->req_inputs + (size_t)*n * (size_t)np * (size_t)is;
    uint8_t *stt = c->req_status + (size_t)*n * (size_t)np;
    int i = (int)(t % c->cfg.input_history);
    bool have = c->kept_tick[i] == t;
    for (int p = 0, j = 0; p < np; p++) {
        uint8_t *dst = in + (size_t)p * (size_t)is;
        if (own(c, p)) {
            if (have)
                memcpy(dst, c->kept + (size_t)i * per + (size_t)j * (size_t)is, (size_t)is);
            else
                memset(dst, 0, (size_t)is);
            stt[p] = TEMPO_INPUT_CONFIRMED;
            j++;
        } else {
            memcpy(dst, c->reported + (size_t)p * (size_t)is, (size_t)is);
            stt[p] = c->reported_status[p];
        }
    }
    tempo_request *r = next_request(c, n, TEMPO_REQUEST_ADVANCE, t);
    r->inputs = in;
    r->status = stt;
    r->resimulating = resim;
}

/* The game state of the snapshot of tick t (its block after the players'
 * inputs) and its size, or NULL. */
static const uint8_t *snapshot_state(const tempo_client *c, int32_t t, size_t *size)
{
    size_t block = 0;
    const uint8_t *b = cs_history_get(&c->states, t, &block);
    if (b == NULL || block <= c->players_size)
        return NULL;
    *size = block - c->players_size;
    return b + c->players_size;
}

/* Put the state of tick t in place: into the arena, or a LOAD. */
static void plan_load(tempo_client *c, int *n, int32_t t)
{
    size_t size = 0;
    const uint8_t *state = snapshot_state(c, t, &size);
    if (state == NULL)
        return;
    if (c->cfg.arena != NULL) {
        memcpy(c->cfg.arena, state, size < c->cfg.arena_size ? size : c->cfg.arena_size);
        return;
    }
    tempo_request *r = next_request(c, n, TEMPO_REQUEST_LOAD, t);
    r->state = state;
    r->state_size = size;
}

/* Arena mode: how far the server's state of t is from our prediction of it. */
static void measure(tempo_client *c, int32_t t)
{
    const int h = c->cfg.input_history;
    if (c->cfg.arena == NULL || c->pred_tick[t % h] != t)
        return;
    size_t size = 0;
    const uint8_t *state = snapshot_state(c, t, &size);
    if (state == NULL || size != c->cfg.arena_size)
        return;
    const uint8_t *pred = c->pred + (size_t)(t % h) * c->cfg.arena_size;
    if (memcmp(pred, state, size) == 0)
        return;
    double d;
    if (c->cfg.correction != NULL) {
        d = c->cfg.correction(c->cfg.correction_ctx, pred, state, size);
    } else {
        d = 0;
        for (size_t i = 0; i < size; i++)
            d += pred[i] != state[i];
    }
    c->st.corrections++;
    c->st.correction_sum += d;
    c->st.correction_last = d;
    if (d > c->st.correction_max)
        c->st.correction_max = d;
}

/* Ticks from a snapshot's tick to where the client should run: the round
 * trip and the margin, at most input_history - 2. */
static int lead_ticks(const tempo_client *c)
{
    double ahead = (double)link_rtt_us(&c->ch.link) / (double)c->tick_us + cs_ticksync_margin(&c->ts);
    int lead = (int)ahead + 1;
    return lead > c->cfg.input_history - 2 ? c->cfg.input_history - 2 : lead;
}

static void feed_ticksync(tempo_client *c)
{
    const net_link *l = &c->ch.link;
    double lo = link_loss_out(l), li = link_loss_in(l);
    cs_ticksync_on_link(&c->ts, (double)link_rtt_us(l) / 1000.0, (double)link_jitter_us(l) / 1000.0,
                        lo > li ? lo : li);
}

static void plan(tempo_client *c, tempo_client_tick *tick)
{
    memset(tick, 0, sizeof *tick);
    tick->state = c->state;
    tick->requests = c->req;
    tick->frame = c->frame;
    if (c->state != TEMPO_CLIENT_CONNECTED || (!c->started && c->newest < 0))
        return;
    const int h = c->cfg.input_history;
    const tempo_reconcile_mode mode = c->cfg.reconcile;
    int n = 0;
    feed_ticksync(c);

    if (!c->started) {
        const int32_t t0 = c->newest;
        const int lead = lead_ticks(c);
        c->started = true;
        c->applied = t0;
        plan_load(c, &n, t0);
        for (int32_t t = t0; t < t0 + lead; t++) { /* zeros: no input given for these */
            if (mode != TEMPO_RECONCILE_DUMB) {
                plan_advance(c, &n, t, false);
                tick->frames_advanced++;
            }
        }
        c->frame = t0 + lead;
        c->first_tick = c->frame;
        c->report_from = c->frame;
        tick->corrected = true;
    } else {
        if (c->cfg.arena != NULL && mode != TEMPO_RECONCILE_DUMB) {
            memcpy(c->pred + (size_t)(c->frame % h) * c->cfg.arena_size, c->cfg.arena,
                   c->cfg.arena_size);
            c->pred_tick[c->frame % h] = c->frame;
        }
        if (c->newest > c->applied) {
            const int32_t t = c->newest;
            if (mode != TEMPO_RECONCILE_DUMB)
                measure(c, t);
            plan_load(c, &n, t);
            if (t > c->frame) {
                /* the server passed us (a hitch of ours): jump back to the
                 * lead we kept before, and start tick sync afresh on
                 * reports of inputs sent after the jump (the late ones
                 * still on their way describe what the jump corrected) */
                int32_t to = t + (c->gap > 0 ? c->gap : lead_ticks(c));
                int k = (int)(to - c->frame);
                const cs_ticksync_config tc = c->ts.cfg;
                cs_ticksync_init(&c->ts, &tc);
                c->report_from = to;
                tempo_client_event ev = {TEMPO_CLIENT_EVENT_SNAP, 0, k, -1, 0};
                cs_client_push_event(c, &ev);
                c->st.snaps++;
                for (int32_t f = t; f < to; f++) /* zeros: the player gave none */
                    c->kept_tick[f % h] = -1;
                c->frame = to;
            }
            if (mode == TEMPO_RECONCILE_REPLAY) {
                int32_t from = t < c->frame - h ? c->frame - h : t;
                for (int32_t f = from; f < c->frame; f++)
                    plan_advance(c, &n, f, true);
                tick->resimulated = (int)(c->frame - from);
                c->st.resim_frames += (uint64_t)tick->resimulated;
            }
            c->applied = t;
            tick->corrected = true;
        }
        int k = cs_ticksync_update(&c->ts);
        if (k != 0) {
            if (k > CS_CLIENT_MAX_JUMP)
                k = CS_CLIENT_MAX_JUMP;
            tempo_client_event ev = {TEMPO_CLIENT_EVENT_SNAP, 0, k, -1, 0};
            cs_client_push_event(c, &ev);
            c->st.snaps++;
            if (k < 0) {
                c->stall_left += -k;
            } else {
                /* no input was given for the ticks it skips: zeros, as
                 * for the first ticks (the coming tick's input is its own) */
                for (int j = 0; j < k && c->frame - c->applied < h - 2; j++) {
                    c->kept_tick[c->frame % h] = -1;
                    if (mode != TEMPO_RECONCILE_DUMB) {
                        plan_advance(c, &n, c->frame, false);
                        tick->frames_advanced++;
                    }
                    c->frame++;
                }
            }
        }
    }

    if (!tick->corrected || tick->resimulated > 0)
        c->gap = c->frame - c->applied; /* the lead over the newest snapshot, kept for a jump */

    /* the new tick; a stalled one keeps the local input for the next */
    if (c->stall_left > 0) {
        c->stall_left--;
        c->st.stall_ticks++;
    } else if (c->frame - c->applied >= h - 1) {
        c->st.stall_ticks++;
    } else {
        keep(c, c->frame);
        if (mode != TEMPO_RECONCILE_DUMB) {
            plan_advance(c, &n, c->frame, false);
            tick->frames_advanced++;
        }
        c->frame++;
        memset(c->local, 0, (size_t)c->cfg.num_players * (size_t)c->cfg.input_size);
    }
    tick->num_requests = n;
    tick->frame = c->frame;
    cs_client_send_inputs(c);
}

tempo_result tempo_client_advance(tempo_client *c, tempo_client_tick *tick)
{
    if (c == NULL || tick == NULL)
        return TEMPO_E_INVALID_ARG;
    plan(c, tick);
    cs_client_schedule(c);
    (void)tempo_transport_flush(&c->tr); /* the tick's inputs leave */
    return TEMPO_OK;
}
