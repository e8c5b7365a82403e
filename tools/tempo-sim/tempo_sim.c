/*
 * tempo_sim.c — tempo-sim's command line: parse options, pick the mode.
 *
 * Without --synctest and without any option that describes the match
 * (--players, --local-per-peer, --spectators, --profile, --link), tempo-sim
 * runs the default scenario (`make run`); the other options still apply on
 * top of it. `--scenario FILE` is read before every other option, which
 * then override it. Values that depend on the machine count are checked
 * later, by sim_network.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "tempo/simnet.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: tempo-sim [options]            the default scenario, or the match the options describe\n"
        "       tempo-sim --scenario FILE [options]  the match a scenario file describes\n"
        "       tempo-sim --soak N [--seed S]  N random matches, each checked\n"
        "       tempo-sim --synctest [options] the arena under a synctest session\n"
        "\n"
        "Network match: every peer runs the arena with bots for its players, over a simulated\n"
        "network, in virtual time, each machine on its own clock; tempo-sim measures from outside\n"
        "what the players experienced and checks that the peers agree on every frame.\n"
        "\n"
        "Default scenario (no --players/--local-per-peer/--spectators/--profile/--link given):\n"
        "  4 peers with one player each and 1 spectator, transatlantic links, peer 3 on mobile,\n"
        "  --input-delay auto, --timesync inversus, 3600 frames (60 s), seed 1, --report\n"
        "  tempo-report.html; other options change it.\n"
        "\n"
        "match:\n"
        "  --players N                players, 1..8 (default 4)\n"
        "  --local-per-peer K         players per peer machine; peer i hosts players i*K.. (default 1)\n"
        "  --spectators S             spectators watching peer 0 (default 0; machines <= 9)\n"
        "  --profile NAME             link profile of every link (default broadband):\n"
        "                             %s\n"
        "  --link A-B:PROFILE         profile of both directions between machines A and B;\n"
        "                             A-*:PROFILE for every link of A (repeatable)\n"
        "  --frames F                 frames to play (default 3600)\n"
        "  --seed S                   seed of the bots, the board and the network (default 1)\n"
        "  --max-prediction P         prediction window, 0..64, 0 = lockstep (default 8)\n"
        "  --input-delay D|auto       input delay of every player (default 0)\n"
        "  --timesync M               inversus|ggpo|lead|none (default inversus)\n"
        "  --timesync-window N        time-sync averaging window, frames (default: the method's)\n"
        "  --stall-threshold X        inversus: stall when ahead by more than X frames (default 0.5)\n"
        "  --save-policy every|sparse state saving policy (default every)\n"
        "  --desync-interval I        frames between desync checks, 0 = off (default 60)\n"
        "faults:\n"
        "  --desync-at FRAME          peer 1 corrupts its state each time it runs that frame\n"
        "                             (with --soak: in every scenario)\n"
        "  --drop-peer PEER@FRAME     at that frame the machine dies: links dark for good\n"
        "  --clock-drift PEER:PCT     its clock runs PCT%% fast (negative: slow), -50..50\n"
        "  --start-skew PEER:MS       it starts MS milliseconds late\n"
        "  --hiccup PEER@FRAME:MS     at that frame it freezes for MS milliseconds (repeatable)\n"
        "  --compare timesync|input-delay\n"
        "                             run once per method (or delay 0..4 and auto), print one table\n"
        "scenario files and soak:\n"
        "  --scenario FILE            the match a scenario file describes (docs/SCENARIOS.md);\n"
        "                             the other options override it\n"
        "  --soak N                   N random scenarios from --seed, each checked (converged, no\n"
        "                             desync, depth within the window, recovery after the last fault);\n"
        "                             a failure prints its scenario file; exit 3 if any failed\n"
        "  --soak-frames F            every soak match F frames long (default: 20 to 60 s each)\n"
        "  --soak-print               print every scenario drawn, with its verdict\n"
        "output:\n"
        "  --json FILE                results as JSON (keys: docs/TEMPO-SIM.md)\n"
        "  --report FILE              HTML report with timelines\n"
        "  --csv FILE                 the timeline as CSV\n"
        "  --quiet                    no progress and no summary\n"
        "  --help                     this text\n"
        "synctest:\n"
        "  --check-distance D         synctest rollback distance, 1..64 (default 7)\n"
        "  --nondeterministic-at F    plant a nondeterminism from frame F on\n"
        "\n"
        "Machines are numbered 0.. : the players' peers, then the spectators.\n"
        "exit codes: 0 converged without desync, 2 usage error (a scenario file: FILE:LINE: ...),\n"
        "            3 desync, mismatch, no convergence or a failed soak check\n",
        "perfect lan broadband continental transatlantic mobile terrible");
}

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

static bool parse_machine_frame(const char *s, sim_fault *f, bool with_ms)
{
    int64_t peer, frame, ms;
    const char *rest;
    if (!parse_int_then(s, '@', 0, SIM_MAX_MACHINES - 1, &peer, &rest))
        return false;
    if (with_ms) {
        if (!parse_int_then(rest, ':', 0, INT32_MAX, &frame, &rest) || !parse_i64(rest, 1, 600000, &ms))
            return false;
    } else {
        if (!parse_i64(rest, 0, INT32_MAX, &frame))
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
    if (errno || *end || !(pct >= -50.0 && pct <= 50.0))
        return false;
    o->clock_drift_pct[peer] = pct;
    return true;
}

static bool parse_skew(const char *s, sim_options *o)
{
    int64_t peer, ms;
    const char *rest;
    if (!parse_int_then(s, ':', 0, SIM_MAX_MACHINES - 1, &peer, &rest) || !parse_i64(rest, 0, 600000, &ms))
        return false;
    o->start_skew_ms[peer] = (uint32_t)ms;
    return true;
}

static bool parse_timesync(const char *s, tempo_timesync_method *out)
{
    for (int m = TEMPO_TIMESYNC_INVERSUS; m <= TEMPO_TIMESYNC_NONE && s; m++)
        if (!strcmp(s, sim_timesync_name(m))) {
            *out = (tempo_timesync_method)m;
            return true;
        }
    return false;
}

static int bad(const char *opt, const char *val)
{
    fprintf(stderr, "tempo-sim: bad value for %s: '%s'\n", opt, val ? val : "(missing)");
    usage(stderr);
    return SIM_EXIT_USAGE;
}

static void defaults(sim_options *o)
{
    memset(o, 0, sizeof *o);
    o->mode = SIM_MODE_DEFAULT;
    o->players = 4;
    o->frames = 3600;
    o->seed = 1;
    o->save_policy = TEMPO_SAVE_EVERY_FRAME;
    o->check_distance = 7;
    o->nondeterministic_at = -1;
    o->local_per_peer = 1;
    o->profile = "broadband";
    o->max_prediction = 8;
    o->timesync = TEMPO_TIMESYNC_INVERSUS;
    o->desync_interval = 60;
    o->desync_at = -1;
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

/* One option with its value v (NULL if none); *used says whether v was
 * consumed. Returns SIM_EXIT_OK or the exit code to stop with. */
static int option(sim_options *o, const char *a, const char *v, bool *used, bool *delay_given)
{
    int64_t n;
    *used = true;
#define NEED(cond) do { if (!(cond)) return bad(a, v); } while (0)
    if (!strcmp(a, "--players")) {
        NEED(parse_i64(v, 1, TEMPO_MAX_PLAYERS, &n));
        o->players = (int)n;
        o->hosts_set = false; /* a scenario's peer lines give way to --local-per-peer's split */
    } else if (!strcmp(a, "--frames")) {
        NEED(parse_i64(v, 1, 100000000, &n));
        o->frames = (int)n;
    } else if (!strcmp(a, "--seed")) {
        NEED(parse_i64(v, 0, INT64_MAX, &n));
        o->seed = (uint64_t)n;
    } else if (!strcmp(a, "--check-distance")) {
        NEED(parse_i64(v, 1, TEMPO_MAX_PREDICTION, &n));
        o->check_distance = (int)n;
    } else if (!strcmp(a, "--nondeterministic-at")) {
        NEED(parse_i64(v, 0, INT32_MAX, &n));
        o->nondeterministic_at = n;
    } else if (!strcmp(a, "--save-policy")) {
        NEED(v && (!strcmp(v, "every") || !strcmp(v, "sparse")));
        o->save_policy = !strcmp(v, "sparse") ? TEMPO_SAVE_SPARSE : TEMPO_SAVE_EVERY_FRAME;
    } else if (!strcmp(a, "--local-per-peer")) {
        NEED(parse_i64(v, 1, TEMPO_MAX_PLAYERS, &n));
        o->local_per_peer = (int)n;
        o->hosts_set = false;
    } else if (!strcmp(a, "--spectators")) {
        NEED(parse_i64(v, 0, SIM_MAX_MACHINES - 2, &n));
        o->spectators = (int)n;
    } else if (!strcmp(a, "--profile")) {
        tempo_link_params p;
        NEED(v && tempo_link_profile(v, &p) == TEMPO_OK);
        o->profile = v;
    } else if (!strcmp(a, "--link")) {
        NEED(o->num_links < SIM_MAX_LINKS && parse_link(v, &o->links[o->num_links]));
        o->num_links++;
    } else if (!strcmp(a, "--max-prediction")) {
        NEED(parse_i64(v, 0, TEMPO_MAX_PREDICTION, &n));
        o->max_prediction = (int)n;
    } else if (!strcmp(a, "--input-delay")) {
        *delay_given = true;
        o->input_delay_auto = v && !strcmp(v, "auto");
        NEED(o->input_delay_auto || parse_i64(v, 0, TEMPO_MAX_PREDICTION, &n));
        o->input_delay = o->input_delay_auto ? 0 : (int)n;
    } else if (!strcmp(a, "--timesync")) {
        NEED(parse_timesync(v, &o->timesync));
    } else if (!strcmp(a, "--timesync-window")) {
        NEED(parse_i64(v, 1, 256, &n));
        o->timesync_window = (int)n;
    } else if (!strcmp(a, "--stall-threshold")) {
        char *end;
        double x = v ? strtod(v, &end) : 0.0;
        NEED(v && *v && !*end && x > 0.0 && x < 10.0);
        o->stall_threshold = x;
    } else if (!strcmp(a, "--desync-interval")) {
        NEED(parse_i64(v, 0, 100000, &n));
        o->desync_interval = (int)n;
    } else if (!strcmp(a, "--desync-at")) {
        NEED(parse_i64(v, 0, INT32_MAX, &n));
        o->desync_at = (int32_t)n;
    } else if (!strcmp(a, "--drop-peer")) {
        NEED(o->num_drops < SIM_MAX_FAULTS && parse_machine_frame(v, &o->drops[o->num_drops], false));
        o->num_drops++;
    } else if (!strcmp(a, "--hiccup")) {
        NEED(o->num_hiccups < SIM_MAX_FAULTS && parse_machine_frame(v, &o->hiccups[o->num_hiccups], true));
        o->num_hiccups++;
    } else if (!strcmp(a, "--clock-drift")) {
        NEED(parse_drift(v, o));
    } else if (!strcmp(a, "--start-skew")) {
        NEED(parse_skew(v, o));
    } else if (!strcmp(a, "--scenario")) {
        NEED(v && *v); /* read by main before every other option */
    } else if (!strcmp(a, "--soak")) {
        NEED(parse_i64(v, 1, 100000000, &n));
        o->mode = SIM_MODE_SOAK;
        o->soak_count = (int)n;
    } else if (!strcmp(a, "--soak-frames")) {
        NEED(parse_i64(v, 60, 1000000, &n));
        o->soak_frames = (int)n;
    } else if (!strcmp(a, "--compare")) {
        NEED(v && (!strcmp(v, "timesync") || !strcmp(v, "input-delay")));
        o->compare = !strcmp(v, "timesync") ? SIM_COMPARE_TIMESYNC : SIM_COMPARE_INPUT_DELAY;
    } else if (!strcmp(a, "--json") || !strcmp(a, "--report") || !strcmp(a, "--csv")) {
        NEED(v && *v);
        const char **slot = a[2] == 'j' ? &o->json_path : a[2] == 'r' ? &o->report_path : &o->csv_path;
        *slot = v;
    } else {
        *used = false;
        if (!strcmp(a, "--synctest"))
            o->mode = SIM_MODE_SYNCTEST;
        else if (!strcmp(a, "--quiet"))
            o->quiet = true;
        else if (!strcmp(a, "--soak-print"))
            o->soak_print = true;
        else {
            fprintf(stderr, "tempo-sim: unknown option '%s'\n", a);
            usage(stderr);
            return SIM_EXIT_USAGE;
        }
    }
#undef NEED
    return SIM_EXIT_OK;
}

/* Options that describe the match itself switch the default scenario off. */
static bool describes_match(const char *a)
{
    static const char *const names[] = {"--players", "--local-per-peer", "--spectators", "--profile",
                                        "--link"};
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

int main(int argc, char **argv)
{
    sim_options o;
    defaults(&o);
    char command[1024] = "tempo-sim";
    bool delay_given = false, custom = false;
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
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return SIM_EXIT_OK;
        }
        bool used;
        int code = option(&o, a, i + 1 < argc ? argv[i + 1] : NULL, &used, &delay_given);
        if (code != SIM_EXIT_OK)
            return code;
        custom = custom || describes_match(a);
        size_t len = strlen(command);
        snprintf(command + len, sizeof command - len, " %s%s%s", a, used ? " " : "", used ? argv[i + 1] : "");
        i += used;
    }
    o.command = command;
    if (o.mode == SIM_MODE_SYNCTEST)
        return sim_synctest(&o);
    if (o.mode == SIM_MODE_SOAK)
        return sim_soak(&o);
    if (custom)
        o.mode = SIM_MODE_MATCH;
    else
        default_scenario(&o, delay_given);
    return sim_network(&o);
}
