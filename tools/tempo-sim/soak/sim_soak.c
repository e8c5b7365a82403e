/* SPDX-License-Identifier: MIT */
/*
 * sim_soak.c — tempo-sim --soak N: N short random matches from a seed, each
 * checked, in virtual time.
 *
 * Scenario i of `--soak N --seed S` has seed S + i: it is drawn from that
 * seed alone (so `--soak 1 --seed S+i` draws it again), written out as a
 * scenario file, read back, and the match read back is the one that runs.
 * A failure therefore prints a file that `tempo-sim --scenario FILE`
 * reproduces exactly.
 *
 * The checks (sim_soak_check, also shown by every scenario run):
 *   - converged: every live peer confirmed the last frame and all agree on
 *     every state; no DESYNC event anywhere;
 *   - no rollback deeper than the prediction window (max_prediction);
 *   - no machine cut off (peers) or left behind (spectators: more than
 *     SOAK_SPECTATOR_LAG frames short of the end, their peer still there)
 *     unless its faults silenced it for the disconnect timeout: a peer that
 *     the others drop for no reason must not pass as a partition;
 *   - after the network healed (the end of the last fault; a drop heals
 *     when the survivors' disconnect timeout has passed), no peer goes more
 *     than SOAK_MAX_WAIT_S without a new frame, and the match reaches its
 *     last frame within SOAK_GRACE_S plus SOAK_SLOWDOWN times what the
 *     remaining frames take in the same match without faults (the
 *     reference run: a small prediction window on a long link is slow by
 *     itself, and that is no fault of the recovery). For the same reason a
 *     match is only given up on as stuck past twice the time the reference
 *     takes (run_checked), not past the run's fixed 4x real time.
 *
 * Draws stay inside what a healthy match must survive: a machine's short
 * faults (hiccups, blackouts) add up to at most 2 s of silence, under the
 * 3 s disconnect timeout. Long faults (3.5-6 s: a blackout of all of a
 * peer's links or of one link between two peers, a peer frozen) cut a peer
 * off (a link: one of its ends or both) and count as drops; drops leave at
 * least two peers. Lockstep always
 * uses the automatic delay (it covers the whole lag), since a fixed small
 * one would only be slow.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_match.h"

#define SOAK_MAX_WAIT_S 2.0   /* longest time a peer may wait for a frame once healed */
#define SOAK_SPECTATOR_LAG 120 /* frames a spectator may end short of the last one */
#define SOAK_SLOWDOWN 2.0     /* after healing: at least half the reference pace... */
#define SOAK_GRACE_S 10.0     /* ...after this long to recover */
#define SOAK_SHORT_SILENCE_MS 2000 /* a machine's hiccups and short blackouts, together */
#define SOAK_LONG_BLACKOUT_MS 3500 /* longer than the 3 s disconnect timeout, with margin */
#define SOAK_REFERENCE_LIMIT 20.0 /* the fault-free reference may take 20x real time (+60 s) */

/* ---- the checks ------------------------------------------------------------------- */

/* Seconds per frame of the match without its faults (start-up included,
 * which only loosens the bound); 1/60 if it cannot be run. */
static double reference_pace(const sim_options *o, const sim_result *r)
{
    if (!o->num_hiccups && !o->num_blackouts && !o->num_drops)
        return r->match_s / o->frames;
    sim_options *calm = malloc(sizeof *calm);
    sim_result *ref = malloc(sizeof *ref);
    double pace = 1.0 / 60.0;
    if (calm && ref) {
        *calm = *o;
        calm->num_hiccups = calm->num_blackouts = calm->num_drops = 0;
        calm->num_hostiles = calm->attack = 0;
        calm->stuck_after_s = o->frames / 60.0 * SOAK_REFERENCE_LIMIT + 60.0;
        if (sim_match_run(calm, ref, NULL, NULL, NULL) == SIM_EXIT_OK && ref->finished)
            pace = ref->match_s / o->frames;
    }
    free(calm);
    free(ref);
    return pace;
}

/* How long machine m's faults may silence it, in microseconds: its hiccups
 * and the blackouts of its links (A-* darkens one of everyone's), added up
 * as if they all overlapped, so that a true partition is never taken for a
 * bug; `longest`: the longest one of them alone. */
static uint64_t silence_us(const sim_options *o, int m, uint64_t *longest)
{
    uint64_t us = 0, one;
    *longest = 0;
    for (int k = 0; k < o->num_hiccups + o->num_blackouts; k++) {
        if (k < o->num_hiccups) {
            one = o->hiccups[k].peer == m ? (uint64_t)o->hiccups[k].ms * 1000u : 0;
        } else {
            const sim_blackout *b = &o->blackouts[k - o->num_hiccups];
            one = b->a == m || b->b == m || b->b < 0 ? b->to_us - b->from_us : 0;
        }
        us += one;
        if (one > *longest)
            *longest = one;
    }
    return us;
}

static uint64_t timeout_us(void)
{
    tempo_config c;
    tempo_config_default(&c);
    return (uint64_t)c.disconnect_timeout_ms * 1000u;
}

static bool may_time_out(const sim_options *o, int m)
{
    uint64_t longest;
    return silence_us(o, m, &longest) >= timeout_us();
}

/* Peers that faults may cut off: one per fault at least as long as the
 * timeout, two for a blackout of one link (each end drops the other, and
 * the news of both drops reaches the rest of the mesh: the library may keep
 * either end or neither), plus one per machine silenced that long only by
 * shorter faults. */
static int explained_cuts(const sim_options *o, int machines)
{
    int n = 0;
    for (int k = 0; k < o->num_hiccups; k++)
        n += (uint64_t)o->hiccups[k].ms * 1000u >= timeout_us();
    for (int k = 0; k < o->num_blackouts; k++)
        if (o->blackouts[k].to_us - o->blackouts[k].from_us >= timeout_us())
            n += o->blackouts[k].b < 0 ? 1 : 2;
    for (int m = 0; m < machines; m++) {
        uint64_t longest;
        n += silence_us(o, m, &longest) >= timeout_us() && longest < timeout_us();
    }
    return n;
}

/* Cut off or left behind without a fault that explains it; false if so. */
static bool check_machines(const sim_options *o, const sim_result *r, char *why, size_t size)
{
    int cut = 0, explained = explained_cuts(o, r->nmach);
    for (int i = 0; i < r->nmach; i++) {
        const sim_peer_result *p = &r->peer[i];
        cut += p->cut_off;
        if (p->cut_off && !may_time_out(o, i)) {
            snprintf(why, size, "peer %d was cut off, but no fault silenced it for the disconnect timeout", i);
            return false;
        }
        if (cut > explained) {
            snprintf(why, size, "%d peers cut off; the faults explain %d", cut, explained);
            return false;
        }
        int host = i >= r->npeers ? o->spectator_host[i - r->npeers] : 0;
        if (i >= r->npeers && !p->dropped && !r->peer[host].dropped && !r->peer[host].cut_off &&
            p->final_frame + SOAK_SPECTATOR_LAG < o->frames && !may_time_out(o, i) && !may_time_out(o, host)) {
            snprintf(why, size, "spectator %d played only %" PRId32 " of %d frames", i - r->npeers,
                     p->final_frame, o->frames);
            return false;
        }
    }
    return true;
}

bool sim_soak_check(const sim_options *o, const sim_result *r, char *why, size_t size)
{
    why[0] = '\0';
    if (sim_security_failed(o, r, why, size))
        return false;
    if (!r->converged) {
        snprintf(why, size, "did not converge: %s", r->problem);
        return false;
    }
    if (r->desyncs) {
        snprintf(why, size, "%" PRIu64 " DESYNC event%s", r->desyncs, r->desyncs == 1 ? "" : "s");
        return false;
    }
    if (!check_machines(o, r, why, size))
        return false;
    for (int i = 0; i < r->npeers; i++) {
        const sim_peer_result *p = &r->peer[i];
        if (p->max_rollback_depth > o->max_prediction) {
            snprintf(why, size, "peer %d rolled back %d frames; the prediction window is %d", i,
                     p->max_rollback_depth, o->max_prediction);
            return false;
        }
        if (p->dropped || p->cut_off)
            continue;
        if (p->longest_wait_s > SOAK_MAX_WAIT_S) {
            snprintf(why, size, "peer %d waited %.2f s for a frame after the network healed (at %.2f s)", i,
                     p->longest_wait_s, r->heal_s);
            return false;
        }
    }
    /* No match runs faster than 60 Hz on a clock 50% fast: a bound from that
     * pace is below the reference's, and often enough. */
    double frames = (double)(o->frames - r->heal_frame);
    if (r->match_s - r->heal_s <= SOAK_SLOWDOWN * frames / 90.0 + SOAK_GRACE_S)
        return true;
    double remaining = frames * reference_pace(o, r);
    double bound = SOAK_SLOWDOWN * (remaining > 0 ? remaining : 0) + SOAK_GRACE_S;
    if (r->match_s - r->heal_s > bound) {
        snprintf(why, size, "the last frame came %.1f s after the network healed (at %.2f s, frame %" PRId32
                 "); bound %.1f s", r->match_s - r->heal_s, r->heal_s, r->heal_frame, bound);
        return false;
    }
    return true;
}

/* ---- drawing a scenario ---------------------------------------------------------------- */

typedef struct rng {
    uint64_t s;
} rng;

/* splitmix64: small, and good enough to draw scenarios. */
static uint64_t next(rng *r) { return sim_next64(&r->s); }

static int below(rng *r, int n) { return (int)(next(r) % (uint64_t)n); }
static int between(rng *r, int lo, int hi) { return lo + below(r, hi - lo + 1); }
static bool chance(rng *r, double p) { return (double)(next(r) >> 11) * 0x1.0p-53 < p; }
/* k / scale for k drawn in lo..hi: values that read back exactly from text. */
static double steps(rng *r, int lo, int hi, double scale) { return between(r, lo, hi) / scale; }

static const char *draw_profile(rng *r)
{
    static const char *const names[] = {"lan", "lan", "broadband", "broadband", "broadband", "continental",
                                        "continental", "continental", "transatlantic", "transatlantic",
                                        "transatlantic", "mobile", "mobile", "terrible"};
    return names[below(r, (int)(sizeof names / sizeof names[0]))];
}

/* A link of its own: from nothing, or a profile with some changes. */
static void draw_custom(rng *r, sim_link_override *l)
{
    memset(&l->params, 0, sizeof l->params);
    l->profile[0] = '\0';
    if (chance(r, 0.5)) {
        snprintf(l->profile, sizeof l->profile, "%s", draw_profile(r));
        tempo_link_profile(l->profile, &l->params);
    } else {
        l->params.latency_us = (uint32_t)between(r, 0, 150) * 1000u;
        l->params.jitter_us = (uint32_t)between(r, 0, 20) * 500u;
    }
    l->custom = true;
    if (chance(r, 0.6))
        l->params.loss = steps(r, 0, 50, 1000.0);
    if (chance(r, 0.4)) { /* bursts of loss */
        l->params.burst_enter = steps(r, 5, 50, 1000.0);
        l->params.burst_exit = steps(r, 10, 50, 100.0);
        l->params.burst_loss = steps(r, 30, 100, 100.0);
    }
    if (chance(r, 0.3)) { /* bursts of jitter */
        l->params.spike_enter = steps(r, 1, 20, 1000.0);
        l->params.spike_exit = steps(r, 10, 50, 100.0);
        l->params.spike_us = (uint32_t)between(r, 10, 150) * 1000u;
    }
    if (chance(r, 0.2))
        l->params.duplicate = steps(r, 0, 20, 1000.0);
    if (chance(r, 0.2)) {
        l->params.reorder = steps(r, 1, 50, 1000.0);
        l->params.reorder_us = (uint32_t)between(r, 1, 20) * 1000u;
    }
    if (chance(r, 0.1))
        l->params.bandwidth_bps = (uint32_t)between(r, 2, 40) * 50000u;
}

static void draw_links(rng *r, sim_options *o, int machines)
{
    for (int a = 0; a < machines; a++)
        if (chance(r, 0.15)) { /* a machine on a worse line, as in the default scenario */
            sim_link_override *l = &o->links[o->num_links++];
            memset(l, 0, sizeof *l);
            l->a = a;
            l->b = -1;
            snprintf(l->profile, sizeof l->profile, "%s", draw_profile(r));
            tempo_link_profile(l->profile, &l->params);
        }
    for (int a = 0; a < machines; a++)
        for (int b = a + 1; b < machines && o->num_links < SIM_MAX_LINKS; b++) {
            bool custom = chance(r, 0.08);
            if (!custom && !chance(r, 0.2))
                continue;
            sim_link_override *l = &o->links[o->num_links++];
            memset(l, 0, sizeof *l);
            l->a = a;
            l->b = b;
            if (custom) {
                draw_custom(r, l);
            } else {
                snprintf(l->profile, sizeof l->profile, "%s", draw_profile(r));
                tempo_link_profile(l->profile, &l->params);
            }
        }
}

/* Hiccups and blackouts; drops and long blackouts leave two peers or more. */
static void draw_faults(rng *r, sim_options *o, int peers, int machines)
{
    int silence_ms[SIM_MAX_MACHINES] = {0};
    bool gone[SIM_MAX_MACHINES] = {false};
    int may_go = peers - 2, seconds = o->frames / 60;
    for (int n = below(r, 4); n > 0; n--) {
        int m = below(r, machines), ms = between(r, 20, 1500);
        bool cut = m < peers && may_go > 0 && !gone[m] && chance(r, 0.05);
        if (cut) { /* frozen past the timeout: the others drop it */
            ms = between(r, SOAK_LONG_BLACKOUT_MS, 6000);
            gone[m] = true;
            may_go--;
        } else if (silence_ms[m] + ms > SOAK_SHORT_SILENCE_MS) {
            continue;
        } else {
            silence_ms[m] += ms;
        }
        o->hiccups[o->num_hiccups++] = (sim_fault){m, between(r, 60, o->frames * 3 / 4), (uint32_t)ms};
    }
    for (int n = below(r, 4); n > 0; n--) {
        sim_blackout *b = &o->blackouts[o->num_blackouts];
        b->a = below(r, machines);
        b->b = chance(r, 0.5) ? -1 : below(r, machines);
        if (b->b == b->a)
            b->b = -1;
        /* Long: all of a peer's links, or one link between two peers (one
         * of its ends is cut off, or both). */
        bool cut = b->a < peers && b->b < peers && may_go >= (b->b < 0 ? 1 : 2) && !gone[b->a] &&
                   (b->b < 0 || !gone[b->b]) && chance(r, 0.25);
        int ms = cut ? between(r, SOAK_LONG_BLACKOUT_MS, 6000) : between(r, 50, 2000);
        bool fits = true;
        if (!cut) /* every machine on a dark link is silent to the other end */
            for (int m = 0; m < machines; m++)
                if ((m == b->a || m == b->b || b->b < 0) && silence_ms[m] + ms > SOAK_SHORT_SILENCE_MS)
                    fits = false;
        if (!fits)
            continue;
        for (int m = 0; m < machines && !cut; m++)
            if (m == b->a || m == b->b || b->b < 0)
                silence_ms[m] += ms;
        if (cut) {
            gone[b->a] = true;
            gone[b->b < 0 ? b->a : b->b] = true;
            may_go -= b->b < 0 ? 1 : 2;
        }
        b->from_us = (uint64_t)between(r, 2000, seconds * 700) * 1000u;
        b->to_us = b->from_us + (uint64_t)ms * 1000u;
        o->num_blackouts++;
    }
    if (chance(r, 0.25)) {
        int m = below(r, machines);
        if (m >= peers || (may_go > 0 && !gone[m])) {
            o->drops[o->num_drops++] = (sim_fault){m, between(r, 120, o->frames * 4 / 5), 0};
            may_go -= m < peers;
        }
    }
}

/* Players, peers and who hosts whom; spectators. */
static void draw_machines(rng *r, sim_options *o)
{
    o->players = between(r, 2, TEMPO_MAX_PLAYERS);
    int peers = between(r, 2, o->players);
    int order[TEMPO_MAX_PLAYERS];
    for (int p = 0; p < o->players; p++)
        order[p] = p;
    for (int p = o->players - 1; p > 0; p--) {
        int k = below(r, p + 1), t = order[p];
        order[p] = order[k];
        order[k] = t;
    }
    o->hosts_set = true;
    for (int k = 0; k < o->players; k++) /* every peer hosts one, then at random */
        o->player_peer[order[k]] = (int8_t)(k < peers ? k : below(r, peers));
    o->spectators = 0;
    if (peers < SIM_MAX_MACHINES && chance(r, 0.3)) {
        o->spectators = between(r, 1, peers + 2 <= SIM_MAX_MACHINES ? 2 : 1);
        for (int k = 0; k < o->spectators; k++)
            o->spectator_host[k] = (int8_t)(chance(r, 0.5) ? 0 : below(r, peers));
    }
}

static void draw(uint64_t seed, int frames, sim_options *o)
{
    rng r = {seed * 0x2545F4914F6CDD1DULL + 1};
    o->seed = seed;
    o->frames = frames ? frames : 60 * between(&r, 20, 60);
    draw_machines(&r, o);
    int peers = sim_match_peers(o), machines = peers + o->spectators;
    o->profile = draw_profile(&r);
    draw_links(&r, o, machines);
    for (int m = 0; m < machines; m++) {
        if (chance(&r, 0.5))
            o->clock_drift_pct[m] = steps(&r, -200, 200, 100.0);
        if (chance(&r, 0.2))
            o->start_skew_ms[m] = (uint32_t)between(&r, 0, 500);
    }
    draw_faults(&r, o, peers, machines);
    int p = below(&r, 10);
    o->max_prediction = p == 0 ? 0 : p < 3 ? between(&r, 2, 7) : p < 9 ? 8 : 16;
    o->input_delay_auto = o->max_prediction == 0 || chance(&r, 0.35);
    if (!o->input_delay_auto)
        o->input_delay = between(&r, 0, o->max_prediction < 3 ? o->max_prediction : 3);
    int t = below(&r, 20);
    o->timesync = t < 14 ? TEMPO_TIMESYNC_INVERSUS : t < 17 ? TEMPO_TIMESYNC_GGPO
                : t < 19 ? TEMPO_TIMESYNC_LEAD : TEMPO_TIMESYNC_NONE;
    if (chance(&r, 0.1))
        o->timesync_window = between(&r, 10, 120);
    if (chance(&r, 0.1))
        o->stall_threshold = steps(&r, 3, 20, 10.0);
    o->save_policy = chance(&r, 0.3) ? TEMPO_SAVE_SPARSE : TEMPO_SAVE_EVERY_FRAME;
    int d = below(&r, 10);
    o->desync_interval = d == 0 ? 0 : d < 3 ? between(&r, 1, 30) : 60;
}

/* ---- the soak ------------------------------------------------------------------------------ */

/* A match the run gave up on as stuck may only be slow by its own
 * settings: a small prediction window with little input delay on a long
 * link runs well under 60 frames a second with no fault at all. The same
 * match without its faults, given SOAK_REFERENCE_LIMIT times real time,
 * says; if it finishes, the match runs again with SOAK_SLOWDOWN times its
 * time plus the grace as the limit, and the checks judge that run. */
#define SOAK_MAX_RECORDED 5 /* failures whose replays are written */

static int run_checked(sim_options *o, sim_result *r)
{
    int rc = sim_match_run(o, r, NULL, NULL, NULL);
    if (rc != SIM_EXIT_OK || r->finished || strncmp(r->problem, "stuck", 5) != 0)
        return rc;
    sim_options *calm = malloc(sizeof *calm);
    sim_result *ref = malloc(sizeof *ref);
    if (calm && ref) {
        *calm = *o;
        calm->num_hiccups = calm->num_blackouts = calm->num_drops = 0;
        calm->num_hostiles = calm->attack = 0;
        calm->stuck_after_s = o->frames / 60.0 * SOAK_REFERENCE_LIMIT + 60.0;
        if (sim_match_run(calm, ref, NULL, NULL, NULL) == SIM_EXIT_OK && ref->finished) {
            o->stuck_after_s = SOAK_SLOWDOWN * ref->match_s + SOAK_GRACE_S + 60.0;
            rc = sim_match_run(o, r, NULL, NULL, NULL);
        }
    }
    free(calm);
    free(ref);
    return rc;
}

/* What every scenario starts from: the settings no directive of the file
 * leaves open are all written, so this only has to be blank. */
static void blank(sim_options *o)
{
    memset(o, 0, sizeof *o);
    o->mode = SIM_MODE_MATCH;
    o->quiet = true;
    o->local_per_peer = 1;
    o->profile = "broadband";
    o->desync_at = -1;
}

/* Draw scenario `seed`, as text, and read it back into *o; false (with the
 * text in *text) if the text does not read back to the same text. */
static bool prepare(uint64_t seed, int frames, int32_t desync_at, sim_options *o, char **text)
{
    sim_options drawn;
    blank(&drawn);
    draw(seed, frames, &drawn);
    drawn.desync_at = desync_at; /* --desync-at: a planted bug, to see the soak catch it */
    size_t len;
    FILE *f = open_memstream(text, &len);
    if (!f)
        return false;
    sim_scenario_write(f, &drawn);
    fclose(f);
    blank(o);
    if (!sim_scenario_parse(*text, "soak scenario", o))
        return false;
    char *again = NULL;
    f = open_memstream(&again, &len);
    if (!f)
        return false;
    sim_scenario_write(f, o);
    fclose(f);
    bool same = strcmp(again, *text) == 0;
    free(again);
    return same;
}

/* A failed scenario is played once more with every peer recording its
 * replay file (soak-seedS-peerN.rep in the current directory), so the
 * match can be replayed and stepped through without the simulator. */
static void record_failure(uint64_t seed, sim_options *o, sim_result *r)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "soak-seed%" PRIu64, seed);
    o->record_prefix = prefix;
    int rc = run_checked(o, r);
    o->record_prefix = NULL;
    if (rc == SIM_EXIT_OK)
        printf("soak: each peer's replay of it: %s-peerN.rep (tempo-arena --replay FILE plays one)\n",
               prefix);
    fflush(stdout);
}

static void print_failure(uint64_t seed, const char *why, const char *text)
{
    printf("\nsoak: FAILED scenario seed %" PRIu64 ": %s\n", seed, why);
    printf("soak: to reproduce, save the lines between the marks as repro.scenario and run\n"
           "      tempo-sim --scenario repro.scenario   (or: tempo-sim --soak 1 --seed %" PRIu64 ")\n", seed);
    printf("----- 8< ----- repro.scenario\n# soak seed %" PRIu64 ": %s\n%s----- >8 -----\n", seed, why, text);
    fflush(stdout);
}

int sim_soak(const sim_options *cli)
{
    sim_options *o = malloc(sizeof *o);
    sim_result *r = malloc(sizeof *r);
    if (!o || !r) {
        free(o);
        free(r);
        fprintf(stderr, "tempo-sim: out of memory\n");
        return SIM_EXIT_USAGE;
    }
    double t0 = sim_wall_seconds(), game_s = 0.0, virtual_s = 0.0, next_note = t0 + 10.0;
    int failures = 0, run = 0;
    char failed[256] = ""; /* the first failures' seeds, for the last line */
    for (; run < cli->soak_count; run++) {
        uint64_t seed = cli->seed + (uint64_t)run;
        char *text = NULL, why[256];
        bool ok = prepare(seed, cli->soak_frames, cli->desync_at, o, &text);
        if (!ok)
            snprintf(why, sizeof why, "the scenario does not read back as written");
        else if (run_checked(o, r) != SIM_EXIT_OK)
            snprintf(why, sizeof why, "the match could not be set up"), ok = false;
        else
            ok = sim_soak_check(o, r, why, sizeof why);
        if (cli->soak_print && text)
            printf("# soak seed %" PRIu64 ": %s\n%s\n", seed, ok ? "passed" : why, text);
        game_s += o->frames / 60.0;
        virtual_s += ok ? r->virtual_s : 0.0;
        if (!ok) {
            failures++;
            size_t len = strlen(failed);
            snprintf(failed + len, sizeof failed - len, " %" PRIu64, seed);
            print_failure(seed, why, text ? text : "");
            if (text && failures <= SOAK_MAX_RECORDED)
                record_failure(seed, o, r);
        }
        free(text);
        if (!cli->quiet && sim_wall_seconds() >= next_note) {
            fprintf(stderr, "soak: %d of %d scenarios, %d failed\n", run + 1, cli->soak_count, failures);
            next_note = sim_wall_seconds() + 10.0;
        }
    }
    double wall = sim_wall_seconds() - t0;
    printf("soak: %d scenarios from seed %" PRIu64 ": %.2f match-hours of game time (%.2f h of virtual "
           "time with start-up and drain) in %.1f s wall (%.0fx real time); %d failure%s\n", run, cli->seed,
           game_s / 3600.0, virtual_s / 3600.0, wall, wall > 0 ? virtual_s / wall : 0.0, failures,
           failures == 1 ? "" : "s");
    if (failures)
        printf("soak: failed seeds:%s%s\n", failed, strlen(failed) >= sizeof failed - 1 ? " ..." : "");
    free(o);
    free(r);
    return failures ? SIM_EXIT_MISMATCH : SIM_EXIT_OK;
}
