/* SPDX-License-Identifier: MIT */
/*
 * lockstep.c — turn-based lockstep (tempo/lockstep.h; docs/LOCKSTEP.md):
 * turn lists collected, sealed, sent until acknowledged, received, handed
 * to the game in turn order once every player's list is here; checksums
 * compared; the host's turn-length decisions carried inside its own lists.
 *
 * Invariants, with E the newest turn handed to the game and D the delay:
 *   - turns below D have an empty list for every player by agreement;
 *   - our own list for turn E + D is sealed once turn E + 1 is due (the
 *     turn it was collected during is over); commands added later go to
 *     the next list, so `sealed` is E + D or E + D + 1;
 *   - a turn is handed out only when it is due and every player's list for
 *     it is held; lists are kept by turn modulo LS_WINDOW, which holds the
 *     furthest any honest machine can be ahead or behind (2 D + 2 turns);
 *   - the host announces a length only in its own list for a turn, so every
 *     machine holds the announcement before it executes that turn, and
 *     switches at that same turn with no timing assumption.
 *
 * The datagrams both ways are lockstep_net.c's (its opening comment says
 * how a datagram is received).
 */
#include "lockstep/lockstep.h"

#include <string.h>

#include "tempo/relay.h"
#include "tempo/secure.h"
#include "timing/turns.h"
#include "wire/keys.h"
#include "wire/packet.h"

static void record_length(tempo_lockstep *ls, int32_t turn, uint32_t ms)
{
    int i = ls->nhist % TEMPO_LOCKSTEP_HISTORY;
    ls->hist_turn[i] = turn;
    ls->hist_ms[i] = ms;
    ls->nhist++;
}

/* ---- configuration ---------------------------------------------------------- */

void tempo_lockstep_config_default(tempo_lockstep_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->num_players = 2;
    cfg->turn_ms = 100;
    cfg->min_turn_ms = 50;
    cfg->max_turn_ms = 500;
    cfg->execution_delay = 2;
    cfg->adaptive = true;
    cfg->adapt_every = 10;
    cfg->disconnect_timeout_ms = 5000;
    cfg->random_seed = 1;
}

static bool config_ok(const tempo_lockstep_config *c)
{
    return c->num_players >= 1 && c->num_players <= TEMPO_MAX_PLAYERS && c->local_player >= 0 &&
           c->local_player < c->num_players && c->min_turn_ms >= 10 &&
           c->min_turn_ms <= c->max_turn_ms && c->max_turn_ms <= 2000 &&
           c->turn_ms >= c->min_turn_ms && c->turn_ms <= c->max_turn_ms &&
           c->execution_delay >= 2 && c->execution_delay <= TEMPO_LOCKSTEP_MAX_DELAY &&
           c->adapt_every >= 1 && c->adapt_every <= 1000 && c->disconnect_timeout_ms >= 100 &&
           c->disconnect_timeout_ms <= 60000;
}

/* What every machine must share for the same commands to mean the same. */
static uint32_t config_hash(const tempo_lockstep_config *c)
{
    uint32_t v[8] = {TEMPO_PROTOCOL_VERSION, 0x4C4B5354u /* "LKST" */, (uint32_t)c->num_players,
                     (uint32_t)c->execution_delay, c->turn_ms, c->min_turn_ms, c->max_turn_ms,
                     (c->adaptive ? 1u : 0u) | (uint32_t)c->adapt_every << 1};
    uint8_t b[sizeof v];
    for (size_t i = 0; i < 8; i++)
        for (size_t k = 0; k < 4; k++)
            b[i * 4 + k] = (uint8_t)(v[i] >> (8 * k));
    return (uint32_t)tempo_checksum(b, sizeof b);
}

/* ---- create and destroy ------------------------------------------------------- */

static void free_all(tempo_lockstep *ls)
{
    const tempo_allocator a = ls->cfg.allocator;
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++) {
        seal_keys_wipe(&ls->peer[p].keys);
        if (ls->peer[p].frag.memory)
            frag_destroy(&ls->peer[p].frag);
    }
    tempo__free(&a, ls->lists);
    if (ls->relay) {
        gate_client_wipe(&ls->relay->gate);
        seal_wipe(ls->relay, sizeof *ls->relay);
        tempo__free(&a, ls->relay);
    }
    seal_wipe(ls, sizeof *ls);
    tempo__free(&a, ls);
}

tempo_result tempo_lockstep_create(const tempo_lockstep_config *cfg,
                                   const tempo_transport *transport, tempo_lockstep **out)
{
    if (out)
        *out = NULL;
    if (!cfg || !transport || !out || !transport->send || !transport->recv || !config_ok(cfg))
        return TEMPO_E_INVALID_ARG;
    if (cfg->has_match_key && seal_start() != TEMPO_OK)
        return TEMPO_E_UNSUPPORTED;
    tempo_lockstep *ls = tempo__calloc(&cfg->allocator, 1, sizeof *ls);
    if (!ls)
        return TEMPO_E_NO_MEMORY;
    ls->cfg = *cfg;
    ls->tr = *transport;
    ls->log = tempo__logger(cfg->log, cfg->log_ctx, TEMPO_LOG_INFO);
    event_ring_init(&ls->ev, LS_EVENTS);
    ls->keyed = cfg->has_match_key;
    ls->config_hash = config_hash(cfg);
    tempo_rng_seed(&ls->rng, cfg->random_seed, cfg->session_id);
    ls->lists = tempo__calloc(&ls->cfg.allocator, (size_t)cfg->num_players * LS_WINDOW,
                              sizeof *ls->lists);
    if (!ls->lists) {
        free_all(ls);
        return TEMPO_E_NO_MEMORY;
    }
    for (size_t i = 0; i < (size_t)cfg->num_players * LS_WINDOW; i++)
        ls->lists[i].turn = -1;
    for (int p = 0; p < cfg->num_players; p++) {
        if (p == cfg->local_player)
            continue;
        if (frag_create(&ls->peer[p].frag, LS_FRAG_SLOTS, 1000000u, &ls->cfg.allocator) !=
            TEMPO_OK) {
            free_all(ls);
            return TEMPO_E_NO_MEMORY;
        }
    }
    ls->executed = -1;
    ls->done = -1;
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        ls->cut_cap[p] = INT32_MAX;
    ls->sealed = cfg->execution_delay - 1;
    ls->len_ms = cfg->turn_ms;
    ls->announced_ms = cfg->turn_ms;
    ls->next_adapt = cfg->execution_delay;
    for (int i = 0; i < LS_SUMS; i++)
        ls->sum_turn[i] = -1;
    record_length(ls, 0, cfg->turn_ms);
    if (!ls->keyed)
        tempo__log(&ls->log, TEMPO_LOG_WARN,
                   "tempo: no match key: datagrams are not authenticated or encrypted");
    *out = ls;
    return TEMPO_OK;
}

tempo_result tempo_lockstep_create_relay_member(const tempo_lockstep_config *cfg,
                                                const tempo_transport *transport,
                                                const tempo_address *relay_address,
                                                const uint8_t *token, tempo_lockstep **out)
{
    if (out)
        *out = NULL;
    if (!cfg || !relay_address || relay_address->family == TEMPO_ADDRESS_NONE ||
        cfg->has_match_key || cfg->session_id == 0)
        return TEMPO_E_INVALID_ARG;
    uint64_t protocol_id = TEMPO_RELAY_PLAIN_PROTOCOL;
    if (token) {
        tempo_token_public pub;
        if (tempo_token_read_public(token, TEMPO_TOKEN_SIZE, &pub) != TEMPO_OK)
            return TEMPO_E_MALFORMED;
        if (seal_start() != TEMPO_OK)
            return TEMPO_E_UNSUPPORTED;
        protocol_id = pub.protocol_id;
    }
    tempo_lockstep_config c = *cfg;
    c.adaptive = false; /* through a relay every turn has the first length */
    tempo_result r = tempo_lockstep_create(&c, transport, out);
    if (r != TEMPO_OK)
        return r;
    tempo_lockstep *ls = *out;
    ls->relay = tempo__calloc(&ls->cfg.allocator, 1, sizeof *ls->relay);
    if (!ls->relay) {
        free_all(ls);
        *out = NULL;
        return TEMPO_E_NO_MEMORY;
    }
    ls_relay *rl = ls->relay;
    rl->addr = *relay_address;
    rl->protocol_id = protocol_id;
    rl->sealed = token != NULL;
    if (token)
        memcpy(rl->token, token, TEMPO_TOKEN_SIZE);
    do
        rl->nonce = (uint64_t)tempo_rng_next(&ls->rng) << 32 | tempo_rng_next(&ls->rng);
    while (rl->nonce == 0);
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        if (ls->peer[p].frag.memory)
            frag_destroy(&ls->peer[p].frag); /* no peers: nothing comes in fragments */
    return TEMPO_OK;
}

void tempo_lockstep_destroy(tempo_lockstep *ls)
{
    if (!ls)
        return;
    if (ls->polled && ls->relay)
        lockstep_relay_leave(ls);
    if (ls->polled)
        for (int p = 0; p < ls->cfg.num_players; p++)
            if (ls->peer[p].added && !ls->peer[p].lost)
                lockstep_send_plain(ls, &ls->peer[p], TURN_MSG_LEAVE);
    (void)tempo_transport_flush(&ls->tr);
    free_all(ls);
}

tempo_result tempo_lockstep_add_peer(tempo_lockstep *ls, int player, const tempo_address *addr)
{
    if (!ls || !addr || addr->family == TEMPO_ADDRESS_NONE)
        return TEMPO_E_INVALID_ARG;
    if (ls->relay)
        return TEMPO_E_STATE; /* every player is at the relay */
    if (player < 0 || player >= ls->cfg.num_players || player == ls->cfg.local_player)
        return TEMPO_E_PLAYER;
    if (ls->polled)
        return TEMPO_E_STATE;
    if (ls->peer[player].added)
        return TEMPO_E_ALREADY;
    for (int p = 0; p < ls->cfg.num_players; p++)
        if (ls->peer[p].added && tempo_address_equal(&ls->peer[p].addr, addr))
            return TEMPO_E_ALREADY;
    ls_peer *e = &ls->peer[player];
    if (ls->keyed) {
        tempo_result r = (tempo_result)keys_derive_link(ls->cfg.match_key, ls->cfg.session_id,
                                                        (uint32_t)ls->cfg.local_player,
                                                        (uint32_t)player, &e->keys);
        if (r != TEMPO_OK)
            return r;
    }
    e->added = true;
    e->addr = *addr;
    return TEMPO_OK;
}

/* ---- the schedule ---------------------------------------------------------------- */

static ls_list *open_list(tempo_lockstep *ls)
{
    int32_t turn = ls->sealed + 1;
    ls_list *l = lockstep_slot(ls, ls->cfg.local_player, turn);
    if (l->turn != turn) {
        memset(l, 0, offsetof(ls_list, cmds));
        l->turn = turn;
    }
    return l;
}

/* The host's decision for `turn`, written into its own list for it. */
static void adapt(tempo_lockstep *ls, ls_list *l)
{
    if (!ls->cfg.adaptive || l->turn < ls->next_adapt ||
        lockstep_host_of(ls, l->turn) != ls->cfg.local_player)
        return;
    if (!lockstep_is_host(ls) && !ls->took_host) {
        /* A survivor becomes the host once it has run every turn of the
         * lost host's lists: the length in force is then final. */
        for (int p = 0; p < ls->cfg.local_player; p++)
            if (ls->executed < ls->cut[p])
                return;
        ls->took_host = true;
        ls->announced_ms = ls->len_ms;
    }
    turns_load load = {ls->sim_avg_us, 0, 0};
    if (!lockstep_own_rtt(ls, &load.rtt_us, &load.rttvar_us))
        return;
    for (int p = 0; p < ls->cfg.num_players; p++) {
        const ls_peer *e = &ls->peer[p];
        if (p == ls->cfg.local_player || e->lost)
            continue;
        if (!e->reported)
            return; /* decide on every machine's numbers or not at all */
        if (e->sim_us > load.sim_us)
            load.sim_us = e->sim_us;
        if ((uint64_t)e->rtt_ms * 1000u > load.rtt_us)
            load.rtt_us = (uint64_t)e->rtt_ms * 1000u;
        if ((uint64_t)e->rttvar_ms * 1000u > load.rttvar_us)
            load.rttvar_us = (uint64_t)e->rttvar_ms * 1000u;
    }
    turns_rule rule = {ls->cfg.min_turn_ms, ls->cfg.max_turn_ms, ls->cfg.execution_delay};
    uint32_t next = turns_adapt(&rule, ls->announced_ms, &load);
    ls->next_adapt = l->turn + ls->cfg.adapt_every;
    if (next == ls->announced_ms)
        return;
    l->flags |= TURN_LIST_HAS_LENGTH;
    l->length_ms = (uint16_t)next;
    ls->announced_ms = next;
}

/* Once turn executed + 1 is due, the list collected during turn executed
 * is complete: seal it (it goes out with the next datagrams). */
static void seal_due(tempo_lockstep *ls)
{
    int32_t turn = ls->executed + ls->cfg.execution_delay;
    if (ls->now_us < ls->due_us || ls->sealed >= turn)
        return;
    ls_list *l = open_list(ls);
    adapt(ls, l);
    ls->sealed = turn;
}

/* A due turn whose lists are not all here: a freeze begins, or names
 * other players. */
static void check_freeze(tempo_lockstep *ls)
{
    if (!ls->running || ls->ended || ls->outstanding || ls->now_us < ls->due_us)
        return;
    int32_t turn = ls->executed + 1;
    uint32_t missing = 0;
    for (int p = 0; p < ls->cfg.num_players; p++)
        if (!lockstep_have(ls, p, turn))
            missing |= 1u << p;
    if (missing == 0 || (ls->frozen && missing == ls->missing_mask))
        return;
    if (!ls->frozen) {
        ls->frozen = true;
        ls->freeze_start_us = ls->due_us;
        ls->st.freezes++;
    }
    ls->missing_mask = missing;
    tempo_lockstep_event e;
    memset(&e, 0, sizeof e);
    e.kind = TEMPO_LOCKSTEP_WAITING;
    e.player = -1;
    for (int p = 0; p < ls->cfg.num_players && e.player < 0; p++)
        if (missing & (1u << p))
            e.player = p;
    e.u.waiting.turn = turn;
    e.u.waiting.missing_mask = missing;
    lockstep_push_event(ls, &e);
}

/* The survivors agree on each lost player's cut: once every live machine
 * has said it holds the player lost, with the first turn of its list it
 * lacks, in a message that also names every other machine we hold lost
 * (so nothing it holds can still grow from one of them), the cut is the
 * last turn any survivor holds. Holdings never grow past that (the lost
 * machine's datagrams are dropped, and survivors forward only what one of
 * them holds), so every survivor computes the same cut; the lists up to it
 * reach everyone by forwarding. When a survivor is lost, the agreement
 * starts again (lockstep_net.c, lockstep_lose) and can only lower the cut:
 * a holder that left before forwarding, or a machine that claimed lists
 * it never forwards (dropped by the watchdog below), no longer counts. */
static void agree(tempo_lockstep *ls)
{
    for (int x = 0; x < ls->cfg.num_players; x++) {
        if (!((ls->lost_mask >> x) & 1u) || ls->cut_final[x])
            continue;
        int32_t have = ls->peer[x].have;
        bool all = true;
        for (int q = 0; q < ls->cfg.num_players && all; q++) {
            const ls_peer *e = &ls->peer[q];
            if (q == ls->cfg.local_player || e->lost)
                continue;
            if (!((e->heard_lost >> x) & 1u))
                all = false;
            else if (e->lost_have[x] > have)
                have = e->lost_have[x];
        }
        if (!all)
            continue;
        ls->cut_final[x] = true;
        ls->cut[x] = have - 1 < ls->cut_cap[x] ? have - 1 : ls->cut_cap[x];
        ls->cut_lacking_us[x] = 0;
    }
}

/* Two watchdogs keep a lost player's cut from waiting for ever (the p2p
 * session has the same pair, p2p_agree.c). A survivor that gives no
 * report we can believe (it names the player lost with a holding no
 * machine could have) within the disconnect timeout of the agreement
 * starting is dropped. And the lists up to an agreed cut come by
 * forwarding, from a survivor that said it holds them: if they do not
 * come within the disconnect timeout, every survivor that claims lists of
 * the lost player we still lack is dropped (a lie, or a machine that
 * cannot forward). Either way the agreement starts again without it. */
static void claims_watchdog(tempo_lockstep *ls)
{
    uint64_t timeout = (uint64_t)ls->cfg.disconnect_timeout_ms * 1000u;
    for (int x = 0; x < ls->cfg.num_players; x++) {
        if (!((ls->lost_mask >> x) & 1u) || ls->cut_final[x] || ls->ended ||
            ls->now_us - ls->cut_pending_us[x] < timeout)
            continue;
        ls->cut_pending_us[x] = ls->now_us;
        for (int q = 0; q < ls->cfg.num_players; q++) {
            const ls_peer *e = &ls->peer[q];
            if (q == ls->cfg.local_player || q == x || !e->added || e->lost ||
                ((e->heard_lost >> x) & 1u))
                continue;
            tempo__log(&ls->log, TEMPO_LOG_WARN,
                       "tempo: machine %d gave no believable report of lost player %d; dropping it",
                       q, x);
            ls->st.reports_missing++;
            lockstep_lose(ls, q);
        }
    }
    for (int x = 0; x < ls->cfg.num_players; x++) {
        if (!ls->cut_final[x] || ls->peer[x].have > ls->cut[x]) {
            ls->cut_lacking_us[x] = 0;
            continue;
        }
        if (ls->cut_lacking_us[x] == 0) {
            ls->cut_lacking_us[x] = ls->now_us ? ls->now_us : 1;
            continue;
        }
        if (ls->now_us - ls->cut_lacking_us[x] < timeout)
            continue;
        ls->cut_lacking_us[x] = 0;
        int32_t held = ls->peer[x].have;
        for (int q = 0; q < ls->cfg.num_players; q++) {
            const ls_peer *e = &ls->peer[q];
            if (q == ls->cfg.local_player || q == x || !e->added || e->lost ||
                !((e->heard_lost >> x) & 1u) || e->lost_have[x] <= held)
                continue;
            tempo__log(&ls->log, TEMPO_LOG_WARN,
                       "tempo: machine %d claimed lists of lost player %d it never forwarded; "
                       "dropping it", q, x);
            ls->st.unbacked_claims++;
            lockstep_lose(ls, q);
        }
    }
}

/* The host starts the match once every machine is connected to every
 * other; it runs its own turn 0 half its worst round trip later, about
 * when the others hear the start. */
static void maybe_start(tempo_lockstep *ls)
{
    if (ls->running || !lockstep_is_host(ls))
        return;
    if (!ls->starting) {
        uint64_t worst = 0;
        for (int p = 1; p < ls->cfg.num_players; p++) {
            const ls_peer *e = &ls->peer[p];
            if (!link_established(&e->link) || !e->link.hs.remote_ready)
                return;
            if (link_rtt_us(&e->link) > worst)
                worst = link_rtt_us(&e->link);
        }
        ls->starting = true;
        ls->start_at_us = ls->now_us + worst / 2u;
    }
    if (ls->now_us >= ls->start_at_us)
        lockstep_start_running(ls, ls->start_at_us);
}

static tempo_result poll_once(tempo_lockstep *ls, uint64_t now_us)
{
    if (now_us > ls->now_us)
        ls->now_us = now_us;
    if (ls->relay) {
        if (!ls->polled) {
            ls->polled = true;
            if (lockstep_relay_open(ls) != TEMPO_OK) {
                ls->relay->phase = LR_ENDED;
                ls->ended = true;
            }
        }
        lockstep_relay_poll(ls);
        if (ls->running && !ls->ended)
            seal_due(ls);
        check_freeze(ls);
        if (!ls->ended)
            lockstep_relay_send(ls);
        return TEMPO_OK;
    }
    if (!ls->polled) {
        for (int p = 0; p < ls->cfg.num_players; p++)
            if (p != ls->cfg.local_player && !ls->peer[p].added)
                return TEMPO_E_STATE;
        ls->polled = true;
        lockstep_start_links(ls);
    }
    lockstep_receive_all(ls);
    for (int p = 0; p < ls->cfg.num_players; p++) {
        ls_peer *e = &ls->peer[p];
        if (e->added && !e->lost && (link_update(&e->link, ls->now_us) & LINK_EV_TIMED_OUT))
            lockstep_lose(ls, p);
    }
    agree(ls);
    claims_watchdog(ls);
    maybe_start(ls);
    if (ls->running && !ls->ended)
        seal_due(ls);
    check_freeze(ls);
    lockstep_send_all(ls);
    return TEMPO_OK;
}

tempo_result tempo_lockstep_poll(tempo_lockstep *ls, uint64_t now_us)
{
    if (!ls)
        return TEMPO_E_INVALID_ARG;
    tempo_result r = poll_once(ls, now_us);
    (void)tempo_transport_flush(&ls->tr); /* the round of sends ends */
    return r;
}

/* ---- the game's side ------------------------------------------------------------------- */

tempo_result tempo_lockstep_add_command(tempo_lockstep *ls, const void *data, size_t size,
                                        uint64_t now_us)
{
    if (!ls || !data || size < 1 || size > TURN_MAX_COMMAND)
        return TEMPO_E_INVALID_ARG;
    if (ls->ended)
        return TEMPO_E_STATE;
    if (now_us > ls->now_us)
        ls->now_us = now_us;
    if (ls->running)
        seal_due(ls); /* a command after the turn ended belongs to the next */
    ls_list *l = open_list(ls);
    size_t bytes = l->size - l->count; /* command bytes without their size bytes */
    if (l->count >= TURN_MAX_COMMANDS || bytes + size > TURN_BUDGET)
        return TEMPO_E_FULL;
    l->cmds[l->size] = (uint8_t)(size - 1u);
    memcpy(l->cmds + l->size + 1, data, size);
    l->size = (uint16_t)(l->size + 1u + size);
    if (l->count == 0)
        l->first_added_us = ls->now_us;
    l->count++;
    l->added_sum_us += ls->now_us;
    return TEMPO_OK;
}

int tempo_lockstep_next_turn(tempo_lockstep *ls, uint64_t now_us, tempo_lockstep_turn *out)
{
    if (!ls || !out)
        return TEMPO_E_INVALID_ARG;
    if (ls->outstanding || ls->ended)
        return TEMPO_E_STATE;
    if (now_us > ls->now_us)
        ls->now_us = now_us;
    if (!ls->running)
        return 0;
    seal_due(ls);
    check_freeze(ls);
    int32_t turn = ls->executed + 1;
    if (ls->now_us < ls->due_us)
        return 0;
    for (int p = 0; p < ls->cfg.num_players; p++)
        if (!lockstep_have(ls, p, turn))
            return 0;
    bool waited = ls->frozen;
    if (ls->frozen) {
        ls->frozen = false;
        uint64_t frozen = ls->now_us - ls->freeze_start_us;
        ls->st.frozen_us += frozen;
        tempo_lockstep_event e;
        memset(&e, 0, sizeof e);
        e.kind = TEMPO_LOCKSTEP_RUNNING;
        e.player = -1;
        e.u.running.frozen_us = frozen;
        lockstep_push_event(ls, &e);
    }
    const ls_list *host = lockstep_held(ls, lockstep_host_of(ls, turn), turn);
    if (host && (host->flags & TURN_LIST_HAS_LENGTH) && host->length_ms != ls->len_ms) {
        ls->len_ms = host->length_ms;
        record_length(ls, turn, ls->len_ms);
        ls->st.length_changes++;
        tempo_lockstep_event e;
        memset(&e, 0, sizeof e);
        e.kind = TEMPO_LOCKSTEP_TURN_LENGTH;
        e.player = 0;
        e.u.length.turn = turn;
        e.u.length.ms = ls->len_ms;
        lockstep_push_event(ls, &e);
    }
    uint64_t len_us = (uint64_t)ls->len_ms * 1000u;
    /* Through a relay the schedule is the relay's clock: no re-anchoring
     * after a wait (a late machine catches up instead of lagging for good). */
    uint64_t next_due = ls->relay ? ls->due_us + len_us
                                  : turns_next_due(ls->due_us, ls->now_us, len_us, waited);
    ls->anchor_us = next_due - len_us;
    ls->due_us = next_due;
    memset(out, 0, sizeof *out);
    out->turn = turn;
    out->length_ms = ls->len_ms;
    out->num_players = ls->cfg.num_players;
    for (int p = 0; p < ls->cfg.num_players; p++) {
        if (lockstep_dropped(ls, p, turn)) {
            out->player[p].substituted = true; /* empty: the player is gone */
            continue;
        }
        const ls_list *l = lockstep_held(ls, p, turn);
        if (!l)
            continue; /* an agreed empty list */
        out->player[p].list = l->cmds;
        out->player[p].list_size = l->size;
        out->player[p].count = l->count;
        out->player[p].substituted = (l->flags & TURN_LIST_SUBSTITUTED) != 0;
        if (out->player[p].substituted)
            ls->st.lists_substituted++;
        if (p == ls->cfg.local_player && l->count > 0 && !out->player[p].substituted) {
            ls->latency_sum_us += (uint64_t)l->count * ls->now_us - l->added_sum_us;
            ls->st.commands_executed += l->count;
            if (ls->now_us - l->first_added_us > ls->st.latency_max_us)
                ls->st.latency_max_us = ls->now_us - l->first_added_us;
        }
    }
    ls->executed = turn;
    ls->outstanding = true;
    return 1;
}

int tempo_lockstep_turn_command(const tempo_lockstep_turn *t, int player, size_t *cursor,
                                const uint8_t **data, size_t *size)
{
    if (!t || !cursor || !data || !size || player < 0 || player >= t->num_players ||
        player >= TEMPO_MAX_PLAYERS)
        return TEMPO_E_INVALID_ARG;
    size_t at = *cursor, end = t->player[player].list_size;
    if (at >= end || !t->player[player].list)
        return 0;
    size_t n = (size_t)t->player[player].list[at] + 1u;
    if (n > end - at - 1u)
        return 0; /* lists are checked on arrival: not expected */
    *data = t->player[player].list + at + 1;
    *size = n;
    *cursor = at + 1u + n;
    return 1;
}

tempo_result tempo_lockstep_turn_done(tempo_lockstep *ls, int32_t turn, uint64_t checksum,
                                      uint64_t cost_us)
{
    if (!ls)
        return TEMPO_E_INVALID_ARG;
    if (!ls->outstanding)
        return TEMPO_E_STATE;
    if (turn != ls->executed)
        return TEMPO_E_FRAME;
    ls->outstanding = false;
    ls->done = turn;
    ls->sum_turn[turn % LS_SUMS] = turn;
    ls->sum[turn % LS_SUMS] = checksum;
    if (!ls->sim_any) {
        ls->sim_any = true;
        ls->sim_avg_us = cost_us;
    } else {
        ls->sim_avg_us = ls->sim_avg_us - ls->sim_avg_us / 8u + cost_us / 8u;
    }
    for (int p = 0; p < ls->cfg.num_players; p++) {
        ls_peer *e = &ls->peer[p];
        if (e->added && e->sum_turn == turn)
            lockstep_compare(ls, p, turn, e->sum);
    }
    return TEMPO_OK;
}

tempo_result tempo_lockstep_render(const tempo_lockstep *ls, uint64_t now_us,
                                   tempo_lockstep_blend *out)
{
    if (!ls || !out)
        return TEMPO_E_INVALID_ARG;
    if (ls->executed < 0)
        return TEMPO_E_STATE;
    out->to = ls->executed;
    out->from = ls->executed - 1;
    out->alpha = turns_blend(ls->anchor_us, (uint64_t)ls->len_ms * 1000u, now_us);
    return TEMPO_OK;
}

int tempo_lockstep_next_event(tempo_lockstep *ls, tempo_lockstep_event *out)
{
    if (!ls || !out)
        return TEMPO_E_INVALID_ARG;
    int i = event_ring_pop(&ls->ev);
    if (i < 0)
        return 0;
    *out = ls->events[i];
    return 1;
}

tempo_result tempo_lockstep_get_stats(const tempo_lockstep *ls, tempo_lockstep_stats *out)
{
    if (!ls || !out)
        return TEMPO_E_INVALID_ARG;
    *out = ls->st;
    out->events_dropped = ls->ev.dropped;
    out->running = ls->running && !ls->ended;
    out->turn = ls->executed;
    out->turn_ms = ls->len_ms;
    out->sim_mean_us = ls->sim_avg_us;
    out->latency_mean_us =
        ls->st.commands_executed ? ls->latency_sum_us / ls->st.commands_executed : 0;
    uint64_t frozen = ls->st.frozen_us + (ls->frozen ? ls->now_us - ls->freeze_start_us : 0);
    out->frozen_us = frozen;
    if (ls->running && ls->now_us > ls->run_start_us)
        out->freezes_per_minute =
            (double)ls->st.freezes * 60e6 / (double)(ls->now_us - ls->run_start_us);
    return TEMPO_OK;
}

int tempo_lockstep_length_history(const tempo_lockstep *ls, int32_t *turns, uint32_t *ms, int max)
{
    if (!ls || max < 0 || (max > 0 && (!turns || !ms)))
        return TEMPO_E_INVALID_ARG;
    int kept = ls->nhist < TEMPO_LOCKSTEP_HISTORY ? ls->nhist : TEMPO_LOCKSTEP_HISTORY;
    int first = ls->nhist - kept, n = 0;
    for (int i = 0; i < kept && n < max; i++, n++) {
        int k = (first + i) % TEMPO_LOCKSTEP_HISTORY;
        turns[n] = ls->hist_turn[k];
        ms[n] = ls->hist_ms[k];
    }
    return n;
}
