/* SPDX-License-Identifier: MIT */
/*
 * smooth.c — the render offset that hides a reconciliation's correction of
 * the locally predicted player.
 *
 * When a server update moves the prediction, the difference (old minus
 * new) goes into an offset drawn on top of the prediction, so the player
 * does not jump; each rendered frame the offset shrinks by a factor, 0.95
 * while it is small and 0.85 once it is large (the common rule of thumb:
 * small errors fade unnoticed, large ones must go quickly), and an offset
 * beyond snap_distance is dropped, since gliding across a large distance
 * looks worse than a jump. The decay is per frame, as the rule states: at
 * another frame rate the factors want retuning.
 *
 * The offset is kept in Q16 of the game's units so that small offsets fade
 * to zero smoothly instead of sticking at one unit, and saturates at
 * +-2^30 units, which keeps every product inside int64.
 */
#include <string.h>

#include "base/common.h"
#include "tempo/interp.h"

#define SMOOTH_LIMIT ((int64_t)1 << 46) /* 2^30 units in Q16 */

void tempo_smooth_config_default(tempo_smooth_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->dims = 3;
    cfg->small_decay_q16 = 62259;
    cfg->large_decay_q16 = 55706;
    cfg->large_distance = 65536;
    cfg->snap_distance = 262144;
}

tempo_result tempo_smooth_init(tempo_smooth *s, const tempo_smooth_config *cfg)
{
    if (!s || !cfg)
        return TEMPO_E_INVALID_ARG;
    memset(s, 0, sizeof *s);
    if (cfg->dims < 1 || cfg->dims > TEMPO_RECKON_MAX_DIMS || cfg->small_decay_q16 > 65535 ||
        cfg->large_decay_q16 > 65535 || cfg->large_distance < 1)
        return TEMPO_E_INVALID_ARG;
    s->cfg = *cfg;
    return TEMPO_OK;
}

/* squared length in whole units (offsets are below 2^30 units: no overflow) */
static uint64_t length_sq(const tempo_smooth *s)
{
    uint64_t sum = 0;
    for (int i = 0; i < s->cfg.dims; i++) {
        int64_t u = s->offset[i] / 65536;
        sum += (uint64_t)(u * u);
    }
    return sum;
}

int tempo_smooth_correct(tempo_smooth *s, const int32_t *error)
{
    if (!s || !error)
        return TEMPO_E_INVALID_ARG;
    s->corrections++;
    for (int i = 0; i < s->cfg.dims; i++) {
        int64_t o = s->offset[i] + (int64_t)error[i] * 65536;
        s->offset[i] = o > SMOOTH_LIMIT ? SMOOTH_LIMIT : o < -SMOOTH_LIMIT ? -SMOOTH_LIMIT : o;
    }
    uint64_t snap = s->cfg.snap_distance;
    if (snap != 0 && length_sq(s) > snap * snap) {
        memset(s->offset, 0, sizeof s->offset);
        s->snaps++;
        return 1;
    }
    return 0;
}

tempo_result tempo_smooth_frame(tempo_smooth *s, int32_t *out)
{
    if (!s || !out)
        return TEMPO_E_INVALID_ARG;
    uint64_t large = s->cfg.large_distance;
    int64_t decay = length_sq(s) >= large * large ? s->cfg.large_decay_q16 : s->cfg.small_decay_q16;
    for (int i = 0; i < s->cfg.dims; i++) {
        s->offset[i] = s->offset[i] * decay / 65536; /* toward zero: it reaches zero */
        int64_t q = s->offset[i] + 32768;
        int64_t u = q / 65536;
        if (q % 65536 != 0 && q < 0)
            u--;
        out[i] = (int32_t)u;
    }
    return TEMPO_OK;
}
