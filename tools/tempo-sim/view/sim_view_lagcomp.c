/* SPDX-License-Identifier: MIT */
/*
 * sim_view_lagcomp.c — tempo-sim --compare lagcomp: one shooter, the
 * server's ways of judging its shots, at 50, 100 and 150 ms one way (3 ms
 * of jitter, 1 % loss) and on the `mobile` profile (latency spikes of up
 * to 150 ms, loss in bursts).
 *
 * The client interpolates the bots (adaptive playout) and shoots at a
 * random one every 0.3 to 1 s, aiming where it draws it with 0.3 m of aim
 * error; a shot that hits on its own screen goes to the server carrying
 * the view tick and fraction it drew (tempo_interp_sample) and the
 * client's current interpolation delay (Source's clients send theirs,
 * cl_interp), repeated every frame for 100 ms (loss). A pillar stands in
 * the middle of the field (x 27..33 m): a bot there is in cover and no
 * ray reaches it, on the shooter's screen or on the server. The server
 * judges each shot one of three ways, the hit test the same in all:
 *
 *   no rewind         against the bots as they are when the shot arrives;
 *   no rewind,        the same, but the shooter draws the bots dead
 *     reckoned        reckoned (second order, snap) a round trip ahead of
 *                     its newest snapshot's age, where they will be when
 *                     the shot arrives: the lecture's other answer, predict
 *                     the rest of the world too; it pings the server every
 *                     100 ms for the clock (sim_view.h);
 *   server estimate   rewound to now - its round trip to the client - the
 *                     client's interpolation delay (Source's rule: the
 *                     shooter's picture was a downlink and its
 *                     interpolation old when it fired, the shot an uplink
 *                     old when it arrived; the server's round trip is a
 *                     7/8-smoothed mean of its own pings, every 100 ms);
 *   client's view     rewound to the view tick and fraction the shot
 *                     carries (what the lecture describes: the server uses
 *                     the client's interpolation ratio), capped at 1 s.
 *
 * Counted alike in every row: shots; hits on the shooter's screen; those
 * that reached the server; confirmed; missed hits (reached, hit on screen,
 * not confirmed: the shooter's complaint); false hits (confirmed while
 * the target was, on the server at that moment, already in cover: the
 * target's complaint, "shot around the corner").
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_out.h"
#include "sim_view.h"

#define V_SHOT_RADIUS 0.5          /* m: a bot's hit sphere */
#define V_AIM_SIGMA 0.3            /* m: aim error */
#define V_COVER_X0 27.0            /* the pillar */
#define V_COVER_X1 33.0
#define L_ROWS 16

typedef enum lag_policy { LAG_NONE, LAG_NONE_RECKONED, LAG_ESTIMATE, LAG_CLIENT_VIEW } lag_policy;

static const char *const policy_names[] = {"no rewind", "no rewind, reckoned", "server estimate",
                                           "client's view"};

typedef struct lag_row {
    int one_way_ms;          /* 0: the mobile profile */
    lag_policy policy;
    uint64_t shots, on_screen, arrived, confirmed, false_hits;
    double rewind_error_ms_sum;   /* |view the policy rewound to - view drawn|, over arrived shots */
} lag_row;

typedef struct shot {
    uint32_t id;
    int32_t view_tick;
    uint32_t view_frac;
    uint32_t interp_us;  /* the client's interpolation delay when it fired */
    int target;
    int32_t p0[3], p1[3];
} shot;

typedef struct hit_query {
    const shot *s;
    tempo_hit_sphere *live;
} hit_query;

static void sphere_of(const double p[2], tempo_hit_sphere *s)
{
    s->center[0] = view_q16(p[0]);
    s->center[1] = view_q16(p[1]);
    s->center[2] = 0;
    s->radius = view_q16(V_SHOT_RADIUS);
}

static bool in_cover(const tempo_hit_sphere *s)
{
    double x = s->center[0] / V_UNIT;
    return x >= V_COVER_X0 && x <= V_COVER_X1;
}

/* The one hit test: the ray touches the target, which is not behind the
 * pillar. */
static bool hits(const tempo_hit_sphere *target, const shot *s)
{
    return !in_cover(target) && tempo_hit_sphere_segment(target, s->p0, s->p1);
}

static int hit_test(void *ctx, const uint8_t *who)
{
    hit_query *q = ctx;
    (void)who;
    return hits(&q->live[q->s->target], q->s);
}

/* The client's command: its newest shots (up to 3), oldest first. */
static void send_shots(view_net *n, const shot *recent, int count)
{
    uint8_t out[2 + 3 * sizeof(shot)];
    out[0] = V_MSG_SHOT;
    out[1] = (uint8_t)count;
    memcpy(out + 2, recent, (size_t)count * sizeof(shot));
    n->client.send(n->client.ctx, &n->sa, out, 2 + (size_t)count * sizeof(shot));
}

/* The server's side of one run. */
typedef struct lag_server {
    tempo_lagcomp *lc;
    tempo_hit_sphere live[V_BOTS];
    view_clock clock;        /* its own pings to the client: the round trip */
    uint32_t seen_id;
    int32_t tick;            /* the newest recorded */
} lag_server;

/* Where the policy rewinds to, as a server tick and Q16 fraction; false:
 * test the present. */
static bool rewind_to(const lag_server *sv, lag_policy policy, const shot *s, uint64_t now_us, int32_t *tick,
                      uint32_t *frac)
{
    if (policy == LAG_NONE || policy == LAG_NONE_RECKONED)
        return false;
    if (policy == LAG_CLIENT_VIEW) {
        *tick = s->view_tick;
        *frac = s->view_frac;
        return true;
    }
    double view = (double)now_us - sv->clock.rtt_us - (double)s->interp_us;
    if (view < 0)
        view = 0;
    double tk = view / V_TICK_US;
    *tick = (int32_t)tk;
    *frac = (uint32_t)((tk - *tick) * 65536.0);
    if (*frac > 65535)
        *frac = 65535;
    if (*tick > sv->tick || (*tick == sv->tick && *frac != 0)) { /* not recorded yet: the newest */
        *tick = sv->tick;
        *frac = 0;
    }
    return true;
}

static void judge(lag_server *sv, lag_row *row, const shot *s, uint64_t now_us)
{
    row->arrived++;
    hit_query q = {s, sv->live};
    int32_t tick = 0;
    uint32_t frac = 0;
    int hit = 0;
    if (rewind_to(sv, row->policy, s, now_us, &tick, &frac)) {
        double drawn = ((double)s->view_tick + s->view_frac / 65536.0) * V_TICK_US;
        double used = ((double)tick + frac / 65536.0) * V_TICK_US;
        row->rewind_error_ms_sum += fabs(used - drawn) / 1000.0;
        if (tempo_lagcomp_query(sv->lc, tick, frac, -1, sv->live, sizeof sv->live[0], hit_test, &q, &hit) !=
            TEMPO_OK)
            hit = 0;
    } else {
        hit = hit_test(&q, NULL);
    }
    if (hit) {
        row->confirmed++;
        if (in_cover(&sv->live[s->target]))
            row->false_hits++;
    }
}

static void server_receive(lag_server *sv, view_net *n, lag_row *row, uint64_t t)
{
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    tempo_address from;
    int len;
    while ((len = n->server.recv(n->server.ctx, &from, buf, sizeof buf)) > 0) {
        if (view_clock_pong(&sv->clock, buf, len, t))
            continue;
        if (buf[0] == V_MSG_PING) { /* the client's ping: it wants the round trip too */
            view_answer_ping(&n->server, &n->ca, t, buf, len);
            continue;
        }
        if (buf[0] != V_MSG_SHOT || buf[1] > 3 || len != 2 + buf[1] * (int)sizeof(shot))
            continue;
        for (int k = 0; k < buf[1]; k++) {
            shot s;
            memcpy(&s, buf + 2 + k * sizeof s, sizeof s);
            if (s.id <= sv->seen_id || s.target < 0 || s.target >= V_BOTS)
                continue;
            sv->seen_id = s.id;
            judge(sv, row, &s, t);
        }
    }
}

/* The shooter's dead reckoning (LAG_NONE_RECKONED): every bot, second
 * order, snapped to each update, and the clock its pings measure. */
typedef struct lag_reckon {
    tempo_reckon rk[V_BOTS];
    view_clock clock;
} lag_reckon;

static bool reckon_init(lag_reckon *r)
{
    memset(r, 0, sizeof *r);
    for (int i = 0; i < V_BOTS; i++) {
        tempo_reckon_config rc;
        tempo_reckon_config_default(&rc);
        rc.dims = 2;
        rc.order = 2;
        rc.correction = TEMPO_RECKON_SNAP;
        rc.max_speed = (uint32_t)(V_SPEED * V_UNIT);
        if (tempo_reckon_init(&r->rk[i], &rc) != TEMPO_OK)
            return false;
    }
    return true;
}

/* Where bot i will be when a shot fired now reaches the server: half a
 * round trip past our estimate of the server's now. */
static bool reckon_draw(const lag_reckon *r, int i, uint64_t local_us, double out[2])
{
    int32_t pos[2];
    if (!r->clock.has || tempo_reckon_position(&r->rk[i], local_us + (uint64_t)(r->clock.rtt_us / 2), pos) != TEMPO_OK)
        return false;
    out[0] = pos[0] / V_UNIT;
    out[1] = pos[1] / V_UNIT;
    return true;
}

static bool run_lagcomp(const sim_options *o, lag_row *row)
{
    tempo_link_params link;
    memset(&link, 0, sizeof link);
    link.latency_us = (uint32_t)row->one_way_ms * 1000u;
    link.jitter_us = 3000;
    link.loss = 0.01;
    if (row->one_way_ms == 0)
        tempo_link_profile("mobile", &link);
    view_world w;
    view_net n;
    view_snap *ring = calloc(V_RING, sizeof *ring);
    tempo_interp *ip = NULL;
    bool reckoned = row->policy == LAG_NONE_RECKONED;
    lag_reckon *rk = reckoned ? malloc(sizeof *rk) : NULL;
    lag_server sv;
    memset(&sv, 0, sizeof sv);
    sv.tick = -1;
    bool ok = view_world_init(&w, o->seed, o->frames) && ring && view_net_open(&n, o->seed, &link, &link) &&
              (!reckoned || (rk && reckon_init(rk)));
    tempo_interp_config ic;
    tempo_interp_config_default(&ic);
    ic.tick_us = V_TICK_US;
    ic.capacity = 128;
    ok = ok && tempo_interp_create(&ic, &ip) == TEMPO_OK;
    tempo_lagcomp_config lcc;
    tempo_lagcomp_config_default(&lcc);
    lcc.max_players = V_BOTS;
    lcc.volume_size = sizeof(tempo_hit_sphere);
    lcc.history_ticks = 128;
    lcc.max_rewind_ticks = 60; /* 1 s, Source's cap */
    ok = ok && tempo_lagcomp_create(&lcc, &sv.lc) == TEMPO_OK;
    tempo_rng aim;
    tempo_rng_seed(&aim, o->seed, 91);
    shot recent[3];
    int nrecent = 0;
    uint32_t next_id = 1;
    uint64_t next_tick = 0, next_render = V_RENDER_PHASE_US, next_ping = V_PING_US / 2;
    uint64_t next_shot = 1000000, last_shot_us = 0;
    int32_t tick = 0;
    const int32_t shooter[3] = {view_q16(V_FIELD_W / 2), view_q16(-5.0), 0};
    while (ok && tick <= o->frames) {
        uint64_t t = view_next_time(&n, next_tick, next_render, next_ping);
        server_receive(&sv, &n, row, t);
        uint8_t buf[TEMPO_MAX_DATAGRAM];
        tempo_address from;
        int len;
        uint64_t local = t + V_CLIENT_CLOCK_US;
        while ((len = n.client.recv(n.client.ctx, &from, buf, sizeof buf)) > 0) {
            view_snap s;
            if (buf[0] == V_MSG_PING) { /* the server's ping: its round trip to us */
                view_answer_ping(&n.client, &n.sa, local, buf, len);
            } else if (reckoned && view_clock_pong(&rk->clock, buf, len, local)) {
                continue;
            } else if (view_read_snap(buf, len, &s)) {
                uint32_t evicted;
                if (tempo_interp_push(ip, s.tick, local, (uint32_t)(s.tick % V_RING), &evicted) == TEMPO_OK)
                    ring[s.tick % V_RING] = s;
                if (reckoned)
                    view_reckon_snapshot(rk->rk, &rk->clock, &s, local);
            }
        }
        if (t == next_ping) { /* the server measures its round trip to the client, and it ours */
            view_send_ping(&n.server, &n.ca, t);
            if (reckoned)
                view_send_ping(&n.client, &n.sa, local);
            next_ping += V_PING_US;
        }
        if (t == next_tick) {
            view_server_tick(&w, &n, tick);
            for (int i = 0; i < V_BOTS; i++)
                sphere_of(w.b[i].p, &sv.live[i]);
            tempo_lagcomp_record(sv.lc, tick, sv.live, sizeof sv.live[0], NULL);
            sv.tick = tick++;
            next_tick += V_TICK_US;
        }
        if (t != next_render)
            continue;
        next_render += V_TICK_US;
        tempo_interp_sample smp;
        tempo_interp_sample_at(ip, local, &smp);
        /* commands go every frame while a shot is fresh, as a game's input
         * stream would carry it: a lost one is late by a frame */
        if (nrecent > 0 && t - last_shot_us <= 100000u && t != last_shot_us)
            send_shots(&n, recent, nrecent);
        if (t < next_shot || smp.kind == TEMPO_INTERP_EMPTY)
            continue;
        next_shot = t + 300000 + tempo_rng_below(&aim, 700001);
        shot s;
        memset(&s, 0, sizeof s);
        s.id = next_id++;
        s.view_tick = smp.view_tick;
        s.view_frac = smp.view_frac;
        tempo_interp_stats st;
        tempo_interp_stats_get(ip, &st);
        s.interp_us = st.render_lag_us > 0 ? (uint32_t)st.render_lag_us : 0; /* the delay it draws with */
        s.target = (int)tempo_rng_below(&aim, V_BOTS);
        double drawn[2], aimp[2];
        if (reckoned ? !reckon_draw(rk, s.target, local, drawn) : !view_interp_draw(ring, &smp, s.target, drawn))
            continue;
        aimp[0] = drawn[0] + view_gaussian(&aim) * V_AIM_SIGMA;
        aimp[1] = drawn[1] + view_gaussian(&aim) * V_AIM_SIGMA;
        /* the ray from the shooter through the aim point, 100 m long */
        double dx = aimp[0] - V_FIELD_W / 2, dy = aimp[1] + 5.0, len_m = hypot(dx, dy);
        memcpy(s.p0, shooter, sizeof s.p0);
        s.p1[0] = view_q16(V_FIELD_W / 2 + dx / len_m * 100.0);
        s.p1[1] = view_q16(-5.0 + dy / len_m * 100.0);
        row->shots++;
        tempo_hit_sphere seen;
        sphere_of(drawn, &seen);
        if (!hits(&seen, &s))
            continue; /* a miss on the shooter's own screen: not sent */
        row->on_screen++;
        if (nrecent == 3)
            memmove(recent, recent + 1, 2 * sizeof recent[0]);
        else
            nrecent++;
        recent[nrecent - 1] = s;
        last_shot_us = t;
        send_shots(&n, recent, nrecent);
    }
    tempo_lagcomp_destroy(sv.lc);
    tempo_interp_destroy(ip);
    free(rk);
    free(ring);
    tempo_simnet_destroy(n.net);
    view_world_free(&w);
    return ok;
}

/* What the writer's callbacks read (report/sim_out.h). */
typedef struct lag_out {
    const sim_options *o;
    const lag_row *rows;
    int n;
} lag_out;

static void lag_text(FILE *f, const void *ctx)
{
    const sim_options *o = ((const lag_out *)ctx)->o;
    const lag_row *rows = ((const lag_out *)ctx)->rows;
    int n = ((const lag_out *)ctx)->n;
    fprintf(f, "tempo-sim --compare lagcomp: 8 bots, one shooter interpolating them (adaptive), %d frames, seed "
               "%" PRIu64 ", links one way as listed with 3 ms jitter and 1%% loss, then the mobile profile\n\n",
            o->frames, o->seed);
    static const char *const columns[] = {"link", "server", "shots", "hit on the shooter's screen",
                                          "reached the server", "confirmed", "missed hits", "false hits",
                                          "confirmed share", "rewound off the view (ms, mean)"};
    sim_out_table_head(f, columns, 10);
    for (int k = 0; k < n; k++) {
        const lag_row *r = &rows[k];
        char off[16] = "-";
        if (r->policy != LAG_NONE && r->policy != LAG_NONE_RECKONED)
            snprintf(off, sizeof off, "%.1f", r->arrived ? r->rewind_error_ms_sum / (double)r->arrived : 0.0);
        char link[16] = "mobile";
        if (r->one_way_ms)
            snprintf(link, sizeof link, "%d ms", r->one_way_ms);
        fprintf(f, "| %s | %s | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64
                   " | %.1f %% | %s |\n",
                link, policy_names[r->policy], r->shots, r->on_screen, r->arrived, r->confirmed,
                r->arrived - r->confirmed, r->false_hits, sim_pct(r->confirmed, r->arrived), off);
    }
    fprintf(f, "\nMissed hits: shots that hit on the shooter's screen and reached the server, not confirmed. "
               "False hits: confirmed while the target was, on the server at that moment, already behind the "
               "pillar (x %.0f..%.0f m). No rewind, reckoned: the shooter draws the bots dead reckoned to "
               "where they will be when its shot arrives, the server tests the present. Server estimate: "
               "rewound to now minus the server's round trip to the client minus the client's interpolation "
               "delay (Source's rule); client's view: to the view the shot carries. Rewound off the view: how "
               "far the time rewound to was from the one the shooter drew.\n",
            V_COVER_X0, V_COVER_X1);
}

static void lag_json(sim_json *j, const void *ctx)
{
    const sim_options *o = ((const lag_out *)ctx)->o;
    const lag_row *rows = ((const lag_out *)ctx)->rows;
    int n = ((const lag_out *)ctx)->n;
    sim_json_string(j, "compare", "lagcomp");
    sim_json_int(j, "frames", o->frames);
    sim_json_uint(j, "seed", o->seed);
    sim_json_begin_array(j, "rows");
    for (int k = 0; k < n; k++) {
        const lag_row *r = &rows[k];
        sim_json_begin_object(j, NULL);
        sim_json_int(j, "one_way_ms", r->one_way_ms);
        sim_json_string(j, "server", policy_names[r->policy]);
        sim_json_uint(j, "shots", r->shots);
        sim_json_uint(j, "hit_on_screen", r->on_screen);
        sim_json_uint(j, "reached_server", r->arrived);
        sim_json_uint(j, "confirmed", r->confirmed);
        sim_json_uint(j, "missed_hits", r->arrived - r->confirmed);
        sim_json_uint(j, "false_hits", r->false_hits);
        sim_json_end_object(j);
    }
    sim_json_end_array(j);
}

static bool lag_html(FILE *f, const void *ctx)
{
    const sim_page page = {.title = "tempo-sim --compare lagcomp", .raw_text = true};
    sim_out_page_begin(f, &page, lag_text, ctx);
    sim_out_page_end(f);
    return true;
}

int sim_view_lagcomp(const sim_options *o)
{
    lag_row rows[L_ROWS];
    memset(rows, 0, sizeof rows);
    static const int ms[4] = {50, 100, 150, 0};
    int n = 0;
    for (int i = 0; i < 4; i++)
        for (int p = LAG_NONE; p <= LAG_CLIENT_VIEW; p++, n++) {
            rows[n].one_way_ms = ms[i];
            rows[n].policy = (lag_policy)p;
        }
    for (int k = 0; k < n; k++)
        if (!run_lagcomp(o, &rows[k])) {
            fprintf(stderr, "tempo-sim: out of memory\n");
            return SIM_EXIT_USAGE;
        }
    lag_out c = {o, rows, n};
    sim_out w = {.ctx = &c, .text = lag_text, .json = lag_json, .html = lag_html,
                 .report_unannounced = true, .json_failure_keeps_exit = true};
    return sim_out_write(o, &w);
}
