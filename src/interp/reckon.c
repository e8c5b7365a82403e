/* SPDX-License-Identifier: MIT */
/*
 * reckon.c — dead reckoning of one remote entity and its three
 * corrections.
 *
 * Extrapolation is integer arithmetic on int32 components in the game's
 * units (tempo suggests Q16.16 metres): p + v t + a t^2 / 2 with t in
 * microseconds, rounded to nearest (halves up) once, at the end, and
 * saturated to int32, so every machine gets the same position. The t^2 term
 * is split so that no intermediate leaves int64 for any int32 input and
 * t <= 10 s (see extrapolate_axis).
 *
 * Corrections, after the lecture's list (snap, interpolation, planning):
 * SNAP shows the new trajectory at once. BLEND shows, for correct_us, the
 * reckoning continued from what was on screen when the update arrived,
 * blended by elapsed / correct_us into the reckoning from the update; both
 * ends are reckoned the whole time, so the entity neither stops nor jumps.
 * PLAN moves from what was on screen, at one corrected velocity, to the
 * point the new trajectory reaches correct_us later, and follows it from
 * there: position stays continuous, velocity changes twice. With
 * max_correct_speed set, a correction whose error would have to move
 * faster than that takes longer than correct_us, so no correction moves
 * the entity faster than the game allows. Either way the
 * first frame after an update shows exactly what the frame before showed
 * (the correction starts from the shown state), so the only motion is what
 * the velocities and the correction rate allow.
 *
 * The game may replace the extrapolation step with its own physics
 * (collisions with static geometry): the step callback is always asked for
 * the whole span from the state it starts from.
 */
#include <string.h>

#include "base/common.h"
#include "tempo/interp.h"

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* n / d rounded to nearest, halves up; d > 0 */
static int64_t round_div(int64_t n, int64_t d)
{
    return floor_div(n + d / 2, d);
}

static int32_t sat32(int64_t x)
{
    return x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : (int32_t)x;
}

/* p + v t + a t^2 / 2 over t microseconds: (2e6 v t + a t^2) / 2e12.
 * a t = q1 * 1e6 + r1; then the sum is (2 v t + q1 t) / 2e6 + r1 t / 2e12,
 * and the first part is split once more by 2e6 so the remainders add up
 * below 2^44. |v t|, |q1 t| < 2^58 for int32 inputs and t <= 1e7. */
static int64_t displacement(int32_t v, int32_t a, int64_t t, int order)
{
    if (order == 1)
        return round_div((int64_t)v * t, 1000000);
    int64_t q = (int64_t)a * t;
    int64_t q1 = floor_div(q, 1000000), r1 = q - q1 * 1000000;
    int64_t big = 2 * (int64_t)v * t + q1 * t;
    int64_t a1 = floor_div(big, 2000000), a2 = big - a1 * 2000000;
    return a1 + round_div(a2 * 1000000 + r1 * t, 2000000000000LL);
}

tempo_result tempo_reckon_extrapolate(const tempo_kinematic *in, int dims, int order, uint32_t dt_us,
                                      tempo_kinematic *out)
{
    if (!in || !out || dims < 1 || dims > TEMPO_RECKON_MAX_DIMS || order < 1 || order > 2 ||
        dt_us > TEMPO_RECKON_MAX_DT_US)
        return TEMPO_E_INVALID_ARG;
    tempo_kinematic r = *in;
    int64_t t = dt_us;
    for (int i = 0; i < dims; i++) {
        r.p[i] = sat32((int64_t)in->p[i] + displacement(in->v[i], in->a[i], t, order));
        if (order == 2)
            r.v[i] = sat32((int64_t)in->v[i] + round_div((int64_t)in->a[i] * t, 1000000));
    }
    *out = r;
    return TEMPO_OK;
}

void tempo_reckon_config_default(tempo_reckon_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->dims = 2;
    cfg->order = 2;
    cfg->correction = TEMPO_RECKON_BLEND;
    cfg->correct_us = 100000;
}

tempo_result tempo_reckon_init(tempo_reckon *e, const tempo_reckon_config *cfg)
{
    if (!e || !cfg)
        return TEMPO_E_INVALID_ARG;
    memset(e, 0, sizeof *e);
    if (cfg->dims < 1 || cfg->dims > TEMPO_RECKON_MAX_DIMS || cfg->order < 1 || cfg->order > 2 ||
        (cfg->correction != TEMPO_RECKON_SNAP && cfg->correction != TEMPO_RECKON_BLEND &&
         cfg->correction != TEMPO_RECKON_PLAN) ||
        cfg->correct_us < 1 || cfg->correct_us > TEMPO_RECKON_MAX_DT_US)
        return TEMPO_E_INVALID_ARG;
    e->cfg = *cfg;
    return TEMPO_OK;
}

/* k, valid at t0, carried to now (spans clamped to [0, MAX]). */
static void carry(const tempo_reckon *e, const tempo_kinematic *k, uint64_t t0, uint64_t now,
                  tempo_kinematic *out)
{
    uint64_t span = now > t0 ? now - t0 : 0;
    if (span > TEMPO_RECKON_MAX_DT_US)
        span = TEMPO_RECKON_MAX_DT_US;
    if (e->cfg.step) {
        e->cfg.step(e->cfg.step_ctx, k, e->cfg.dims, (uint32_t)span, out);
        return;
    }
    tempo_reckon_extrapolate(k, e->cfg.dims, e->cfg.order, (uint32_t)span, out);
}

static int32_t lerp32(int32_t a, int32_t b, int64_t num, int64_t den)
{
    return sat32((int64_t)a + round_div(((int64_t)b - a) * num, den));
}

/* What is shown at now: position, and the velocity and acceleration a new
 * correction continues from. */
static void shown_at(const tempo_reckon *e, uint64_t now, tempo_kinematic *out)
{
    if (now < e->state_us)
        now = e->state_us;
    tempo_kinematic b;
    carry(e, &e->state, e->state_us, now, &b);
    uint64_t T = e->span_us;
    if (!e->correcting || now >= e->start_us + T) {
        *out = b;
        return;
    }
    int64_t s = now > e->start_us ? (int64_t)(now - e->start_us) : 0;
    memset(out, 0, sizeof *out);
    if (e->cfg.correction == TEMPO_RECKON_BLEND) {
        tempo_kinematic a;
        carry(e, &e->from, e->start_us, now, &a);
        for (int i = 0; i < e->cfg.dims; i++) {
            out->p[i] = lerp32(a.p[i], b.p[i], s, (int64_t)T);
            out->v[i] = lerp32(a.v[i], b.v[i], s, (int64_t)T);
            out->a[i] = lerp32(a.a[i], b.a[i], s, (int64_t)T);
        }
    } else {
        for (int i = 0; i < e->cfg.dims; i++) {
            out->p[i] = lerp32(e->from.p[i], e->plan_to[i], s, (int64_t)T);
            out->v[i] = sat32(round_div(((int64_t)e->plan_to[i] - e->from.p[i]) * 1000000, (int64_t)T));
        }
    }
}

/* How long the correction from `shown` to the new trajectory takes:
 * correct_us, or longer if the largest axis of the error over it would
 * move faster than max_correct_speed. */
static uint32_t correction_span(const tempo_reckon *e, const tempo_kinematic *shown, uint64_t now)
{
    uint64_t span = e->cfg.correct_us;
    if (e->cfg.max_correct_speed == 0)
        return (uint32_t)span;
    tempo_kinematic target;
    carry(e, &e->state, e->state_us, now, &target);
    int64_t worst = 0;
    for (int i = 0; i < e->cfg.dims; i++) {
        int64_t d = (int64_t)target.p[i] - shown->p[i];
        d = d < 0 ? -d : d;
        worst = d > worst ? d : worst;
    }
    /* worst / speed seconds, rounded up, in microseconds */
    uint64_t need = (uint64_t)((worst * 1000000 + e->cfg.max_correct_speed - 1) / e->cfg.max_correct_speed);
    /* BLEND keeps reckoning the old trajectory while it blends: over a long
     * span that one drifts ever further, so its stretch stops at 3x. */
    uint64_t cap = e->cfg.correction == TEMPO_RECKON_BLEND ? 3 * span : TEMPO_RECKON_MAX_DT_US;
    if (need > span)
        span = need;
    if (span > cap)
        span = cap;
    return (uint32_t)(span > TEMPO_RECKON_MAX_DT_US ? TEMPO_RECKON_MAX_DT_US : span);
}

tempo_result tempo_reckon_update(tempo_reckon *e, const tempo_kinematic *state, uint64_t state_us,
                                 uint64_t now_us)
{
    if (!e || !state || state_us > now_us || now_us - state_us > TEMPO_RECKON_MAX_DT_US ||
        now_us > UINT64_MAX / 2)
        return TEMPO_E_INVALID_ARG;
    if (e->has_state && now_us < e->start_us)
        return TEMPO_E_INVALID_ARG;
    e->updates++;
    if (!e->has_state || e->cfg.correction == TEMPO_RECKON_SNAP) {
        e->has_state = 1;
        e->state = *state;
        e->state_us = state_us;
        e->correcting = 0;
        e->start_us = now_us;
        return TEMPO_OK;
    }
    tempo_kinematic shown;
    shown_at(e, now_us, &shown);
    e->from = shown;
    e->start_us = now_us;
    e->state = *state;
    e->state_us = state_us;
    e->correcting = 1;
    e->corrections_done++;
    e->span_us = correction_span(e, &shown, now_us);
    if (e->cfg.correction == TEMPO_RECKON_PLAN) {
        tempo_kinematic to;
        carry(e, &e->state, state_us, now_us + e->span_us, &to);
        memcpy(e->plan_to, to.p, sizeof e->plan_to);
    }
    return TEMPO_OK;
}

tempo_result tempo_reckon_position(const tempo_reckon *e, uint64_t now_us, int32_t *out)
{
    if (!e || !out)
        return TEMPO_E_INVALID_ARG;
    if (!e->has_state)
        return TEMPO_E_STATE;
    tempo_kinematic k;
    shown_at(e, now_us, &k);
    memcpy(out, k.p, (size_t)e->cfg.dims * sizeof *out);
    return TEMPO_OK;
}
