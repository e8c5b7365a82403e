/* SPDX-License-Identifier: MIT */
/*
 * sim_cs_compare.c — tempo-sim --mode client-server --compare
 * reconciliation: the same match (seed, network, bots) with the clients
 * reconciling three ways (dumb, none, replay), for 1, 2 and 4 clients
 * unless --clients names a count (and no --link, hiccup or blackout names
 * a machine), one table.
 *
 * A visible correction is measured from outside (sim_cs.c): the state a
 * client showed last tick against the state it holds for that moment once
 * a snapshot is in place. Each is split by what it moved: the client's
 * own piece (its paddle or walker: "own", a snap-back) and anything else
 * (other players' pieces, the ball: "others"); one may move both. With one
 * client there is nobody else's input to mispredict, which is why a lone
 * client sees no corrections at all. The sim's Pong needs two players, so
 * one client plays the walkers game (game column).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_out.h"
#include "sim_cs.h"

#define CMP_MODES 3
#define CMP_COUNTS 3

static const tempo_reconcile_mode modes[CMP_MODES] = {TEMPO_RECONCILE_DUMB, TEMPO_RECONCILE_NONE,
                                                      TEMPO_RECONCILE_REPLAY};

/* The client counts compared: 1, 2 and 4, or the one asked for. */
static int client_counts(const sim_options *o, int *counts)
{
    if (o->clients_given || o->num_links > 0 || o->num_hiccups > 0 || o->num_blackouts > 0) {
        counts[0] = o->clients;
        return 1;
    }
    counts[0] = 1;
    counts[1] = 2;
    counts[2] = 4;
    return CMP_COUNTS;
}

/* What the writer's callbacks read (report/sim_out.h). */
typedef struct cmp_out {
    const sim_options *base;
    const sim_cs_result *rows;
    int n;
} cmp_out;

static void cmp_text(FILE *f, const void *ctx)
{
    const sim_options *base = ((const cmp_out *)ctx)->base;
    const sim_cs_result *rows = ((const cmp_out *)ctx)->rows;
    int n = ((const cmp_out *)ctx)->n;
    char desc[256];
    sim_cs_describe(base, &rows[n - 1], desc, sizeof desc);
    char *cut = strstr(desc, ", reconcile");
    if (cut)
        *cut = '\0';
    const char *rest = desc; /* past "N clients, GAME, " when the count and game vary */
    for (int k = 0; n > CMP_MODES && k < 2 && strstr(rest, ", "); k++)
        rest = strstr(rest, ", ") + 2;
    if (n > CMP_MODES)
        fprintf(f, "tempo-sim --compare reconciliation: 1, 2 and 4 clients (Pong; walkers for one), %s\n\n", rest);
    else
        fprintf(f, "tempo-sim --compare reconciliation: %s\n\n", desc);
    static const char *const columns[] = {
        "clients", "game", "reconcile", "input-to-response ticks (mean)", "(max)", "visible corrections/min",
        "own piece /min", "own mean", "own max", "others /min", "others mean", "others max", "after 3 s (own)",
        "library corrections/min", "resimulated ticks", "clients agree with the server"};
    sim_out_table_head(f, columns, 16);
    for (int k = 0; k < n; k++) {
        const sim_cs_result *r = &rows[k];
        fprintf(f, "| %d | %s | %s | %.2f | %d | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f | %.1f | %" PRIu64
                " | %.1f | %" PRIu64 " | %d of %d |\n",
                r->clients, r->game ? r->game->name : "?", sim_cs_reconcile_name(modes[k % CMP_MODES]),
                r->response_mean, r->response_max, r->visible_per_min, r->own_per_min, r->own_mean, r->own_max,
                r->others_per_min, r->others_mean, r->others_max, r->snapbacks_after, r->corrections_per_min,
                r->resim_frames, r->agree, r->clients);
    }
    fprintf(f, "\nSame seed and network in every row of a client count. Visible corrections: the state shown against "
            "the same moment once a snapshot is in place, measured from outside; own piece: those that moved the "
            "client's own paddle or walker (snap-backs), others: those that moved anything else (other players, "
            "the ball); one may be both. Sizes in the game's units (Pong: px; walkers: field units). Per-minute "
            "figures are means over the clients, counts totals.\n");
    for (int k = 0; k < n; k++)
        if (rows[k].problem[0])
            fprintf(f, "problem (%d clients, %s): %s\n", rows[k].clients, sim_cs_reconcile_name(modes[k % CMP_MODES]),
                    rows[k].problem);
}

static void cmp_json(sim_json *j, const void *ctx)
{
    const sim_options *base = ((const cmp_out *)ctx)->base;
    const sim_cs_result *rows = ((const cmp_out *)ctx)->rows;
    int n = ((const cmp_out *)ctx)->n;
    sim_json_string(j, "mode", "client-server");
    sim_json_string(j, "compare", "reconciliation");
    sim_json_string(j, "profile", base->profile);
    sim_json_int(j, "frames", base->frames);
    sim_json_uint(j, "seed", base->seed);
    sim_json_begin_array(j, "rows");
    for (int k = 0; k < n; k++) {
        const sim_cs_result *r = &rows[k];
        sim_json_begin_object(j, NULL);
        sim_json_int(j, "clients", r->clients);
        sim_json_string(j, "game", r->game ? r->game->name : "");
        sim_json_string(j, "reconcile", sim_cs_reconcile_name(modes[k % CMP_MODES]));
        sim_json_double(j, "response_mean_ticks", r->response_mean);
        sim_json_int(j, "response_max_ticks", r->response_max);
        sim_json_uint(j, "visible_corrections", r->visible);
        sim_json_double(j, "visible_corrections_per_min", r->visible_per_min);
        sim_json_double(j, "visible_correction_mean", r->visible_mean);
        sim_json_double(j, "visible_correction_max", r->visible_max);
        sim_json_uint(j, "own_corrections", r->snapbacks);
        sim_json_double(j, "own_corrections_per_min", r->own_per_min);
        sim_json_double(j, "own_correction_mean", r->own_mean);
        sim_json_double(j, "own_correction_max", r->own_max);
        sim_json_uint(j, "own_corrections_after_3s", r->snapbacks_after);
        sim_json_uint(j, "other_corrections", r->others);
        sim_json_double(j, "other_corrections_per_min", r->others_per_min);
        sim_json_double(j, "other_correction_mean", r->others_mean);
        sim_json_double(j, "other_correction_max", r->others_max);
        sim_json_double(j, "library_corrections_per_min", r->corrections_per_min);
        sim_json_uint(j, "resimulated_ticks", r->resim_frames);
        sim_json_int(j, "clients_agreeing", r->agree);
        sim_json_end_object(j);
    }
    sim_json_end_array(j);
}

int sim_cs_compare(const sim_options *base)
{
    int counts[CMP_COUNTS];
    int nc = client_counts(base, counts), n = nc * CMP_MODES;
    sim_cs_result *rows = calloc((size_t)n, sizeof *rows);
    if (!rows) {
        fprintf(stderr, "tempo-sim: out of memory\n");
        return SIM_EXIT_USAGE;
    }
    bool failed = false;
    for (int k = 0; k < n; k++) {
        sim_options o = *base;
        o.clients = counts[k / CMP_MODES];
        o.reconcile = modes[k % CMP_MODES];
        o.compare = SIM_COMPARE_NONE;
        int code = sim_cs_run(&o, &rows[k], NULL);
        if (code != SIM_EXIT_OK) {
            free(rows);
            return code;
        }
        failed = failed || rows[k].problem[0] != '\0';
        if (!base->quiet)
            fprintf(stderr, "tempo-sim: %d clients, %s done\n", o.clients, sim_cs_reconcile_name(o.reconcile));
    }
    cmp_out c = {base, rows, n};
    sim_out w = {.ctx = &c, .text = cmp_text, .json = cmp_json};
    int code = sim_out_write(base, &w);
    if (code == SIM_EXIT_OK && failed)
        code = SIM_EXIT_MISMATCH;
    free(rows);
    return code;
}
