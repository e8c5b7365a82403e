/* SPDX-License-Identifier: MIT */
/*
 * sim_csv.c — the match timeline as CSV, for spreadsheets and scripts.
 *
 * Invariant: every row has the same columns as the header: t_s, then six
 * series per peer (peerN_*), then rtt and loss for every ordered pair of
 * different peers (linkI_J_*: what I measured of J), then the desync checks
 * passed in that sample. A NAN, or a series that was never allocated, is an
 * empty field. Sample i is at t = i * interval_s.
 */
#include "sim_out.h"
#include "sim_timeline.h"

#include <math.h>
#include <stdio.h>

#define SIM_CSV_PEER_COLUMNS 6

static const char *const sim_csv_peer_names[SIM_CSV_PEER_COLUMNS] = {
    "frame_skew", "input_delay", "rollbacks_per_s",
    "stalls_per_s", "payload_bytes_per_s", "frame_advantage",
};

static const float *sim_csv_peer_series(const sim_peer_series *s, int column)
{
    const float *series[SIM_CSV_PEER_COLUMNS] = {
        s->frame_skew, s->input_delay, s->rollbacks_per_s,
        s->stalls_per_s, s->payload_bytes_per_s, s->frame_advantage,
    };
    return series[column];
}

/* One field with its leading comma; empty for a missing or non-finite value. */
static void sim_csv_field(FILE *f, const float *series, int i)
{
    fputc(',', f);
    if (series != NULL && isfinite(series[i]))
        fprintf(f, "%.6g", (double)series[i]);
}

bool sim_csv_rows(FILE *f, const void *timeline)
{
    const sim_timeline *t = timeline;
    int peers = t->peers < 0 ? 0 : t->peers > SIM_MAX_PEERS ? SIM_MAX_PEERS : t->peers;
    int count = t->count < 0 ? 0 : t->count > t->capacity ? t->capacity : t->count;

    fputs("t_s", f);
    for (int p = 0; p < peers; p++) {
        for (int c = 0; c < SIM_CSV_PEER_COLUMNS; c++)
            fprintf(f, ",peer%d_%s", p, sim_csv_peer_names[c]);
    }
    for (int a = 0; a < peers; a++) {
        for (int b = 0; b < peers; b++) {
            if (a != b)
                fprintf(f, ",link%d_%d_rtt_ms,link%d_%d_loss", a, b, a, b);
        }
    }
    fputs(",desync_checks_passed\n", f);

    for (int i = 0; i < count; i++) {
        double t_s = (double)i * t->interval_s;
        if (isfinite(t_s))                  /* a broken interval leaves t_s empty */
            fprintf(f, "%.6f", t_s);
        for (int p = 0; p < peers; p++) {
            for (int c = 0; c < SIM_CSV_PEER_COLUMNS; c++)
                sim_csv_field(f, sim_csv_peer_series(&t->peer[p], c), i);
        }
        for (int a = 0; a < peers; a++) {
            for (int b = 0; b < peers; b++) {
                if (a == b)
                    continue;
                sim_csv_field(f, t->rtt_ms[a][b], i);
                sim_csv_field(f, t->loss[a][b], i);
            }
        }
        fputc(',', f);
        if (t->checks_passed != NULL)
            fprintf(f, "%u", (unsigned)t->checks_passed[i]);
        fputc('\n', f);
    }
    return true;
}

int sim_csv_write(const sim_timeline *t, const char *path)
{
    if (t == NULL || path == NULL)
        return -1;
    return sim_out_file(path, sim_csv_rows, t) ? 0 : -1;
}
