/*
 * tempo_sim.c — tempo-sim's command line: parse options, pick the mode.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: tempo-sim [mode] [options]\n"
        "\n"
        "modes:\n"
        "  --synctest                 run the arena in a synctest session (default for now)\n"
        "\n"
        "options:\n"
        "  --players N                players, 1..8 (default 4)\n"
        "  --frames N                 frames to simulate (default 3600)\n"
        "  --check-distance D         synctest rollback distance, 1..64 (default 7)\n"
        "  --seed S                   seed of the bots and the board (default 1)\n"
        "  --save-policy every|sparse state saving policy (default every)\n"
        "  --nondeterministic-at F    plant a nondeterminism from frame F on\n"
        "  --json FILE                write the results as JSON\n"
        "  --quiet                    no summary\n"
        "  --help                     this text\n"
        "\n"
        "exit codes: 0 clean, 2 usage error, 3 mismatch or desync\n");
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

static int bad(const char *opt, const char *val)
{
    fprintf(stderr, "tempo-sim: bad value for %s: '%s'\n", opt, val ? val : "(missing)");
    usage(stderr);
    return SIM_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    sim_options o;
    memset(&o, 0, sizeof o);
    o.synctest = true;
    o.players = 4;
    o.frames = 3600;
    o.check_distance = 7;
    o.seed = 1;
    o.save_policy = TEMPO_SAVE_EVERY_FRAME;
    o.nondeterministic_at = -1;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t n;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return SIM_EXIT_OK;
        } else if (!strcmp(a, "--synctest")) {
            o.synctest = true;
        } else if (!strcmp(a, "--quiet")) {
            o.quiet = true;
        } else if (!strcmp(a, "--players")) {
            if (!parse_i64(v, 1, TEMPO_MAX_PLAYERS, &n))
                return bad(a, v);
            o.players = (int)n, i++;
        } else if (!strcmp(a, "--frames")) {
            if (!parse_i64(v, 1, 100000000, &n))
                return bad(a, v);
            o.frames = (int)n, i++;
        } else if (!strcmp(a, "--check-distance")) {
            if (!parse_i64(v, 1, TEMPO_MAX_PREDICTION, &n))
                return bad(a, v);
            o.check_distance = (int)n, i++;
        } else if (!strcmp(a, "--seed")) {
            if (!parse_i64(v, 0, INT64_MAX, &n))
                return bad(a, v);
            o.seed = (uint64_t)n, i++;
        } else if (!strcmp(a, "--nondeterministic-at")) {
            if (!parse_i64(v, 0, INT32_MAX, &n))
                return bad(a, v);
            o.nondeterministic_at = n, i++;
        } else if (!strcmp(a, "--save-policy")) {
            if (v && !strcmp(v, "every"))
                o.save_policy = TEMPO_SAVE_EVERY_FRAME;
            else if (v && !strcmp(v, "sparse"))
                o.save_policy = TEMPO_SAVE_SPARSE;
            else
                return bad(a, v);
            i++;
        } else if (!strcmp(a, "--json")) {
            if (!v)
                return bad(a, v);
            o.json_path = v, i++;
        } else {
            fprintf(stderr, "tempo-sim: unknown option '%s'\n", a);
            usage(stderr);
            return SIM_EXIT_USAGE;
        }
    }
    return sim_synctest(&o);
}
