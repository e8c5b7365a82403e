/* SPDX-License-Identifier: MIT */
/*
 * sim_scenario_write.c — write sim_options as a scenario file
 * (docs/SCENARIOS.md; sim_scenario.c reads them).
 *
 * Invariant: sim_scenario_parse reads what this writes back into the same
 * match, bit for bit. Every setting the runner uses is written (output
 * options aside), and every number in a form that reads back to the same
 * value: whole units, or the shortest decimal that round-trips. So a soak
 * failure printed as a scenario reproduces exactly.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim_scenario.h"
#include "sim_settings.h"

static void put_double(FILE *f, double v)
{
    char buf[40];
    sim_format_double(v, buf, sizeof buf);
    fputs(buf, f);
}

static void put_span(FILE *f, uint64_t us)
{
    if (us % 1000000u == 0)
        fprintf(f, "%" PRIu64 "s", us / 1000000u);
    else if (us % 1000u == 0)
        fprintf(f, "%" PRIu64 "ms", us / 1000u);
    else
        fprintf(f, "%" PRIu64 "us", us);
}

static void put_pair(FILE *f, int a, int b)
{
    if (b < 0)
        fprintf(f, "%d-*", a);
    else
        fprintf(f, "%d-%d", a, b);
}

/* The keys where params differ from the profile it starts from. */
static void put_link(FILE *f, const sim_link_override *l)
{
    tempo_link_params base, p = l->params;
    memset(&base, 0, sizeof base);
    fputs("link ", f);
    put_pair(f, l->a, l->b);
    if (l->profile[0]) {
        tempo_link_profile(l->profile, &base);
        fprintf(f, " %s", l->profile);
    }
    for (size_t k = 0; k < SIM_NUM_LINK_KEYS; k++) {
        const sim_link_key *key = &sim_link_keys[k];
        if (key->kind == SIM_KEY_PROB) {
            if (*sim_link_key_double(&p, key) == *sim_link_key_double(&base, key))
                continue;
            fprintf(f, " %s=", key->name);
            put_double(f, *sim_link_key_double(&p, key));
            continue;
        }
        uint32_t v = *sim_link_key_u32(&p, key);
        if (v == *sim_link_key_u32(&base, key))
            continue;
        if (key->kind == SIM_KEY_COUNT)
            fprintf(f, " %s=%" PRIu32, key->name, v);
        else if (v % 1000u == 0)
            fprintf(f, " %s_ms=%" PRIu32, key->name, v / 1000u);
        else
            fprintf(f, " %s_us=%" PRIu32, key->name, v);
    }
    if (!l->profile[0] && !memcmp(&p, &base, sizeof p))
        fputs(" perfect", f); /* all zero: the perfect profile is all zero too */
    if (l->from_us != 0) {
        fputs(" from ", f);
        put_span(f, l->from_us);
    }
    fputc('\n', f);
}

/* peer lines, or local-per-peer's split. */
static void put_split(FILE *f, const sim_options *o)
{
    if (o->hosts_set) {
        for (int q = 0; q < TEMPO_MAX_PLAYERS; q++) {
            bool any = false;
            for (int p = 0; p < o->players; p++)
                if (o->player_peer[p] == q) {
                    fprintf(f, any ? " %d" : "peer %d players %d", any ? p : q, p);
                    any = true;
                }
            if (any)
                fputc('\n', f);
        }
    } else {
        fprintf(f, "local-per-peer %d\n", o->local_per_peer);
    }
}

/* `spectators N` when they all watch peer 0, else a spectator line each. */
static void put_spectators(FILE *f, const sim_options *o)
{
    bool all_zero = true;
    for (int k = 0; k < o->spectators; k++)
        all_zero = all_zero && o->spectator_host[k] == 0;
    if (all_zero && o->spectators)
        fprintf(f, "spectators %d\n", o->spectators);
    for (int k = 0; k < o->spectators && !all_zero; k++)
        fprintf(f, "spectator watches %d\n", o->spectator_host[k]);
}

/* Each machine's clock: drift, then start skew. */
static void put_clocks(FILE *f, const sim_options *o)
{
    for (int m = 0; m < SIM_MAX_MACHINES; m++) {
        if (o->clock_drift_pct[m] != 0.0) {
            fprintf(f, "clock-drift %d ", m);
            put_double(f, o->clock_drift_pct[m]);
            fputs("%\n", f);
        }
        if (o->start_skew_ms[m])
            fprintf(f, "start-skew %d %" PRIu32 "ms\n", m, o->start_skew_ms[m]);
    }
}

static void put_faults(FILE *f, const sim_options *o, sim_setting_id id)
{
    for (int k = 0; id == SIM_SET_HICCUP && k < o->num_hiccups; k++)
        fprintf(f, "hiccup %d at %" PRId32 " for %" PRIu32 "ms\n", o->hiccups[k].peer, o->hiccups[k].frame,
                o->hiccups[k].ms);
    for (int k = 0; id == SIM_SET_CLOCK_JUMP && k < o->num_clock_jumps; k++) {
        const sim_clock_jump *j = &o->clock_jumps[k];
        fprintf(f, "clock-jump %d at %" PRId32 " by %s", j->peer, j->frame, j->us < 0 ? "-" : "");
        put_span(f, (uint64_t)(j->us < 0 ? -j->us : j->us));
        fputc('\n', f);
    }
    for (int k = 0; id == SIM_SET_NAT && o->has_nat && k < SIM_MAX_MACHINES; k++)
        if (o->nat[k] != SIM_NAT_NONE)
            fprintf(f, "nat %d %s\n", k, sim_nat_name(o->nat[k]));
    for (int k = 0; id == SIM_SET_BLACKOUT && k < o->num_blackouts; k++) {
        fputs("blackout ", f);
        put_pair(f, o->blackouts[k].a, o->blackouts[k].b);
        fputs(" from ", f);
        put_span(f, o->blackouts[k].from_us);
        fputs(" to ", f);
        put_span(f, o->blackouts[k].to_us);
        fputc('\n', f);
    }
    for (int k = 0; id == SIM_SET_DROP && k < o->num_drops; k++)
        fprintf(f, "drop %d at %" PRId32 "\n", o->drops[k].peer, o->drops[k].frame);
}

/* The hostile actors in the order given (their random streams follow it). */
static void put_hostiles(FILE *f, const sim_options *o)
{
    for (int k = 0; k < o->num_hostiles; k++) {
        const sim_hostile *h = &o->hostiles[k];
        int kind = h->kind;
        fputs(kind == SIM_HOSTILE_SPOOFER ? "spoofer" : kind == SIM_HOSTILE_ONPATH ? "onpath" : "handshake-flood", f);
        if (kind == SIM_HOSTILE_ONPATH)
            fprintf(f, " %d-%d", h->a, h->b);
        fputs(" rate ", f);
        if (h->rate == (double)(int64_t)h->rate) /* whole: 1000, not 1e+03 */
            fprintf(f, "%" PRId64, (int64_t)h->rate);
        else
            put_double(f, h->rate);
        fputs(" from ", f);
        put_span(f, h->from_us);
        fputs(" to ", f);
        put_span(f, h->to_us);
        fputc('\n', f);
    }
}

/* A plain setting's line, with the keywords the table files under it
 * ("timesync inversus window 60"); nothing if its value means "not set". */
static void put_plain(FILE *f, const sim_setting *s, const sim_options *o)
{
    char buf[64];
    if (!sim_setting_format(s, o, buf, sizeof buf))
        return;
    fprintf(f, "%s %s", s->directive, buf);
    size_t n = strlen(s->directive);
    for (int k = 0; k < SIM_NUM_SETTINGS; k++) {
        const sim_setting *sub = &sim_settings[k];
        if (sub->directive && !strncmp(sub->directive, s->directive, n) && sub->directive[n] == ' ' &&
            sim_setting_format(sub, o, buf, sizeof buf))
            fprintf(f, " %s %s", sub->directive + n + 1, buf);
    }
    fputc('\n', f);
}

void sim_scenario_write(FILE *f, const sim_options *o)
{
    for (int k = 0; k < SIM_NUM_SETTINGS; k++) {
        const sim_setting *s = &sim_settings[k];
        if (!s->directive || strchr(s->directive, ' '))
            continue; /* not in files, or written on its parent's line */
        switch ((sim_setting_id)k) {
        case SIM_SET_LOCAL_PER_PEER:
            put_split(f, o);
            break;
        case SIM_SET_SPECTATORS:
            put_spectators(f, o);
            break;
        case SIM_SET_LINK:
            for (int j = 0; j < o->num_links; j++)
                put_link(f, &o->links[j]);
            break;
        case SIM_SET_CLOCK_DRIFT:
            put_clocks(f, o);
            break;
        case SIM_SET_HICCUP:
        case SIM_SET_CLOCK_JUMP:
        case SIM_SET_BLACKOUT:
        case SIM_SET_DROP:
        case SIM_SET_NAT:
            put_faults(f, o, (sim_setting_id)k);
            break;
        case SIM_SET_MODE:
        case SIM_SET_CLIENTS:
        case SIM_SET_GAME:
        case SIM_SET_RECONCILE:
            if (o->role == SIM_ROLE_CLIENT_SERVER) /* a rollback match has no use for them */
                put_plain(f, s, o);
            break;
        case SIM_SET_SPOOFER:
            put_hostiles(f, o);
            break;
        case SIM_SET_ONPATH:
        case SIM_SET_HANDSHAKE_FLOOD:
            break; /* written with the spoofers, in the file's order */
        case SIM_SET_PEER:
        case SIM_SET_SPECTATOR:
        case SIM_SET_START_SKEW:
            break; /* written with local-per-peer, spectators and clock-drift */
        case SIM_SET_TOPOLOGY:
            if (o->topology) /* mesh, the default, goes unsaid */
                put_plain(f, s, o);
            break;
        default:
            put_plain(f, s, o);
            break;
        }
    }
}
