/* SPDX-License-Identifier: MIT */
/*
 * config.c — the defaults of a session's configuration (tempo/config.h):
 * the values a game starts from before it overrides single fields. Below
 * the session API so the replay writer can take a session's shape from
 * them too; the session checks a config when it is created.
 */
#include "tempo/config.h"

#include <string.h>

void tempo_config_default(tempo_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->num_players = 2;
    cfg->input_size = 4;
    cfg->max_prediction = 16; /* GGPO's 8 waits through a mobile link's bursts */
    cfg->save_policy = TEMPO_SAVE_EVERY_FRAME;
    cfg->log_level = TEMPO_LOG_WARN;
    cfg->desync_interval = 60;
    cfg->desync_diff_max_bytes = 16384;
    cfg->session_id = 1;
    cfg->disconnect_notify_ms = 500;
    cfg->disconnect_timeout_ms = 3000;
    cfg->max_spectators = 32;
    cfg->datagram_acks = true;
    cfg->input_log_frames = 1024;
    cfg->spectator_lead_frames = 3;
    cfg->spectator_catchup_frames = 2;
    cfg->timesync.method = TEMPO_TIMESYNC_INVERSUS;
    cfg->timesync.lead_tolerance = 2.0;
    cfg->timesync.stall_threshold = 0.0; /* the method's own */
    cfg->timesync.lead_cooldown_frames = 30;
    cfg->timesync.startup_delay = true;
    cfg->auto_delay.max_frames = 4;
    cfg->auto_delay.window_frames = 60;
    static const double raise[4] = {2.0, 3.0, 6.0, 8.0}, lower[4] = {1.0, 2.0, 5.0, 7.0};
    for (int k = 0; k < TEMPO_MAX_AUTO_DELAY; k++) {
        cfg->auto_delay.raise_at[k] = k < 4 ? raise[k] : 8.0 + 2.0 * (k - 3);
        cfg->auto_delay.lower_at[k] = k < 4 ? lower[k] : 7.0 + 2.0 * (k - 3);
    }
    cfg->frames_per_second = 60;
}
