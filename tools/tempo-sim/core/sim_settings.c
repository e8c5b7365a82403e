/* SPDX-License-Identifier: MIT */
/*
 * sim_settings.c — the table of tempo-sim's settings and what reads, checks,
 * writes and explains a value by it (sim_settings.h).
 *
 * Invariant: a value sim_setting_format writes is read back by
 * sim_setting_parse into the same field value, bit for bit (whole numbers,
 * names, and doubles as the shortest decimal that round-trips), so a
 * scenario file written from options reads back into the same match.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim_settings.h"

/* The field type of a sim_options member, told by its C type; enums are
 * the only members of another type. */
#define FIELD(m)                                                                                  \
    .field = _Generic(((sim_options *)0)->m, int: SIM_FIELD_INT, int64_t: SIM_FIELD_INT64,          \
                      uint64_t: SIM_FIELD_UINT64, double: SIM_FIELD_DOUBLE, bool: SIM_FIELD_BOOL,     \
                      const char *: SIM_FIELD_STRING, default: SIM_FIELD_ENUM),                       \
    .offset = offsetof(sim_options, m)

_Static_assert(sizeof(tempo_save_policy) == sizeof(int) && sizeof(tempo_timesync_method) == sizeof(int) &&
                   sizeof(sim_compare) == sizeof(int) && sizeof(sim_role) == sizeof(int) &&
                   sizeof(sim_cs_game_id) == sizeof(int) && sizeof(tempo_reconcile_mode) == sizeof(int),
               "enum fields are stored as an int");
_Static_assert(_Generic(((sim_options *)0)->desync_at, int: 1, default: 0), "desync_at is stored as an int");

static const char *const timesync_names[] = {"inversus", "ggpo", "lead", "none", "inversus-article", NULL};
static const int timesync_values[] = {TEMPO_TIMESYNC_INVERSUS, TEMPO_TIMESYNC_GGPO, TEMPO_TIMESYNC_LEAD,
                                      TEMPO_TIMESYNC_NONE, TEMPO_TIMESYNC_INVERSUS_ARTICLE};
static const char *const save_names[] = {"every", "sparse", NULL};
static const int save_values[] = {TEMPO_SAVE_EVERY_FRAME, TEMPO_SAVE_SPARSE};
static const char *const seal_names[] = {"on", "off", NULL};
static const int seal_values[] = {1, 0};
static const char *const compare_names[] = {"timesync", "input-delay", "max-prediction",
                                            "interpolation", "reckoning", "lagcomp", "reconciliation",
                                            "lockstep", "topology", "rtt", NULL};
static const int compare_values[] = {SIM_COMPARE_TIMESYNC, SIM_COMPARE_INPUT_DELAY,
                                     SIM_COMPARE_MAX_PREDICTION, SIM_COMPARE_INTERPOLATION,
                                     SIM_COMPARE_RECKONING, SIM_COMPARE_LAGCOMP, SIM_COMPARE_RECONCILIATION,
                                     SIM_COMPARE_LOCKSTEP, SIM_COMPARE_TOPOLOGY, SIM_COMPARE_RTT};
static const char *const role_names[] = {"p2p", "client-server", NULL};
static const int role_values[] = {SIM_ROLE_P2P, SIM_ROLE_CLIENT_SERVER};
static const char *const game_names[] = {"auto", "pong", "walkers", NULL};
static const int game_values[] = {SIM_CS_GAME_AUTO, SIM_CS_GAME_PONG, SIM_CS_GAME_WALKERS};
static const char *const reconcile_names[] = {"replay", "none", "dumb", NULL};
static const int reconcile_values[] = {TEMPO_RECONCILE_REPLAY, TEMPO_RECONCILE_NONE, TEMPO_RECONCILE_DUMB};
static const char *const topology_names[] = {"mesh", "relay", NULL};
static const int topology_values[] = {0, 1};

#define MATCH "match"
#define CS "client-server"
#define NETWORK "network"
#define FAULTS "faults"
#define SESSION "session"
#define RUN "runs: synctest, scenario files, soak"
#define OUTPUT "output"

const sim_setting sim_settings[SIM_NUM_SETTINGS] = {
    [SIM_SET_SEED] = {"seed", "--seed", "seed", SIM_KIND_INT, FIELD(seed), .min = 0, .max = INT64_MAX,
                      .cli_arg = "S", .group = MATCH,
                      .help = "seed of the bots, the board and the network"},
    [SIM_SET_FRAMES] = {"frames", "--frames", "duration", SIM_KIND_DURATION, FIELD(frames), .min = 1,
                        .max = 100000000, .cli_arg = "N", .file_arg = "F | F frames | SECONDSs", .group = MATCH,
                        .help = "frames to play (60 a second)"},
    [SIM_SET_MODE] = {"mode", "--mode", "mode", SIM_KIND_ENUM, FIELD(role), .names = role_names,
                      .values = role_values, .cli_arg = "M", .group = CS,
                      .help = "peers of a rollback match, or a server and its clients"},
    [SIM_SET_CLIENTS] = {"clients", "--clients", "clients", SIM_KIND_INT, FIELD(clients), .min = 1,
                         .max = TEMPO_CS_MAX_CLIENTS, .cli_arg = "N", .group = CS,
                         .help = "client-server: clients, one player each (Pong: 2..8)"},
    [SIM_SET_GAME] = {"game", "--game", "game", SIM_KIND_ENUM, FIELD(game), .names = game_names,
                      .values = game_values, .cli_arg = "G", .group = CS,
                      .help = "client-server: the game (auto: Pong up to 8 clients, else walkers)"},
    [SIM_SET_RECONCILE] = {"reconcile", "--reconcile", "reconcile", SIM_KIND_ENUM, FIELD(reconcile),
                           .names = reconcile_names, .values = reconcile_values, .cli_arg = "MODE", .group = CS,
                           .help = "client-server: what clients do with a snapshot"},
    [SIM_SET_PLAYERS] = {"players", "--players", "players", SIM_KIND_INT, FIELD(players), .min = 1,
                         .max = TEMPO_MAX_PLAYERS, .cli_arg = "N", .group = MATCH,
                         .help = "players (with peer lines: as many as they host)"},
    [SIM_SET_LOCAL_PER_PEER] = {"local-per-peer", "--local-per-peer", "local-per-peer", SIM_KIND_INT,
                                FIELD(local_per_peer), .min = 1, .max = TEMPO_MAX_PLAYERS, .cli_arg = "K",
                                .group = MATCH, .help = "players per peer machine: peer i hosts players i*K.."},
    [SIM_SET_PEER] = {"peer", NULL, "peer", SIM_KIND_STRUCTURED, .min = 0, .max = TEMPO_MAX_PLAYERS - 1,
                      .cli_arg = "P players A B ...", .group = MATCH,
                      .help = "peer P hosts these players (instead of local-per-peer)"},
    [SIM_SET_SPECTATORS] = {"spectators", "--spectators", "spectators", SIM_KIND_INT, FIELD(spectators),
                            .min = 0, .max = SIM_MAX_MACHINES - 2, .cli_arg = "S", .group = MATCH,
                            .help = "spectators watching peer 0 (machines <= 9)"},
    [SIM_SET_SPECTATOR] = {"spectator", NULL, "spectator", SIM_KIND_STRUCTURED, .min = 0,
                           .max = TEMPO_MAX_PLAYERS - 1, .cli_arg = "watches P", .group = MATCH,
                           .help = "one more spectator, watching peer P"},
    [SIM_SET_PROFILE] = {"profile", "--profile", "profile", SIM_KIND_PROFILE, FIELD(profile),
                         .cli_arg = "NAME", .group = NETWORK, .help = "link profile of every link (docs/SIMNET.md)"},
    [SIM_SET_LINK] = {"link", "--link", "link", SIM_KIND_STRUCTURED, .min = 0, .max = SIM_MAX_MACHINES - 1,
                      .cli_arg = "A-B:PROFILE", .file_arg = "A-B [PROFILE] [key=value ...] [from TIME]", .group = NETWORK,
                      .help = "both directions between A and B; A-*: every link of A"},
    [SIM_SET_NAT] = {"nat", NULL, "nat", SIM_KIND_STRUCTURED, .min = 0, .max = SIM_MAX_MACHINES - 1,
                     .cli_arg = "MACHINE none|fc|arc|prc|sym", .group = NETWORK,
                     .help = "its NAT; a pair with no direct path plays relayed (docs/NAT.md)"},
    [SIM_SET_CLOCK_DRIFT] = {"clock-drift", "--clock-drift", "clock-drift", SIM_KIND_STRUCTURED, .lo = -50,
                             .hi = 50, .unit = "%", .cli_arg = "PEER:PCT", .file_arg = "MACHINE PERCENT[%]",
                             .group = FAULTS, .help = "its clock runs that much fast (negative: slow)"},
    [SIM_SET_START_SKEW] = {"start-skew", "--start-skew", "start-skew", SIM_KIND_STRUCTURED, .min = 0,
                            .max = 600000, .unit = "ms", .cli_arg = "PEER:MS", .file_arg = "MACHINE TIME",
                            .group = FAULTS, .help = "it is switched on that much later (whole milliseconds)"},
    [SIM_SET_HICCUP] = {"hiccup", "--hiccup", "hiccup", SIM_KIND_STRUCTURED, .min = 1, .max = 600000,
                        .unit = "ms", .cli_arg = "PEER@FRAME:MS", .file_arg = "MACHINE at FRAME for TIME",
                        .group = FAULTS,
                        .help = "at that frame it freezes; its clock runs on"},
    [SIM_SET_CLOCK_JUMP] = {"clock-jump", NULL, "clock-jump", SIM_KIND_STRUCTURED, .min = -3600000000,
                            .max = 3600000000, .unit = "us, not 0", .cli_arg = "MACHINE at FRAME by TIME",
                            .group = FAULTS,
                            .help = "its clock leaps (-1s: back)"},
    [SIM_SET_BLACKOUT] = {"blackout", NULL, "blackout", SIM_KIND_STRUCTURED, .min = 0,
                          .max = INT64_C(1) << 50, .unit = "us", .cli_arg = "A-B from TIME to|for TIME",
                          .group = FAULTS,
                          .help = "A and B (A-*: anyone) lose all"},
    [SIM_SET_DROP] = {"drop", "--drop-peer", "drop", SIM_KIND_STRUCTURED, .min = 0, .max = INT32_MAX,
                      .cli_arg = "PEER@FRAME", .file_arg = "MACHINE at FRAME", .group = FAULTS,
                      .help = "at that frame the machine dies: its links go dark for good"},
    [SIM_SET_SPOOFER] = {"spoofer", NULL, "spoofer", SIM_KIND_STRUCTURED, .min = 1, .max = 1000000,
                         .unit = "a second", .cli_arg = "rate N from TIME to|for TIME", .group = FAULTS,
                         .help = "off-path: forged, mutated and replayed datagrams under peers' addresses"},
    [SIM_SET_ONPATH] = {"onpath", NULL, "onpath", SIM_KIND_STRUCTURED, .lo = 0, .hi = 1,
                        .cli_arg = "A-B rate SHARE from TIME to|for TIME", .group = FAULTS,
                        .help = "on the path A to B: rewrites, drops, replays, duplicates, reorders"},
    [SIM_SET_HANDSHAKE_FLOOD] = {"handshake-flood", NULL, "handshake-flood", SIM_KIND_STRUCTURED, .min = 1,
                                 .max = 1000000, .unit = "a second", .cli_arg = "rate N from TIME to|for TIME",
                                 .group = FAULTS, .help = "handshake requests from many addresses"},
    [SIM_SET_INPUT_DELAY] = {"input-delay", "--input-delay", "input-delay", SIM_KIND_INT, FIELD(input_delay),
                             .min = 0, .max = TEMPO_MAX_PREDICTION, .keyword = "auto",
                             .keyword_offset = offsetof(sim_options, input_delay_auto), .cli_arg = "D|auto",
                             .group = SESSION,
                             .help = "input delay of every player, at most max-prediction"},
    [SIM_SET_TIMESYNC] = {"timesync", "--timesync", "timesync", SIM_KIND_ENUM, FIELD(timesync),
                          .names = timesync_names, .values = timesync_values, .cli_arg = "M",
                          .file_arg = "M [window N] [threshold X]", .group = SESSION, .help = "time sync method"},
    [SIM_SET_TIMESYNC_WINDOW] = {"timesync-window", "--timesync-window", "timesync window", SIM_KIND_INT,
                                 FIELD(timesync_window), .min = 1, .max = 256, .cli_arg = "N", .group = SESSION,
                                 .help = "time-sync averaging window, frames (default: the method's)"},
    [SIM_SET_STALL_THRESHOLD] = {"stall-threshold", "--stall-threshold", "timesync threshold", SIM_KIND_DOUBLE,
                                 FIELD(stall_threshold), .lo = 0, .hi = 10, .open = true, .cli_arg = "X",
                                 .group = SESSION,
                                 .help = "inversus(-article): stall when X frames ahead (default: the method's)"},
    [SIM_SET_MAX_PREDICTION] = {"max-prediction", "--max-prediction", "max-prediction", SIM_KIND_INT,
                                FIELD(max_prediction), .min = 0, .max = TEMPO_MAX_PREDICTION, .cli_arg = "P",
                                .group = SESSION, .help = "prediction window, 0 = lockstep"},
    [SIM_SET_SAVE_POLICY] = {"save-policy", "--save-policy", "save-policy", SIM_KIND_ENUM, FIELD(save_policy),
                             .names = save_names, .values = save_values, .cli_arg = "every|sparse",
                             .group = SESSION, .help = "state saving policy"},
    [SIM_SET_DESYNC_INTERVAL] = {"desync-interval", "--desync-interval", "desync-interval", SIM_KIND_INT,
                                 FIELD(desync_interval), .min = 0, .max = 100000, .cli_arg = "I",
                                 .group = SESSION, .help = "frames between desync checks, 0 = off"},
    [SIM_SET_DESYNC_AT] = {"desync-at", "--desync-at", "desync-at", SIM_KIND_FRAME, FIELD(desync_at), .min = 0,
                           .max = INT32_MAX, .cli_arg = "FRAME", .group = FAULTS,
                           .help = "peer 1 corrupts its state at that frame (--soak: in each)"},
    [SIM_SET_SEAL] = {"seal", "--seal", "seal", SIM_KIND_ENUM, FIELD(seal), .names = seal_names,
                      .values = seal_values, .cli_arg = "on|off", .group = SESSION,
                      .help = "seal every datagram (a match key drawn from the seed)"},
    [SIM_SET_TOPOLOGY] = {"topology", "--topology", "topology", SIM_KIND_ENUM, FIELD(topology),
                          .names = topology_names, .values = topology_values, .cli_arg = "mesh|relay",
                          .group = SESSION, .help = "peers talk to each other, or all through one relay"},
    [SIM_SET_LOCKSTEP_TURNS] = {"lockstep-turns", "--lockstep-turns", "lockstep-turns", SIM_KIND_INT,
                                FIELD(lockstep_turns), .min = 10, .max = 2000, .unit = "ms",
                                .keyword = "adaptive",
                                .keyword_offset = offsetof(sim_options, lockstep_adaptive),
                                .cli_arg = "MS|adaptive", .group = SESSION,
                                .help = "an RTS-style match with the turn-based lockstep object"},
    [SIM_SET_COMPARE] = {"compare", "--compare", NULL, SIM_KIND_ENUM, FIELD(compare), .names = compare_names,
                         .values = compare_values, .cli_arg = "WHAT", .group = RUN,
                         .help = "run once per method (or delay 0..4 and auto, prediction window 4..24, view setting, "
                                 "client-server reconciliation, lockstep way, mesh or relay, round trips from pings "
                                 "or from acks), print one table"},
    [SIM_SET_CHECK_DISTANCE] = {"check-distance", "--check-distance", NULL, SIM_KIND_INT, FIELD(check_distance),
                                .min = 1, .max = TEMPO_MAX_PREDICTION, .cli_arg = "D", .group = RUN,
                                .help = "synctest rollback distance"},
    [SIM_SET_NONDETERMINISTIC_AT] = {"nondeterministic-at", "--nondeterministic-at", NULL, SIM_KIND_INT,
                                     FIELD(nondeterministic_at), .min = 0, .max = INT32_MAX, .cli_arg = "F",
                                     .group = RUN, .help = "synctest: plant a nondeterminism from frame F on"},
    [SIM_SET_SYNCTEST] = {"synctest", "--synctest", NULL, SIM_KIND_FLAG, .group = RUN,
                          .help = "the arena under a synctest session instead of a match"},
    [SIM_SET_SCENARIO] = {"scenario", "--scenario", NULL, SIM_KIND_PATH, .cli_arg = "FILE", .group = RUN,
                          .help = "the match a file describes; other options override it"},
    [SIM_SET_SOAK] = {"soak", "--soak", NULL, SIM_KIND_INT, FIELD(soak_count), .min = 1, .max = 100000000,
                      .cli_arg = "N", .group = RUN,
                      .help = "N random scenarios from --seed, each checked; exit 3 if any fails"},
    [SIM_SET_SOAK_FRAMES] = {"soak-frames", "--soak-frames", NULL, SIM_KIND_INT, FIELD(soak_frames), .min = 60,
                             .max = 1000000, .cli_arg = "F", .group = RUN,
                             .help = "every soak match F frames long (default: 20 to 60 s each)"},
    [SIM_SET_SOAK_PRINT] = {"soak-print", "--soak-print", NULL, SIM_KIND_FLAG, FIELD(soak_print), .group = RUN,
                            .help = "print every scenario the soak draws, with its verdict"},
    [SIM_SET_ATTACK] = {"attack", "--attack", NULL, SIM_KIND_INT, FIELD(attack), .min = 1, .max = 100000000,
                        .cli_arg = "N", .group = RUN,
                        .help = "N forged, mutated and replayed datagrams at a match; print what got in"},
    [SIM_SET_JSON] = {"json", "--json", NULL, SIM_KIND_PATH, FIELD(json_path), .cli_arg = "FILE", .group = OUTPUT,
                      .help = "results as JSON (keys: docs/TEMPO-SIM.md)"},
    [SIM_SET_REPORT] = {"report", "--report", NULL, SIM_KIND_PATH, FIELD(report_path), .cli_arg = "FILE",
                        .group = OUTPUT, .help = "HTML report with timelines"},
    [SIM_SET_CSV] = {"csv", "--csv", NULL, SIM_KIND_PATH, FIELD(csv_path), .cli_arg = "FILE", .group = OUTPUT,
                     .help = "the timeline as CSV"},
    [SIM_SET_RECORD] = {"record", "--record", NULL, SIM_KIND_PATH, FIELD(record_prefix), .cli_arg = "PREFIX",
                        .group = OUTPUT,
                        .help = "each peer's replay file, PREFIX-peerN.rep (tempo-arena --replay plays it)"},
    [SIM_SET_QUIET] = {"quiet", "--quiet", NULL, SIM_KIND_FLAG, FIELD(quiet), .group = OUTPUT,
                       .help = "no progress and no summary"},
    [SIM_SET_PRINT_SCENARIO] = {"print-scenario", "--print-scenario", NULL, SIM_KIND_FLAG, .group = OUTPUT,
                                .help = "print the match as a scenario file and exit without running it"},
    [SIM_SET_LIST_SETTINGS] = {"list-settings", "--list-settings", NULL, SIM_KIND_FLAG, .group = OUTPUT,
                               .help = "print this table for scripts (tab-separated) and exit"},
    [SIM_SET_HELP] = {"help", "--help", NULL, SIM_KIND_FLAG, .group = OUTPUT, .help = "this text (also -h)"},
};

void sim_settings_defaults(sim_options *o)
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
    tempo_config lib;
    tempo_config_default(&lib);
    o->max_prediction = lib.max_prediction; /* the library's, as a game gets it */
    o->timesync = TEMPO_TIMESYNC_INVERSUS;
    o->desync_interval = 60;
    o->desync_at = -1;
    o->role = SIM_ROLE_P2P;
    o->clients = 2;
    o->game = SIM_CS_GAME_AUTO;
    o->reconcile = TEMPO_RECONCILE_REPLAY;
    o->seal = 1;
}

const sim_setting *sim_setting_by_option(const char *option)
{
    for (int k = 0; k < SIM_NUM_SETTINGS; k++)
        if (sim_settings[k].option && !strcmp(sim_settings[k].option, option))
            return &sim_settings[k];
    return NULL;
}

const sim_setting *sim_setting_by_directive(const char *directive)
{
    for (int k = 0; k < SIM_NUM_SETTINGS; k++)
        if (sim_settings[k].directive && !strcmp(sim_settings[k].directive, directive))
            return &sim_settings[k];
    return NULL;
}

const char *sim_profile_name(const char *name)
{
    for (const char *const *n = tempo_link_profile_names(); *n; n++)
        if (!strcmp(*n, name))
            return *n;
    return NULL;
}

/* ---- the field ------------------------------------------------------------------------ */

static void store_int(sim_options *o, const sim_setting *s, int64_t v)
{
    char *at = (char *)o + s->offset;
    switch (s->field) {
    case SIM_FIELD_INT:
    case SIM_FIELD_ENUM: {
        int x = (int)v;
        memcpy(at, &x, sizeof x);
        break;
    }
    case SIM_FIELD_INT64:
        memcpy(at, &v, sizeof v);
        break;
    case SIM_FIELD_UINT64: {
        uint64_t x = (uint64_t)v;
        memcpy(at, &x, sizeof x);
        break;
    }
    case SIM_FIELD_BOOL: {
        bool x = v != 0;
        memcpy(at, &x, sizeof x);
        break;
    }
    default:
        break;
    }
}

static int64_t load_int(const sim_options *o, const sim_setting *s)
{
    const char *at = (const char *)o + s->offset;
    switch (s->field) {
    case SIM_FIELD_INT:
    case SIM_FIELD_ENUM: {
        int x;
        memcpy(&x, at, sizeof x);
        return x;
    }
    case SIM_FIELD_INT64: {
        int64_t x;
        memcpy(&x, at, sizeof x);
        return x;
    }
    case SIM_FIELD_UINT64: {
        uint64_t x;
        memcpy(&x, at, sizeof x);
        return x > INT64_MAX ? -1 : (int64_t)x;
    }
    case SIM_FIELD_BOOL: {
        bool x;
        memcpy(&x, at, sizeof x);
        return x;
    }
    default:
        return 0;
    }
}

/* ---- reading values --------------------------------------------------------------------- */

bool sim_setting_read_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* A finite decimal, with an optional sign, and nothing after it. */
static bool read_double(const char *s, double *out)
{
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* A frame number 0..max, or seconds as 10s or 10.5s (60 frames a second,
 * rounded to the nearest frame). */
static bool read_frames(const char *s, int64_t max, int64_t *frame)
{
    if (sim_setting_read_int(s, 0, max, frame))
        return true;
    size_t n = strlen(s);
    char num[40];
    if (n < 2 || n >= sizeof num || s[n - 1] != 's' || s[0] == '-' || s[0] == '+' || s[0] == ' ')
        return false;
    memcpy(num, s, n - 1);
    num[n - 1] = '\0';
    double v;
    if (!read_double(num, &v) || v < 0 || v * 60.0 > (double)max)
        return false;
    *frame = llround(v * 60.0);
    return true;
}

bool sim_setting_check_int(const sim_setting *s, int64_t v)
{
    return v >= s->min && v <= s->max;
}

bool sim_setting_check_double(const sim_setting *s, double v)
{
    return s->open ? v > s->lo && v < s->hi : v >= s->lo && v <= s->hi;
}

bool sim_setting_parse(const sim_setting *s, const char *text, sim_options *o, char *msg, size_t size)
{
    int64_t i = 0;
    double d = 0;
    bool ok = text != NULL && *text;
    switch (ok ? s->kind : SIM_KIND_FLAG) {
    case SIM_KIND_INT:
        if (s->keyword && !strcmp(text, s->keyword)) {
            bool yes = true;
            memcpy((char *)o + s->keyword_offset, &yes, sizeof yes);
            store_int(o, s, 0);
            return true;
        }
        ok = sim_setting_read_int(text, s->min, s->max, &i);
        if (ok && s->keyword) {
            bool no = false;
            memcpy((char *)o + s->keyword_offset, &no, sizeof no);
        }
        break;
    case SIM_KIND_DURATION:
    case SIM_KIND_FRAME:
        ok = read_frames(text, s->max, &i) && i >= s->min;
        break;
    case SIM_KIND_DOUBLE:
        ok = read_double(text, &d) && sim_setting_check_double(s, d);
        if (ok)
            memcpy((char *)o + s->offset, &d, sizeof d);
        return ok || (sim_setting_error(s, text, msg, size), false);
    case SIM_KIND_ENUM:
        ok = false;
        for (int k = 0; s->names[k] && !ok; k++)
            if (!strcmp(text, s->names[k])) {
                i = s->values[k];
                ok = true;
            }
        break;
    case SIM_KIND_PROFILE:
    case SIM_KIND_PATH: {
        const char *v = s->kind == SIM_KIND_PATH ? text : sim_profile_name(text);
        ok = v != NULL;
        if (ok && s->field == SIM_FIELD_STRING)
            memcpy((char *)o + s->offset, &v, sizeof v);
        if (ok && s->kind == SIM_KIND_PROFILE)
            o->profile_given = true;
        return ok || (sim_setting_error(s, text, msg, size), false);
    }
    default:
        ok = false;
        break;
    }
    if (!ok) {
        sim_setting_error(s, text, msg, size);
        return false;
    }
    store_int(o, s, i);
    if (s == &sim_settings[SIM_SET_CLIENTS])
        o->clients_given = true;
    return true;
}

/* ---- writing values and ranges ----------------------------------------------------------- */

void sim_format_double(double v, char *buf, size_t size)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
}

bool sim_setting_format(const sim_setting *s, const sim_options *o, char *buf, size_t size)
{
    int64_t v = 0;
    switch (s->kind) {
    case SIM_KIND_INT:
        if (s->keyword) {
            bool yes;
            memcpy(&yes, (const char *)o + s->keyword_offset, sizeof yes);
            if (yes) {
                snprintf(buf, size, "%s", s->keyword);
                return true;
            }
        }
        v = load_int(o, s);
        snprintf(buf, size, "%" PRId64, v);
        return sim_setting_check_int(s, v);
    case SIM_KIND_DURATION:
        v = load_int(o, s);
        if (v % 60 == 0)
            snprintf(buf, size, "%" PRId64 "s", v / 60);
        else
            snprintf(buf, size, "%" PRId64 " frames", v);
        return sim_setting_check_int(s, v);
    case SIM_KIND_FRAME:
        v = load_int(o, s);
        snprintf(buf, size, "%" PRId64, v);
        return sim_setting_check_int(s, v);
    case SIM_KIND_DOUBLE: {
        double d;
        memcpy(&d, (const char *)o + s->offset, sizeof d);
        sim_format_double(d, buf, size);
        return sim_setting_check_double(s, d);
    }
    case SIM_KIND_ENUM:
        v = load_int(o, s);
        for (int k = 0; s->names[k]; k++)
            if (s->values[k] == v) {
                snprintf(buf, size, "%s", s->names[k]);
                return true;
            }
        return false;
    case SIM_KIND_PROFILE: {
        const char *p;
        memcpy(&p, (const char *)o + s->offset, sizeof p);
        snprintf(buf, size, "%s", p ? p : "");
        return p != NULL;
    }
    default:
        return false;
    }
}

static void append_names(char *buf, size_t size, const char *const *names)
{
    for (int k = 0; names[k]; k++)
        sim_append(buf, size, "%s%s", k ? "|" : "", names[k]);
}

void sim_setting_range(const sim_setting *s, char *buf, size_t size)
{
    char lo[40], hi[40];
    buf[0] = '\0';
    bool doubles = s->kind == SIM_KIND_DOUBLE || (s->kind == SIM_KIND_STRUCTURED && s->lo < s->hi);
    switch (s->kind) {
    case SIM_KIND_INT:
    case SIM_KIND_DOUBLE:
    case SIM_KIND_STRUCTURED:
        if (doubles) {
            snprintf(lo, sizeof lo, "%g", s->lo);
            snprintf(hi, sizeof hi, "%g", s->hi);
            sim_append(buf, size, s->open ? "over %s and under %s" : "%s..%s", lo, hi);
        } else if (s->min < s->max) {
            sim_append(buf, size, "%" PRId64 "..%" PRId64, s->min, s->max);
        }
        if (buf[0] && s->unit)
            sim_append(buf, size, "%s%s", s->unit[0] == '%' ? "" : " ", s->unit);
        if (s->keyword)
            sim_append(buf, size, " or %s", s->keyword);
        break;
    case SIM_KIND_DURATION:
        sim_append(buf, size, "%" PRId64 "..%" PRId64 " frames, or seconds as 60s", s->min, s->max);
        break;
    case SIM_KIND_FRAME:
        sim_append(buf, size, "frame %" PRId64 "..%" PRId64 ", or seconds as 10s", s->min, s->max);
        break;
    case SIM_KIND_ENUM:
        append_names(buf, size, s->names);
        break;
    case SIM_KIND_PROFILE:
        append_names(buf, size, tempo_link_profile_names());
        break;
    case SIM_KIND_PATH:
        sim_append(buf, size, "a file name");
        break;
    case SIM_KIND_FLAG:
        break;
    }
}

/* "--frames / duration": every name the setting has. */
static void label(const sim_setting *s, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s", s->option ? s->option : "", s->option && s->directive ? " / " : "",
             s->directive ? s->directive : "");
}

void sim_setting_error(const sim_setting *s, const char *text, char *msg, size_t size)
{
    char name[64], range[160];
    label(s, name, sizeof name);
    sim_setting_range(s, range, sizeof range);
    snprintf(msg, size, "bad value for %s: '%s'%s%s%s", name, text ? text : "(missing)", range[0] ? " (" : "",
             range, range[0] ? ")" : "");
}

/* ---- --help and the list ------------------------------------------------------------------- */

static void help_row(FILE *f, const sim_setting *s, const sim_options *d)
{
    char first[96], range[160], def[64];
    bool sub = s->directive && strchr(s->directive, ' ');
    if (s->option)
        snprintf(first, sizeof first, "%s%s%s", s->option, s->cli_arg ? " " : "", s->cli_arg ? s->cli_arg : "");
    else
        snprintf(first, sizeof first, "%s %s", s->directive, s->cli_arg);
    sim_setting_range(s, range, sizeof range);
    bool has_default = s->kind != SIM_KIND_STRUCTURED && sim_setting_format(s, d, def, sizeof def);
    fprintf(f, "  %-26s %s", first, s->help);
    if (range[0] || has_default)
        fprintf(f, " (%s%s%s%s)", range, range[0] && has_default ? "; " : "", has_default ? "default " : "",
                has_default ? def : "");
    if (!s->option)
        fputs(" [scenario file only]", f);
    fputc('\n', f);
    if (s->option && s->directive) {
        const char *arg = s->file_arg ? s->file_arg : s->cli_arg;
        if (sub)
            fprintf(f, "  %-26s   in a scenario: %.*s METHOD %s %s\n", "", (int)(strchr(s->directive, ' ') - s->directive),
                    s->directive, strchr(s->directive, ' ') + 1, arg);
        else
            fprintf(f, "  %-26s   in a scenario: %s %s\n", "", s->directive, arg);
    }
}

void sim_settings_help(FILE *f)
{
    sim_options d;
    sim_settings_defaults(&d);
    fputs("usage: tempo-sim [options]                 the default scenario, or the match the options describe\n"
          "       tempo-sim --scenario FILE [options] the match a scenario file describes\n"
          "       tempo-sim --soak N [--seed S]       N random matches, each checked\n"
          "       tempo-sim --synctest [options]      the arena under a synctest session\n"
          "       tempo-sim --mode client-server --clients N [options]\n"
          "                                           a server and N bot clients (docs/TEMPO-SIM.md)\n"
          "       tempo-sim --attack N [options]      N forged datagrams at a sealed match: what got in\n"
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
          "Every setting, with its range; \"in a scenario\" gives the same setting's line in a\n"
          "scenario file (docs/SCENARIOS.md), which reads the value the same way. A frame or a\n"
          "number of frames may be given in seconds (60s); a TIME in a file has a unit (250ms, 1.5s).\n",
          f);
    const char *done[16];
    int groups = 0;
    for (int k = 0; k < SIM_NUM_SETTINGS; k++) {
        const char *g = sim_settings[k].group;
        bool seen = false;
        for (int j = 0; j < groups; j++)
            seen = seen || !strcmp(done[j], g);
        if (seen || groups == 16)
            continue;
        done[groups++] = g;
        fprintf(f, "\n%s:\n", g);
        for (int j = k; j < SIM_NUM_SETTINGS; j++)
            if (!strcmp(sim_settings[j].group, g))
                help_row(f, &sim_settings[j], &d);
    }
    fputs("  --version                  print tempo-sim's version and exit\n"
          "\nMachines are numbered 0.. : the players' peers, then the spectators (at most 9).\n"
          "exit codes: 0 converged without desync, 2 usage error (a scenario file: FILE:LINE: ...),\n"
          "            3 desync, mismatch, no convergence or a failed soak check\n",
          f);
}

static const char *const kind_names[] = {"int", "double", "flag", "enum", "duration", "frame", "profile",
                                         "path", "structured"};

void sim_settings_list(FILE *f)
{
    for (int k = 0; k < SIM_NUM_SETTINGS; k++) {
        const sim_setting *s = &sim_settings[k];
        char v[4][48];
        for (int j = 0; j < 4; j++)
            snprintf(v[j], sizeof v[j], "-");
        switch (s->kind) {
        case SIM_KIND_INT:
        case SIM_KIND_DURATION:
        case SIM_KIND_FRAME:
            snprintf(v[0], sizeof v[0], "%" PRId64, s->min);
            snprintf(v[1], sizeof v[1], "%" PRId64, s->max);
            snprintf(v[2], sizeof v[2], "%" PRId64, s->min - 1);
            if (s->max == INT64_MAX)
                snprintf(v[3], sizeof v[3], "9223372036854775808");
            else
                snprintf(v[3], sizeof v[3], "%" PRId64, s->max + 1);
            break;
        case SIM_KIND_DOUBLE: {
            double step = (s->hi - s->lo) / 10000;
            snprintf(v[0], sizeof v[0], "%g", s->open ? s->lo + step : s->lo);
            snprintf(v[1], sizeof v[1], "%g", s->open ? s->hi - step : s->hi);
            snprintf(v[2], sizeof v[2], "%g", s->open ? s->lo : s->lo - step);
            snprintf(v[3], sizeof v[3], "%g", s->open ? s->hi : s->hi + step);
            break;
        }
        case SIM_KIND_ENUM:
        case SIM_KIND_PROFILE: {
            const char *const *n = s->kind == SIM_KIND_ENUM ? s->names : tempo_link_profile_names();
            int last = 0;
            while (n[last + 1])
                last++;
            snprintf(v[0], sizeof v[0], "%s", n[0]);
            snprintf(v[1], sizeof v[1], "%s", n[last]);
            snprintf(v[3], sizeof v[3], "no-such-%s", s->name);
            break;
        }
        default:
            break;
        }
        fprintf(f, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s->name, s->option ? s->option : "-",
                s->directive ? s->directive : "-", kind_names[s->kind], v[0], v[1], v[2], v[3]);
    }
}
