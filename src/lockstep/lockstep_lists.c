/* SPDX-License-Identifier: MIT */
/*
 * lockstep_lists.c — what every part of turn-based lockstep reads and
 * reports into: one list per player and turn (which are held, which are
 * agreed empty, who hosts a turn), the event queue, the start of the match,
 * a machine's checksum compared with ours, our round trips as one report.
 * The schedule (lockstep.c), the datagrams (lockstep_net.c) and the relay
 * member (lockstep_relay.c) all call down into this file and it calls none
 * of them, so the three never call each other in a circle: the schedule
 * drives the other two, and they report back only through these calls.
 */
#include "lockstep/lockstep.h"

#include <string.h>

ls_list *lockstep_slot(tempo_lockstep *ls, int player, int32_t turn)
{
    return &ls->lists[(size_t)player * LS_WINDOW + (size_t)turn % LS_WINDOW];
}

/* The list of player for turn, or NULL if not held (turns below the delay:
 * the agreed empty list, also NULL). */
ls_list *lockstep_held(tempo_lockstep *ls, int player, int32_t turn)
{
    if (turn < ls->cfg.execution_delay)
        return NULL;
    ls_list *l = lockstep_slot(ls, player, turn);
    return l->turn == turn ? l : NULL;
}

bool lockstep_dropped(const tempo_lockstep *ls, int player, int32_t turn)
{
    return ls->cut_final[player] && turn > ls->cut[player];
}

bool lockstep_have(tempo_lockstep *ls, int player, int32_t turn)
{
    if (ls->relay) /* every list is the relay's: ours once it says the turn is final */
        return turn < ls->cfg.execution_delay ||
               (lockstep_held(ls, player, turn) != NULL &&
                (player != ls->cfg.local_player || turn < ls->relay->final));
    return turn < ls->cfg.execution_delay || lockstep_dropped(ls, player, turn) ||
           lockstep_held(ls, player, turn) != NULL;
}

int lockstep_host_of(const tempo_lockstep *ls, int32_t turn)
{
    for (int p = 0; p < ls->cfg.num_players; p++)
        if (!lockstep_dropped(ls, p, turn))
            return p;
    return ls->cfg.local_player; /* every other player dropped */
}

void lockstep_push_event(tempo_lockstep *ls, const tempo_lockstep_event *e)
{
    ls->events[event_ring_push(&ls->ev)] = *e;
}

void lockstep_event(tempo_lockstep *ls, tempo_lockstep_event_kind kind, int player)
{
    tempo_lockstep_event e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    e.player = player;
    lockstep_push_event(ls, &e);
}

/* Our round trips as one report: the largest smoothed RTT over our links
 * and the largest deviation; unknown until every link has one. */
bool lockstep_own_rtt(const tempo_lockstep *ls, uint64_t *rtt, uint64_t *var)
{
    *rtt = 0;
    *var = 0;
    for (int p = 0; p < ls->cfg.num_players; p++) {
        const ls_peer *e = &ls->peer[p];
        if (p == ls->cfg.local_player || e->lost)
            continue;
        if (!link_has_rtt(&e->link))
            return false;
        if (link_rtt_us(&e->link) > *rtt)
            *rtt = link_rtt_us(&e->link);
        if (link_rttvar_us(&e->link) > *var)
            *var = link_rttvar_us(&e->link);
    }
    return true;
}

void lockstep_start_running(tempo_lockstep *ls, uint64_t at_us)
{
    ls->running = true;
    ls->starting = false;
    ls->run_start_us = at_us;
    ls->due_us = at_us;
    ls->anchor_us = at_us;
    for (int p = 0; p < ls->cfg.num_players; p++)
        if (ls->peer[p].added)
            link_handshake_announce(&ls->peer[p].link, false);
    lockstep_event(ls, TEMPO_LOCKSTEP_RUNNING, -1);
}

void lockstep_compare(tempo_lockstep *ls, int player, int32_t turn, uint64_t theirs)
{
    ls_peer *e = &ls->peer[player];
    if (turn < 0 || turn > ls->done || ls->sum_turn[turn % LS_SUMS] != turn)
        return;
    uint64_t ours = ls->sum[turn % LS_SUMS];
    if (ours == theirs || e->desync_turn >= 0)
        return; /* the first turn found differing is the one worth reading */
    e->desync_turn = turn;
    ls->st.desyncs++;
    tempo_lockstep_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TEMPO_LOCKSTEP_DESYNC;
    ev.player = player;
    ev.u.desync.turn = turn;
    ev.u.desync.ours = ours;
    ev.u.desync.theirs = theirs;
    lockstep_push_event(ls, &ev);
}
