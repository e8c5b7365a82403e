/* SPDX-License-Identifier: MIT */
/*
 * sim_scenario.c — tempo-sim's scenario files: read one into sim_options
 * (docs/SCENARIOS.md has the format; sim_scenario_write.c writes them).
 *
 * A scenario is one directive per line, `name value...`, `#` to the end of
 * a line a comment. Reading stops at the first error, reported as
 * "FILE:LINE: message". Checks that need the whole file (the machine count,
 * players against peer lines) run at the end and name the line at fault.
 *
 * Invariant: reading what sim_scenario_write wrote gives back the same
 * match, bit for bit: every number is written in a form that reads back to
 * the same value (whole units, or the shortest decimal that round-trips), so
 * a soak failure printed as a scenario reproduces exactly.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sim_scenario.h"
#include "sim_settings.h"

#define MAX_TOKENS 40
#define MAX_LINE 1024
#define MAX_FILE (1u << 20)

/* ---- the link parameters, by name --------------------------------------------- */

const sim_link_key sim_link_keys[SIM_NUM_LINK_KEYS] = {
    {"latency", offsetof(tempo_link_params, latency_us), SIM_KEY_TIME},
    {"jitter", offsetof(tempo_link_params, jitter_us), SIM_KEY_TIME},
    {"spike_enter", offsetof(tempo_link_params, spike_enter), SIM_KEY_PROB},
    {"spike_exit", offsetof(tempo_link_params, spike_exit), SIM_KEY_PROB},
    {"spike", offsetof(tempo_link_params, spike_us), SIM_KEY_TIME},
    {"loss", offsetof(tempo_link_params, loss), SIM_KEY_PROB},
    {"burst_enter", offsetof(tempo_link_params, burst_enter), SIM_KEY_PROB},
    {"burst_exit", offsetof(tempo_link_params, burst_exit), SIM_KEY_PROB},
    {"burst_loss", offsetof(tempo_link_params, burst_loss), SIM_KEY_PROB},
    {"duplicate", offsetof(tempo_link_params, duplicate), SIM_KEY_PROB},
    {"reorder", offsetof(tempo_link_params, reorder), SIM_KEY_PROB},
    {"reorder", offsetof(tempo_link_params, reorder_us), SIM_KEY_TIME},
    {"bandwidth_bps", offsetof(tempo_link_params, bandwidth_bps), SIM_KEY_COUNT},
    {"queue_bytes", offsetof(tempo_link_params, queue_bytes), SIM_KEY_COUNT},
};

uint32_t *sim_link_key_u32(tempo_link_params *p, const sim_link_key *k)
{
    return (uint32_t *)(void *)((char *)p + k->offset);
}

double *sim_link_key_double(tempo_link_params *p, const sim_link_key *k)
{
    return (double *)(void *)((char *)p + k->offset);
}

/* ---- numbers and units ----------------------------------------------------------- */

/* A decimal with the given suffix ("" for none); false on anything else. */
static bool parse_suffixed(const char *s, const char *suffix, double *out)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (n <= k || strcmp(s + n - k, suffix) != 0 || n - k >= 40)
        return false;
    char num[40];
    memcpy(num, s, n - k);
    num[n - k] = '\0';
    if (num[0] == '+' || num[0] == '-' || num[0] == ' ')
        return false;
    errno = 0;
    char *end;
    double v = strtod(num, &end);
    if (end == num || *end || errno || !isfinite(v) || v < 0)
        return false;
    *out = v;
    return true;
}

/* A span of time: 250ms, 1.5s or 40us, as microseconds up to `max_us`.
 * A bare number has no unit and is refused. */
static bool parse_span(const char *s, uint64_t max_us, uint64_t *us)
{
    double v;
    double scale = parse_suffixed(s, "us", &v) ? 1.0 : parse_suffixed(s, "ms", &v) ? 1e3
                 : parse_suffixed(s, "s", &v) ? 1e6 : -1.0;
    if (scale < 0 || v * scale > (double)max_us)
        return false;
    *us = (uint64_t)llround(v * scale);
    return true;
}

/* A moment of the match as a frame: 600 (a frame), 10s or 10.5s (seconds at
 * 60 frames a second, rounded to the nearest frame). */
static bool parse_moment(const char *s, int64_t max_frames, int64_t *frame)
{
    double v;
    if (sim_setting_read_int(s, 0, max_frames, frame))
        return true;
    if (!parse_suffixed(s, "s", &v) || v * 60.0 > (double)max_frames)
        return false;
    *frame = llround(v * 60.0);
    return true;
}

/* A probability 0..1. */
static bool parse_prob(const char *s, double *p)
{
    double v;
    if (!parse_suffixed(s, "", &v) || v > 1.0)
        return false;
    *p = v;
    return true;
}

/* ---- the reader -------------------------------------------------------------------- */

typedef struct parser {
    const char *name;
    int line;
    sim_options *o;
    int seen[SIM_NUM_SETTINGS];      /* plain settings: line given on (0: not yet) */
    int players_line, split_line, delay_line;
    int peer_line[TEMPO_MAX_PLAYERS]; /* the line of each peer's `peer` directive */
    bool peer_given;
    int spectator_line[SIM_MAX_MACHINES]; /* the line that made each spectator */
    int link_line[SIM_MAX_LINKS], blackout_line[SIM_MAX_BLACKOUTS], hostile_line[SIM_MAX_HOSTILES];
    int hiccup_line[SIM_MAX_FAULTS], drop_line[SIM_MAX_FAULTS], jump_line[SIM_MAX_FAULTS];
    int clock_line[SIM_MAX_MACHINES]; /* clock-drift or start-skew of that machine */
} parser;

static bool fail(parser *ps, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: ", ps->name, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return false;
}

/* A machine number 0..8 (peers first, then spectators). */
static bool machine(parser *ps, const char *s, int *out)
{
    int64_t v = 0;
    if (!sim_setting_read_int(s, 0, SIM_MAX_MACHINES - 1, &v))
        return fail(ps, ps->line, "'%s' is not a machine number (0..%d)", s, SIM_MAX_MACHINES - 1);
    *out = (int)v;
    return true;
}

/* "A-B" or "A-*" (b = -1). */
static bool machine_pair(parser *ps, const char *s, int *a, int *b)
{
    const char *dash = strchr(s, '-');
    char left[8];
    if (!dash || dash == s || dash - s >= (ptrdiff_t)sizeof left)
        return fail(ps, ps->line, "'%s' is not a pair of machines (A-B or A-*)", s);
    memcpy(left, s, (size_t)(dash - s));
    left[dash - s] = '\0';
    if (!machine(ps, left, a))
        return false;
    if (!strcmp(dash + 1, "*")) {
        *b = -1;
        return true;
    }
    if (!machine(ps, dash + 1, b))
        return false;
    if (*a == *b)
        return fail(ps, ps->line, "'%s' joins a machine to itself", s);
    return true;
}

/* A structured directive's number outside its row's range: the table's
 * message, and how the file writes such a value. */
static bool range_fail(parser *ps, sim_setting_id id, const char *text, const char *how)
{
    char msg[320];
    sim_setting_error(&sim_settings[id], text, msg, sizeof msg);
    return fail(ps, ps->line, "%s%s%s", msg, how ? "; " : "", how ? how : "");
}

/* The frame a fault fires at: a frame or seconds, in the drop row's range
 * (the same frames --drop-peer and --hiccup take). */
static bool moment(parser *ps, const char *text, int64_t *frame)
{
    const sim_setting *row = &sim_settings[SIM_SET_DROP];
    if (!parse_moment(text, row->max, frame) || !sim_setting_check_int(row, *frame))
        return fail(ps, ps->line, "bad moment '%s' (frame %" PRId64 "..%" PRId64 ", or seconds as 10s)", text,
                    row->min, row->max);
    return true;
}

static bool need_args(parser *ps, int argc, int lo, int hi, const char *usage)
{
    if (argc - 1 < lo || argc - 1 > hi)
        return fail(ps, ps->line, "expected: %s", usage);
    return true;
}

/* peer P players A B ... */
static bool d_peer(parser *ps, int argc, char **argv)
{
    sim_options *o = ps->o;
    int64_t q = 0, p = 0;
    if (argc < 4 || strcmp(argv[2], "players") != 0)
        return fail(ps, ps->line, "expected: peer P players A B ...");
    if (!sim_setting_read_int(argv[1], 0, TEMPO_MAX_PLAYERS - 1, &q))
        return fail(ps, ps->line, "bad peer number '%s' (0..%d)", argv[1], TEMPO_MAX_PLAYERS - 1);
    if (ps->split_line)
        return fail(ps, ps->line, "local-per-peer (line %d) and peer lines both split the players", ps->split_line);
    if (!ps->peer_given) {
        memset(o->player_peer, -1, sizeof o->player_peer);
        ps->peer_given = true;
    }
    if (ps->peer_line[q])
        return fail(ps, ps->line, "peer %d was already given on line %d", (int)q, ps->peer_line[q]);
    ps->peer_line[q] = ps->line;
    for (int k = 3; k < argc; k++) {
        if (!sim_setting_read_int(argv[k], 0, TEMPO_MAX_PLAYERS - 1, &p))
            return fail(ps, ps->line, "bad player number '%s' (0..%d)", argv[k], TEMPO_MAX_PLAYERS - 1);
        if (o->player_peer[p] >= 0)
            return fail(ps, ps->line, "player %d is already hosted by peer %d", (int)p, o->player_peer[p]);
        o->player_peer[p] = (int8_t)q;
    }
    o->hosts_set = true;
    return true;
}

/* spectator watches P */
static bool d_spectator(parser *ps, int argc, char **argv)
{
    int64_t q = 0;
    if (argc != 3 || strcmp(argv[1], "watches") != 0)
        return fail(ps, ps->line, "expected: spectator watches PEER");
    if (!sim_setting_read_int(argv[2], 0, TEMPO_MAX_PLAYERS - 1, &q))
        return fail(ps, ps->line, "bad peer number '%s'", argv[2]);
    if (ps->o->spectators >= SIM_MAX_MACHINES - 2)
        return fail(ps, ps->line, "too many spectators (at most %d machines)", SIM_MAX_MACHINES);
    ps->spectator_line[ps->o->spectators] = ps->line;
    ps->o->spectator_host[ps->o->spectators++] = (int8_t)q;
    return true;
}

/* One `key=value` of a link line into *p. */
static bool link_param(parser *ps, const char *kv, tempo_link_params *p)
{
    const char *eq = strchr(kv, '=');
    size_t n = eq ? (size_t)(eq - kv) : 0;
    if (!eq || n == 0)
        return fail(ps, ps->line, "'%s' is neither a profile nor key=value", kv);
    for (size_t k = 0; k < SIM_NUM_LINK_KEYS; k++) {
        const sim_link_key *key = &sim_link_keys[k];
        size_t kn = strlen(key->name);
        bool time = key->kind == SIM_KEY_TIME && n == kn + 3 && !strncmp(kv, key->name, kn) &&
                    (!strncmp(kv + kn, "_ms", 3) || !strncmp(kv + kn, "_us", 3));
        if (!time && !(key->kind != SIM_KEY_TIME && n == kn && !strncmp(kv, key->name, n)))
            continue;
        const char *v = eq + 1;
        int64_t i;
        double d;
        if (time) {
            if (!parse_suffixed(v, "", &d) || d * (kv[kn + 1] == 'm' ? 1e3 : 1.0) > UINT32_MAX)
                return fail(ps, ps->line, "bad value in '%s' (a time, 0 or more)", kv);
            *sim_link_key_u32(p, key) = (uint32_t)llround(d * (kv[kn + 1] == 'm' ? 1e3 : 1.0));
        } else if (key->kind == SIM_KEY_PROB) {
            if (!parse_prob(v, &d))
                return fail(ps, ps->line, "bad value in '%s' (a probability, 0..1)", kv);
            *sim_link_key_double(p, key) = d;
        } else {
            if (!sim_setting_read_int(v, 0, UINT32_MAX, &i))
                return fail(ps, ps->line, "bad value in '%s' (a whole number)", kv);
            *sim_link_key_u32(p, key) = (uint32_t)i;
        }
        return true;
    }
    return fail(ps, ps->line, "unknown link parameter '%.*s'", (int)n, kv);
}

/* link A-B|A-* [PROFILE] [key=value ...] */
/* link A-B [PROFILE] [key=value ...] [from TIME]: from TIME, a step of
 * the link mid-match (the earlier line for the pair holds until then). */
static bool d_link(parser *ps, int argc, char **argv)
{
    sim_options *o = ps->o;
    uint64_t from_us = 0;
    if (argc >= 5 && strcmp(argv[argc - 2], "from") == 0) {
        uint64_t most = (uint64_t)sim_settings[SIM_SET_BLACKOUT].max;
        if (!parse_span(argv[argc - 1], most, &from_us) || from_us == 0)
            return range_fail(ps, SIM_SET_BLACKOUT, argv[argc - 1], "a time after the start with a unit: 20s");
        argc -= 2;
    }
    if (argc < 3)
        return fail(ps, ps->line, "expected: link A-B [PROFILE] [key=value ...] [from TIME]");
    if (o->num_links >= SIM_MAX_LINKS)
        return fail(ps, ps->line, "too many links (at most %d)", SIM_MAX_LINKS);
    sim_link_override *l = &o->links[o->num_links];
    memset(l, 0, sizeof *l);
    l->from_us = from_us;
    if (!machine_pair(ps, argv[1], &l->a, &l->b))
        return false;
    int k = 2;
    if (!strchr(argv[2], '=')) {
        const char *name = sim_profile_name(argv[2]);
        if (!name)
            return fail(ps, ps->line, "unknown profile '%s'", argv[2]);
        snprintf(l->profile, sizeof l->profile, "%s", name);
        tempo_link_profile(name, &l->params);
        k = 3;
    }
    for (; k < argc; k++) {
        if (!link_param(ps, argv[k], &l->params))
            return false;
        l->custom = true;
    }
    ps->link_line[o->num_links++] = ps->line;
    return true;
}

/* nat MACHINE TYPE */
static bool d_nat(parser *ps, int argc, char **argv)
{
    int m = 0;
    if (argc != 3)
        return fail(ps, ps->line, "expected: nat MACHINE none|fc|arc|prc|sym");
    if (!machine(ps, argv[1], &m))
        return false;
    int n = sim_nat_parse(argv[2]);
    if (n < 0)
        return fail(ps, ps->line, "unknown NAT '%s' (none, fc, arc, prc or sym)", argv[2]);
    ps->o->nat[m] = (uint8_t)n;
    ps->o->has_nat = true;
    return true;
}

static bool d_clock_drift(parser *ps, int argc, char **argv)
{
    int m = 0;
    if (!need_args(ps, argc, 2, 2, "clock-drift MACHINE PERCENT") || !machine(ps, argv[1], &m))
        return false;
    const char *v = argv[2];
    bool neg = v[0] == '-';
    double pct;
    if (!parse_suffixed(v + (neg || v[0] == '+'), strchr(v, '%') ? "%" : "", &pct) ||
        !sim_setting_check_double(&sim_settings[SIM_SET_CLOCK_DRIFT], neg ? -pct : pct))
        return range_fail(ps, SIM_SET_CLOCK_DRIFT, v, NULL);
    ps->o->clock_drift_pct[m] = neg ? -pct : pct;
    ps->clock_line[m] = ps->line;
    return true;
}

static bool d_start_skew(parser *ps, int argc, char **argv)
{
    int m = 0;
    uint64_t us;
    if (!need_args(ps, argc, 2, 2, "start-skew MACHINE TIME") || !machine(ps, argv[1], &m))
        return false;
    const sim_setting *row = &sim_settings[SIM_SET_START_SKEW];
    if (!parse_span(argv[2], (uint64_t)row->max * 1000u, &us) || us % 1000u ||
        !sim_setting_check_int(row, (int64_t)(us / 1000u)))
        return range_fail(ps, SIM_SET_START_SKEW, argv[2], "whole milliseconds with a unit: 120ms, 1s");
    ps->o->start_skew_ms[m] = (uint32_t)(us / 1000u);
    ps->clock_line[m] = ps->line;
    return true;
}

/* hiccup M at MOMENT for TIME */
static bool d_hiccup(parser *ps, int argc, char **argv)
{
    sim_options *o = ps->o;
    int m = 0;
    int64_t f = 0;
    uint64_t us;
    if (argc != 6 || strcmp(argv[2], "at") != 0 || strcmp(argv[4], "for") != 0)
        return fail(ps, ps->line, "expected: hiccup MACHINE at FRAME for TIME");
    if (o->num_hiccups >= SIM_MAX_FAULTS)
        return fail(ps, ps->line, "too many hiccups (at most %d)", SIM_MAX_FAULTS);
    if (!machine(ps, argv[1], &m))
        return false;
    if (!moment(ps, argv[3], &f))
        return false;
    const sim_setting *row = &sim_settings[SIM_SET_HICCUP];
    if (!parse_span(argv[5], (uint64_t)row->max * 1000u, &us) || us % 1000u ||
        !sim_setting_check_int(row, (int64_t)(us / 1000u)))
        return range_fail(ps, SIM_SET_HICCUP, argv[5], "whole milliseconds with a unit: 300ms, 1s");
    o->hiccups[o->num_hiccups] = (sim_fault){m, (int32_t)f, (uint32_t)(us / 1000u)};
    ps->hiccup_line[o->num_hiccups++] = ps->line;
    return true;
}

/* clock-jump M at MOMENT by [-]TIME */
static bool d_clock_jump(parser *ps, int argc, char **argv)
{
    sim_options *o = ps->o;
    int m = 0;
    int64_t f = 0;
    uint64_t us;
    if (argc != 6 || strcmp(argv[2], "at") != 0 || strcmp(argv[4], "by") != 0)
        return fail(ps, ps->line, "expected: clock-jump MACHINE at FRAME by TIME");
    if (o->num_clock_jumps >= SIM_MAX_FAULTS)
        return fail(ps, ps->line, "too many clock jumps (at most %d)", SIM_MAX_FAULTS);
    if (!machine(ps, argv[1], &m))
        return false;
    if (!moment(ps, argv[3], &f))
        return false;
    bool back = argv[5][0] == '-';
    const sim_setting *row = &sim_settings[SIM_SET_CLOCK_JUMP];
    if (!parse_span(argv[5] + back, (uint64_t)row->max, &us) || us == 0 ||
        !sim_setting_check_int(row, back ? -(int64_t)us : (int64_t)us))
        return range_fail(ps, SIM_SET_CLOCK_JUMP, argv[5], "a time with a unit: 10s, -1s");
    o->clock_jumps[o->num_clock_jumps] = (sim_clock_jump){m, (int32_t)f, back ? -(int64_t)us : (int64_t)us};
    ps->jump_line[o->num_clock_jumps++] = ps->line;
    return true;
}

/* drop M at MOMENT */
static bool d_drop(parser *ps, int argc, char **argv)
{
    sim_options *o = ps->o;
    int m = 0;
    int64_t f = 0;
    if (argc != 4 || strcmp(argv[2], "at") != 0)
        return fail(ps, ps->line, "expected: drop MACHINE at FRAME");
    if (o->num_drops >= SIM_MAX_FAULTS)
        return fail(ps, ps->line, "too many drops (at most %d)", SIM_MAX_FAULTS);
    if (!machine(ps, argv[1], &m))
        return false;
    if (!moment(ps, argv[3], &f))
        return false;
    o->drops[o->num_drops] = (sim_fault){m, (int32_t)f, 0};
    ps->drop_line[o->num_drops++] = ps->line;
    return true;
}

/* blackout A-B|A-* from TIME (to TIME | for TIME) */
static bool d_blackout(parser *ps, int argc, char **argv)
{
    sim_options *o = ps->o;
    uint64_t from, t;
    if (argc != 6 || strcmp(argv[2], "from") != 0 || (strcmp(argv[4], "to") && strcmp(argv[4], "for")))
        return fail(ps, ps->line, "expected: blackout A-B from TIME to TIME (or for TIME)");
    if (o->num_blackouts >= SIM_MAX_BLACKOUTS)
        return fail(ps, ps->line, "too many blackouts (at most %d)", SIM_MAX_BLACKOUTS);
    sim_blackout *b = &o->blackouts[o->num_blackouts];
    if (!machine_pair(ps, argv[1], &b->a, &b->b))
        return false;
    uint64_t most = (uint64_t)sim_settings[SIM_SET_BLACKOUT].max;
    if (!parse_span(argv[3], most, &from))
        return range_fail(ps, SIM_SET_BLACKOUT, argv[3], "a time with a unit: 10s, 1500ms");
    if (!parse_span(argv[5], most, &t))
        return range_fail(ps, SIM_SET_BLACKOUT, argv[5], "a time with a unit: 10s, 1500ms");
    b->from_us = from;
    b->to_us = argv[4][0] == 'f' ? from + t : t;
    if (b->to_us <= b->from_us)
        return fail(ps, ps->line, "the blackout ends before it begins");
    ps->blackout_line[o->num_blackouts++] = ps->line;
    return true;
}

/* spoofer rate N from TIME (to|for) TIME; handshake-flood the same;
 * onpath A-B rate SHARE from TIME (to|for) TIME */
static bool d_hostile(parser *ps, int argc, char **argv)
{
    sim_options *o = ps->o;
    bool onpath = !strcmp(argv[0], "onpath");
    int at = onpath ? 2 : 1;
    const char *usage = onpath ? "onpath A-B rate SHARE from TIME to TIME (or for TIME)"
                               : "%s rate N from TIME to TIME (or for TIME)";
    if (argc != at + 6 || strcmp(argv[at], "rate") != 0 || strcmp(argv[at + 2], "from") != 0 ||
        (strcmp(argv[at + 4], "to") && strcmp(argv[at + 4], "for")))
        return fail(ps, ps->line, onpath ? "expected: %s" : usage, onpath ? usage : argv[0]);
    if (o->num_hostiles >= SIM_MAX_HOSTILES)
        return fail(ps, ps->line, "too many hostile actors (at most %d)", SIM_MAX_HOSTILES);
    sim_hostile *h = &o->hostiles[o->num_hostiles];
    memset(h, 0, sizeof *h);
    sim_setting_id id = onpath ? SIM_SET_ONPATH : !strcmp(argv[0], "spoofer") ? SIM_SET_SPOOFER
                                                                             : SIM_SET_HANDSHAKE_FLOOD;
    h->kind = onpath ? SIM_HOSTILE_ONPATH : id == SIM_SET_SPOOFER ? SIM_HOSTILE_SPOOFER : SIM_HOSTILE_FLOOD;
    if (onpath) {
        if (!machine_pair(ps, argv[1], &h->a, &h->b))
            return false;
        if (h->b < 0)
            return fail(ps, ps->line, "an on-path actor sits on one link: A-B, not A-*");
    }
    const sim_setting *row = &sim_settings[id];
    double rate;
    bool rate_ok = onpath ? parse_prob(argv[at + 1], &rate) && sim_setting_check_double(row, rate)
                          : parse_suffixed(argv[at + 1], "", &rate) && rate >= (double)row->min &&
                                rate <= (double)row->max;
    if (!rate_ok)
        return range_fail(ps, id, argv[at + 1], onpath ? "the share of passing datagrams" : "datagrams a second");
    h->rate = rate;
    uint64_t from, t, most = (uint64_t)sim_settings[SIM_SET_BLACKOUT].max;
    if (!parse_span(argv[at + 3], most, &from) || !parse_span(argv[at + 5], most, &t))
        return fail(ps, ps->line, "bad time (a time with a unit: 10s, 1500ms)");
    h->from_us = from;
    h->to_us = argv[at + 4][0] == 'f' ? from + t : t;
    if (h->to_us <= h->from_us)
        return fail(ps, ps->line, "the actor stops before it starts");
    ps->hostile_line[o->num_hostiles++] = ps->line;
    return true;
}

/* The structured directives: their own syntax, the table's ranges. Every
 * other directive is a plain setting, read by plain() from the table. */
typedef struct directive {
    const char *name;
    bool (*fn)(parser *, int, char **);
} directive;

static const directive directives[] = {
    {"peer", d_peer},           {"spectator", d_spectator}, {"link", d_link},
    {"clock-drift", d_clock_drift}, {"start-skew", d_start_skew}, {"hiccup", d_hiccup},
    {"drop", d_drop},           {"blackout", d_blackout},   {"nat", d_nat},   {"clock-jump", d_clock_jump},
    {"spoofer", d_hostile},     {"onpath", d_hostile},      {"handshake-flood", d_hostile},
};

/* `NAME VALUE [KEY VALUE ...]`: a plain setting, and for a line that has
 * keywords (timesync window N), the settings named "NAME KEY". Given at
 * most once per file. */
static bool plain(parser *ps, const sim_setting *s, int argc, char **argv)
{
    sim_options *o = ps->o;
    sim_setting_id id = (sim_setting_id)(s - sim_settings);
    char msg[320];
    const char *arg = s->file_arg ? s->file_arg : s->cli_arg;
    if (ps->seen[id])
        return fail(ps, ps->line, "'%s' was already given on line %d", argv[0], ps->seen[id]);
    ps->seen[id] = ps->line;
    bool frames_word = s->kind == SIM_KIND_DURATION && argc == 3;
    if (argc < 2 || (argc % 2 && !frames_word))
        return fail(ps, ps->line, "expected: %s %s", s->directive, arg);
    if (frames_word && strcmp(argv[2], "frames") != 0)
        return fail(ps, ps->line, "expected 'frames' after the number, not '%s'", argv[2]);
    if (frames_word && strchr(argv[1], 's')) {
        sim_setting_error(s, argv[1], msg, sizeof msg);
        return fail(ps, ps->line, "%s", msg);
    }
    if (!sim_setting_parse(s, argv[1], o, msg, sizeof msg))
        return fail(ps, ps->line, "%s", msg);
    for (int k = 2; k + 1 < argc && !frames_word; k += 2) {
        char key[64];
        snprintf(key, sizeof key, "%s %s", s->directive, argv[k]);
        const sim_setting *sub = sim_setting_by_directive(key);
        if (!sub)
            return fail(ps, ps->line, "expected: %s %s", s->directive, arg);
        if (!sim_setting_parse(sub, argv[k + 1], o, msg, sizeof msg))
            return fail(ps, ps->line, "%s", msg);
    }
    switch (id) {
    case SIM_SET_PLAYERS:
        ps->players_line = ps->line;
        break;
    case SIM_SET_LOCAL_PER_PEER:
        if (ps->peer_given)
            return fail(ps, ps->line, "local-per-peer and peer lines both split the players");
        ps->split_line = ps->line;
        break;
    case SIM_SET_SPECTATORS:
        memset(o->spectator_host, 0, sizeof o->spectator_host);
        for (int m = 0; m < SIM_MAX_MACHINES; m++)
            ps->spectator_line[m] = m < o->spectators ? ps->line : 0;
        break;
    case SIM_SET_INPUT_DELAY:
        ps->delay_line = ps->line;
        break;
    default:
        break;
    }
    return true;
}

static bool parse_line(parser *ps, char *text)
{
    char *argv[MAX_TOKENS];
    int argc = 0;
    char *hash = strchr(text, '#');
    if (hash)
        *hash = '\0';
    for (char *tok = strtok(text, " \t\r"); tok; tok = strtok(NULL, " \t\r")) {
        if (argc == MAX_TOKENS)
            return fail(ps, ps->line, "too many words (at most %d)", MAX_TOKENS);
        argv[argc++] = tok;
    }
    if (argc == 0)
        return true;
    for (size_t k = 0; k < sizeof directives / sizeof directives[0]; k++)
        if (!strcmp(argv[0], directives[k].name))
            return directives[k].fn(ps, argc, argv);
    const sim_setting *s = sim_setting_by_directive(argv[0]);
    if (s && s->kind != SIM_KIND_STRUCTURED)
        return plain(ps, s, argc, argv);
    return fail(ps, ps->line, "unknown directive '%s'", argv[0]);
}

/* Checks that need the whole file, each reported at the line at fault. */
static bool check_whole(parser *ps)
{
    sim_options *o = ps->o;
    if (ps->peer_given) {
        int hosted = 0, peers = 0;
        for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
            if (o->player_peer[p] >= 0) {
                hosted = p + 1;
                if (o->player_peer[p] >= peers)
                    peers = o->player_peer[p] + 1;
            }
        for (int q = 0; q < peers; q++)
            if (!ps->peer_line[q])
                return fail(ps, ps->peer_line[peers - 1], "peer %d is missing (peers are numbered 0..%d)", q,
                            peers - 1);
        for (int p = 0; p < hosted; p++)
            if (o->player_peer[p] < 0)
                return fail(ps, ps->peer_line[peers - 1], "no peer hosts player %d (players are 0..%d)", p,
                            hosted - 1);
        if (ps->players_line && o->players != hosted)
            return fail(ps, ps->players_line, "players %d, but the peer lines host %d", o->players, hosted);
        o->players = hosted;
    }
    if (!ps->peer_given && o->local_per_peer > o->players)
        return fail(ps, ps->split_line, "local-per-peer %d is more than the %d players", o->local_per_peer,
                    o->players);
    int peers = 0;
    for (int p = 0; p < o->players; p++)
        if (sim_player_peer(o, p) >= peers)
            peers = sim_player_peer(o, p) + 1;
    int machines = peers + o->spectators, last = ps->line;
    bool cs = o->role == SIM_ROLE_CLIENT_SERVER; /* machine 0 the server, then the clients */
    if (cs)
        machines = o->clients + 1;
    if (peers < 2 && !cs)
        return fail(ps, ps->players_line ? ps->players_line : last, "a match needs at least 2 peers");
    if (machines > SIM_MAX_MACHINES && !cs)
        return fail(ps, o->spectators ? ps->spectator_line[o->spectators - 1] : last,
                    "%d peers and %d spectators: at most %d machines", peers, o->spectators, SIM_MAX_MACHINES);
    for (int k = 0; k < o->spectators && !cs; k++)
        if (o->spectator_host[k] >= peers)
            return fail(ps, ps->spectator_line[k], "spectator %d watches peer %d; peers are 0..%d", k,
                        o->spectator_host[k], peers - 1);
    for (int k = 0; k < o->num_links; k++)
        if (o->links[k].a >= machines || o->links[k].b >= machines)
            return fail(ps, ps->link_line[k], "no such machine (machines are 0..%d)", machines - 1);
    for (int k = 0; k < o->num_blackouts; k++)
        if (o->blackouts[k].a >= machines || o->blackouts[k].b >= machines)
            return fail(ps, ps->blackout_line[k], "no such machine (machines are 0..%d)", machines - 1);
    for (int k = 0; k < o->num_hostiles; k++)
        if (o->hostiles[k].kind == SIM_HOSTILE_ONPATH && (o->hostiles[k].a >= machines || o->hostiles[k].b >= machines))
            return fail(ps, ps->hostile_line[k], "no such machine (machines are 0..%d)", machines - 1);
    for (int k = 0; k < o->num_hiccups; k++)
        if (o->hiccups[k].peer >= machines)
            return fail(ps, ps->hiccup_line[k], "no such machine (machines are 0..%d)", machines - 1);
    for (int k = 0; k < o->num_clock_jumps; k++)
        if (o->clock_jumps[k].peer >= machines)
            return fail(ps, ps->jump_line[k], "no such machine (machines are 0..%d)", machines - 1);
    for (int k = 0; k < o->num_drops; k++)
        if (o->drops[k].peer >= machines)
            return fail(ps, ps->drop_line[k], "no such machine (machines are 0..%d)", machines - 1);
    for (int m = machines; m < SIM_MAX_MACHINES; m++)
        if (ps->clock_line[m])
            return fail(ps, ps->clock_line[m], "no such machine (machines are 0..%d)", machines - 1);
    if (!o->input_delay_auto && o->max_prediction > 0 && o->input_delay > o->max_prediction)
        return fail(ps, ps->delay_line, "input delay %d is more than max-prediction %d", o->input_delay,
                    o->max_prediction);
    return true;
}

bool sim_scenario_parse(const char *text, const char *name, sim_options *o)
{
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.name = name;
    ps.o = o;
    o->mode = SIM_MODE_MATCH;
    const char *at = text;
    while (*at) {
        const char *nl = strchr(at, '\n');
        size_t n = nl ? (size_t)(nl - at) : strlen(at);
        ps.line++;
        if (n >= MAX_LINE)
            return fail(&ps, ps.line, "line too long (at most %d characters)", MAX_LINE - 1);
        char buf[MAX_LINE];
        memcpy(buf, at, n);
        buf[n] = '\0';
        if (!parse_line(&ps, buf))
            return false;
        at += n + (nl != NULL);
    }
    ps.line++;
    return check_whole(&ps);
}

bool sim_scenario_load(const char *path, sim_options *o)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "tempo-sim: cannot open scenario %s\n", path);
        return false;
    }
    char *text = malloc(MAX_FILE + 1);
    size_t n = text ? fread(text, 1, MAX_FILE + 1, f) : 0;
    bool read_error = ferror(f) != 0;
    fclose(f);
    if (!text || read_error || n > MAX_FILE) {
        fprintf(stderr, "tempo-sim: cannot read scenario %s%s\n", path, n > MAX_FILE ? " (over 1 MiB)" : "");
        free(text);
        return false;
    }
    text[n] = '\0';
    if (strlen(text) != n) {
        fprintf(stderr, "%s: not a text file (a NUL byte)\n", path);
        free(text);
        return false;
    }
    bool ok = sim_scenario_parse(text, path, o);
    free(text);
    return ok;
}
