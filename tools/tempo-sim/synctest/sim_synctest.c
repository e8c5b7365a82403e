/* SPDX-License-Identifier: MIT */
/*
 * sim_synctest.c — tempo-sim --synctest: the arena with bots in a synctest
 * session (arena mode), and a one-screen summary.
 *
 * --nondeterministic-at F plants a bug: from frame F on, each step mixes in a
 * counter kept outside the game state, as a game reading stale memory or a
 * wall clock would. The first computation and the resimulation of a frame
 * then differ, and synctest must report it within the check distance.
 */
#include <inttypes.h>
#include <string.h>

#include "arena.h"
#include "bot.h"
#include "sim_out.h"
#include "sim.h"

/* What the writer's callbacks read (report/sim_out.h). */
typedef struct synctest_out {
    const sim_options *o;
    tempo_synctest_report rep;
    tempo_session_stats st;
    int32_t frames;
    uint64_t final_checksum;
    size_t state_size;
    double secs;
} synctest_out;

static void synctest_text(FILE *f, const void *ctx)
{
    const synctest_out *c = ctx;
    const sim_options *o = c->o;
    const tempo_synctest_report rep = c->rep;
    const tempo_session_stats st = c->st;
    double secs = c->secs;
    fprintf(f, "tempo-sim synctest: arena, %d players, %d frames, check distance %d, %s saving\n",
            o->players, o->frames, o->check_distance,
            o->save_policy == TEMPO_SAVE_SPARSE ? "sparse" : "every-frame");
    fprintf(f, "  frames simulated    %" PRId32 " (+%" PRIu64 " resimulated in %" PRIu64 " rollbacks)\n",
            c->frames, st.resim_frames, st.rollbacks);
    fprintf(f, "  saves / loads       %" PRIu64 " / %" PRIu64 "  (state %zu bytes)\n", st.saves,
            st.loads, c->state_size);
    fprintf(f, "  checksums compared  %" PRIu64 "\n", rep.checks);
    fprintf(f, "  mismatches          %" PRIu64 "\n", rep.mismatches);
    if (rep.first_mismatch_frame >= 0)
        fprintf(f, "  FIRST MISMATCH      frame %" PRId32 ": first %016" PRIx64 ", resimulated %016" PRIx64 "\n",
                rep.first_mismatch_frame, rep.first_checksum, rep.resim_checksum);
    else
        fprintf(f, "  result              deterministic under rollback\n");
    fprintf(f, "  final checksum      %016" PRIx64 "\n", c->final_checksum);
    fprintf(f, "  wall time           %.3f s (%.0f simulated frames/s)\n", secs,
            secs > 0 ? (double)(c->frames + (int64_t)st.resim_frames) / secs : 0.0);
}

static void synctest_json(sim_json *j, const void *ctx)
{
    const synctest_out *c = ctx;
    const sim_options *o = c->o;
    const tempo_synctest_report rep = c->rep;
    const tempo_session_stats st = c->st;
    sim_json_string(j, "mode", "synctest");
    sim_json_int(j, "players", o->players);
    sim_json_int(j, "frames", c->frames);
    sim_json_int(j, "check_distance", o->check_distance);
    sim_json_uint(j, "mismatches", rep.mismatches);
    sim_json_index(j, "first_mismatch_frame", rep.first_mismatch_frame);
    sim_json_uint(j, "rollbacks", st.rollbacks);
    sim_json_uint(j, "resim_frames", st.resim_frames);
}

int sim_synctest(const sim_options *o)
{
    static arena_state game;
    if (arena_init(&game, o->players, o->seed) != TEMPO_OK) {
        fprintf(stderr, "tempo-sim: bad player count %d\n", o->players);
        return SIM_EXIT_USAGE;
    }
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = o->players;
    cfg.input_size = ARENA_INPUT_SIZE;
    cfg.max_prediction = o->check_distance > 8 ? o->check_distance : 8;
    cfg.save_policy = o->save_policy;
    cfg.arena = &game;
    cfg.arena_size = sizeof game;
    tempo_session *s;
    tempo_result r = tempo_session_create_synctest(&cfg, o->check_distance, &s);
    if (r != TEMPO_OK) {
        fprintf(stderr, "tempo-sim: cannot create the synctest session: %s\n", tempo_strerror(r));
        return SIM_EXIT_USAGE;
    }
    arena_bot bots[ARENA_MAX_PLAYERS];
    for (int p = 0; p < o->players; p++)
        arena_bot_init(&bots[p], o->seed, p);

    uint64_t side_counter = 0; /* lives outside the state: the planted bug */
    double t0 = sim_wall_seconds();
    bool mismatch = false;
    tempo_tick tick;
    while (tempo_session_frame(s) < o->frames) {
        for (int p = 0; p < o->players; p++) {
            uint8_t in[ARENA_INPUT_SIZE];
            arena_bot_next(&bots[p], in);
            tempo_session_add_local_input(s, p, in, sizeof in);
        }
        r = tempo_session_advance(s, &tick);
        if (r == TEMPO_E_DESYNC) {
            mismatch = true;
            break;
        }
        const tempo_request *req;
        while (tempo_session_next(s, &req) > 0) {
            arena_step(&game, req->inputs, req->status);
            if (o->nondeterministic_at >= 0 && req->frame >= o->nondeterministic_at)
                game.ships[0].x += (int32_t)(side_counter++ % 3);
        }
    }
    if (!mismatch && tempo_session_advance(s, &tick) == TEMPO_E_DESYNC)
        mismatch = true; /* the last tick's checksums */
    double secs = sim_wall_seconds() - t0;

    tempo_synctest_report rep;
    tempo_session_stats st;
    tempo_session_synctest_report(s, &rep);
    tempo_session_get_stats(s, &st);

    synctest_out c = {o, rep, st, tempo_session_frame(s), arena_checksum(&game), sizeof game, secs};
    sim_out w = {.ctx = &c, .text = synctest_text, .json = synctest_json};
    int code = sim_out_write(o, &w);
    tempo_session_destroy(s);
    if (code == SIM_EXIT_OK && (mismatch || rep.mismatches))
        code = SIM_EXIT_MISMATCH;
    return code;
}
