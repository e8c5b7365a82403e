/* SPDX-License-Identifier: MIT */
/*
 * sim_view.c — tempo-sim --compare interpolation | reckoning: how a client
 * shows what it only hears about, measured from outside against the
 * server's true positions (the world: sim_view_world.c; lagcomp:
 * sim_view_lagcomp.c).
 *
 * The client renders at 60 Hz, out of phase with the server's ticks, and
 * pings every 100 ms. Each row shows the bots its way:
 *
 *   interpolation  tempo_interp with a fixed delay of 2 ticks (tempo's
 *                  default) and of 6 (Source's 100 ms), Pongbat's rule and
 *                  the adaptive rule; drawn = the blend of the two
 *                  snapshots around the render time (past the newest: the
 *                  newest extrapolated by its velocity). Error: against the
 *                  true position at the render time; how far behind the
 *                  server that is, is a column of its own. With no
 *                  --profile: broadband, mobile and transatlantic.
 *   reckoning      tempo_reckon, first and second order, each corrected by
 *                  snap, blend and plan, blend and plan twice: for 16 ms
 *                  (shorter than the 16.7 ms between updates, the lecture's
 *                  rule) and for tempo's 100 ms stretched so a correction
 *                  adds at most 3 m/s. Each update is valid at its tick's
 *                  server time, put on the client's clock with the offset
 *                  its pings measured (view_clock), and reckoned forward by
 *                  its age: the lecture's "extrapolate by the round trip",
 *                  from the update's real age. An adaptive interpolation
 *                  row is measured the same way for reference.
 *
 * Every row is measured alike: what is drawn at each render, against the
 * truth now (the moment of drawing) and against the truth L earlier, L the
 * row's visual latency, the shift that fits its picture best (searched
 * from -50 to 400 ms): the error at equal visual latency, what each row
 * would show if all were delayed to the same latency. Interpolation's
 * table shows its error at the render time, which is that same shape
 * error. A jump is a render-to-render move longer than the bots' top speed
 * allows (with 50 % slack). Everything runs in virtual time from the seed:
 * the same command prints the same table.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_out.h"
#include "sim_view.h"
#include "sim_svg.h"

#define V_MAX_ROWS 16
#define V_PROFILES 3

/* ---- one row ------------------------------------------------------------------- */

typedef enum view_kind { VIEW_INTERP, VIEW_RECKON } view_kind;

typedef struct view_variant {
    view_kind kind;
    tempo_playout_mode playout;
    int fixed_ticks;             /* FIXED */
    int late_percent;            /* ADAPTIVE: 0 = the default */
    int order;
    tempo_reckon_correction correction;
    uint32_t correct_us;         /* BLEND, PLAN */
    bool stretch;                /* a correction adds at most 3 m/s (tempo's bound) */
    const char *profile;
} view_variant;

typedef struct view_row {
    char label[48];
    const char *profile;
    /* error against the reference time: the render time (interpolation) or now */
    sim_stat err;
    double p99;
    double *errs;                  /* every sample, for the 99th percentile */
    /* error against the truth now, and at the row's visual latency */
    sim_stat now;
    double now_p99;
    double *nows;
    double latency_ms, shape_err;
    uint64_t samples, renders, jumps; /* samples: err.n (= now.n), the errs and nows held */
    double delay_sum;              /* server time minus render time, summed over renders */
    double policy_delay_sum;       /* interpolation: the policy's delay_us, summed */
    uint64_t buffer_on;            /* renders with the playout buffer on */
    uint64_t underruns, extrapolated_us;
    float *err_per_s, *delay_per_s; /* chart series, one value a second */
    float *drawn;                  /* every render: V_BOTS x 2 positions */
    double *drawn_t;               /* ... drawn at this server time */
} view_row;

typedef struct view_client {
    view_snap ring[V_RING];
    tempo_interp *ip;
    tempo_reckon rk[V_BOTS];
    view_clock clock;
    double last[V_BOTS][2];
    bool has_last;
} view_client;

/* A rendered frame waiting for the world to pass its time. */
#define V_PENDING 8
typedef struct pending_render {
    double ref_us, now_us;
    double drawn[V_BOTS][2];
} pending_render;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double p99_of(const double *v, uint64_t n)
{
    double *sorted = n ? malloc(n * sizeof *sorted) : NULL;
    if (!sorted)
        return 0;
    memcpy(sorted, v, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_double);
    double p = sorted[(size_t)((double)(n - 1) * 0.99)];
    free(sorted);
    return p;
}

static bool setup_client(const view_variant *v, view_client *c)
{
    if (v->kind == VIEW_INTERP) {
        tempo_interp_config ic;
        tempo_interp_config_default(&ic);
        ic.tick_us = V_TICK_US;
        ic.capacity = 128;
        ic.mode = v->playout;
        if (v->playout == TEMPO_PLAYOUT_FIXED)
            ic.fixed_ticks = v->fixed_ticks;
        if (v->late_percent)
            ic.late_percent = v->late_percent;
        return tempo_interp_create(&ic, &c->ip) == TEMPO_OK;
    }
    for (int i = 0; i < V_BOTS; i++) {
        tempo_reckon_config rc;
        tempo_reckon_config_default(&rc);
        rc.dims = 2;
        rc.order = v->order;
        rc.correction = v->correction;
        rc.correct_us = v->correct_us;
        if (v->stretch) /* a correction may add at most half the bots' top speed */
            rc.max_correct_speed = (uint32_t)(V_SPEED / 2 * V_UNIT);
        rc.max_speed = (uint32_t)(V_SPEED * V_UNIT); /* the bots' top speed */
        if (tempo_reckon_init(&c->rk[i], &rc) != TEMPO_OK)
            return false;
    }
    return true;
}

/* A snapshot arrives at the client (its clock: local_us). */
static void client_snapshot(const view_variant *v, view_client *c, const view_snap *s, uint64_t local_us)
{
    int h = s->tick % V_RING;
    if (v->kind == VIEW_INTERP) {
        uint32_t evicted;
        if (tempo_interp_push(c->ip, s->tick, local_us, (uint32_t)h, &evicted) == TEMPO_OK)
            c->ring[h] = *s;
        return;
    }
    view_reckon_snapshot(c->rk, &c->clock, s, local_us);
}

/* The render: what the client draws at server time t (its clock: t +
 * V_CLIENT_CLOCK_US). False if it has nothing to draw yet. */
static bool client_render(const view_variant *v, view_client *c, view_row *row, uint64_t t, pending_render *p)
{
    uint64_t local = t + V_CLIENT_CLOCK_US;
    p->now_us = (double)t;
    p->ref_us = (double)t;
    if (v->kind == VIEW_INTERP) {
        if (c->clock.has)
            tempo_interp_add_ping(c->ip, (uint32_t)c->clock.rtt_us);
        tempo_interp_sample smp;
        tempo_interp_sample_at(c->ip, local, &smp);
        for (int i = 0; i < V_BOTS; i++)
            if (!view_interp_draw(c->ring, &smp, i, p->drawn[i]))
                return false;
        p->ref_us = (double)smp.render_us;
        tempo_interp_stats st;
        tempo_interp_stats_get(c->ip, &st);
        row->policy_delay_sum += st.delay_us;
        row->buffer_on += v->playout != TEMPO_PLAYOUT_PONGBAT || st.buffer_on;
        return true;
    }
    for (int i = 0; i < V_BOTS; i++) {
        int32_t pos[2];
        if (tempo_reckon_position(&c->rk[i], local, pos) != TEMPO_OK)
            return false;
        p->drawn[i][0] = pos[0] / V_UNIT;
        p->drawn[i][1] = pos[1] / V_UNIT;
    }
    return true;
}

/* A rendered frame whose time the world has passed: measure it. */
static void measure_render(const view_world *w, view_client *c, view_row *row, const pending_render *p,
                           double *sec_err, int *sec_n)
{
    const double render_s = V_TICK_US / 1e6;
    for (int i = 0; i < V_BOTS; i++) {
        double tr[2], tn[2];
        view_truth_at(w, i, p->ref_us, tr);
        view_truth_at(w, i, p->now_us, tn);
        double err = hypot(p->drawn[i][0] - tr[0], p->drawn[i][1] - tr[1]);
        double now = hypot(p->drawn[i][0] - tn[0], p->drawn[i][1] - tn[1]);
        double move = c->has_last ? hypot(p->drawn[i][0] - c->last[i][0], p->drawn[i][1] - c->last[i][1]) : 0.0;
        sim_stat_add(&row->err, err);
        sim_stat_add(&row->now, now);
        row->errs[row->samples] = err;
        row->nows[row->samples] = now;
        row->samples++;
        if (move > V_SPEED * render_s * 1.5 + 0.005)
            row->jumps++;
        *sec_err += err;
        (*sec_n)++;
        c->last[i][0] = p->drawn[i][0];
        c->last[i][1] = p->drawn[i][1];
        row->drawn[row->renders * V_BOTS * 2 + 2 * (size_t)i] = (float)p->drawn[i][0];
        row->drawn[row->renders * V_BOTS * 2 + 2 * (size_t)i + 1] = (float)p->drawn[i][1];
    }
    c->has_last = true;
    row->drawn_t[row->renders] = p->now_us;
    row->renders++;
    row->delay_sum += p->now_us - p->ref_us;
}

/* Mean distance between the picture and the truth lag_us earlier. */
static double error_at_lag(const view_world *w, const view_row *row, double lag_us)
{
    double sum = 0;
    uint64_t n = 0;
    for (uint64_t r = 0; r < row->renders; r++) {
        double at = row->drawn_t[r] - lag_us;
        if (at < 0 || at > (double)(w->ticks - 1) * V_TICK_US)
            continue;
        for (int i = 0; i < V_BOTS; i++) {
            double tr[2];
            view_truth_at(w, i, at, tr);
            sum += hypot(row->drawn[r * V_BOTS * 2 + 2 * (size_t)i] - tr[0],
                         row->drawn[r * V_BOTS * 2 + 2 * (size_t)i + 1] - tr[1]);
            n++;
        }
    }
    return n ? sum / (double)n : INFINITY;
}

/* The row's visual latency: the shift in -50..400 ms (10 ms steps, then
 * 1 ms around the best) at which its picture fits the truth best. */
static void visual_latency(const view_world *w, view_row *row)
{
    double best = -50, best_err = INFINITY;
    for (double ms = -50; ms <= 400; ms += 10) {
        double e = error_at_lag(w, row, ms * 1000.0);
        if (e < best_err)
            best_err = e, best = ms;
    }
    double centre = best;
    for (double ms = centre - 9; ms <= centre + 9; ms += 1) {
        double e = error_at_lag(w, row, ms * 1000.0);
        if (e < best_err)
            best_err = e, best = ms;
    }
    row->latency_ms = best;
    row->shape_err = best_err;
}

static bool row_alloc(view_row *row, int frames)
{
    size_t max_samples = (size_t)(frames + 2) * V_BOTS;
    int seconds = frames / 60 + 2;
    row->errs = calloc(max_samples, sizeof *row->errs);
    row->nows = calloc(max_samples, sizeof *row->nows);
    row->drawn = calloc(max_samples * 2, sizeof *row->drawn);
    row->drawn_t = calloc((size_t)frames + 2, sizeof *row->drawn_t);
    row->err_per_s = calloc((size_t)seconds, sizeof(float));
    row->delay_per_s = calloc((size_t)seconds, sizeof(float));
    return row->errs && row->nows && row->drawn && row->drawn_t && row->err_per_s && row->delay_per_s;
}

static void row_free(view_row *row)
{
    free(row->errs);
    free(row->nows);
    free(row->drawn);
    free(row->drawn_t);
    free(row->err_per_s);
    free(row->delay_per_s);
}

/* One match of `frames` ticks for one variant; false if something could
 * not be set up. */
static bool run_view(const sim_options *o, const view_variant *v, view_row *row)
{
    tempo_link_params link;
    if (tempo_link_profile(v->profile, &link) != TEMPO_OK)
        return false;
    view_world w;
    view_net n;
    view_client *c = calloc(1, sizeof *c);
    bool ok = view_world_init(&w, o->seed, o->frames) && c && view_net_open(&n, o->seed, &link, &link) &&
              setup_client(v, c) && row_alloc(row, o->frames);
    double sec_err = 0, sec_delay = 0;
    int sec_n = 0, sec_renders = 0, sec = 0, npend = 0;
    pending_render pend[V_PENDING];
    uint64_t next_tick = 0, next_render = V_RENDER_PHASE_US, next_ping = 0;
    int32_t tick = 0;
    while (ok && tick <= o->frames) {
        uint64_t t = view_next_time(&n, next_tick, next_render, next_ping);
        uint8_t buf[TEMPO_MAX_DATAGRAM];
        tempo_address from;
        int len;
        while ((len = n.server.recv(n.server.ctx, &from, buf, sizeof buf)) > 0)
            view_answer_ping(&n.server, &n.ca, t, buf, len);
        while ((len = n.client.recv(n.client.ctx, &from, buf, sizeof buf)) > 0) {
            view_snap s;
            if (!view_clock_pong(&c->clock, buf, len, t + V_CLIENT_CLOCK_US) && view_read_snap(buf, len, &s))
                client_snapshot(v, c, &s, t + V_CLIENT_CLOCK_US);
        }
        if (t == next_ping) {
            view_send_ping(&n.client, &n.sa, t + V_CLIENT_CLOCK_US);
            next_ping += V_PING_US;
        }
        if (t == next_tick) {
            view_server_tick(&w, &n, tick++);
            next_tick += V_TICK_US;
        }
        if (t == next_render) {
            next_render += V_TICK_US;
            if (npend < V_PENDING && client_render(v, c, row, t, &pend[npend]))
                npend++;
        }
        /* measured once the world has a tick past the render time */
        while (npend > 0 && pend[0].now_us <= (double)(tick - 1) * V_TICK_US) {
            measure_render(&w, c, row, &pend[0], &sec_err, &sec_n);
            sec_delay += pend[0].now_us - pend[0].ref_us;
            sec_renders++;
            memmove(pend, pend + 1, (size_t)(--npend) * sizeof pend[0]);
        }
        if (t >= (uint64_t)(sec + 1) * 1000000u) {
            row->err_per_s[sec] = sec_n ? (float)(sec_err / sec_n * 100.0) : NAN;
            row->delay_per_s[sec] = sec_renders ? (float)(sec_delay / sec_renders / 1000.0) : NAN;
            sec++;
            sec_err = sec_delay = 0;
            sec_n = sec_renders = 0;
        }
    }
    if (ok && c->ip) {
        tempo_interp_stats st;
        tempo_interp_stats_get(c->ip, &st);
        row->underruns = st.underruns;
        row->extrapolated_us = st.extrapolated_us;
    }
    if (ok && row->samples) {
        row->p99 = p99_of(row->errs, row->samples);
        row->now_p99 = p99_of(row->nows, row->samples);
        visual_latency(&w, row);
    }
    if (c)
        tempo_interp_destroy(c->ip);
    free(c);
    tempo_simnet_destroy(n.net);
    view_world_free(&w);
    return ok;
}

/* ---- the rows ------------------------------------------------------------------ */

/* Interpolation over three profiles unless one was named. */
static int view_profiles(const sim_options *o, const char **out)
{
    if (o->compare == SIM_COMPARE_INTERPOLATION && !o->profile_given) {
        out[0] = "broadband";
        out[1] = "mobile";
        out[2] = "transatlantic";
        return V_PROFILES;
    }
    out[0] = o->profile;
    return 1;
}

static int view_variants(const sim_options *o, view_variant *v, view_row *rows)
{
    int n = 0;
    const char *profiles[V_PROFILES];
    int np = view_profiles(o, profiles);
    if (o->compare == SIM_COMPARE_INTERPOLATION) {
        /* fixed: tempo's default, 2 ticks, and Source's, cl_interp 0.1 s (6 ticks) */
        static const char *const names[5] = {"fixed 2 ticks", "fixed 6 ticks", "pongbat", "adaptive",
                                             "adaptive, 10 % late"};
        static const tempo_playout_mode modes[5] = {TEMPO_PLAYOUT_FIXED, TEMPO_PLAYOUT_FIXED, TEMPO_PLAYOUT_PONGBAT,
                                                    TEMPO_PLAYOUT_ADAPTIVE, TEMPO_PLAYOUT_ADAPTIVE};
        for (int p = 0; p < np; p++)
            for (int m = 0; m < 5; m++, n++) {
                v[n] = (view_variant){.kind = VIEW_INTERP, .profile = profiles[p], .playout = modes[m],
                                      .fixed_ticks = m == 1 ? 6 : 2, .late_percent = m == 4 ? 10 : 0};
                snprintf(rows[n].label, sizeof rows[n].label, "%s", names[m]);
                rows[n].profile = profiles[p];
            }
        return n;
    }
    static const char *const corr[3] = {"snap", "blend", "plan"};
    for (int order = 1; order <= 2; order++)
        for (int c = 0; c < 5; c++, n++) {
            int kind = c == 0 ? 0 : 1 + (c - 1) / 2; /* snap, blend, blend, plan, plan */
            bool lecture = c == 1 || c == 3;
            v[n] = (view_variant){.kind = VIEW_RECKON, .profile = profiles[0], .order = order,
                                  .correction = (tempo_reckon_correction)kind,
                                  .correct_us = lecture ? 16000u : 100000u, .stretch = !lecture};
            if (kind == 0)
                snprintf(rows[n].label, sizeof rows[n].label, "order %d, snap", order);
            else
                snprintf(rows[n].label, sizeof rows[n].label, "order %d, %s %s", order, corr[kind],
                         lecture ? "16 ms" : "100 ms+");
            rows[n].profile = profiles[0];
        }
    v[n] = (view_variant){.kind = VIEW_INTERP, .profile = profiles[0], .playout = TEMPO_PLAYOUT_ADAPTIVE};
    snprintf(rows[n].label, sizeof rows[n].label, "interpolation, adaptive");
    rows[n].profile = profiles[0];
    return n + 1;
}

/* ---- the table, JSON and report ---------------------------------------------- */

static const char *view_name(sim_compare k) { return k == SIM_COMPARE_INTERPOLATION ? "interpolation" : "reckoning"; }

static void print_interp(FILE *f, const view_row *rows, int n, double seconds)
{
    static const char *const columns[] = {"profile", "playout delay", "mean error (cm)", "p99 error (cm)",
                                          "max error (cm)", "jumps/min", "underruns/min", "extrapolating",
                                          "behind the server (ms)", "delay chosen (ms)", "buffer on"};
    sim_out_table_head(f, columns, 11);
    for (int k = 0; k < n; k++) {
        const view_row *r = &rows[k];
        fprintf(f, "| %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f %% | %.1f | %.1f | %.0f %% |\n", r->profile,
                r->label, sim_stat_mean(&r->err, 0.0) * 100, r->p99 * 100, r->err.max * 100,
                sim_per_min(r->jumps, seconds), sim_per_min(r->underruns, seconds),
                seconds > 0 ? (double)r->extrapolated_us / 1e6 / seconds * 100.0 : 0.0,
                sim_mean(r->delay_sum, r->renders, 0.0) / 1000.0, sim_mean(r->policy_delay_sum, r->renders, 0.0) / 1000.0,
                sim_pct(r->buffer_on, r->renders));
    }
    fprintf(f, "\nError: distance between what the client draws and the server's true position at the render "
               "time, over every bot and rendered frame. A jump: a render-to-render move longer than the bots' "
               "top speed allows (with 50%% slack). Behind the server: server time minus render time, the "
               "one-way latency included. Delay chosen: the policy's playout delay, mean over renders. "
               "Buffer on: the share of renders with the playout buffer on (Pongbat's rule switches it off "
               "while the mean ping is 100 ms or more).\n");
}

static void print_reckon(FILE *f, const view_row *rows, int n, double seconds)
{
    static const char *const columns[] = {"reckoning", "mean error now (cm)", "p99 error now (cm)",
                                          "max error now (cm)", "visual latency (ms)",
                                          "mean error at equal visual latency (cm)", "jumps/min"};
    sim_out_table_head(f, columns, 7);
    for (int k = 0; k < n; k++) {
        const view_row *r = &rows[k];
        fprintf(f, "| %s | %.1f | %.1f | %.1f | %.0f | %.1f | %.1f |\n", r->label,
                sim_stat_mean(&r->now, 0.0) * 100, r->now_p99 * 100, r->now.max * 100, r->latency_ms,
                r->shape_err * 100, sim_per_min(r->jumps, seconds));
    }
    fprintf(f, "\nError now: distance between what the client draws and the server's true position at the "
               "moment of drawing, over every bot and rendered frame. Visual latency: the shift L that makes "
               "the picture fit the true path best; error at equal visual latency: against the truth L "
               "earlier, what each row would show if all were delayed alike. Updates are aged by the "
               "client's estimate of the server's clock (its pings). 16 ms: corrections shorter than the "
               "16.7 ms between updates; 100 ms+: 100 ms, longer so a correction adds at most 3 m/s. A jump: "
               "a render-to-render move longer than the bots' top speed allows (with 50%% slack).\n");
}

/* What the writer's callbacks read (report/sim_out.h). */
typedef struct view_out {
    const sim_options *o;
    const view_row *rows;
    int n;
    double seconds;
} view_out;

static void view_text(FILE *f, const void *ctx)
{
    const view_out *c = ctx;
    const sim_options *o = c->o;
    const char *profiles[V_PROFILES];
    int np = view_profiles(o, profiles);
    fprintf(f, "tempo-sim --compare %s: 8 bots (6 m/s, turning every 0.5-2 s), snapshots at 60 Hz, profile%s ",
            view_name(o->compare), np > 1 ? "s" : "");
    for (int p = 0; p < np; p++)
        fprintf(f, "%s%s", p ? ", " : "", profiles[p]);
    fprintf(f, ", %d frames, seed %" PRIu64 "\n\n", o->frames, o->seed);
    if (o->compare == SIM_COMPARE_INTERPOLATION)
        print_interp(f, c->rows, c->n, c->seconds);
    else
        print_reckon(f, c->rows, c->n, c->seconds);
}

static void view_json(sim_json *j, const void *ctx)
{
    const view_out *c = ctx;
    const sim_options *o = c->o;
    double seconds = c->seconds;
    sim_json_string(j, "compare", view_name(o->compare));
    sim_json_int(j, "frames", o->frames);
    sim_json_uint(j, "seed", o->seed);
    sim_json_begin_array(j, "rows");
    for (int k = 0; k < c->n; k++) {
        const view_row *r = &c->rows[k];
        sim_json_begin_object(j, NULL);
        sim_json_string(j, "variant", r->label);
        sim_json_string(j, "profile", r->profile);
        sim_json_double(j, "mean_error_m", sim_stat_mean(&r->err, 0.0));
        sim_json_double(j, "p99_error_m", r->p99);
        sim_json_double(j, "max_error_m", r->err.max);
        sim_json_double(j, "mean_error_now_m", sim_stat_mean(&r->now, 0.0));
        sim_json_double(j, "p99_error_now_m", r->now_p99);
        sim_json_double(j, "visual_latency_ms", r->latency_ms);
        sim_json_double(j, "error_at_equal_latency_m", r->shape_err);
        sim_json_double(j, "jumps_per_min", sim_per_min(r->jumps, seconds));
        sim_json_double(j, "underruns_per_min", sim_per_min(r->underruns, seconds));
        sim_json_double(j, "extrapolating_s", (double)r->extrapolated_us / 1e6);
        sim_json_double(j, "added_delay_ms", sim_mean(r->delay_sum, r->renders, 0.0) / 1000.0);
        sim_json_double(j, "delay_chosen_ms", sim_mean(r->policy_delay_sum, r->renders, 0.0) / 1000.0);
        sim_json_double(j, "buffer_on_share", r->renders ? (double)r->buffer_on / (double)r->renders : 0.0);
        sim_json_end_object(j);
    }
    sim_json_end_array(j);
}

/* The HTML report: the table, then the error (and, for interpolation, the
 * added delay) over time, one line per row. */
static bool view_html(FILE *f, const void *ctx)
{
    const view_out *c = ctx;
    const sim_options *o = c->o;
    const view_row *rows = c->rows;
    int n = c->n;
    double seconds = c->seconds;
    char title[64];
    snprintf(title, sizeof title, "tempo-sim --compare %s", view_name(o->compare));
    const sim_page page = {.title = title, .style = "body{font:14px sans-serif;margin:24px}pre{white-space:pre-wrap}"};
    sim_out_page_begin(f, &page, view_text, ctx);
    int count = (int)seconds;
    for (int chart = 0; count > 1 && chart < (o->compare == SIM_COMPARE_INTERPOLATION ? 2 : 1); chart++) {
        fprintf(f, "<h2>%s, per second</h2>\n<svg viewBox=\"0 0 900 260\" width=\"900\" height=\"260\">\n",
                chart == 0 ? "Mean error (cm)" : "Added delay (ms)");
        sim_svg_plot p = sim_svg_plot_at(f, 60, 10, 820, 200);
        double hi = 0;
        for (int k = 0; k < n; k++)
            for (int s = 0; s < count; s++) {
                float val = chart == 0 ? rows[k].err_per_s[s] : rows[k].delay_per_s[s];
                if (isfinite(val) && val > hi)
                    hi = val;
            }
        sim_svg_set_time(&p, seconds);
        sim_svg_set_y(&p, 0.0, hi, 1.0, 0.0);
        sim_svg_grid(&p, chart == 0 ? "cm" : "ms");
        int *scratch = calloc(4096, sizeof *scratch);
        for (int k = 0; k < n && scratch; k++)
            sim_svg_series(&p, scratch, chart == 0 ? rows[k].err_per_s : rows[k].delay_per_s, count, 1.0, k,
                           false, 0.0, rows[k].label);
        free(scratch);
        sim_svg_axis_x(&p, true, "match time (s)");
        fputs("</svg>\n<p>", f);
        for (int k = 0; k < n; k++) {
            fprintf(f, "<span style=\"color:%s\">&#9632; ", sim_svg_colour(k));
            sim_svg_escape(f, rows[k].profile);
            fputs(", ", f);
            sim_svg_escape(f, rows[k].label);
            fputs("</span> &nbsp; ", f);
        }
        fputs("</p>\n", f);
    }
    sim_out_page_end(f);
    return true;
}

int sim_view_compare(const sim_options *o)
{
    if (o->compare == SIM_COMPARE_LAGCOMP)
        return sim_view_lagcomp(o);
    const char *profiles[V_PROFILES];
    int np = view_profiles(o, profiles);
    for (int p = 0; p < np; p++) {
        tempo_link_params link;
        if (tempo_link_profile(profiles[p], &link) != TEMPO_OK) {
            fprintf(stderr, "tempo-sim: unknown profile %s\n", profiles[p]);
            return SIM_EXIT_USAGE;
        }
    }
    view_variant v[V_MAX_ROWS];
    view_row rows[V_MAX_ROWS];
    memset(rows, 0, sizeof rows);
    int n = view_variants(o, v, rows);
    double seconds = o->frames * (V_TICK_US / 1e6);
    bool ok = true;
    for (int k = 0; k < n && ok; k++)
        ok = run_view(o, &v[k], &rows[k]);
    int code = SIM_EXIT_OK;
    if (ok) {
        view_out c = {o, rows, n, seconds};
        sim_out w = {.ctx = &c, .text = view_text, .json = view_json, .html = view_html,
                     .report_unannounced = true, .json_failure_keeps_exit = true,
                     .report_failure_keeps_exit = true};
        code = sim_out_write(o, &w);
    }
    for (int k = 0; k < n; k++)
        row_free(&rows[k]);
    if (!ok) {
        fprintf(stderr, "tempo-sim: out of memory\n");
        return SIM_EXIT_USAGE;
    }
    return code;
}
