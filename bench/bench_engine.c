/* SPDX-License-Identifier: MIT */
/*
 * bench_engine.c — the rollback engine's own cost, excluding game code.
 *
 * 1. Overhead per frame with 2, 4 and 8 players: steady state (remote inputs
 *    known in time, no rollback) and with a rollback of 8 frames every frame
 *    (each tick a late input contradicts the guess made 8 frames ago). The
 *    game step is empty; SAVE writes a checksum.
 * 2. Arena mode with a 1 MiB state: tempo's save (memcpy into its ring) and
 *    save + XXH3 checksum, against a plain memcpy of 1 MiB in the same run;
 *    checksum throughput.
 * 1b. The worst tick of a prediction window of 8..24 frames: a rollback of
 *    the whole window every tick, engine alone and with a game step.
 * 3. Save policy trade-off: every-frame vs sparse saving of a 1 MiB arena,
 *    remote input 3 frames late and mispredicted on 1 frame in 10, with a
 *    game step that costs about as much as reading 64 KiB.
 * Medians over repeated runs. Targets (issue): <= 200 ns per frame for 2
 * players without rollback; 1 MiB save within 1.5x memcpy; checksum >= 5 GB/s.
 */
#include <string.h>

#include "bench_common.h"
#include "tempo/tempo.h"

#define REPS 15

typedef struct engine_case {
    int players;
    bool rollback;
    int window; /* max_prediction, and the depth of every rollback */
} engine_case;

/* ns per frame of poll + input + advance + carrying out the requests. */
static double engine_run(const engine_case *c, int ticks, double *mean_depth)
{
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = c->players;
    cfg.max_prediction = c->window;
    cfg.desync_interval = 0;
    tempo_session *s;
    if (tempo_session_create_local(&cfg, &s) != TEMPO_OK)
        exit(1);
    tempo_session_add_local_player(s, 0);
    for (int p = 1; p < c->players; p++)
        tempo_session_add_remote_player(s, p, NULL);
    uint8_t in[4] = {0};
    /* steady state: remote inputs are known a few frames ahead */
    if (!c->rollback)
        for (int p = 1; p < c->players; p++)
            for (int f = 0; f < 4; f++)
                tempo_session_add_remote_input(s, p, f, in, 4);
    uint64_t depth_sum = 0, rollbacks = 0;
    double t0 = bench_now();
    for (int t = 0; t < ticks; t++) {
        tempo_session_poll(s, (uint64_t)t * 16667u);
        for (int p = 1; p < c->players; p++) {
            if (c->rollback) {
                /* the input of `window` frames ago, different from the guess */
                int32_t f = t - c->window;
                if (f >= 0) {
                    in[0] = (uint8_t)f;
                    tempo_session_add_remote_input(s, p, f, in, 4);
                }
            } else {
                tempo_session_add_remote_input(s, p, t + 4, in, 4);
            }
        }
        tempo_session_add_local_input(s, 0, in, 4);
        tempo_tick tick;
        tempo_session_advance(s, &tick);
        if (tick.rollback_depth) {
            depth_sum += (uint64_t)tick.rollback_depth;
            rollbacks++;
        }
        const tempo_request *r;
        while (tempo_session_next(s, &r) > 0)
            if (r->kind == TEMPO_REQUEST_SAVE)
                *r->checksum = (uint64_t)r->frame;
    }
    double secs = bench_now() - t0;
    *mean_depth = rollbacks ? (double)depth_sum / (double)rollbacks : 0.0;
    tempo_session_destroy(s);
    return secs * 1e9 / ticks;
}

static void table_engine(void)
{
    printf("\n### Engine overhead per frame (no game code), median of %d runs\n\n", REPS);
    printf("| players | steady state, ns/frame | rollback of 8 every frame, ns/frame | mean depth |\n");
    printf("|---:|---:|---:|---:|\n");
    int counts[] = {2, 4, 8};
    for (int i = 0; i < 3; i++) {
        double a[REPS], b[REPS], depth = 0;
        for (int r = 0; r < REPS; r++) {
            engine_case steady = {counts[i], false, 8}, roll = {counts[i], true, 8};
            double d0;
            a[r] = engine_run(&steady, 20000, &d0);
            b[r] = engine_run(&roll, 5000, &depth);
        }
        printf("| %d | %.0f | %.0f | %.1f |\n", counts[i], bench_median(a, REPS),
               bench_median(b, REPS), depth);
    }
}

#define MIB (1u << 20)

/* The worst tick a prediction window allows: a rollback of the whole window,
 * every tick, 2 players. Engine alone, then with a game whose frame costs
 * about as much as reading 64 KiB of state (the save policy table's step):
 * the game's share grows with the window, the engine's stays small. */
static double game_step_sink;
static double window_tick(int window, bool with_game, int ticks)
{
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.max_prediction = window;
    cfg.desync_interval = 0;
    static uint8_t state[65536];
    tempo_session *s;
    if (tempo_session_create_local(&cfg, &s) != TEMPO_OK)
        exit(1);
    tempo_session_add_local_player(s, 0);
    tempo_session_add_remote_player(s, 1, NULL);
    uint8_t in[4] = {0};
    double t0 = bench_now();
    for (int t = 0; t < ticks; t++) {
        int32_t f = t - window;
        if (f >= 0) {
            in[0] = (uint8_t)f;
            tempo_session_add_remote_input(s, 1, f, in, 4);
        }
        tempo_session_add_local_input(s, 0, in, 4);
        tempo_tick tick;
        tempo_session_advance(s, &tick);
        const tempo_request *r;
        while (tempo_session_next(s, &r) > 0) {
            if (r->kind == TEMPO_REQUEST_SAVE)
                *r->checksum = (uint64_t)r->frame;
            else if (with_game && r->kind == TEMPO_REQUEST_ADVANCE) {
                uint64_t h = 0;
                for (unsigned i = 0; i < sizeof state; i += 64)
                    h += state[i];
                state[(unsigned)r->frame % sizeof state] = (uint8_t)h;
                game_step_sink += (double)h;
            }
        }
    }
    double secs = bench_now() - t0;
    tempo_session_destroy(s);
    return secs * 1e6 / ticks;
}

static void table_window(void)
{
    printf("\n### A rollback of the whole window every tick, 2 players, median of %d runs\n\n", REPS);
    printf("| max_prediction | frames run per tick | engine alone, us/tick | with a 64 KiB-read game step, us/tick |\n");
    printf("|---:|---:|---:|---:|\n");
    int windows[] = {8, 12, 16, 20, 24};
    for (int i = 0; i < 5; i++) {
        double a[REPS], b[REPS];
        for (int r = 0; r < REPS; r++) {
            a[r] = window_tick(windows[i], false, 3000);
            b[r] = window_tick(windows[i], true, 600);
        }
        printf("| %d | %d | %.2f | %.1f |\n", windows[i], windows[i] + 1, bench_median(a, REPS),
               bench_median(b, REPS));
    }
}

static double seconds_per(void (*fn)(uint8_t *, uint8_t *), uint8_t *a, uint8_t *b, int n)
{
    double t0 = bench_now();
    for (int i = 0; i < n; i++)
        fn(a, b);
    return (bench_now() - t0) / n;
}

static void do_memcpy(uint8_t *dst, uint8_t *src)
{
    memcpy(dst, src, MIB);
    bench_keep(dst[src[7] & 1023]);
}

/* The same copy into a ring of max_prediction + 2 = 10 buffers, as tempo's
 * every-frame saving does: the destination is cold, as it is for tempo. */
static uint8_t *ring;
static unsigned ring_at;
static void do_memcpy_ring(uint8_t *dst, uint8_t *src)
{
    (void)dst;
    uint8_t *d = ring + (size_t)(ring_at++ % 10u) * MIB;
    memcpy(d, src, MIB);
    bench_keep(d[src[7] & 1023]);
}

static void do_checksum(uint8_t *dst, uint8_t *src)
{
    (void)dst;
    bench_keep(tempo_checksum(src, MIB));
}

static void do_copy_and_checksum(uint8_t *dst, uint8_t *src)
{
    memcpy(dst, src, MIB);
    bench_keep(tempo_checksum(dst, MIB));
}

/* Per-frame cost of a 1 MiB arena session without rollback: one SAVE (the
 * copy) per frame plus the engine. desync checks set how often it checksums. */
static double arena_frame(uint8_t *block, int desync_interval, int frames)
{
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = 1;
    cfg.arena = block;
    cfg.arena_size = MIB;
    cfg.desync_interval = desync_interval;
    tempo_session *s;
    if (tempo_session_create_local(&cfg, &s) != TEMPO_OK)
        exit(1);
    tempo_session_add_local_player(s, 0);
    uint8_t in[4] = {0};
    double t0 = bench_now();
    for (int f = 0; f < frames; f++) {
        tempo_session_add_local_input(s, 0, in, 4);
        tempo_tick t;
        tempo_session_advance(s, &t);
        const tempo_request *r;
        while (tempo_session_next(s, &r) > 0)
            block[(unsigned)r->frame * 64u % MIB]++; /* the "game" touches its state */
    }
    double secs = (bench_now() - t0) / frames;
    tempo_session_destroy(s);
    return secs;
}

static void table_arena(void)
{
    uint8_t *a = malloc(MIB), *b = malloc(MIB), *block = malloc(MIB);
    ring = calloc(10, MIB);
    if (!a || !b || !block || !ring)
        exit(1);
    for (unsigned i = 0; i < MIB; i++)
        a[i] = (uint8_t)(i * 2654435761u >> 24), block[i] = a[i];
    memset(b, 0, MIB);
    double cp[REPS], cpr[REPS], sum[REPS], both[REPS], save[REPS], save_sum[REPS];
    for (int r = 0; r < REPS; r++) {
        cp[r] = seconds_per(do_memcpy, b, a, 200);
        cpr[r] = seconds_per(do_memcpy_ring, b, a, 200);
        sum[r] = seconds_per(do_checksum, b, a, 200);
        both[r] = seconds_per(do_copy_and_checksum, b, a, 200);
        save[r] = arena_frame(block, 60, 200);
        save_sum[r] = arena_frame(block, 1, 200);
    }
    double m_cp = bench_median(cp, REPS), m_sum = bench_median(sum, REPS);
    double m_both = bench_median(both, REPS), m_save = bench_median(save, REPS);
    double m_save_sum = bench_median(save_sum, REPS);
    double m_cpr = bench_median(cpr, REPS);
    printf("\n### Arena mode, 1 MiB state, median of %d runs\n\n", REPS);
    printf("| operation | us | vs memcpy |\n|---|---:|---:|\n");
    printf("| plain memcpy of 1 MiB (same hot buffer) | %.1f | 1.00x |\n", m_cp * 1e6);
    printf("| plain memcpy of 1 MiB into a ring of 10 buffers | %.1f | %.2fx |\n", m_cpr * 1e6,
           m_cpr / m_cp);
    printf("| tempo arena frame: SAVE (copy) + engine, checksum every 60th frame | %.1f | %.2fx |\n",
           m_save * 1e6, m_save / m_cp);
    printf("| tempo arena frame: SAVE + XXH3 checksum every frame | %.1f | %.2fx |\n",
           m_save_sum * 1e6, m_save_sum / m_cp);
    printf("| memcpy + XXH3 of 1 MiB (no engine) | %.1f | %.2fx |\n", m_both * 1e6, m_both / m_cp);
    printf("| XXH3-64 checksum of 1 MiB | %.1f | %.2fx |\n", m_sum * 1e6, m_sum / m_cp);
    printf("\nchecksum throughput: %.1f GB/s; memcpy throughput: %.1f GB/s\n",
           (double)MIB / m_sum / 1e9, (double)MIB / m_cp / 1e9);
    printf("tempo's save vs the same copy into a ring: %.2fx\n", m_save / m_cpr);
    free(a);
    free(b);
    free(block);
    free(ring);
}

/* ---- save policy trade-off -------------------------------------------- */

typedef struct policy_result {
    double us_per_frame;
    double saves, loads, resims; /* per frame */
} policy_result;

static policy_result policy_run(tempo_save_policy policy, uint8_t *block, int frames)
{
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.max_prediction = 8;
    cfg.save_policy = policy;
    cfg.arena = block;
    cfg.arena_size = MIB;
    tempo_session *s;
    if (tempo_session_create_local(&cfg, &s) != TEMPO_OK)
        exit(1);
    tempo_session_add_local_player(s, 0);
    tempo_session_add_remote_player(s, 1, NULL);
    uint8_t in[4] = {0}, remote[4] = {0};
    double t0 = bench_now();
    for (int f = 0; f < frames; f++) {
        int32_t late = f - 3; /* the remote's input arrives 3 frames late */
        if (late >= 0) {
            if (late % 10 == 0)
                remote[0]++; /* a change: the guess for this frame was wrong */
            tempo_session_add_remote_input(s, 1, late, remote, 4);
        }
        tempo_session_add_local_input(s, 0, in, 4);
        tempo_tick t;
        tempo_session_advance(s, &t);
        const tempo_request *r;
        while (tempo_session_next(s, &r) > 0) {
            /* a game step that reads 64 KiB of its state */
            uint64_t h = 0;
            for (unsigned i = 0; i < 65536u; i += 64)
                h += block[i];
            block[(unsigned)r->frame % MIB] = (uint8_t)h;
        }
    }
    policy_result out;
    out.us_per_frame = (bench_now() - t0) / frames * 1e6;
    tempo_session_stats st;
    tempo_session_get_stats(s, &st);
    out.saves = (double)st.saves / frames;
    out.loads = (double)st.loads / frames;
    out.resims = (double)st.resim_frames / frames;
    tempo_session_destroy(s);
    return out;
}

static void table_policy(void)
{
    uint8_t *block = calloc(1, MIB);
    if (!block)
        exit(1);
    printf("\n### Save policy trade-off: 1 MiB arena, input 3 frames late, 1 in 10 mispredicted\n\n");
    printf("| policy | us/frame (median of %d) | saves/frame | loads/frame | resimulated frames/frame |\n", REPS);
    printf("|---|---:|---:|---:|---:|\n");
    tempo_save_policy pols[] = {TEMPO_SAVE_EVERY_FRAME, TEMPO_SAVE_SPARSE};
    const char *names[] = {"every frame", "sparse"};
    for (int i = 0; i < 2; i++) {
        double us[REPS];
        policy_result pr = {0};
        for (int r = 0; r < REPS; r++) {
            pr = policy_run(pols[i], block, 300);
            us[r] = pr.us_per_frame;
        }
        printf("| %s | %.1f | %.2f | %.2f | %.2f |\n", names[i], bench_median(us, REPS), pr.saves,
               pr.loads, pr.resims);
    }
    free(block);
}

int main(void)
{
    printf("## bench_engine (tempo %s)\n", tempo_version_string());
    bench_machine_line();
    table_engine();
    table_window();
    table_arena();
    table_policy();
    return 0;
}
