/* SPDX-License-Identifier: MIT */
/*
 * sync.c — the rollback engine (see sync.h).
 *
 * One tick's plan, in order: take the checksums the game wrote for the last
 * plan; commit held local inputs; decide how many new frames may run (local
 * inputs, input delay, prediction window); if a real input contradicted a
 * guess, LOAD the newest usable save at or before the first wrong frame and
 * resimulate to the present; then SAVE/ADVANCE the new frames.
 *
 * Saves. Every-frame policy: state f lives in slot f % (max_pred + 2); a
 * rollback never reaches below the confirmed frame, which is at most
 * max_pred behind, so its slot is never overwritten in time. Sparse policy:
 * one slot holds the newest confirmed state; a rollback loads it. So that a
 * resimulation stays short, when that state falls more than max_pred frames
 * behind while newer confirmed frames exist, the engine rolls back on purpose
 * and saves the newest confirmed frame on the way (the rule GGRS uses for its
 * sparse saving mode).
 *
 * External states. The game may replace its state with one from outside (a
 * server's snapshot, a peer's) for a frame F - max_pred..F. The game holds
 * that state when the next plan starts, so the plan needs no LOAD: it SAVEs
 * the state under its frame and resimulates from it to the present, like a
 * rollback of the same depth (the window bounds it as it bounds every
 * rollback). Saved states of later frames are rewritten on the way; from
 * then on no rollback goes below that frame (the load floor): the external
 * state stands for every frame before it, so a correction there resimulates
 * from the floor instead. Inputs and the confirmed frame are untouched.
 *
 * Players attached while running. A slot that is open, or whose player was
 * disconnected, takes a player from a frame A no lower than the confirmed
 * frame: frames before A stay DISCONNECTED (stored as such in the queue), so
 * nothing confirmed or logged changes; frames from A that were simulated are
 * resimulated at the next plan.
 *
 * Desync checksums. The state of a check frame f (f % interval == 0) is final
 * once every frame below f is confirmed and every correction is applied. A
 * SAVE of f planned when f is confirmed is flagged FINAL; a save made earlier,
 * while f was predicted, becomes final when the confirmed frame passes f with
 * no rollback below f (its guesses all proved right).
 */
#include "rollback/sync.h"

#include <string.h>

static int next_pow2(int x)
{
    int p = 1;
    while (p < x)
        p <<= 1;
    return p;
}

int sync_queue_capacity(int max_pred)
{
    /* Half the ring is history kept below the confirmed frame (see
     * discard_old_inputs); the other half holds resimulation from a save up
     * to 2 * max_pred back, inputs that arrive ahead (a remote's prediction
     * and delay), resends of unacknowledged frames, and slack. */
    return 2 * next_pow2(4 * max_pred + 2 * TEMPO_MAX_PREDICTION + 64);
}

static int request_capacity(int max_pred)
{
    int fresh = TEMPO_MAX_PREDICTION + 1;     /* a delay decrease catches up at once */
    int resim = 2 * (max_pred + 1) + fresh;   /* sparse may resimulate past the window */
    return 8 + 2 * resim + 2 * fresh;         /* load, save + advance per frame, trailing saves */
}

tempo_result sync_init(tempo_sync *s, const tempo_config *cfg, int check_distance)
{
    memset(s, 0, sizeof *s);
    s->alloc = cfg->allocator;
    s->log = tempo__logger(cfg->log, cfg->log_ctx, cfg->log_level);
    s->num_players = cfg->num_players;
    s->input_size = cfg->input_size;
    s->max_pred = cfg->max_prediction;
    s->policy = cfg->save_policy;
    s->arena = cfg->arena;
    s->arena_size = cfg->arena ? cfg->arena_size : 0;
    s->start_frame = cfg->start_frame;
    s->frame = cfg->start_frame;
    s->first_incorrect = IQ_NO_FRAME;
    s->external_frame = IQ_NO_FRAME;
    s->load_floor = cfg->start_frame;
    s->sparse_frame = -1;
    s->desync_interval = cfg->desync_interval;
    /* the first check frame after the start (state start_frame is the game's) */
    if (cfg->desync_interval > 0) {
        int64_t first = ((int64_t)cfg->start_frame / cfg->desync_interval + 1) * cfg->desync_interval;
        s->next_check = first < INT32_MAX ? (int32_t)first : INT32_MAX;
    }
    s->check_distance = check_distance;
    s->report.first_mismatch_frame = -1;
    for (int i = 0; i < SYNC_FIRST_RING; i++)
        s->first[i].frame = -1;

    const tempo_allocator *a = &s->alloc;
    int cap = sync_queue_capacity(s->max_pred);
    for (int p = 0; p < s->num_players; p++) {
        if (iq_init(&s->q[p], a, p, s->input_size, cap, cfg->predict, cfg->predict_ctx) != TEMPO_OK)
            goto fail;
        iq_start_at(&s->q[p], s->start_frame);
    }
    if (input_log_init(&s->confirmed_log, a, cfg->input_log_frames, s->num_players, s->input_size,
                       s->start_frame) != TEMPO_OK)
        goto fail;
    s->nslots = s->policy == TEMPO_SAVE_SPARSE ? 2 : s->max_pred + 2;
    s->slots = tempo__calloc(a, (size_t)s->nslots, sizeof *s->slots);
    if (!s->slots)
        goto fail;
    for (int i = 0; i < s->nslots; i++)
        s->slots[i].frame = -1;
    if (s->arena) {
        s->arena_store = tempo__calloc(a, (size_t)s->nslots, s->arena_size);
        if (!s->arena_store)
            goto fail;
    }
    s->req_cap = request_capacity(s->max_pred);
    size_t per = (size_t)s->num_players * (size_t)s->input_size;
    s->reqs = tempo__calloc(a, (size_t)s->req_cap, sizeof *s->reqs);
    s->req_inputs = tempo__calloc(a, (size_t)s->req_cap, per);
    s->req_status = tempo__calloc(a, (size_t)s->req_cap, (size_t)s->num_players);
    s->req_flags = tempo__calloc(a, (size_t)s->req_cap, 1);
    s->req_sums = tempo__calloc(a, (size_t)s->req_cap, sizeof *s->req_sums);
    if (!s->reqs || !s->req_inputs || !s->req_status || !s->req_flags || !s->req_sums)
        goto fail;
    return TEMPO_OK;
fail:
    sync_free(s);
    return TEMPO_E_NO_MEMORY;
}

void sync_free(tempo_sync *s)
{
    const tempo_allocator *a = &s->alloc;
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        iq_free(&s->q[p], a);
    input_log_free(&s->confirmed_log, a);
    tempo__free(a, s->slots);
    tempo__free(a, s->arena_store);
    tempo__free(a, s->reqs);
    tempo__free(a, s->req_inputs);
    tempo__free(a, s->req_status);
    tempo__free(a, s->req_flags);
    tempo__free(a, s->req_sums);
    s->slots = NULL;
    s->arena_store = NULL;
    s->reqs = NULL;
    s->req_inputs = s->req_status = s->req_flags = NULL;
    s->req_sums = NULL;
}

tempo_result sync_set_player(tempo_sync *s, int player, int kind)
{
    if (player < 0 || player >= s->num_players)
        return TEMPO_E_PLAYER;
    if (s->kind[player] != SYNC_NONE)
        return TEMPO_E_ALREADY;
    s->kind[player] = (uint8_t)kind;
    return TEMPO_OK;
}

tempo_result sync_set_delay(tempo_sync *s, int player, int frames)
{
    if (player < 0 || player >= s->num_players || s->kind[player] != SYNC_LOCAL)
        return TEMPO_E_PLAYER;
    int limit = s->max_pred > 0 ? s->max_pred : TEMPO_MAX_PREDICTION;
    if (frames < 0 || frames > limit)
        return TEMPO_E_INVALID_ARG;
    /* The queue adapts by itself: after an increase it is shorter than the
     * delay and fills (sync_take_local); after a decrease it is longer and
     * the extra frames run as soon as the window lets them. */
    s->delay[player] = frames;
    s->wait_extra[player] = false; /* a queue past the new delay runs its frames */
    return TEMPO_OK;
}

void sync_add_local_input(tempo_sync *s, int player, const uint8_t *input)
{
    iq_copy_input(s->sample[player], input, (size_t)s->input_size);
    s->has_sample[player] = true;
}

static void reset_taken(tempo_sync *s)
{
    s->taken_mask = 0;
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        s->taken_frame[p] = TEMPO_FRAME_NONE;
}

void sync_drop_held(tempo_sync *s)
{
    reset_taken(s);
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        s->has_sample[p] = false;
}

static void note_wrong(tempo_sync *s, int32_t frame)
{
    if (frame < s->first_incorrect)
        s->first_incorrect = frame;
}

tempo_result sync_add_remote_input(tempo_sync *s, int player, int32_t frame, const uint8_t *input)
{
    int r = iq_add(&s->q[player], frame, input);
    if (r < 0)
        return (tempo_result)r;
    if (r == IQ_MISPREDICTED) {
        s->stats.mispredicted_frames++;
        note_wrong(s, frame);
    }
    return TEMPO_OK;
}

tempo_result sync_override_input(tempo_sync *s, int player, int32_t frame, const uint8_t *input)
{
    if (frame < s->confirmed_log.end)
        return TEMPO_E_FRAME;
    int r = iq_override(&s->q[player], frame, input);
    if (r < 0)
        return (tempo_result)r;
    if (r == IQ_MISPREDICTED && frame < s->frame)
        note_wrong(s, frame);
    return TEMPO_OK;
}

void sync_disconnect(tempo_sync *s, int player, int32_t frame)
{
    input_queue *q = &s->q[player];
    /* Inputs already real stay real: the confirmed frame never goes back. */
    if (frame < q->known_end)
        frame = q->known_end;
    if (frame < q->base)
        frame = q->base;
    int32_t wrong = iq_disconnect(q, frame, s->frame);
    if (wrong != IQ_NO_FRAME)
        note_wrong(s, wrong);
}

tempo_result sync_open_slot(tempo_sync *s, int player)
{
    tempo_result r = sync_set_player(s, player, SYNC_OPEN);
    if (r == TEMPO_OK)
        iq_disconnect(&s->q[player], s->q[player].base, s->frame);
    return r;
}

int32_t sync_attach_frame(const tempo_sync *s, int player)
{
    int32_t known = s->q[player].known_end;
    return known > s->frame ? known : s->frame;
}

tempo_result sync_attach(tempo_sync *s, int player, int kind, int32_t frame)
{
    if (player < 0 || player >= s->num_players || s->kind[player] == SYNC_NONE)
        return TEMPO_E_PLAYER;
    input_queue *q = &s->q[player];
    if (q->disconnect_frame == IQ_NO_FRAME)
        return TEMPO_E_ALREADY;
    /* Frames below the confirmed frame are final (and may be logged): the
     * player's absence there stays. */
    int32_t confirmed = tempo__min32(sync_confirmed(s), s->frame);
    if (frame < confirmed || frame < q->disconnect_frame || frame < q->base || !iq_holds(q, frame))
        return TEMPO_E_FRAME;
    iq_attach(q, frame);
    s->kind[player] = (uint8_t)kind;
    if (frame < s->frame)
        note_wrong(s, frame); /* simulated as DISCONNECTED: simulate again */
    return TEMPO_OK;
}

tempo_result sync_load_state(tempo_sync *s, int32_t frame, const void *state)
{
    int32_t lowest = tempo__max32(s->start_frame, s->frame - s->max_pred);
    if (frame < lowest || frame > s->frame)
        return TEMPO_E_FRAME;
    if (s->arena)
        memcpy(s->arena, state, s->arena_size);
    s->external_frame = frame;
    s->load_floor = frame;
    return TEMPO_OK;
}

void sync_restart(tempo_sync *s, int32_t frame)
{
    s->start_frame = frame;
    s->frame = frame;
    s->first_incorrect = IQ_NO_FRAME;
    s->external_frame = IQ_NO_FRAME;
    s->load_floor = frame;
    s->sparse_frame = -1;
    for (int i = 0; i < s->nslots; i++)
        s->slots[i].frame = -1;
    if (s->desync_interval > 0) {
        int64_t first = ((int64_t)frame / s->desync_interval + 1) * s->desync_interval;
        s->next_check = first < INT32_MAX ? (int32_t)first : INT32_MAX;
    }
    s->sums_head = s->sums_count = 0;
    s->nreqs = s->next_req = 0;
    for (int p = 0; p < s->num_players; p++) {
        iq_restart_at(&s->q[p], frame);
        if (s->kind[p] == SYNC_OPEN)
            iq_disconnect(&s->q[p], frame, frame);
    }
    sync_drop_held(s);
    input_log_restart(&s->confirmed_log, frame);
}

int32_t sync_confirmed(const tempo_sync *s)
{
    int32_t c = IQ_NO_FRAME;
    for (int p = 0; p < s->num_players; p++) {
        int32_t k = iq_known_end(&s->q[p]);
        if (k < c)
            c = k;
    }
    return c;
}

/* ---- collecting what the game did with the last plan ------------------ */

static void push_sum(tempo_sync *s, int32_t frame, uint64_t sum)
{
    if (s->sums_count == SYNC_SUM_LOG) { /* nobody took them: drop the oldest */
        s->sums_head = (s->sums_head + 1) % SYNC_SUM_LOG;
        s->sums_count--;
        s->checks_skipped++;
    }
    int i = (s->sums_head + s->sums_count) % SYNC_SUM_LOG;
    s->sums[i].frame = frame;
    s->sums[i].checksum = sum;
    s->sums_count++;
}

bool sync_take_checksum(tempo_sync *s, sync_sum *out)
{
    if (s->sums_count == 0)
        return false;
    *out = s->sums[s->sums_head];
    s->sums_head = (s->sums_head + 1) % SYNC_SUM_LOG;
    s->sums_count--;
    return true;
}

static void synctest_compare(tempo_sync *s, int32_t frame, uint64_t sum)
{
    sync_first *f = &s->first[frame % SYNC_FIRST_RING];
    if (f->frame != frame)
        return;
    s->report.checks++;
    if (f->checksum == sum)
        return;
    s->report.mismatches++;
    if (s->report.first_mismatch_frame < 0) {
        s->report.first_mismatch_frame = frame;
        s->report.first_checksum = f->checksum;
        s->report.resim_checksum = sum;
    }
    s->report_new_mismatch = true;
}

static void collect(tempo_sync *s)
{
    for (int i = 0; i < s->nreqs; i++) {
        const tempo_request *r = &s->reqs[i];
        if (r->kind != TEMPO_REQUEST_SAVE)
            continue;
        int flags = s->req_flags[i];
        uint64_t sum = s->req_sums[i];
        sync_slot *sl = &s->slots[r->slot];
        if (sl->frame == r->frame && (flags & SYNC_REQ_NEED_SUM)) {
            sl->checksum = sum;
            sl->has_sum = true;
        }
        if (flags & SYNC_REQ_FINAL)
            push_sum(s, r->frame, sum);
        if (flags & SYNC_REQ_FIRST) {
            s->first[r->frame % SYNC_FIRST_RING].frame = r->frame;
            s->first[r->frame % SYNC_FIRST_RING].checksum = sum;
        }
        if (flags & SYNC_REQ_COMPARE)
            synctest_compare(s, r->frame, sum);
    }
}

void sync_begin(tempo_sync *s)
{
    collect(s);
    s->nreqs = 0;
    s->next_req = 0;
    s->stats.ticks++;
}

/* ---- emitting requests ------------------------------------------------- */

static tempo_request *push_request(tempo_sync *s, tempo_request_kind kind, int32_t frame)
{
    TEMPO_ASSERT(s->nreqs < s->req_cap);
    int i = s->nreqs++;
    tempo_request *r = &s->reqs[i];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->frame = frame;
    s->req_flags[i] = 0;
    s->req_sums[i] = 0;
    return r;
}

void sync_emit_save(tempo_sync *s, int32_t frame, int slot, int flags)
{
    tempo_request *r = push_request(s, TEMPO_REQUEST_SAVE, frame);
    int i = s->nreqs - 1;
    r->slot = slot;
    r->checksum = &s->req_sums[i];
    s->req_flags[i] = (uint8_t)flags;
    s->slots[slot].frame = frame;
    s->slots[slot].has_sum = false;
    s->stats.saves++;
}

void sync_emit_load(tempo_sync *s, int32_t frame, int slot)
{
    TEMPO_ASSERT(s->slots[slot].frame == frame);
    tempo_request *r = push_request(s, TEMPO_REQUEST_LOAD, frame);
    r->slot = slot;
    s->stats.loads++;
}

void sync_emit_advance(tempo_sync *s, int32_t frame, bool resim)
{
    tempo_request *r = push_request(s, TEMPO_REQUEST_ADVANCE, frame);
    int i = s->nreqs - 1;
    size_t per = (size_t)s->num_players * (size_t)s->input_size;
    uint8_t *in = s->req_inputs + (size_t)i * per;
    uint8_t *st = s->req_status + (size_t)i * (size_t)s->num_players;
    for (int p = 0; p < s->num_players; p++)
        st[p] = (uint8_t)iq_get(&s->q[p], frame, in + (size_t)p * (size_t)s->input_size);
    r->inputs = in;
    r->status = st;
    r->resimulating = resim || frame < s->catch_up_end;
}

int sync_next(tempo_sync *s, const tempo_request **out)
{
    while (s->next_req < s->nreqs) {
        int i = s->next_req++;
        const tempo_request *r = &s->reqs[i];
        if (s->arena && r->kind == TEMPO_REQUEST_SAVE) {
            tempo__copy_cold(s->arena_store + (size_t)r->slot * s->arena_size, s->arena, s->arena_size);
            /* Checksums cost as much as the copy: only where someone reads them. */
            if (s->req_flags[i] & SYNC_REQ_NEED_SUM)
                s->req_sums[i] = tempo_checksum(s->arena, s->arena_size);
            continue;
        }
        if (s->arena && r->kind == TEMPO_REQUEST_LOAD) {
            memcpy(s->arena, s->arena_store + (size_t)r->slot * s->arena_size, s->arena_size);
            continue;
        }
        *out = r;
        return 1;
    }
    *out = NULL;
    return 0;
}

/* ---- local inputs ------------------------------------------------------ */

static void take(tempo_sync *s, int p)
{
    input_queue *q = &s->q[p];
    s->taken_frame[p] = q->known_end;
    s->taken_mask |= 1u << p;
    iq_add(q, q->known_end, s->sample[p]);
    s->has_sample[p] = false;
}

/* Decide what happens to each local player's held input, and how many new
 * frames run (at most `room`, what the prediction window leaves). One rule
 * for every tick:
 *   - a tick that runs at least one new frame takes every held input; it
 *     lands on the next free frame of the player's queue;
 *   - a queue shorter than its input delay (the delay grew, or the match
 *     starts) takes the input at once: the tick stalls while it fills;
 *   - a tick that waits for other players (the window is full) takes the
 *     input of a player whose queue reaches no further than its delay, and
 *     sends it: the others may be waiting for exactly that input (in
 *     lockstep without input delay they would otherwise wait forever), and
 *     with a small window it is one frame of lead over a slow link. The
 *     first tick that runs a frame after that wait uses the input taken
 *     then and drops its own, so the wait adds no latency; later waiting
 *     ticks drop theirs;
 *   - a time-sync stall (`stall`) takes nothing.
 * Whatever is not taken is dropped; the tick reports both (taken_mask,
 * taken_frame). A queue longer than its delay because the delay was cut
 * runs its extra frames as soon as the window and the other local players
 * allow, so no input of a cut is ever replaced. Returns the frames to run,
 * or SYNC_NO_LOCAL without local players; *status says why none run. */
int sync_take_local(tempo_sync *s, int64_t room, bool stall, tempo_tick_status *status)
{
    reset_taken(s);
    bool any = false, missing = false, growing = false;
    int64_t avail = INT64_MAX;
    for (int p = 0; p < s->num_players; p++) {
        input_queue *q = &s->q[p];
        if (s->kind[p] != SYNC_LOCAL || q->disconnect_frame != IQ_NO_FRAME)
            continue;
        any = true;
        bool gave = s->has_sample[p];
        if (s->wait_extra[p] && q->known_end - s->frame <= s->delay[p])
            s->wait_extra[p] = false; /* the wait's input was used */
        if (s->wait_extra[p])
            s->has_sample[p] = false; /* the wait's input stands in for it */
        if (!stall && gave && q->known_end - s->frame < s->delay[p])
            take(s, p); /* filling up to the delay */
        int64_t can = (int64_t)q->known_end - s->delay[p] - s->frame + (s->has_sample[p] ? 1 : 0);
        if (can <= 0) {
            if (gave)
                growing = true;
            else
                missing = true;
        }
        if (can < avail)
            avail = can;
    }
    int64_t n = 0;
    if (!any)
        n = SYNC_NO_LOCAL;
    else if (!stall)
        n = avail < room ? avail : room;
    if (n > TEMPO_MAX_PREDICTION + 1 && any)
        n = TEMPO_MAX_PREDICTION + 1;
    if (n < 0)
        n = 0;
    if (any && n > 0)
        for (int p = 0; p < s->num_players; p++)
            if (s->kind[p] == SYNC_LOCAL && s->has_sample[p] &&
                s->q[p].disconnect_frame == IQ_NO_FRAME)
                take(s, p);
    if (n > 0)
        *status = TEMPO_TICK_ADVANCED;
    else if (stall)
        *status = TEMPO_TICK_STALLED;
    else if (missing)
        *status = TEMPO_TICK_NEEDS_INPUT;
    else if (growing)
        *status = TEMPO_TICK_STALLED;
    else
        *status = TEMPO_TICK_WAITING;
    if (*status == TEMPO_TICK_WAITING)
        for (int p = 0; p < s->num_players; p++)
            if (s->kind[p] == SYNC_LOCAL && s->has_sample[p] &&
                s->q[p].disconnect_frame == IQ_NO_FRAME &&
                s->q[p].known_end - s->frame <= s->delay[p]) {
                take(s, p);
                s->wait_extra[p] = true;
            }
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        s->has_sample[p] = false; /* not taken: dropped, and reported so */
    return (int)n;
}

void sync_fill_tick(const tempo_sync *s, tempo_tick *t, tempo_tick_status status, int advanced,
                    int depth, uint32_t waiting)
{
    t->status = status;
    t->requests = s->reqs;
    t->num_requests = s->nreqs;
    t->frames_advanced = advanced;
    t->rollback_depth = depth;
    t->waiting_for = waiting;
    t->frame = s->frame;
    t->inputs_taken = s->taken_mask;
    memcpy(t->input_frame, s->taken_frame, sizeof t->input_frame);
}

/* ---- the confirmed-input log ---------------------------------------------- */

void sync_log_confirmed(tempo_sync *s, int32_t confirmed)
{
    int32_t upto = tempo__min32(confirmed, s->frame);
    size_t size = (size_t)s->input_size;
    while (s->confirmed_log.end < upto) {
        int32_t f = s->confirmed_log.end;
        uint8_t *status;
        uint8_t *in = input_log_begin(&s->confirmed_log, &status);
        for (int p = 0; p < s->num_players; p++, in += size) {
            const input_queue *q = &s->q[p];
            if (f >= q->disconnect_frame) {
                memset(in, 0, size);
                status[p] = TEMPO_INPUT_DISCONNECTED;
                continue;
            }
            /* a confirmed frame is real in every queue (iq_known_input) */
            uint32_t slot = (uint32_t)f & (uint32_t)(q->capacity - 1);
            iq_copy_input(in, q->inputs + slot * size, size);
            status[p] = (q->flags[slot] & IQ_DISCONNECTED) ? TEMPO_INPUT_DISCONNECTED
                                                           : TEMPO_INPUT_CONFIRMED;
        }
        input_log_commit(&s->confirmed_log);
    }
}

/* ---- the plan ------------------------------------------------------------ */

static bool is_check_frame(const tempo_sync *s, int32_t f)
{
    return s->desync_interval > 0 && f > 0 && f % s->desync_interval == 0;
}

static bool is_final_check(const tempo_sync *s, int32_t f, int32_t confirmed)
{
    return is_check_frame(s, f) && f <= confirmed && f >= s->next_check;
}

/* SAVE state f into its slot, asking for the checksum a check frame needs. */
static void save_state(tempo_sync *s, int32_t f, int32_t confirmed)
{
    bool final = is_final_check(s, f, confirmed);
    int flags = (is_check_frame(s, f) ? SYNC_REQ_NEED_SUM : 0) | (final ? SYNC_REQ_FINAL : 0);
    int slot = s->policy == TEMPO_SAVE_SPARSE ? 0 : (int)(f % s->nslots);
    sync_emit_save(s, f, slot, flags);
    if (final)
        s->next_check = f + s->desync_interval;
}

/* Save state f on the way through, if the policy wants it. */
static void maybe_save(tempo_sync *s, int32_t f, int32_t confirmed, int32_t end)
{
    if (s->policy == TEMPO_SAVE_SPARSE) {
        bool newest = f == tempo__min32(confirmed, end);
        if (f <= s->sparse_frame || f > confirmed || !(newest || is_final_check(s, f, confirmed)))
            return;
        s->sparse_frame = f;
    }
    save_state(s, f, confirmed);
}

/* The external state of frame f, which the game holds now, becomes the
 * base of every later rollback (sparse: the state in slot 0 even before f
 * is confirmed; the usual rule takes over once a newer frame is). */
static void save_external(tempo_sync *s, int32_t f, int32_t confirmed)
{
    if (s->policy == TEMPO_SAVE_SPARSE)
        s->sparse_frame = f;
    save_state(s, f, confirmed);
}

/* Check frames saved by earlier plans, while still predicted, that are now
 * final: confirmed, and below `limit`, the first frame this plan saves again. */
static void finalize_checks(tempo_sync *s, int32_t confirmed, int32_t limit)
{
    if (s->desync_interval <= 0)
        return;
    while (s->next_check <= confirmed && s->next_check < limit) {
        int32_t f = s->next_check;
        if (s->policy == TEMPO_SAVE_SPARSE)
            return; /* sparse: a forced resimulation will save it */
        const sync_slot *sl = &s->slots[f % s->nslots];
        if (sl->frame == f && !sl->has_sum)
            return; /* its save is still to be carried out */
        if (sl->frame == f)
            push_sum(s, f, sl->checksum);
        else
            s->checks_skipped++; /* overwritten before it was confirmed */
        s->next_check = f + s->desync_interval;
    }
}

static uint32_t blocking_players(const tempo_sync *s, int32_t confirmed)
{
    uint32_t mask = 0;
    for (int p = 0; p < s->num_players; p++)
        if (s->kind[p] != SYNC_LOCAL && iq_known_end(&s->q[p]) <= confirmed)
            mask |= 1u << p;
    return mask;
}

static void discard_old_inputs(tempo_sync *s, int32_t confirmed)
{
    int32_t floor = tempo__min32(confirmed, s->frame);
    if (s->policy == TEMPO_SAVE_SPARSE)
        floor = tempo__min32(floor, s->sparse_frame);
    /* Keep half the ring as history below what the engine needs. A peer's
     * INPUT is delta-coded against the frame before the oldest it carries,
     * and a peer that has not yet heard our newest acknowledgement (a round
     * trip or more ago, up to the disconnect timeout) starts there; our own
     * unacknowledged inputs, the spectator ring's source and relays of a
     * dropped player's inputs are all within it. It also keeps the real
     * input a guess repeats. */
    floor -= s->q[0].capacity / 2;
    if (floor <= 0)
        return;
    for (int p = 0; p < s->num_players; p++)
        iq_discard_before(&s->q[p], floor);
}

static void count_rollback(tempo_sync *s, int depth, int32_t resim)
{
    s->stats.resim_frames += (uint64_t)resim;
    if (depth <= 0)
        return;
    s->stats.rollbacks++;
    s->stats.rollback_depth_sum += (uint64_t)depth;
    if (depth > s->stats.max_rollback_depth)
        s->stats.max_rollback_depth = depth;
}

tempo_result sync_plan(tempo_sync *s, const sync_plan_opts *o, tempo_tick *t)
{
    sync_begin(s);
    const int32_t F = s->frame;

    /* The window: frames may run up to the confirmed frame of the players
     * whose inputs come from elsewhere, plus max_prediction. Local queues
     * bound themselves (sync_take_local). */
    int32_t C_other = IQ_NO_FRAME;
    for (int p = 0; p < s->num_players; p++)
        if (s->kind[p] != SYNC_LOCAL || s->q[p].disconnect_frame != IQ_NO_FRAME)
            C_other = tempo__min32(C_other, iq_known_end(&s->q[p]));
    int64_t room = C_other == IQ_NO_FRAME ? INT64_MAX : (int64_t)C_other + s->max_pred - F;
    tempo_tick_status status = TEMPO_TICK_ADVANCED;
    int n = sync_take_local(s, room, o->stall, &status);
    if (n == SYNC_NO_LOCAL) {
        int64_t want = o->stall ? 0 : o->frames_wanted > 0 ? o->frames_wanted : 1;
        if (want > TEMPO_MAX_PREDICTION + 1)
            want = TEMPO_MAX_PREDICTION + 1;
        n = (int)(want < room ? want : room > 0 ? room : 0);
        status = n > 0 ? TEMPO_TICK_ADVANCED : o->stall ? TEMPO_TICK_STALLED : TEMPO_TICK_WAITING;
    }
    int32_t C = sync_confirmed(s);
    uint32_t waiting = status == TEMPO_TICK_WAITING ? blocking_players(s, C) : 0;
    const int32_t end = F + n;

    /* Corrections: where to load from, if anywhere. None reaches below the
     * load floor; an external state is resimulated from, without a LOAD (the
     * game holds it). */
    const int32_t ext = s->external_frame;
    int32_t wrong = tempo__max32(s->first_incorrect, s->load_floor);
    if (ext != IQ_NO_FRAME)
        wrong = ext;
    if (wrong >= F)
        wrong = IQ_NO_FRAME;
    int32_t load = ext != IQ_NO_FRAME ? ext : wrong;
    if (s->policy == TEMPO_SAVE_SPARSE && ext == IQ_NO_FRAME) {
        int32_t newest_confirmed = tempo__min32(C, F);
        bool stale = end - s->sparse_frame > s->max_pred;
        bool check_waiting = s->desync_interval > 0 && s->next_check > s->sparse_frame &&
                             s->next_check <= newest_confirmed && s->next_check < F;
        if (wrong != IQ_NO_FRAME ||
            ((stale || check_waiting) && s->sparse_frame >= 0 && s->sparse_frame < newest_confirmed))
            load = s->sparse_frame;
    }

    finalize_checks(s, C, ext != IQ_NO_FRAME ? ext : load != IQ_NO_FRAME ? load + 1 : F);
    int depth = wrong != IQ_NO_FRAME ? F - wrong : 0;
    if (load != IQ_NO_FRAME) {
        if (ext != IQ_NO_FRAME) {
            save_external(s, ext, C);
        } else {
            TEMPO_ASSERT(load >= s->load_floor && load < F);
            int slot = s->policy == TEMPO_SAVE_SPARSE ? 0 : (int)(load % s->nslots);
            sync_emit_load(s, load, slot);
        }
        for (int32_t f = load; f < F; f++) {
            if (f > load)
                maybe_save(s, f, C, end);
            sync_emit_advance(s, f, true);
        }
        count_rollback(s, depth, F - load);
    }
    for (int32_t f = F; f < end; f++) {
        if (f != ext) /* an external state of F is saved above */
            maybe_save(s, f, C, end);
        sync_emit_advance(s, f, false);
    }
    if (s->policy == TEMPO_SAVE_SPARSE)
        maybe_save(s, end, C, end);

    s->first_incorrect = IQ_NO_FRAME;
    s->external_frame = IQ_NO_FRAME;
    s->frame = end;
    s->stats.frames_advanced += (uint64_t)n;
    if (status == TEMPO_TICK_STALLED)
        s->stats.stall_ticks++;
    else if (status == TEMPO_TICK_WAITING)
        s->stats.waiting_ticks++;
    sync_log_confirmed(s, C);
    discard_old_inputs(s, C);
    sync_fill_tick(s, t, status, n, depth, waiting);
    return TEMPO_OK;
}
