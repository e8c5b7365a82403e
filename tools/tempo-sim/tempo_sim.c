/* SPDX-License-Identifier: MIT */
/*
 * tempo_sim.c — tempo-sim's command line: parse options, pick the mode.
 *
 * Without --synctest and without any option that describes the match
 * (--players, --local-per-peer, --spectators, --profile, --link, --mode,
 * --clients), tempo-sim
 * runs the default scenario (`make run`); the other options still apply on
 * top of it. `--scenario FILE` is read before every other option, which
 * then override it. Every option is a row of the settings table
 * (sim_settings.c), which reads plain values and gives the structured
 * ones (--link, faults) their ranges. Values that depend on the machine
 * count are checked later, by p2p/sim_p2p.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "sim_settings.h"
#include "tempo/simnet.h"

static bool parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    if (!s || !*s)
        return false;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* A leading integer in lo..hi followed by `sep`; *rest points after sep. */
static bool parse_int_then(const char *s, char sep, int64_t lo, int64_t hi, int64_t *out,
                           const char **rest)
{
    if (!s)
        return false;
    const char *at = strchr(s, sep);
    if (!at || at == s || at - s > 20)
        return false;
    char num[24];
    memcpy(num, s, (size_t)(at - s));
    num[at - s] = '\0';
    *rest = at + 1;
    return parse_i64(num, lo, hi, out);
}

/* PEER@FRAME (a drop) or PEER@FRAME:MS (a hiccup, MS in the hiccup row's range). */
static bool parse_machine_frame(const char *s, sim_fault *f, bool with_ms)
{
    const sim_setting *drop = &sim_settings[SIM_SET_DROP], *hiccup = &sim_settings[SIM_SET_HICCUP];
    int64_t peer, frame, ms;
    const char *rest;
    if (!parse_int_then(s, '@', 0, SIM_MAX_MACHINES - 1, &peer, &rest))
        return false;
    if (with_ms) {
        if (!parse_int_then(rest, ':', drop->min, drop->max, &frame, &rest) ||
            !parse_i64(rest, hiccup->min, hiccup->max, &ms))
            return false;
    } else {
        if (!parse_i64(rest, drop->min, drop->max, &frame))
            return false;
        ms = 0;
    }
    f->peer = (int)peer;
    f->frame = (int32_t)frame;
    f->ms = (uint32_t)ms;
    return true;
}

static bool parse_link(const char *s, sim_link_override *l)
{
    int64_t a, b = -1;
    const char *rest;
    if (!parse_int_then(s, '-', 0, SIM_MAX_MACHINES - 1, &a, &rest))
        return false;
    if (rest[0] == '*' && rest[1] == ':')
        rest += 2;
    else if (!parse_int_then(rest, ':', 0, SIM_MAX_MACHINES - 1, &b, &rest))
        return false;
    if (strlen(rest) >= sizeof l->profile || tempo_link_profile(rest, &l->params) != TEMPO_OK)
        return false;
    l->a = (int)a;
    l->b = (int)b;
    l->custom = false;
    snprintf(l->profile, sizeof l->profile, "%s", rest);
    return true;
}

static bool parse_drift(const char *s, sim_options *o)
{
    int64_t peer;
    const char *rest;
    if (!parse_int_then(s, ':', 0, SIM_MAX_MACHINES - 1, &peer, &rest) || !*rest)
        return false;
    errno = 0;
    char *end;
    double pct = strtod(rest, &end);
    if (errno || *end || !sim_setting_check_double(&sim_settings[SIM_SET_CLOCK_DRIFT], pct))
        return false;
    o->clock_drift_pct[peer] = pct;
    return true;
}

static bool parse_skew(const char *s, sim_options *o)
{
    int64_t peer, ms;
    const char *rest;
    const sim_setting *row = &sim_settings[SIM_SET_START_SKEW];
    if (!parse_int_then(s, ':', 0, SIM_MAX_MACHINES - 1, &peer, &rest) || !parse_i64(rest, row->min, row->max, &ms))
        return false;
    o->start_skew_ms[peer] = (uint32_t)ms;
    return true;
}

/* A refused value: the table's message, and where to read more. */
static int bad(const sim_setting *s, const char *val)
{
    char msg[320];
    sim_setting_error(s, val, msg, sizeof msg);
    fprintf(stderr, "tempo-sim: %s\n", msg);
    fprintf(stderr, "run 'tempo-sim --help' for the options\n");
    return SIM_EXIT_USAGE;
}

/* The default scenario, for what the command line left open. */
static void default_scenario(sim_options *o, bool delay_given)
{
    o->players = 4;
    o->local_per_peer = 1;
    o->spectators = 1;
    o->profile = "transatlantic";
    if (o->num_links < SIM_MAX_LINKS) {
        sim_link_override *l = &o->links[o->num_links++];
        memset(l, 0, sizeof *l);
        l->a = 3;
        l->b = -1;
        snprintf(l->profile, sizeof l->profile, "mobile");
        tempo_link_profile(l->profile, &l->params);
    }
    if (!delay_given)
        o->input_delay_auto = true;
    if (!o->report_path)
        o->report_path = "tempo-report.html";
}

/* What main does after the options are read. */
typedef enum after_options { RUN, PRINT_SCENARIO, LIST_SETTINGS, HELP } after_options;

/* One option with its value v (NULL if none); *used says whether v was
 * consumed. Plain settings are read by the table; structured ones here, with
 * the table's ranges. Returns SIM_EXIT_OK or the exit code to stop with. */
static int option(sim_options *o, const char *a, const char *v, bool *used, bool *delay_given,
                  after_options *after)
{
    const sim_setting *s = sim_setting_by_option(a);
    if (!s) {
        fprintf(stderr, "tempo-sim: unknown option %s\n", a);
        fprintf(stderr, "run 'tempo-sim --help' for the options\n");
        return SIM_EXIT_USAGE;
    }
    sim_setting_id id = (sim_setting_id)(s - sim_settings);
    *used = s->kind != SIM_KIND_FLAG;
    bool ok = true;
    switch (s->kind) {
    case SIM_KIND_FLAG:
        if (s->field == SIM_FIELD_BOOL)
            *(bool *)(void *)((char *)o + s->offset) = true;
        break;
    case SIM_KIND_STRUCTURED:
        if (id == SIM_SET_LINK) {
            ok = o->num_links < SIM_MAX_LINKS && parse_link(v, &o->links[o->num_links]);
            o->num_links += ok;
        } else if (id == SIM_SET_DROP) {
            ok = o->num_drops < SIM_MAX_FAULTS && parse_machine_frame(v, &o->drops[o->num_drops], false);
            o->num_drops += ok;
        } else if (id == SIM_SET_HICCUP) {
            ok = o->num_hiccups < SIM_MAX_FAULTS && parse_machine_frame(v, &o->hiccups[o->num_hiccups], true);
            o->num_hiccups += ok;
        } else if (id == SIM_SET_CLOCK_DRIFT) {
            ok = parse_drift(v, o);
        } else if (id == SIM_SET_START_SKEW) {
            ok = parse_skew(v, o);
        }
        if (!ok)
            return bad(s, v);
        break;
    default: {
        char msg[320];
        if (!sim_setting_parse(s, v, o, msg, sizeof msg)) {
            fprintf(stderr, "tempo-sim: %s\n", msg);
            fprintf(stderr, "run 'tempo-sim --help' for the options\n");
            return SIM_EXIT_USAGE;
        }
        break;
    }
    }
    switch (id) {
    case SIM_SET_PLAYERS:
    case SIM_SET_LOCAL_PER_PEER:
        o->hosts_set = false; /* a scenario's peer lines give way to --local-per-peer's split */
        break;
    case SIM_SET_INPUT_DELAY:
        *delay_given = true;
        break;
    case SIM_SET_SOAK:
        o->mode = SIM_MODE_SOAK;
        break;
    case SIM_SET_SYNCTEST:
        o->mode = SIM_MODE_SYNCTEST;
        break;
    case SIM_SET_PRINT_SCENARIO:
        *after = PRINT_SCENARIO;
        break;
    case SIM_SET_LIST_SETTINGS:
        *after = LIST_SETTINGS;
        break;
    case SIM_SET_HELP:
        *after = HELP;
        break;
    default:
        break; /* --scenario: read by main before every other option */
    }
    return SIM_EXIT_OK;
}

/* Options that describe the match itself switch the default scenario off. */
static bool describes_match(const char *a)
{
    static const char *const names[] = {"--players", "--local-per-peer", "--spectators", "--profile",
                                        "--link", "--mode", "--clients"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (!strcmp(a, names[k]))
            return true;
    return false;
}

/* The --scenario file, read before the other options so that they override
 * it; NULL if none. Returns false (after a message) on a second one. */
static bool find_scenario(int argc, char **argv, const char **path)
{
    *path = NULL;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--scenario")) {
            if (*path) {
                fprintf(stderr, "tempo-sim: only one --scenario\n");
                return false;
            }
            *path = argv[++i];
        }
    return true;
}

/* The mode the options pick (each in its own folder; sim.h). */
static int run_mode(const sim_options *o)
{
    if (o->mode == SIM_MODE_SYNCTEST)
        return sim_synctest(o);
    if (o->mode == SIM_MODE_SOAK)
        return sim_soak(o);
    if (o->role == SIM_ROLE_CLIENT_SERVER)
        return sim_cs(o);
    if (o->compare == SIM_COMPARE_RECONCILIATION)
        return sim_usage_error("--compare reconciliation needs --mode client-server");
    if (o->compare == SIM_COMPARE_LOCKSTEP)
        return sim_lockstep_compare(o);
    if (o->lockstep_turns > 0 || o->lockstep_adaptive)
        return sim_lockstep(o);
    if (o->compare >= SIM_COMPARE_INTERPOLATION && o->compare <= SIM_COMPARE_LAGCOMP)
        return sim_view_compare(o);
    int code = sim_p2p_check(o);
    if (code != SIM_EXIT_OK)
        return code;
    if (o->compare != SIM_COMPARE_NONE)
        return sim_p2p_compare(o);
    if (o->attack > 0)
        return sim_attack(o);
    return sim_p2p(o);
}

int main(int argc, char **argv)
{
    sim_options o;
    sim_settings_defaults(&o);
    char command[1024] = "tempo-sim";
    bool delay_given = false, custom = false;
    after_options after = RUN;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            sim_settings_help(stdout);
            return SIM_EXIT_OK;
        }
        if (!strcmp(argv[i], "--version")) {
            printf("tempo-sim (tempo %d.%d.%d)\n", TEMPO_VERSION_MAJOR, TEMPO_VERSION_MINOR,
                   TEMPO_VERSION_PATCH);
            return SIM_EXIT_OK;
        }
    }
    const char *scenario;
    if (!find_scenario(argc, argv, &scenario))
        return SIM_EXIT_USAGE;
    if (scenario) {
        if (!sim_scenario_load(scenario, &o))
            return SIM_EXIT_USAGE;
        custom = true;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool used;
        int code = option(&o, a, i + 1 < argc ? argv[i + 1] : NULL, &used, &delay_given, &after);
        if (code != SIM_EXIT_OK)
            return code;
        custom = custom || describes_match(a);
        size_t len = strlen(command);
        snprintf(command + len, sizeof command - len, " %s%s%s", a, used ? " " : "", used ? argv[i + 1] : "");
        i += used;
    }
    o.command = command;
    if (after == LIST_SETTINGS) {
        sim_settings_list(stdout);
        return SIM_EXIT_OK;
    }
    if (o.mode != SIM_MODE_SYNCTEST && o.mode != SIM_MODE_SOAK) {
        if (custom)
            o.mode = SIM_MODE_MATCH;
        else
            default_scenario(&o, delay_given);
    }
    if (after == PRINT_SCENARIO) {
        sim_scenario_write(stdout, &o);
        return SIM_EXIT_OK;
    }
    return run_mode(&o);
}
