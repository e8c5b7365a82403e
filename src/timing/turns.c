/* SPDX-License-Identifier: MIT */
/*
 * turns.c — turn-based lockstep's arithmetic (turns.h): the schedule, the
 * render fraction and the adaptive length rule. Integers in, integers out
 * (the fraction alone is a double); nothing here keeps state.
 */
#include "timing/turns.h"

uint64_t turns_next_due(uint64_t due_us, uint64_t exec_us, uint64_t len_us, bool waited)
{
    if (exec_us <= due_us)
        return due_us + len_us;
    /* Waited, or late by more than half a turn: the old schedule is gone,
     * start anew from the execution. */
    bool restart = waited || exec_us - due_us > len_us / 2;
    return (restart ? exec_us : due_us) + len_us;
}

int64_t turns_index_at(int64_t turn, uint64_t start_us, uint64_t len_us, uint64_t now_us)
{
    if (len_us == 0 || now_us <= start_us)
        return turn;
    return turn + (int64_t)((now_us - start_us) / len_us);
}

double turns_blend(uint64_t anchor_us, uint64_t len_us, uint64_t now_us)
{
    if (now_us <= anchor_us)
        return 0.0;
    if (len_us == 0 || now_us - anchor_us >= len_us)
        return 1.0;
    return (double)(now_us - anchor_us) / (double)len_us;
}

static uint32_t round_clamp(const turns_rule *rule, uint64_t us)
{
    uint64_t ms = (us + 999u) / 1000u;
    ms = (ms + TURNS_STEP_MS - 1u) / TURNS_STEP_MS * TURNS_STEP_MS;
    if (ms < rule->min_ms)
        ms = rule->min_ms;
    if (ms > rule->max_ms)
        ms = rule->max_ms;
    return (uint32_t)ms;
}

uint32_t turns_need_ms(const turns_rule *rule, const turns_load *load)
{
    uint64_t sim = load->sim_us * 100u / TURNS_SIM_SHARE_PCT;
    int slack = rule->delay > 1 ? rule->delay - 1 : 1;
    uint64_t net = (load->rtt_us / 2u + 2u * load->rttvar_us + TURNS_MARGIN_US) / (uint64_t)slack;
    return round_clamp(rule, sim > net ? sim : net);
}

uint32_t turns_adapt(const turns_rule *rule, uint32_t current_ms, const turns_load *load)
{
    uint32_t need = turns_need_ms(rule, load);
    if (need > current_ms)
        return need;
    if ((uint64_t)need * 100u <= (uint64_t)current_ms * TURNS_SHRINK_PCT)
        return need;
    return current_ms;
}
